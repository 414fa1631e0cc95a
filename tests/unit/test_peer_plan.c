/* Unit tests of the comparison made of peer files: variants named uniquely, benchmarks
 * matched by name with the missing ones warned about, and the mixes that are refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/error.h"

#include "core/peer_plan.h"

#define ERR_SIZE 1024

static void parse(const char *text, peer_file *f)
{
    peer_options o = {.format = PEER_AUTO};
    verdict_error err = {0};
    if (peer_text_parse("t", text, strlen(text), &o, f, &err) != 0)
        fail_msg("refused: %s", err.message);
}

static void free_files(peer_file *files, size_t n)
{
    for (size_t i = 0; i < n; i++)
        peer_file_free(&files[i]);
}

static const char hyperfine_before[] =
    "{\"results\": [{\"command\": \"make\", \"times\": [1, 2]}, {\"command\": \"ninja\", "
    "\"times\": [1, 2]}]}";

static void test_variants_get_unique_names(void **state)
{
    (void)state;
    peer_file files[3];
    parse(hyperfine_before, &files[0]);
    parse(hyperfine_before, &files[1]);
    parse("1\n2\n", &files[2]);
    const char *names[] = {"before.json", "after.json", "ninja"};
    peer_plan p;
    verdict_error err = {0};
    if (peer_plan_build(files, names, 3, &p, &err) != 0)
        fail_msg("%s", err.message);
    assert_int_equal(p.n_variants, 5);
    assert_int_equal(p.n_points, 1);
    assert_string_equal(p.points[0], PEER_PLAN_POINT);
    assert_string_equal(p.variants[0], "before.json: make");
    assert_string_equal(p.variants[1], "before.json: ninja");
    assert_string_equal(p.variants[2], "after.json: make");
    assert_string_equal(p.variants[4], "ninja: ninja");
    assert_int_equal(p.variant_files[4], 2);
    assert_string_equal(p.columns[3].variant, p.variants[3]);
    assert_string_equal(p.columns[0].metric, "value"); /* time and value mixed */
    peer_plan_free(&p);
    free_files(files, 3);
}

static void test_one_hyperfine_file_is_a_comparison(void **state)
{
    (void)state;
    peer_file f;
    parse(hyperfine_before, &f);
    const char *names[] = {"h.json"};
    peer_plan p;
    verdict_error err = {0};
    assert_int_equal(peer_plan_build(&f, names, 1, &p, &err), 0);
    assert_int_equal(p.n_columns, 2);
    assert_string_equal(p.columns[0].metric, "time");
    assert_string_equal(p.variants[0], "make");
    peer_plan_free(&p);
    peer_file_free(&f);
    parse("1\n2\n", &f);
    assert_int_equal(peer_plan_build(&f, names, 1, &p, &err), -1);
    assert_non_null(strstr(err.message, "h.json holds one variant only"));
    peer_file_free(&f);
}

static void test_benchmarks_matched_by_name(void **state)
{
    (void)state;
    peer_file files[3];
    parse("BenchmarkA-8 1 10 ns/op\nBenchmarkB-8 1 20 ns/op\nBenchmarkOld-8 1 5 ns/op\n", &files[0]);
    parse("BenchmarkB-8 1 21 ns/op\nBenchmarkA-8 1 11 ns/op\nBenchmarkNew-8 1 7 ns/op\n", &files[1]);
    parse("BenchmarkA-8 1 12 ns/op\n", &files[2]);
    const char *names[] = {"old.txt", "new.txt", "newer.txt"};
    peer_plan p;
    verdict_error err = {0};
    if (peer_plan_build(files, names, 3, &p, &err) != 0)
        fail_msg("%s", err.message);
    assert_int_equal(p.n_points, 2);
    assert_string_equal(p.points[0], "A-8");
    assert_string_equal(p.points[1], "B-8");
    assert_int_equal(p.n_columns, 5); /* A: 3 files, B: 2 */
    assert_string_equal(p.columns[2].variant, "newer.txt");
    assert_string_equal(p.columns[4].point, "B-8");
    assert_string_equal(p.columns[4].variant, "new.txt");
    assert_true(fabs(p.columns[4].series->samples.values[0] / 21e-9 - 1) < 1e-12);
    assert_int_equal(p.n_warnings, 3);
    assert_string_equal(p.warnings[0], "benchmark B-8 is not in newer.txt: compared in the "
                                       "other files only");
    assert_string_equal(p.warnings[1], "benchmark Old-8 is only in the baseline old.txt: not "
                                       "compared");
    assert_string_equal(p.warnings[2], "benchmark New-8 is in new.txt but not in the baseline "
                                       "old.txt: not compared");
    peer_plan_free(&p);
    free_files(files, 3);
}

static void test_refused_mixes(void **state)
{
    (void)state;
    peer_file files[2];
    const char *names[] = {"a", "b"};
    peer_plan p;
    verdict_error err = {0};
    parse("BenchmarkA-8 1 10 ns/op\n", &files[0]);
    parse("1\n2\n", &files[1]);
    assert_int_equal(peer_plan_build(files, names, 2, &p, &err), -1);
    assert_non_null(strstr(err.message, "a is go and b is numbers"));
    peer_file_free(&files[1]);
    parse("{\"context\": {}, \"benchmarks\": [{\"name\": \"A-8\", \"real_time\": 1}]}",
          &files[1]);
    assert_int_equal(peer_plan_build(files, names, 2, &p, &err), -1);
    assert_non_null(strstr(err.message, "a is go and b is gbench"));
    peer_file_free(&files[1]);
    parse("BenchmarkB-8 1 10 ns/op\n", &files[1]);
    assert_int_equal(peer_plan_build(files, names, 2, &p, &err), -1);
    assert_non_null(strstr(err.message, "no benchmark of the baseline a (A-8) is in the other "
                           "files"));
    assert_int_equal(peer_plan_build(files, names, 1, &p, &err), -1);
    assert_non_null(strstr(err.message, "a is one variant"));
    free_files(files, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_variants_get_unique_names),
        cmocka_unit_test(test_one_hyperfine_file_is_a_comparison),
        cmocka_unit_test(test_benchmarks_matched_by_name),
        cmocka_unit_test(test_refused_mixes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

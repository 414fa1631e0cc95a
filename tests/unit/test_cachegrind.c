/* Tests of core/cachegrind: the counts and their simulations, the valgrind command line, the
 * reader on fixture files (exact sums, malformed files named with their line), and real runs
 * of spin under valgrind (linear instruction counts, children, failures, nothing left). */
#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/strbuf.h"
#include "common/error.h"
#include "core/cachegrind.h"

extern char **environ;

enum { ROUNDS = 200000 };

static const char *env_or_fail(const char *variable)
{
    const char *value = getenv(variable);
    if (value == NULL)
        fail_msg("%s is not set (meson test sets it)", variable);
    return value;
}

static void fixture_path(const char *name, char *path, size_t len)
{
    snprintf(path, len, "%s/%s", env_or_fail("CACHEGRIND_FIXTURES"), name);
}

static int parse_fixture(const char *name, cachegrind_totals *totals, verdict_error *err)
{
    char path[4096];
    verdict_error why = {0};
    fixture_path(name, path, sizeof path);
    strbuf text = STRBUF_INIT;
    if (strbuf_append_file(&text, path, 1 << 20, &why) != 0)
        fail_msg("%s", why);
    int rc = cachegrind_parse(strbuf_text(&text), text.length, name, totals, err);
    strbuf_free(&text);
    return rc;
}

static uint64_t value_of(const cachegrind_totals *totals, const char *name)
{
    uint64_t value = 0;
    verdict_error err;
    if (cachegrind_value(totals, cachegrind_count_find(name), &value, &err) != 0)
        fail_msg("%s: %s", name, err.message);
    return value;
}

static void counts_name_their_simulations(void **state)
{
    (void)state;
    cachegrind_options options;
    verdict_error err;
    const char *plain[] = {"instructions", "instructions:u"};
    assert_int_equal(cachegrind_options_for(plain, 2, &options, &err), 0);
    assert_false(options.cache_sim);
    assert_false(options.branch_sim);
    const char *cache[] = {"instructions", "cache-misses"};
    assert_int_equal(cachegrind_options_for(cache, 2, &options, &err), 0);
    assert_true(options.cache_sim);
    assert_false(options.branch_sim);
    const char *branch[] = {"branch-misses"};
    assert_int_equal(cachegrind_options_for(branch, 1, &options, &err), 0);
    assert_false(options.cache_sim);
    assert_true(options.branch_sim);
    const char *cycles[] = {"instructions", "cycles"};
    assert_int_equal(cachegrind_options_for(cycles, 2, &options, &err), -1);
    assert_true(error_is(&err, ERROR_USAGE));
    assert_non_null(strstr(err.message, "'cycles' cannot be counted under --counters valgrind"));
    for (size_t i = 0; i < cachegrind_count_count(); i++)
        assert_non_null(strstr(err.message, cachegrind_count_at(i)->name));
    const char *typo[] = {"instrucions"};
    assert_int_equal(cachegrind_options_for(typo, 1, &options, &err), -1);
    assert_non_null(strstr(err.message, "did you mean 'instructions'?"));
    const char *kernel[] = {"instructions:k"};
    assert_int_equal(cachegrind_options_for(kernel, 1, &options, &err), -1);
    assert_non_null(strstr(err.message, "user space only"));
    const char *unknown[] = {"instructions:x"};
    assert_int_equal(cachegrind_options_for(unknown, 1, &options, &err), -1);
    assert_non_null(strstr(err.message, "unknown modifier ':x'"));
}

static void the_command_line_runs_every_process_under_cachegrind(void **state)
{
    (void)state;
    char *command[] = {"spin", "1000", NULL};
    cachegrind_options options = {.cache_sim = true, .branch_sim = false};
    char **argv = NULL;
    verdict_error err;
    assert_int_equal(cachegrind_argv("/usr/bin/valgrind", command, "/tmp/d", &options, &argv,
                                     &err), 0);
    static const char *const expected[] = {
        "/usr/bin/valgrind", "-q", "--tool=cachegrind", "--trace-children=yes",
        "--cachegrind-out-file=/tmp/d/cg.%p", "--cache-sim=yes", "--branch-sim=no", "spin",
        "1000", NULL};
    for (size_t i = 0; expected[i] != NULL; i++)
        assert_string_equal(argv[i], expected[i]);
    assert_null(argv[sizeof expected / sizeof expected[0] - 1]);
    cachegrind_argv_free(argv);
}

static void a_file_with_a_summary_is_read_exactly(void **state)
{
    (void)state;
    cachegrind_totals totals;
    verdict_error err;
    assert_int_equal(parse_fixture("with_summary.cg", &totals, &err), 0);
    assert_int_equal(totals.n, 13);
    assert_int_equal(totals.files, 1);
    assert_int_equal(value_of(&totals, "instructions"), 5139);
    assert_int_equal(value_of(&totals, "cache-misses"), 25 + 2 + 1);
    assert_int_equal(value_of(&totals, "cache-references"), 25 + 6 + 1);
    assert_int_equal(value_of(&totals, "L1-dcache-load-misses"), 6);
    assert_int_equal(value_of(&totals, "branches"), 1011 + 20);
    assert_int_equal(value_of(&totals, "branch-misses"), 9 + 12);
}

/* Without a summary the per-line counts are the totals, a short line's missing counts zero. */
static void a_file_without_a_summary_is_added_up(void **state)
{
    (void)state;
    cachegrind_totals totals, sum = {0};
    verdict_error err;
    assert_int_equal(parse_fixture("no_summary.cg", &totals, &err), 0);
    assert_int_equal(totals.n, 1);
    assert_int_equal(value_of(&totals, "instructions"), 100 + 250 + 3);
    uint64_t misses;
    assert_int_equal(cachegrind_value(&totals, cachegrind_count_find("cache-misses"), &misses,
                                      &err), -1);
    assert_non_null(strstr(err.message, "no ILmr count"));
    assert_non_null(strstr(err.message, "--cache-sim=yes"));
    /* two files of one run add up event by event */
    assert_int_equal(cachegrind_add(&sum, &totals, &err), 0);
    assert_int_equal(parse_fixture("with_summary.cg", &totals, &err), 0);
    assert_int_equal(cachegrind_add(&sum, &totals, &err), 0);
    assert_int_equal(sum.files, 2);
    assert_int_equal(value_of(&sum, "instructions"), 353 + 5139);
    assert_int_equal(value_of(&sum, "branch-misses"), 21);
}

static void malformed_files_are_refused_with_their_line(void **state)
{
    (void)state;
    static const struct {
        const char *file, *message;
    } cases[] = {
        {"bad_number.cg", "bad_number.cg:4: a count is not a whole number: '12 5x0 3'"},
        {"before_events.cg", "before_events.cg:2: a line before the 'events:' line"},
        {"summary_mismatch.cg", "summary_mismatch.cg:6: the summary's Ir is 10 but the lines "
                                "add up to 9"},
        {"too_many_counts.cg", "too_many_counts.cg:4: more counts than events"},
        {"overflow.cg", "overflow.cg:4: the counts overflow 64 bits"},
        {"not_cachegrind.cg", "not_cachegrind.cg:1: a line before the 'events:' line"},
        {"two_summaries.cg", "two_summaries.cg:5: a second 'summary:' line"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cachegrind_totals totals;
        verdict_error err;
        assert_int_equal(parse_fixture(cases[i].file, &totals, &err), -1);
        assert_true(error_is(&err, ERROR_BAD_INPUT));
        if (strstr(err.message, cases[i].message) == NULL)
            fail_msg("%s: '%s' lacks '%s'", cases[i].file, err.message, cases[i].message);
    }
    cachegrind_totals totals;
    verdict_error err;
    assert_int_equal(cachegrind_parse("", 0, "empty", &totals, &err), -1);
    assert_non_null(strstr(err.message, "empty: no 'events:' line"));
    assert_int_equal(cachegrind_parse("events: Ir\n1 2\0 3\n", 17, "nul", &totals, &err), -1);
    assert_non_null(strstr(err.message, "nul:2: a count is not a whole number: '1 2? 3'"));
}

static bool valgrind_missing(void)
{
    char path[4096];
    verdict_error err;
    if (cachegrind_find_valgrind(path, sizeof path, &err) == 0)
        return false;
    if (getenv("VERDICT_CI") != NULL)
        fail_msg("%s (CI installs it: scripts/setup.sh --tests)", err.message);
    print_message("SKIPPED: %s\n", err.message);
    return true;
}

static size_t entries_in(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    size_t n = 0;
    for (struct dirent *e = readdir(d); e != NULL; e = readdir(d))
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

/* Each run gets its own TMPDIR, which must be empty again after it. */
static int make_tmpdir(void **state)
{
    char *dir = strdup("/tmp/test_cachegrind.XXXXXX");
    assert_non_null(mkdtemp(dir));
    setenv("TMPDIR", dir, 1);
    *state = dir;
    return 0;
}

static int remove_tmpdir(void **state)
{
    rmdir(*state);
    free(*state);
    return 0;
}

static double seconds_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static cachegrind_totals run_spin(long rounds, char *const envp[], cachegrind_options options)
{
    char text[32];
    snprintf(text, sizeof text, "%ld", rounds);
    char *argv[] = {(char *)env_or_fail("SPIN"), text, NULL};
    cachegrind_totals totals;
    verdict_error err;
    double start = seconds_now();
    if (cachegrind_measure_command(argv, envp, &options, NULL, &totals, &err) != 0)
        fail_msg("%s", err.message);
    print_message("spin %ld under cachegrind%s%s: %llu instructions, %.2f s\n", rounds,
                  options.cache_sim ? " (cache)" : "", options.branch_sim ? " (branch)" : "",
                  (unsigned long long)value_of(&totals, "instructions"), seconds_now() - start);
    return totals;
}

static double instructions_of(long rounds, char *const envp[])
{
    cachegrind_totals totals = run_spin(rounds, envp, (cachegrind_options){false, false});
    return (double)value_of(&totals, "instructions");
}

/* The loop's rounds cost the same every time: N more rounds add as many instructions from N
 * to 2N as from 0 to N, to within 0.1%. */
static void instructions_grow_with_the_rounds(void **state)
{
    if (valgrind_missing()) {
        skip();
        return;
    }
    double none = instructions_of(0, NULL), once = instructions_of(ROUNDS, NULL);
    double twice = instructions_of(2 * ROUNDS, NULL);
    print_message("instructions: %.0f more from 0 to N rounds, %.0f from N to 2N\n",
                  once - none, twice - once);
    assert_true(once - none >= ROUNDS);
    assert_true(fabs((twice - once) - (once - none)) <= 0.001 * (once - none));
    assert_int_equal(entries_in(*state), 0);
}

/* The environment's size moves the stack and the loader's work: counts differ, slightly. */
static void another_environment_size_differs_slightly(void **state)
{
    (void)state;
    if (valgrind_missing()) {
        skip();
        return;
    }
    size_t n = 0;
    while (environ[n] != NULL)
        n++;
    char **bigger = calloc(n + 2, sizeof *bigger);
    assert_non_null(bigger);
    memcpy(bigger, environ, n * sizeof *bigger);
    char padding[4096 + 16] = "VERDICT_PAD=";
    memset(padding + strlen(padding), 'x', 4096);
    bigger[n] = padding;
    double small = instructions_of(ROUNDS, NULL), large = instructions_of(ROUNDS, bigger);
    free(bigger);
    print_message("instructions: %.0f with this environment, %.0f with 4 KiB more (%+.4f%%)\n",
                  small, large, 100 * (large - small) / small);
    assert_true(fabs(large - small) <= 0.005 * small);
}

/* With the simulations, the loop's branches are there and the misses are fewer than the
 * accesses; the instruction count is the same as without them. */
static void simulations_add_misses(void **state)
{
    (void)state;
    if (valgrind_missing()) {
        skip();
        return;
    }
    cachegrind_totals plain = run_spin(ROUNDS, NULL, (cachegrind_options){false, false});
    cachegrind_totals both = run_spin(ROUNDS, NULL, (cachegrind_options){true, true});
    double a = (double)value_of(&plain, "instructions"), b = (double)value_of(&both,
                                                                              "instructions");
    assert_true(fabs(a - b) <= 0.001 * a);
    assert_true(value_of(&both, "branches") >= ROUNDS);
    assert_true(value_of(&both, "branch-misses") < value_of(&both, "branches"));
    assert_true(value_of(&both, "cache-misses") > 0);
    assert_true(value_of(&both, "cache-misses") <= value_of(&both, "cache-references"));
    print_message("branches %llu, branch-misses %llu, cache-references %llu, cache-misses "
                  "%llu\n", (unsigned long long)value_of(&both, "branches"),
                  (unsigned long long)value_of(&both, "branch-misses"),
                  (unsigned long long)value_of(&both, "cache-references"),
                  (unsigned long long)value_of(&both, "cache-misses"));
}

/* A shell that runs spin: two processes, two files, both counted. */
static void children_are_counted(void **state)
{
    if (valgrind_missing()) {
        skip();
        return;
    }
    cachegrind_options plain = {false, false};
    double alone = instructions_of(ROUNDS, NULL);
    char script[4096];
    snprintf(script, sizeof script, "%s %d; true", env_or_fail("SPIN"), ROUNDS);
    char *argv[] = {"sh", "-c", script, NULL};
    cachegrind_totals totals;
    verdict_error err;
    if (cachegrind_measure_command(argv, NULL, &plain, NULL, &totals, &err) != 0)
        fail_msg("%s", err.message);
    print_message("sh -c 'spin %d; true': %zu files, %llu instructions\n", ROUNDS, totals.files,
                  (unsigned long long)value_of(&totals, "instructions"));
    assert_int_equal(totals.files, 2);
    assert_true((double)value_of(&totals, "instructions") > alone);
    assert_int_equal(entries_in(*state), 0);
}

static void a_failed_run_is_named_with_its_stderr(void **state)
{
    if (valgrind_missing()) {
        skip();
        return;
    }
    char *argv[] = {(char *)env_or_fail("SPIN"), "many", NULL};
    cachegrind_options plain = {false, false};
    cachegrind_totals totals;
    verdict_error err;
    assert_int_equal(cachegrind_measure_command(argv, NULL, &plain, NULL, &totals, &err), -1);
    assert_true(error_is(&err, ERROR_COMMAND_FAILED));
    assert_non_null(strstr(err.message, "spin many' under cachegrind exited with status 2"));
    assert_non_null(strstr(err.message, "usage: spin ROUNDS"));
    assert_int_equal(entries_in(*state), 0);
}

static void a_missing_valgrind_says_how_to_install_it(void **state)
{
    char *argv[] = {(char *)env_or_fail("SPIN"), "10", NULL};
    char *path = strdup(env_or_fail("PATH"));
    setenv("PATH", "/nonexistent", 1);
    cachegrind_options plain = {false, false};
    cachegrind_totals totals;
    verdict_error err;
    int rc = cachegrind_measure_command(argv, NULL, &plain, NULL, &totals, &err);
    setenv("PATH", path, 1);
    free(path);
    assert_int_equal(rc, -1);
    assert_true(error_is(&err, ERROR_USAGE));
    assert_string_equal(err.message, "valgrind is not installed: apt-get install valgrind");
    assert_int_equal(entries_in(*state), 0);
}

/* A run's directory holding a malformed file: the error names it, and every file goes. */
static void collect_removes_every_file(void **state)
{
    char *dir = *state;
    static const char *const files[] = {"with_summary.cg", "bad_number.cg", "no_summary.cg"};
    for (size_t i = 0; i < 3; i++) {
        char from[4096], to[4096];
        verdict_error why = {0};
        fixture_path(files[i], from, sizeof from);
        snprintf(to, sizeof to, "%s/cg.%zu", dir, 100 + i);
        strbuf text = STRBUF_INIT;
        assert_int_equal(strbuf_append_file(&text, from, 1 << 20, &why), 0);
        FILE *f = fopen(to, "w");
        assert_non_null(f);
        fwrite(strbuf_text(&text), 1, text.length, f);
        fclose(f);
        strbuf_free(&text);
    }
    cachegrind_totals totals;
    verdict_error err;
    assert_int_equal(cachegrind_collect(dir, &totals, &err), -1);
    assert_true(error_is(&err, ERROR_BAD_INPUT));
    assert_non_null(strstr(err.message, "/cg.101:4: a count is not a whole number"));
    assert_int_equal(entries_in(dir), 0);
    assert_int_equal(cachegrind_collect(dir, &totals, &err), -1);
    assert_true(error_is(&err, ERROR_COMMAND_FAILED));
    assert_non_null(strstr(err.message, "cachegrind wrote no output file in"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(counts_name_their_simulations),
        cmocka_unit_test(the_command_line_runs_every_process_under_cachegrind),
        cmocka_unit_test(a_file_with_a_summary_is_read_exactly),
        cmocka_unit_test(a_file_without_a_summary_is_added_up),
        cmocka_unit_test(malformed_files_are_refused_with_their_line),
        cmocka_unit_test_setup_teardown(instructions_grow_with_the_rounds, make_tmpdir,
                                        remove_tmpdir),
        cmocka_unit_test_setup_teardown(another_environment_size_differs_slightly,
                                        make_tmpdir, remove_tmpdir),
        cmocka_unit_test_setup_teardown(simulations_add_misses, make_tmpdir, remove_tmpdir),
        cmocka_unit_test_setup_teardown(children_are_counted, make_tmpdir, remove_tmpdir),
        cmocka_unit_test_setup_teardown(a_failed_run_is_named_with_its_stderr, make_tmpdir,
                                        remove_tmpdir),
        cmocka_unit_test_setup_teardown(a_missing_valgrind_says_how_to_install_it, make_tmpdir,
                                        remove_tmpdir),
        cmocka_unit_test_setup_teardown(collect_removes_every_file, make_tmpdir, remove_tmpdir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

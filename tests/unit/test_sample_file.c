/* Unit tests of the sample-file parser: columns, comments, and every rejected input
 * with the file:line message a user needs to find it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "core/sample_file.h"

static int parse(const char *text, int column, sample_series *s, char *err)
{
    return sample_text_parse("t.txt", text, strlen(text), column, s, err, 256);
}

static void test_numbers_comments_blanks(void **state)
{
    (void)state;
    sample_series s;
    char err[256];
    assert_int_equal(parse("# header\n1.5\n\n  2e3  \n# x\n3\n", 0, &s, err), 0);
    assert_int_equal(s.n, 3);
    assert_true(s.values[0] == 1.5 && s.values[1] == 2000.0 && s.values[2] == 3.0);
    assert_int_equal(s.lines[0], 2);
    assert_int_equal(s.lines[1], 4);
    assert_int_equal(s.lines[2], 6);
    sample_series_free(&s);
}

static void test_column_like_ministat(void **state)
{
    (void)state;
    sample_series s;
    char err[256];
    const char *text = "no-strict-aliasing.1 tps = 7140.253910\r\n"
                       "no-strict-aliasing.1 tps = 7291.465297\n";
    assert_int_equal(parse(text, 4, &s, err), 0);
    assert_int_equal(s.n, 2);
    assert_true(s.values[0] == 7140.253910 && s.values[1] == 7291.465297);
    sample_series_free(&s);
}

static void expect_error(const char *text, int column, const char *fragment)
{
    sample_series s;
    char err[256] = "";
    assert_int_equal(parse(text, column, &s, err), -1);
    if (strstr(err, fragment) == NULL)
        fail_msg("message \"%s\" lacks \"%s\"", err, fragment);
    assert_null(s.values);
}

static void test_rejections(void **state)
{
    (void)state;
    expect_error("", 0, "t.txt: no samples");
    expect_error("# only\n\n", 0, "no samples");
    expect_error("1\n2\nabc\n", 0, "t.txt:3: not a number: \"abc\"");
    expect_error("1\n12x\n", 0, "t.txt:2: not a number");
    expect_error("1\n0\n", 0, "t.txt:2: value 0 is not positive");
    expect_error("-4\n", 0, "t.txt:1: value -4 is not positive");
    expect_error("nan\n", 0, "not positive");
    expect_error("inf\n", 0, "not positive");
    expect_error("1e999\n", 0, "not a number");
    expect_error("a b\n", 3, "t.txt:1: no column 3 in \"a b\"");
    expect_error("1\x01\n", 0, "\\x01");
}

static void test_nul_byte_is_not_a_number(void **state)
{
    (void)state;
    sample_series s;
    char err[256];
    const char text[] = {'1', '\0', '2', '\n'};
    assert_int_equal(sample_text_parse("t.txt", text, sizeof text, 0, &s, err, sizeof err), -1);
    assert_non_null(strstr(err, "t.txt:1"));
}

static void test_missing_file(void **state)
{
    (void)state;
    sample_series s;
    char err[256];
    assert_int_equal(sample_file_read("/nonexistent/verdict-samples", 0, &s, err, sizeof err), -1);
    assert_non_null(strstr(err, "/nonexistent/verdict-samples: cannot open"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_numbers_comments_blanks),
        cmocka_unit_test(test_column_like_ministat),
        cmocka_unit_test(test_rejections),
        cmocka_unit_test(test_nul_byte_is_not_a_number),
        cmocka_unit_test(test_missing_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

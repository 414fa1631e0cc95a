/* Unit tests of the sample-file parser: columns, comments, and every rejected input
 * with the file:line message a user needs to find it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "common/error.h"

#include "core/sample_file.h"

static int parse(const char *text, int column, sample_series *s, verdict_error *err)
{
    return sample_text_parse("t.txt", text, strlen(text), column, s, err);
}

static void test_numbers_comments_blanks(void **state)
{
    (void)state;
    sample_series s;
    verdict_error err = {0};
    assert_int_equal(parse("# header\n1.5\n\n  2e3  \n# x\n3\n", 0, &s, &err), 0);
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
    verdict_error err = {0};
    const char *text = "no-strict-aliasing.1 tps = 7140.253910\r\n"
                       "no-strict-aliasing.1 tps = 7291.465297\n";
    assert_int_equal(parse(text, 4, &s, &err), 0);
    assert_int_equal(s.n, 2);
    assert_true(s.values[0] == 7140.253910 && s.values[1] == 7291.465297);
    sample_series_free(&s);
}

static void expect_error(const char *text, int column, const char *fragment)
{
    sample_series s;
    verdict_error err = {0};
    assert_int_equal(parse(text, column, &s, &err), -1);
    if (strstr(err.message, fragment) == NULL)
        fail_msg("message \"%s\" lacks \"%s\"", err.message, fragment);
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
    expect_error("nan\n", 0, "t.txt:1: \"nan\" is not a finite number");
    expect_error("1\n-Infinity\n", 0, "t.txt:2: \"-Infinity\" is not a finite number");
    expect_error("1e999\n", 0, "t.txt:1: \"1e999\" is too large");
    expect_error("1e-400\n", 0, "t.txt:1: \"1e-400\" is too small: it rounds to 0");
    expect_error("0e-400\n", 0, "t.txt:1: value 0e-400 is not positive");
    expect_error("1.\n.\n", 0, "t.txt:2: not a number: \".\"");
    expect_error("1e\n", 0, "t.txt:1: not a number: \"1e\"");
    expect_error("3 0x10\n", 2, "t.txt:1: \"0x10\" is hexadecimal");
    expect_error("a b\n", 3, "t.txt:1: no column 3 in \"a b\"");
    expect_error("1\x01\n", 0, "\\x01");
}

/* strtod reads 0x10 as 16, inf and nan as themselves: each was taken (or refused as
 * "not positive") before; now each is refused naming its line and text. */
static void test_hex_infinities_and_nan_are_refused(void **state)
{
    (void)state;
    expect_error("1\n0x10\n", 0, "t.txt:2: \"0x10\" is hexadecimal");
    expect_error("-0X1p4\n", 0, "t.txt:1: \"-0X1p4\" is hexadecimal");
    expect_error("INF\n", 0, "t.txt:1: \"INF\" is not a finite number");
    expect_error("nan(0x1)\n", 0, "t.txt:1: \"nan(0x1)\" is not a finite number");
}

/* 1e-308 is subnormal: strtod says ERANGE, and it used to be "not a number"; a number
 * written with 300 digits used to overflow a 128-byte buffer into "not a number". */
static void test_subnormal_and_long_numbers_are_read(void **state)
{
    (void)state;
    static char text[70000];
    size_t used = (size_t)snprintf(text, sizeof text, "1e-308\n4.9e-324\n1.");
    for (int i = 0; i < 60000; i++)
        text[used++] = i == 59999 ? '1' : '0';
    text[used++] = '\n';
    sample_series s;
    verdict_error err = {0};
    if (sample_text_parse("t.txt", text, used, 0, &s, &err) != 0)
        fail_msg("%s", err.message);
    assert_int_equal(s.n, 3);
    assert_true(s.values[0] == 1e-308 && s.values[1] > 0.0 && s.values[2] == 1.0);
    sample_series_free(&s);
}

static void test_nul_byte_is_not_a_number(void **state)
{
    (void)state;
    sample_series s;
    verdict_error err = {0};
    const char text[] = {'1', '\0', '2', '\n'};
    assert_int_equal(sample_text_parse("t.txt", text, sizeof text, 0, &s, &err), -1);
    assert_non_null(strstr(err.message, "t.txt:1"));
}

static void test_missing_file(void **state)
{
    (void)state;
    char *text = NULL;
    size_t length = 0;
    verdict_error err = {0};
    assert_int_equal(sample_file_load("/nonexistent/verdict-samples", &text, &length, &err), -1);
    assert_null(text);
    assert_non_null(strstr(err.message, "/nonexistent/verdict-samples: cannot open"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_numbers_comments_blanks),
        cmocka_unit_test(test_column_like_ministat),
        cmocka_unit_test(test_rejections),
        cmocka_unit_test(test_hex_infinities_and_nan_are_refused),
        cmocka_unit_test(test_subnormal_and_long_numbers_are_read),
        cmocka_unit_test(test_nul_byte_is_not_a_number),
        cmocka_unit_test(test_missing_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

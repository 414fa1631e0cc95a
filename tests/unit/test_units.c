/* Unit tests for report/units.c and report/text_style.c: the unit picked for a value, the
 * digits written, --time-unit, --style and --sort values, the colour decision, "×N". */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "common/utf8.h"
#include "common/error.h"
#include "report/text_style.h"
#include "report/units.h"

static void assert_time(double seconds, units_time unit, const char *want)
{
    char buf[64];
    units_format_time(seconds, unit, buf, sizeof buf);
    assert_string_equal(buf, want);
}

static void assert_plain(double value, const char *want)
{
    char buf[64];
    units_format_plain(value, buf, sizeof buf);
    assert_string_equal(buf, want);
}

static void test_pick_reads_one_to_999(void **state)
{
    (void)state;
    assert_int_equal(units_pick(0.0347835, UNITS_AUTO), UNITS_MS);
    assert_int_equal(units_pick(0.000999, UNITS_AUTO), UNITS_US);
    assert_int_equal(units_pick(0.001, UNITS_AUTO), UNITS_MS);
    assert_int_equal(units_pick(2.5e-5, UNITS_AUTO), UNITS_US);
    assert_int_equal(units_pick(5e-7, UNITS_AUTO), UNITS_NS);
    assert_int_equal(units_pick(1.0, UNITS_AUTO), UNITS_S);
    assert_int_equal(units_pick(4000.0, UNITS_AUTO), UNITS_S);
    assert_int_equal(units_pick(0.0, UNITS_AUTO), UNITS_S);
    assert_int_equal(units_pick(NAN, UNITS_AUTO), UNITS_S);
    assert_int_equal(units_pick(0.0347835, UNITS_S), UNITS_S); /* forced wins */
    assert_int_equal(units_pick(3.0, UNITS_NS), UNITS_NS);
}

static void test_time_has_four_significant_digits(void **state)
{
    (void)state;
    assert_time(0.0347835, UNITS_MS, "34.78 ms");
    assert_time(0.0011, UNITS_MS, "1.100 ms");
    assert_time(0.1234567, UNITS_MS, "123.5 ms");
    assert_time(1.5e-6, UNITS_US, "1.500 \xc2\xb5s");
    assert_time(4.2e-9, UNITS_NS, "4.200 ns");
    assert_time(2.5, UNITS_MS, "2500 ms");       /* a forced unit may pass 999 */
    assert_time(2.5e-5, UNITS_MS, "0.02500 ms"); /* ... or stay below 1 */
    assert_time(0.0, UNITS_MS, "0 ms");
    assert_time(NAN, UNITS_MS, "-");
}

static void test_plain_numbers_avoid_needless_exponents(void **state)
{
    (void)state;
    assert_plain(42, "42");
    assert_plain(1234.6, "1235");
    assert_plain(123456.7, "123457");
    assert_plain(9999999, "9999999");
    assert_plain(12345678, "1.235e+07");
    assert_plain(0.0123456, "0.01235");
    assert_plain(NAN, "-");
}

static void test_value_follows_the_format(void **state)
{
    (void)state;
    char buf[64];
    units_format time = units_for(true, 0.02, UNITS_AUTO);
    units_format plain = units_for(false, 0.02, UNITS_AUTO);
    units_format_value(&time, 0.0347835, buf, sizeof buf);
    assert_string_equal(buf, "34.78 ms");
    units_format_value(&plain, 0.0347835, buf, sizeof buf);
    assert_string_equal(buf, "0.03478");
}

static void test_parse_time_unit(void **state)
{
    (void)state;
    static const struct { const char *text; units_time unit; } ok[] = {
        {"ns", UNITS_NS}, {"nanosecond", UNITS_NS}, {"us", UNITS_US}, {"\xc2\xb5s", UNITS_US},
        {"microsecond", UNITS_US}, {"ms", UNITS_MS}, {"millisecond", UNITS_MS}, {"s", UNITS_S},
        {"second", UNITS_S},
    };
    verdict_error err = {0};
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
        units_time unit = UNITS_AUTO;
        assert_int_equal(units_parse_time(ok[i].text, &unit, &err), 0);
        assert_int_equal(unit, ok[i].unit);
    }
    units_time unit = UNITS_AUTO;
    assert_int_equal(units_parse_time("minutes", &unit, &err), -1);
    assert_non_null(strstr(err.message, "'minutes'"));
    assert_non_null(strstr(err.message, "ns, us"));
    assert_int_equal(unit, UNITS_AUTO);
    assert_int_equal(units_parse_time("", &unit, &err), -1);
}

static void test_times_beyond_two(void **state)
{
    (void)state;
    char buf[32];
    /* a CV of all-zero values is 0/0: a dash, never "-nan%" */
    units_format_cv(0.1234, buf, sizeof buf);
    assert_string_equal(buf, "12.34%");
    units_format_cv(NAN, buf, sizeof buf);
    assert_string_equal(buf, "\xe2\x80\x93");
    assert_int_equal(units_format_times(1.5, buf, sizeof buf), 0);
    assert_string_equal(buf, "");
    assert_int_equal(units_format_times(2.0, buf, sizeof buf), 0);
    assert_int_equal(units_format_times(0.5, buf, sizeof buf), 0);
    units_format_times(2.432, buf, sizeof buf);
    assert_string_equal(buf, "\xc3\x97" "2.43");
    units_format_times(0.41, buf, sizeof buf);
    assert_string_equal(buf, "\xc3\x97" "0.41");
    units_format_times(250.4, buf, sizeof buf);
    assert_string_equal(buf, "\xc3\x97" "250");
    assert_int_equal(units_format_times(NAN, buf, sizeof buf), 0);
    assert_int_equal(units_format_times(0.0, buf, sizeof buf), 0);
}

static void test_columns_count_characters(void **state)
{
    (void)state;
    assert_int_equal(utf8_width("1.500 \xc2\xb5s"), 8);
    assert_int_equal(utf8_width("34.78 ms"), 8);
}

static void test_colour_decision(void **state)
{
    (void)state;
    assert_true(text_style_wants_color(TEXT_STYLE_AUTO, true, NULL));
    assert_true(text_style_wants_color(TEXT_STYLE_AUTO, true, ""));   /* empty: not set */
    assert_false(text_style_wants_color(TEXT_STYLE_AUTO, true, "1"));
    assert_false(text_style_wants_color(TEXT_STYLE_AUTO, false, NULL));
    assert_true(text_style_wants_color(TEXT_STYLE_FULL, false, "1"));
    assert_true(text_style_wants_color(TEXT_STYLE_COLOR, false, NULL));
    assert_false(text_style_wants_color(TEXT_STYLE_BASIC, true, NULL));
    assert_false(text_style_wants_color(TEXT_STYLE_NOCOLOR, true, NULL));
    assert_false(text_style_wants_color(TEXT_STYLE_NONE, true, NULL));
    assert_true(text_style_wants_progress(TEXT_STYLE_NOCOLOR));
    assert_false(text_style_wants_progress(TEXT_STYLE_BASIC));
    assert_false(text_style_wants_progress(TEXT_STYLE_NONE));
}

static void test_parse_style_and_sort(void **state)
{
    (void)state;
    verdict_error err = {0};
    text_style_mode mode = TEXT_STYLE_AUTO;
    text_sort sort = TEXT_SORT_AUTO;
    assert_int_equal(text_style_parse_mode("nocolor", &mode, &err), 0);
    assert_int_equal(mode, TEXT_STYLE_NOCOLOR);
    assert_int_equal(text_style_parse_mode("colour", &mode, &err), -1);
    assert_non_null(strstr(err.message, "'colour'"));
    assert_int_equal(text_style_parse_sort("mean-time", &sort, &err), 0);
    assert_int_equal(sort, TEXT_SORT_MEAN);
    assert_int_equal(text_style_parse_sort("name", &sort, &err), -1);
    assert_non_null(strstr(err.message, "mean-time"));
}

static void test_time_metrics(void **state)
{
    (void)state;
    static const char *const peers[] = {"sec/op"};
    report_text_style style = {0};
    assert_true(text_style_is_time(&style, "wall"));
    assert_true(text_style_is_time(&style, "sys"));
    assert_false(text_style_is_time(&style, "maxrss"));
    assert_false(text_style_is_time(&style, "sec/op"));
    style.time_metrics = peers;
    style.n_time_metrics = 1;
    assert_true(text_style_is_time(&style, "sec/op"));
    assert_false(text_style_is_time(&style, "ops"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pick_reads_one_to_999),
        cmocka_unit_test(test_time_has_four_significant_digits),
        cmocka_unit_test(test_plain_numbers_avoid_needless_exponents),
        cmocka_unit_test(test_value_follows_the_format),
        cmocka_unit_test(test_parse_time_unit),
        cmocka_unit_test(test_times_beyond_two),
        cmocka_unit_test(test_columns_count_characters),
        cmocka_unit_test(test_colour_decision),
        cmocka_unit_test(test_parse_style_and_sort),
        cmocka_unit_test(test_time_metrics),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

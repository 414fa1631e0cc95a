/* Unit tests for percent_text.c: two significant digits in fixed notation at every scale,
 * where printf's %.2g writes 100 as "1e+02" and 0.00001 as "1e-05". */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "stats/percent_text.h"

static void expect(double percent, const char *want)
{
    char buf[64];
    stats_percent_text(percent, buf, sizeof buf);
    assert_string_equal(buf, want);
}

static void two_digits_without_an_exponent(void **state)
{
    (void)state;
    expect(100.0, "100");
    expect(2500.0, "2500");
    expect(37.4, "37");
    expect(7.4, "7.4");
    expect(0.024, "0.024");
    expect(0.00001234, "0.000012");
    expect(-7.4, "-7.4");
    expect(0.0, "0");
    expect(5.0, "5"); /* no trailing zeros, as %g */
    expect(0.5, "0.5");
    expect(9.96, "10");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(two_digits_without_an_exponent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

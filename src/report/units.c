/* The one place the terminal report chooses units and digits: adaptive time units as
 * hyperfine picks them, plain numbers without needless exponents, and "×N" for ratios. */
#include "report/units.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/error.h"

#define SIGNIFICANT 4
#define MAX_DECIMALS 9
/* %.4g writes 12345 as 1.234e+04; up to here whole numbers are written out instead. */
#define PLAIN_LIMIT 1e7

typedef struct {
    const char *name;
    units_time unit;
} unit_name;

/* "\xc2\xb5" is U+00B5 MICRO SIGN, as hyperfine writes it; U+03BC (Greek mu) is accepted
 * too because keyboards give either. */
static const unit_name unit_names[] = {
    {"ns", UNITS_NS}, {"nanosecond", UNITS_NS}, {"us", UNITS_US}, {"\xc2\xb5s", UNITS_US},
    {"\xce\xbcs", UNITS_US}, {"microsecond", UNITS_US}, {"ms", UNITS_MS},
    {"millisecond", UNITS_MS}, {"s", UNITS_S}, {"second", UNITS_S},
};

int units_parse_time(const char *text, units_time *out, verdict_error *err)
{
    for (size_t i = 0; i < sizeof unit_names / sizeof *unit_names; i++)
        if (strcmp(text, unit_names[i].name) == 0) {
            *out = unit_names[i].unit;
            return 0;
        }
    error_set(err, ERROR_USAGE, "--time-unit '%s': expected ns, us (or \xc2\xb5s), ms or s, or "
              "hyperfine's nanosecond, microsecond, millisecond, second", text);
    return -1;
}

units_time units_pick(double seconds, units_time forced)
{
    if (forced != UNITS_AUTO)
        return forced;
    double magnitude = fabs(seconds);
    if (!(magnitude > 0) || !isfinite(magnitude) || magnitude >= 1.0)
        return UNITS_S;
    return magnitude < 1e-6 ? UNITS_NS : magnitude < 1e-3 ? UNITS_US : UNITS_MS;
}

const char *units_symbol(units_time unit)
{
    switch (unit) {
    case UNITS_NS: return "ns";
    case UNITS_US: return "\xc2\xb5s";
    case UNITS_MS: return "ms";
    case UNITS_AUTO:
    case UNITS_S: break;
    }
    return "s";
}

double units_seconds_per(units_time unit)
{
    switch (unit) {
    case UNITS_NS: return 1e-9;
    case UNITS_US: return 1e-6;
    case UNITS_MS: return 1e-3;
    case UNITS_AUTO:
    case UNITS_S: break;
    }
    return 1.0;
}

units_format units_for(bool is_time, double representative, units_time forced)
{
    return (units_format){is_time, units_pick(representative, forced)};
}

/* Decimals that give `value` about SIGNIFICANT significant digits: 34.7835 -> 2. */
static int decimals_for(double value)
{
    double magnitude = fabs(value);
    if (!(magnitude > 0) || !isfinite(magnitude))
        return 0;
    int digits = SIGNIFICANT - 1 - (int)floor(log10(magnitude));
    return digits < 0 ? 0 : digits > MAX_DECIMALS ? MAX_DECIMALS : digits;
}

static size_t written(int n, size_t len)
{
    if (n < 0)
        return 0;
    return (size_t)n < len ? (size_t)n : len ? len - 1 : 0;
}

size_t units_format_time(double seconds, units_time unit, char *buf, size_t len)
{
    if (!isfinite(seconds))
        return written(snprintf(buf, len, "%s", isnan(seconds) ? "-" : "inf"), len);
    double value = seconds / units_seconds_per(unit);
    return written(snprintf(buf, len, "%.*f %s", decimals_for(value), value,
                            units_symbol(unit)), len);
}

size_t units_format_plain(double value, char *buf, size_t len)
{
    if (isnan(value))
        return written(snprintf(buf, len, "-"), len);
    if (fabs(value) >= 1e4 && fabs(value) < PLAIN_LIMIT)
        return written(snprintf(buf, len, "%.0f", value), len);
    return written(snprintf(buf, len, "%.*g", SIGNIFICANT, value), len);
}

size_t units_format_value(const units_format *f, double value, char *buf, size_t len)
{
    return f->is_time ? units_format_time(value, f->unit, buf, len)
                      : units_format_plain(value, buf, len);
}

size_t units_format_cv(double cv, char *buf, size_t len)
{
    if (!isfinite(cv))
        return written(snprintf(buf, len, "%s", "\xe2\x80\x93"), len); /* U+2013 EN DASH */
    return written(snprintf(buf, len, "%.2f%%", cv * 100), len);
}

size_t units_format_times(double ratio, char *buf, size_t len)
{
    if (len > 0)
        buf[0] = '\0';
    if (!isfinite(ratio) || !(ratio > 2.0 || (ratio > 0 && ratio < 0.5)))
        return 0;
    /* U+00D7 MULTIPLICATION SIGN */
    if (ratio >= 100)
        return written(snprintf(buf, len, "\xc3\x97%.0f", ratio), len);
    return written(snprintf(buf, len, "\xc3\x97%.3g", ratio), len);
}

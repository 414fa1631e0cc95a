/* Numbers people can read in the terminal report: times in an adaptive unit (ns, µs, ms,
 * s) or one forced by --time-unit, other values plain, and ratios beyond 2x as "×N". */
#ifndef VERDICT_REPORT_UNITS_H
#define VERDICT_REPORT_UNITS_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"

typedef enum {
    UNITS_AUTO = 0, /* chosen from the values (zero: what a report gets by default) */
    UNITS_NS, UNITS_US, UNITS_MS, UNITS_S
} units_time;

/* How one table or series shows its numbers: a time in `unit`, or a plain number. */
typedef struct {
    bool is_time;
    units_time unit;  /* never UNITS_AUTO once picked */
} units_format;

/* --time-unit's values: ns, us, µs, ms, s and hyperfine's nanosecond, microsecond,
 * millisecond, second. 0, or -1 with a message naming the value and the allowed ones. */
int units_parse_time(const char *text, units_time *out, verdict_error *err);

/* The unit forced, or else the one in which `seconds` reads 1 <= x < 1000 (seconds for
 * zero, NaN and values of 1000 s and more). */
units_time units_pick(double seconds, units_time forced);
/* "ns", "µs", "ms", "s". */
const char *units_symbol(units_time unit);
/* Seconds in one of the unit: 1e-9 for ns. */
double units_seconds_per(units_time unit);

/* A format for values of a metric: a time with its unit picked from `representative`
 * (the table's or series' mean, so one column shares one unit), or plain. */
units_format units_for(bool is_time, double representative, units_time forced);

/* "34.78 ms": seconds in the unit, to about 4 significant digits. Returns the length. */
size_t units_format_time(double seconds, units_time unit, char *buf, size_t len);
/* A value without a unit: 4 significant digits, but whole numbers below 1e7 are written
 * out (123457, not 1.235e+05). Returns the length. */
size_t units_format_plain(double value, char *buf, size_t len);
/* Either of the above, as the format says. */
size_t units_format_value(const units_format *f, double value, char *buf, size_t len);


/* A coefficient of variation as "12.34%"; "–" where it has no value (all values zero: 0/0),
 * so that no report prints "-nan%". Returns the length. */
size_t units_format_cv(double cv, char *buf, size_t len);

/* A ratio beyond 2 or below 0.5 as "×2.43" or "×0.41" (always candidate / baseline, the
 * ratio the percentage shows); "" for ratios in between, where the percent reads well. */
size_t units_format_times(double ratio, char *buf, size_t len);

#endif

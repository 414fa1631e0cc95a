/* A percentage as text for people: two significant digits and never an exponent, for the
 * messages that say how far rounding can move a ratio ("7.4", "0.024", "100", not "1e+02"). */
#ifndef VERDICT_STATS_PERCENT_TEXT_H
#define VERDICT_STATS_PERCENT_TEXT_H

#include <stddef.h>

/* percent (already * 100) with two significant digits, in fixed notation. */
void stats_percent_text(double percent, char *buf, size_t len);

#endif

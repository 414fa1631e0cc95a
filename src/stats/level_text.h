/* A confidence level as text for people: a percentage with as many digits as it takes to
 * tell it from 100% and from 0% (0.9999999999999999 is "99.99999999999999", never "100"). */
#ifndef VERDICT_STATS_LEVEL_TEXT_H
#define VERDICT_STATS_LEVEL_TEXT_H

#include <stddef.h>

/* level * 100 with at least min_digits significant digits and more while it would read
 * as 100 or 0 without being so: "95", "99.9023"; "100 - 1.11e-14" past 17 digits. */
void level_text(double level, int min_digits, char *buf, size_t len);

#endif

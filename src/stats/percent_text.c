/* A percentage as text: two significant digits in fixed notation, where "%.2g" would write
 * 100 as "1e+02" in the middle of a sentence. */
#include "stats/percent_text.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Past this many decimals a percentage is noise in a sentence (and %.*f stays short). */
#define DECIMALS_MAX 15

void stats_percent_text(double percent, char *buf, size_t len)
{
    double magnitude = fabs(percent);
    int decimals = 0;
    if (magnitude > 0.0 && isfinite(magnitude))
        decimals = 1 - (int)floor(log10(magnitude)); /* two significant digits */
    if (decimals < 0)
        decimals = 0;
    if (decimals > DECIMALS_MAX)
        decimals = DECIMALS_MAX;
    snprintf(buf, len, "%.*f", decimals, percent);
    /* as %g: no trailing zeros ("5", not "5.0") */
    char *point = strchr(buf, '.');
    size_t n = strlen(buf);
    while (point && n > 0 && buf[n - 1] == '0')
        buf[--n] = '\0';
    if (point && n > 0 && buf[n - 1] == '.')
        buf[--n] = '\0';
}

/* Confidence levels as percentages that never round to 100% or 0%: the digits grow until
 * the printed number read back is still below 100 (above 0), up to a double's 17. */
#include "stats/level_text.h"

#include <stdio.h>
#include <stdlib.h>

void level_text(double level, int min_digits, char *buf, size_t len)
{
    double percent = level * 100.0;
    for (int digits = min_digits; digits <= 17; digits++) {
        snprintf(buf, len, "%.*g", digits, percent);
        double shown = strtod(buf, NULL);
        /* A level below 1 must not read as 100%, one above 0 not as 0%. */
        if ((level >= 1.0 || shown < 100.0) && (level <= 0.0 || shown > 0.0))
            return;
    }
    /* 100 * level rounded up to 100 itself: say how far below it is instead. */
    snprintf(buf, len, "100 - %.3g", (1.0 - level) * 100.0);
}

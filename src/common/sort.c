/* The comparator of doubles: a total order (NaN after every number), which qsort needs
 * to be well-defined; numbers compare as the language compares them. */
#include "common/sort.h"

#include <math.h>

int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    if (isnan(x) || isnan(y))
        return isnan(x) - isnan(y);
    return (x > y) - (x < y);
}

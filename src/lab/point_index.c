/* Point ids computed once and sorted with qsort_r (the index is the comparison's context,
 * not a global), looked up by binary search. */
#include "lab/point_index.h"

#include <stdlib.h>
#include <string.h>

static int compare_ids(const void *a, const void *b, void *context)
{
    const point_index *p = context;
    return strcmp(p->ids[*(const size_t *)a], p->ids[*(const size_t *)b]);
}

int point_index_build(const experiment *e, point_index *p)
{
    p->n = experiment_point_count(e);
    p->ids = calloc(p->n + 1, sizeof *p->ids);
    p->sorted = calloc(p->n + 1, sizeof *p->sorted);
    if (p->ids == NULL || p->sorted == NULL)
        return -1;
    for (size_t i = 0; i < p->n; i++) {
        p->sorted[i] = i;
        if ((p->ids[i] = experiment_point_id(e, i)) == NULL)
            return -1;
    }
    qsort_r(p->sorted, p->n, sizeof *p->sorted, compare_ids, p);
    return 0;
}

long point_index_find(const point_index *p, const char *id)
{
    size_t lo = 0, hi = p->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int order = strcmp(p->ids[p->sorted[mid]], id);
        if (order == 0)
            return (long)p->sorted[mid];
        if (order < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

void point_index_free(point_index *p)
{
    for (size_t i = 0; p->ids && i < p->n; i++)
        free(p->ids[i]);
    free(p->ids);
    free(p->sorted);
    memset(p, 0, sizeof *p);
}

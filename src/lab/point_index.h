/* The points of an experiment by id: every point's id once, and a sorted index to find a
 * stored sample's point in O(log n), for a million-point sweep as for one point. */
#ifndef VERDICT_LAB_POINT_INDEX_H
#define VERDICT_LAB_POINT_INDEX_H

#include <stddef.h>

#include "core/experiment.h"

typedef struct {
    char **ids;                  /* by point index */
    size_t *sorted;              /* point indices ordered by id */
    size_t n;
} point_index;

/* 0, or -1 when out of memory (then free it all the same). */
int point_index_build(const experiment *e, point_index *out);
/* The index of the point with this id, or -1. */
long point_index_find(const point_index *p, const char *id);
void point_index_free(point_index *p);

#endif

/* Change points in a series of commits, each measured by several samples: circular binary
 * segmentation of the commits' log medians, each cut kept only if a permutation test rejects. */
#ifndef VERDICT_STATS_CHANGE_POINTS_H
#define VERDICT_STATS_CHANGE_POINTS_H

#include <stddef.h>
#include <stdint.h>
#include "status.h"

typedef struct {
    double alpha;        /* level of each cut's test; with no change anywhere, the chance
                            of reporting any change point is at most alpha */
    double confidence;   /* of each change's interval, in (0, 1) */
    size_t permutations; /* of the commits per test; p-values are multiples of 1/(this + 1) */
    size_t min_segment;  /* fewest commits on either side of a change, >= 1 */
    uint64_t seed;       /* the permutations are a function of it and the data */
} change_point_options;

typedef struct {
    size_t index;   /* 0-based position of the first commit after the change */
    double ratio;   /* geometric mean of the commits after / before, up to the neighbouring
                       change points (or the series' ends) */
    double low;     /* interval of ratio at options.confidence */
    double high;
    double p_value; /* of the permutation test that kept this split */
} change_point;

/* alpha 0.01, confidence 0.95, 999 permutations, segments of at least 2 commits, seed 1. */
change_point_options change_points_default_options(void);

/* Finds the change points of the series of n commits, commit i measured by samples[i]
 * (counts[i] >= 1 positive values). out has room for n entries; *found is set to the number
 * written, in ascending index order. */
stats_status change_points_find(const double *const *samples, const size_t *counts, size_t n,
                                const change_point_options *options, change_point *out,
                                size_t *found);

/* The level of commit i that the method compares: the log of the median of its samples. */
stats_status change_points_levels(const double *const *samples, const size_t *counts, size_t n,
                                  double *levels);

#endif

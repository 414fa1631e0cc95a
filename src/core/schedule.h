/* The plan of an experiment: which variant runs when. Blocks hold every variant once,
 * in an order that is a pure function of (seed, point, block), so a plan can be resumed. */
#ifndef VERDICT_CORE_SCHEDULE_H
#define VERDICT_CORE_SCHEDULE_H

#include <stddef.h>
#include <stdint.h>

/* Fills order[0..n_variants) with a seeded random permutation of 0..n_variants-1. */
void schedule_block_order(uint64_t seed, size_t point, size_t block, size_t n_variants,
                          size_t *order);
/* A seeded permutation of the points, for experiments that visit points in shuffled order. */
void schedule_point_order(uint64_t seed, size_t n_points, size_t *order);
/* Derives an independent 64-bit stream seed from a seed and up to two indices. */
uint64_t schedule_mix(uint64_t seed, uint64_t a, uint64_t b);

#endif

/* A small seeded random generator for the statistics (bootstrap resampling, selection
 * pivots): xoshiro256** whose whole state comes from a 64-bit seed, so distinct seeds differ. */
#ifndef VERDICT_STATS_RANDOM_H
#define VERDICT_STATS_RANDOM_H

#include <stdint.h>

typedef struct {
    uint64_t s[4];
} stats_random;

/* Every 64-bit seed gives its own stream (GSL's mt19937 keeps only 32 bits of a seed and
 * maps 0 to 4357, so --seed 0, 4357 and 2^32 + 1 gave one bootstrap). */
void stats_random_seed(stats_random *r, uint64_t seed);
uint64_t stats_random_next(stats_random *r);
/* Uniform in [0, bound), without modulo bias; bound > 0. */
uint64_t stats_random_below(stats_random *r, uint64_t bound);

#endif

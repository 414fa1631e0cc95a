/* Seeded shuffles for randomized complete blocks, using GSL's Mersenne Twister;
 * each block gets its own generator so that any block's order can be recomputed alone. */
#include "core/schedule.h"

#include "common/hash.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

/* One SplitMix64 step: spreads the bits so nearby (seed, block) pairs get unrelated
 * streams. Stored plans depend on it: changing it changes every plan's order. */
static uint64_t mix64(uint64_t x)
{
    return hash_mix64(x + 0x9e3779b97f4a7c15ULL);
}

uint64_t schedule_mix(uint64_t seed, uint64_t a, uint64_t b)
{
    return mix64(mix64(mix64(seed) ^ a) ^ b);
}

static void seeded_permutation(uint64_t stream, size_t n, size_t *order)
{
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (rng == NULL)
        return; /* identity order: still a valid plan */
    /* mt19937 keeps 32 bits of its seed: fold the high half in */
    gsl_rng_set(rng, (unsigned long)((stream ^ (stream >> 32)) & 0xffffffffUL));
    gsl_ran_shuffle(rng, order, n, sizeof *order);
    gsl_rng_free(rng);
}

void schedule_block_order(uint64_t seed, size_t point, size_t block, size_t n_variants,
                          size_t *order)
{
    seeded_permutation(schedule_mix(seed, point + 1, block + 1), n_variants, order);
}

void schedule_point_order(uint64_t seed, size_t n_points, size_t *order)
{
    seeded_permutation(schedule_mix(seed, 0, 0), n_points, order);
}

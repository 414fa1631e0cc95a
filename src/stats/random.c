/* xoshiro256** (Blackman & Vigna, "Scrambled linear pseudorandom number generators", 2021)
 * seeded by splitmix64: a few lines, 64-bit seeds, and a period far beyond any bootstrap. */
#include "random.h"

#include "common/hash.h"

/* splitmix64 output for counter value x: a bijection of 64-bit values, so the four state
 * words it gives for seed, seed + 1, ... never repeat across seeds. */
static uint64_t splitmix64(uint64_t *counter)
{
    return hash_mix64(*counter += 0x9E3779B97F4A7C15u);
}

void stats_random_seed(stats_random *r, uint64_t seed)
{
    uint64_t counter = seed;
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&counter);
}

static uint64_t rotate_left(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t stats_random_next(stats_random *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotate_left(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotate_left(s[3], 45);
    return result;
}

uint64_t stats_random_below(stats_random *r, uint64_t bound)
{
    /* Reject the few values below 2^64 mod bound, so that every residue is equally likely. */
    uint64_t threshold = (0 - bound) % bound;
    for (;;) {
        uint64_t x = stats_random_next(r);
        if (x >= threshold)
            return x % bound;
    }
}

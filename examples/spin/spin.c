/* A CPU-bound workload with a known cost: `spin N` does N rounds of integer mixing, so
 * `spin 1200000` does exactly 20% more work than `spin 1000000`. Prints a checksum. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t mix_rounds(uint64_t rounds)
{
    uint64_t x = 0x9e3779b97f4a7c15ULL;
    for (uint64_t i = 0; i < rounds; i++) {
        /* a dependency chain: each round needs the previous one, so the CPU cannot
         * overlap rounds and the time is proportional to the count */
        x ^= x >> 29;
        x *= 0xbf58476d1ce4e5b9ULL;
        x += i;
    }
    return x;
}

int main(int argc, char **argv)
{
    char *end = NULL;
    unsigned long long rounds = argc == 2 ? strtoull(argv[1], &end, 10) : 0;
    if (argc != 2 || end == argv[1] || *end != '\0') {
        fprintf(stderr, "usage: spin ROUNDS\n");
        return 2;
    }
    printf("spin: %llu rounds, checksum %016llx\n", rounds,
           (unsigned long long)mix_rounds((uint64_t)rounds));
    return 0;
}

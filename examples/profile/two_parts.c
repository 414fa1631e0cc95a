/* The profiles' acceptance program (docs/profiles.md): two functions of known cost, the
 * first given a percentage of the second's work, so that a variant makes only it slower. */
#include <stdio.h>
#include <stdlib.h>

/* The same loop in two functions perf tells apart; never inlined, the sum kept. */
__attribute__((noinline)) static double slow_part(long rounds)
{
    double sum = 0;
    for (long i = 0; i < rounds; i++)
        sum += (double)i * 0.5;
    return sum;
}

__attribute__((noinline)) static double steady_part(long rounds)
{
    double sum = 0;
    for (long i = 0; i < rounds; i++)
        sum += (double)i * 0.25;
    return sum;
}

/* two_parts ROUNDS PERCENT: steady_part runs ROUNDS rounds, slow_part PERCENT% of them. */
int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: two_parts ROUNDS PERCENT\n");
        return 2;
    }
    long rounds = atol(argv[1]), percent = atol(argv[2]);
    if (rounds <= 0 || percent < 0 || rounds > 1000000000000L / (percent + 1)) {
        fprintf(stderr, "two_parts: ROUNDS above 0, PERCENT 0 or more\n");
        return 2;
    }
    volatile double kept = slow_part(rounds * percent / 100) + steady_part(rounds);
    (void)kept;
    return 0;
}

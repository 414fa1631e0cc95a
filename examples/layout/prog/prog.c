/* A small program whose speed depends on where its hot functions land: a sort, a hash and
 * a switch interpreter, each called in a loop (examples/layout: layout twins). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef ROUNDS
#define ROUNDS 40
#endif

static int compare_ints(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static uint64_t hash_bytes(const unsigned char *p, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ULL;
    return h;
}

enum { OP_ADD, OP_MUL, OP_XOR, OP_SHIFT, OP_JUMP, OP_HALT };

static int64_t interpret(const unsigned char *code, size_t n, int64_t x)
{
    size_t pc = 0, steps = 0;
    while (pc < n && steps++ < 100000) {
        switch (code[pc] % 6) {
        case OP_ADD: x += code[pc + 1 < n ? pc + 1 : 0]; pc += 2; break;
        case OP_MUL: x *= 3; pc += 1; break;
        case OP_XOR: x ^= (int64_t)pc; pc += 1; break;
        case OP_SHIFT: x = (x << 1) | (x >> 62 & 1); pc += 1; break;
        case OP_JUMP: pc = (pc + code[pc] + 1) % n; if (pc == 0) return x; break;
        default: return x;
        }
    }
    return x;
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 20000;
    int *values = malloc(n * sizeof *values);
    unsigned char *code = malloc(n);
    if (values == NULL || code == NULL)
        return 1;
    uint64_t state = 88172645463325252ULL, sum = 0;
    for (int round = 0; round < ROUNDS; round++) {
        for (size_t i = 0; i < n; i++) {
            state ^= state << 13, state ^= state >> 7, state ^= state << 17;
            values[i] = (int)(state % 1000003);
            code[i] = (unsigned char)(state >> 24);
        }
        qsort(values, n, sizeof *values, compare_ints);
        sum += hash_bytes((const unsigned char *)values, n * sizeof *values);
        sum += (uint64_t)interpret(code, n, (int64_t)round);
    }
    printf("%llu\n", (unsigned long long)sum);
    free(values);
    free(code);
    return 0;
}

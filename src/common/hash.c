/* FNV-1a (Fowler, Noll, Vo) and splitmix64's finaliser (Steele, Lea, Flood, "Fast
 * splittable pseudorandom number generators", 2014): small, stable, dependency-free. */
#include "common/hash.h"

#include <string.h>

#define FNV_PRIME 0x100000001b3ULL

uint64_t hash_fnv1a(uint64_t state, const void *data, size_t n)
{
    const unsigned char *bytes = data;
    for (size_t i = 0; i < n; i++) {
        state ^= bytes[i];
        state *= FNV_PRIME;
    }
    return state;
}

uint64_t hash_fnv1a_text(uint64_t state, const char *text)
{
    return hash_fnv1a(state, text, strlen(text) + 1);
}

uint64_t hash_mix64(uint64_t x)
{
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

void hash_hex(const void *bytes, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";
    const unsigned char *b = bytes;
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[b[i] >> 4];
        out[2 * i + 1] = digits[b[i] & 15];
    }
    out[2 * n] = '\0';
}

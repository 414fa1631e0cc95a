/* Hashing and mixing: FNV-1a for keys and plan hashes (not a security boundary), the
 * splitmix64 finaliser for deriving independent seeds from one, and digests as hex. */
#ifndef VERDICT_COMMON_HASH_H
#define VERDICT_COMMON_HASH_H

#include <stddef.h>
#include <stdint.h>

#define HASH_FNV_OFFSET 0xcbf29ce484222325ULL

/* FNV-1a, 64 bits, continued from state (start from HASH_FNV_OFFSET). */
uint64_t hash_fnv1a(uint64_t state, const void *data, size_t n);
/* The same over a NUL-terminated string, the NUL included so that "ab","c" != "a","bc". */
uint64_t hash_fnv1a_text(uint64_t state, const char *text);
/* n bytes as 2n lower-case hex digits and a NUL (digests, keys, signatures). */
void hash_hex(const void *bytes, size_t n, char *out);
/* splitmix64's finaliser: a bijection of 64-bit values with good avalanche. */
uint64_t hash_mix64(uint64_t x);

#endif

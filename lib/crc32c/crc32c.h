/* crc32c.h: public API of verdict's stand-alone CRC-32C (Castagnoli) library.
 * Chains like zlib's crc32(): start from 0, feed the previous result back in. */
#ifndef CRC32C_H
#define CRC32C_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Every implementation has this signature and the same chaining convention. */
typedef uint32_t (*crc32c_fn)(uint32_t crc, const void *buf, size_t len);

/* CRC-32C of buf[0..len) continuing from crc (0 to start). crc32c(crc32c(0, a, n), b, m)
 * equals the CRC of a followed by b. Uses the fastest implementation this CPU runs,
 * chosen once (or fixed at compile time when the build targets the instructions). */
uint32_t crc32c(uint32_t crc, const void *buf, size_t len);

/* Name of the implementation that crc32c() uses, e.g. "avx2_hybrid" or "sb8": the one a
 * table of CPU features (and, where features tie, vendor/family/model) names for this CPU. */
const char *crc32c_implementation(void);

/* CRC of a followed by b, given crc_a = crc32c(0, a, ...), crc_b = crc32c(0, b, len_b). */
uint32_t crc32c_combine(uint32_t crc_a, uint32_t crc_b, uint64_t len_b);

/* One implementation: its short name and entry point. */
typedef struct {
    const char *name;
    crc32c_fn fn;
} crc32c_impl;

/* Writes up to capacity implementations this CPU can run (slowest first) to out and
 * returns how many exist; call with capacity 0 to count them. */
size_t crc32c_available(crc32c_impl *out, size_t capacity);

/* Entry point of the named implementation, or NULL if it is unknown or this CPU lacks it. */
crc32c_fn crc32c_find(const char *name);

/* Implementations by name. Calling one the CPU lacks raises SIGILL: ask crc32c_find first. */
uint32_t crc32c_sb8(uint32_t crc, const void *buf, size_t len); /* portable slicing-by-8 */
#if defined(__x86_64__)
uint32_t crc32c_sse42(uint32_t crc, const void *buf, size_t len);         /* crc32 x3 + PCLMULQDQ */
uint32_t crc32c_pclmul(uint32_t crc, const void *buf, size_t len);        /* 128-bit folding */
uint32_t crc32c_sse42_hybrid(uint32_t crc, const void *buf, size_t len);  /* crc32 x4 + 1/3 folding */
uint32_t crc32c_pclmul_hybrid(uint32_t crc, const void *buf, size_t len); /* crc32 x4 + 1/2 folding */
uint32_t crc32c_avx2_vpclmul(uint32_t crc, const void *buf, size_t len);  /* 256-bit VPCLMULQDQ */
uint32_t crc32c_avx2_hybrid(uint32_t crc, const void *buf, size_t len);   /* crc32 x4 + 256-bit */
uint32_t crc32c_avx512(uint32_t crc, const void *buf, size_t len);        /* 512-bit VPCLMULQDQ */
#endif
#if defined(__aarch64__)
uint32_t crc32c_armv8(uint32_t crc, const void *buf, size_t len);       /* CRC32 instructions */
uint32_t crc32c_armv8_pmull(uint32_t crc, const void *buf, size_t len); /* CRC32 + PMULL */
#endif

/* Buffers up to this length take the header-inline path of crc32c_inline(). */
#define CRC32C_INLINE_MAX 16

#if defined(__x86_64__) && defined(__SSE4_2__)
#include <nmmintrin.h>
/* Inline CRC-32C for short buffers in code built with SSE 4.2; long ones go to crc32c(). */
static inline uint32_t crc32c_inline(uint32_t crc, const void *buf, size_t len)
{
    const unsigned char *p = (const unsigned char *)buf;
    uint64_t word;
    uint32_t half;
    if (len > CRC32C_INLINE_MAX)
        return crc32c(crc, buf, len);
    crc = ~crc;
    for (; len >= 8; len -= 8, p += 8) {
        memcpy(&word, p, 8);
        crc = (uint32_t)_mm_crc32_u64(crc, word);
    }
    if (len >= 4) {
        memcpy(&half, p, 4);
        crc = _mm_crc32_u32(crc, half);
        len -= 4;
        p += 4;
    }
    for (; len > 0; len--)
        crc = _mm_crc32_u8(crc, *p++);
    return ~crc;
}
#elif defined(__aarch64__) && defined(__ARM_FEATURE_CRC32)
#include <arm_acle.h>
/* Inline CRC-32C for short buffers in code built with the Armv8 CRC32 extension. */
static inline uint32_t crc32c_inline(uint32_t crc, const void *buf, size_t len)
{
    const unsigned char *p = (const unsigned char *)buf;
    uint64_t word;
    if (len > CRC32C_INLINE_MAX)
        return crc32c(crc, buf, len);
    crc = ~crc;
    for (; len >= 8; len -= 8, p += 8) {
        memcpy(&word, p, 8);
        crc = __crc32cd(crc, word);
    }
    for (; len > 0; len--)
        crc = __crc32cb(crc, *p++);
    return ~crc;
}
#else
/* Without the instructions at compile time the inline path is the library call. */
static inline uint32_t crc32c_inline(uint32_t crc, const void *buf, size_t len)
{
    return crc32c(crc, buf, len);
}
#endif

#ifdef __cplusplus
}
#endif

#endif

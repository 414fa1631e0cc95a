/* crc32c_x86_kernels.h: x86-64 building blocks shared by every hardware path (crc32 streams,
 * carry-less shifts and 128-bit folds, the short-buffer path); static inline, not installed. */
#ifndef CRC32C_X86_KERNELS_H
#define CRC32C_X86_KERNELS_H

#include <immintrin.h>
#include <string.h>

#include "crc32c_internal.h"

/* Function-level targets keep the library buildable with default flags. A kernel with a
 * smaller target inlines into a path with a larger one (and then gets VEX encodings). */
#define CRC32C_TARGET_BASE __attribute__((target("sse4.2,pclmul")))
#define CRC32C_TARGET_AVX2 __attribute__((target("sse4.2,pclmul,avx,avx2")))
#define CRC32C_TARGET_AVX2_VPCLMUL __attribute__((target("sse4.2,pclmul,avx,avx2,vpclmulqdq")))
#define CRC32C_TARGET_AVX512 __attribute__((target("sse4.2,pclmul,avx,avx2,avx512f,vpclmulqdq")))

/* Up to this length the crc argument is folded in by one multiplication at the end, so a
 * chain of calls waits only for that, not for the data (the data part runs ahead). */
enum { CRC32C_X86_SHORT_MAX = CRC32C_SHIFT_TABLE_MAX };

CRC32C_TARGET_BASE static inline uint64_t crc32c_load64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

CRC32C_TARGET_BASE static inline uint32_t crc32c_load32(const unsigned char *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

CRC32C_TARGET_BASE static inline uint16_t crc32c_load16(const unsigned char *p)
{
    uint16_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* Four crc32 steps on one stream: loads first, so a whole short buffer is a few branches. */
CRC32C_TARGET_BASE static inline uint64_t crc32c_four_words(uint64_t reg, const unsigned char *p)
{
    uint64_t w0 = crc32c_load64(p), w1 = crc32c_load64(p + 8), w2 = crc32c_load64(p + 16);
    uint64_t w3 = crc32c_load64(p + 24);
    reg = _mm_crc32_u64(reg, w0);
    reg = _mm_crc32_u64(reg, w1);
    reg = _mm_crc32_u64(reg, w2);
    return _mm_crc32_u64(reg, w3);
}

/* One crc32 stream over the raw register: the plain loop, also used for tails. */
CRC32C_TARGET_BASE static inline uint32_t crc32c_one_stream(uint32_t reg, const unsigned char *p, size_t len)
{
    uint64_t wide = reg;
    for (; len >= 32; len -= 32, p += 32)
        wide = crc32c_four_words(wide, p);
    for (; len >= 8; len -= 8, p += 8)
        wide = _mm_crc32_u64(wide, crc32c_load64(p));
    reg = (uint32_t)wide;
    if (len & 4) {
        reg = _mm_crc32_u32(reg, crc32c_load32(p));
        p += 4;
    }
    if (len & 2) {
        reg = _mm_crc32_u16(reg, crc32c_load16(p));
        p += 2;
    }
    if (len & 1)
        reg = _mm_crc32_u8(reg, *p);
    return reg;
}

/* reg * x^(8n) mod P given k = x^(8n-33): the 63-bit carry-less product fed to crc32 as
 * data gains the missing x^32 and is reduced by the instruction itself. */
CRC32C_TARGET_BASE static inline uint32_t crc32c_shift_by(uint32_t reg, uint32_t k)
{
    __m128i product = _mm_clmulepi64_si128(_mm_cvtsi32_si128((int)reg), _mm_cvtsi32_si128((int)k), 0);
    return (uint32_t)_mm_crc32_u64(0, (uint64_t)_mm_cvtsi128_si64(product));
}

/* Short buffers (16..CRC32C_X86_SHORT_MAX bytes): the data's CRC does not depend on crc,
 * and crc's contribution is one multiplication, so chained calls overlap. crc == 0 (a
 * fresh CRC, e.g. an independent record) skips the multiply. */
CRC32C_TARGET_BASE static inline uint32_t crc32c_short_buffer(uint32_t crc, const unsigned char *p, size_t len)
{
    uint32_t data_crc = ~crc32c_one_stream(~0u, p, len);
    if (crc == 0)
        return data_crc;
    return crc32c_shift_by(crc, crc32c_shift_table[len]) ^ data_crc;
}

/* The part of every x86 path for buffers up to CRC32C_X86_SHORT_MAX. Each path's entry
 * inlines this and jumps to a separate (CRC32C_LONG) function for longer buffers, so short
 * calls run leaf code with no prologue: the long loops' saved registers and stack
 * realignment cost a chained 64-byte call a fifth of its time. */
CRC32C_TARGET_BASE static inline uint32_t crc32c_x86_short(uint32_t crc, const unsigned char *p, size_t len)
{
    if (__builtin_expect(len >= 16, 1)) /* the fall-through: no taken branch on entry */
        return crc32c_short_buffer(crc, p, len);
    return ~crc32c_one_stream(~crc, p, len);
}

/* For an entry's first test: keeps the short path the fall-through in every path (left to
 * itself GCC laid one path's entry out behind a taken branch, 13% slower chained calls). */
#define CRC32C_SHORT_FIRST(cond) __builtin_expect(!!(cond), 1)

/* Marks a path's long-buffer function: never inlined into the entry (see above). */
#define CRC32C_LONG __attribute__((noinline))

/* Three crc32 streams over blocks of `block` bytes (a multiple of 8), joined by shifting
 * the first two across the blocks that follow them. Consumes whole 3-block groups. */
CRC32C_TARGET_BASE static inline uint32_t crc32c_three_streams(uint32_t reg, const unsigned char **pp, size_t *plen,
                                                               size_t block, uint32_t k_block, uint32_t k_2block)
{
    const unsigned char *p = *pp;
    size_t len = *plen;
    for (; len >= 3 * block; len -= 3 * block, p += 3 * block) {
        uint64_t a = reg, b = 0, c = 0;
        for (size_t i = 0; i < block; i += 8) {
            a = _mm_crc32_u64(a, crc32c_load64(p + i));
            b = _mm_crc32_u64(b, crc32c_load64(p + block + i));
            c = _mm_crc32_u64(c, crc32c_load64(p + 2 * block + i));
        }
        reg = crc32c_shift_by((uint32_t)a, k_2block) ^ crc32c_shift_by((uint32_t)b, k_block) ^ (uint32_t)c;
    }
    *pp = p;
    *plen = len;
    return reg;
}

/* Any length with three interleaved crc32 streams: the latency of crc32 (3 cycles) over its
 * issue rate (one a cycle on every x86-64 core in the tables) is 3. */
CRC32C_TARGET_BASE static inline uint32_t crc32c_streams_raw(uint32_t reg, const unsigned char *p, size_t len)
{
    reg = crc32c_three_streams(reg, &p, &len, 2048, CRC32C_SHIFT_2048, CRC32C_SHIFT_4096);
    reg = crc32c_three_streams(reg, &p, &len, 256, CRC32C_SHIFT_256, CRC32C_SHIFT_512);
    reg = crc32c_three_streams(reg, &p, &len, 32, crc32c_shift_table[32], crc32c_shift_table[64]);
    return crc32c_one_stream(reg, p, len);
}

/* Fold constants for distance d bytes: low qword multiplies the lane's first (higher
 * degree) half by x^(8d+31), high qword the second half by x^(8d-33). */
#define CRC32C_FOLD_PAIR(d) _mm_set_epi64x(CRC32C_FOLD_LO_##d, CRC32C_FOLD_HI_##d)

/* acc moved forward by the distance encoded in k, as a 128-bit lane (not yet reduced). */
CRC32C_TARGET_BASE static inline __m128i crc32c_fold128(__m128i acc, __m128i k)
{
    return _mm_xor_si128(_mm_clmulepi64_si128(acc, k, 0x00), _mm_clmulepi64_si128(acc, k, 0x11));
}

CRC32C_TARGET_BASE static inline __m128i crc32c_load128(const unsigned char *p)
{
    return _mm_loadu_si128((const __m128i *)(const void *)p);
}

/* A 128-bit lane at the end of the data so far, reduced to the raw register: feeding its
 * 16 bytes to crc32 from zero multiplies by x^32 and reduces, which is exactly the CRC. */
CRC32C_TARGET_BASE static inline uint32_t crc32c_reduce128(__m128i lane)
{
    uint64_t reg = _mm_crc32_u64(0, (uint64_t)_mm_cvtsi128_si64(lane));
    return (uint32_t)_mm_crc32_u64(reg, (uint64_t)_mm_extract_epi64(lane, 1));
}

/* Folds 16-byte blocks into lane while they last, then finishes with crc32 on the tail. */
CRC32C_TARGET_BASE static inline uint32_t crc32c_finish128(__m128i lane, const unsigned char *p, size_t len)
{
    const __m128i k16 = CRC32C_FOLD_PAIR(16);
    for (; len >= 16; len -= 16, p += 16)
        lane = _mm_xor_si128(crc32c_fold128(lane, k16), crc32c_load128(p));
    return crc32c_one_stream(crc32c_reduce128(lane), p, len);
}

/* The register as a 128-bit value to xor into the first lane of data. */
CRC32C_TARGET_BASE static inline __m128i crc32c_reg128(uint32_t reg)
{
    return _mm_cvtsi32_si128((int)reg);
}

/* Four 128-bit lanes holding 64 consecutive bytes folded onto the last one. */
CRC32C_TARGET_BASE static inline __m128i crc32c_join_four_lanes(__m128i x0, __m128i x1, __m128i x2, __m128i x3)
{
    return _mm_xor_si128(
        _mm_xor_si128(crc32c_fold128(x0, CRC32C_FOLD_PAIR(48)), crc32c_fold128(x1, CRC32C_FOLD_PAIR(32))),
        _mm_xor_si128(crc32c_fold128(x2, CRC32C_FOLD_PAIR(16)), x3));
}

/* 128-bit folding with four lanes, 64 bytes a round; needs len >= 64. */
CRC32C_TARGET_BASE static inline uint32_t crc32c_fold_four_lanes(uint32_t reg, const unsigned char *p, size_t len)
{
    const __m128i k64 = CRC32C_FOLD_PAIR(64);
    __m128i x0 = _mm_xor_si128(crc32c_load128(p), crc32c_reg128(reg));
    __m128i x1 = crc32c_load128(p + 16), x2 = crc32c_load128(p + 32), x3 = crc32c_load128(p + 48);
    for (p += 64, len -= 64; len >= 64; p += 64, len -= 64) {
        x0 = _mm_xor_si128(crc32c_fold128(x0, k64), crc32c_load128(p));
        x1 = _mm_xor_si128(crc32c_fold128(x1, k64), crc32c_load128(p + 16));
        x2 = _mm_xor_si128(crc32c_fold128(x2, k64), crc32c_load128(p + 32));
        x3 = _mm_xor_si128(crc32c_fold128(x3, k64), crc32c_load128(p + 48));
    }
    return crc32c_finish128(crc32c_join_four_lanes(x0, x1, x2, x3), p, len);
}

/* The hybrids' crc32 side: four streams, each consuming 32 bytes (four words) a round. Four
 * rather than three gives the scheduler slack while the vector side shares the front end. */
enum { CRC32C_HYBRID_STREAMS = 4, CRC32C_HYBRID_STREAM_BYTES = 32 };

typedef struct {
    uint64_t c[CRC32C_HYBRID_STREAMS];
} crc32c_stream_regs;

/* One round of the four streams, starting `off` bytes into streams `stride` bytes apart. */
CRC32C_TARGET_BASE static inline void crc32c_streams_round(crc32c_stream_regs *s, const unsigned char *s0,
                                                           size_t stride, size_t off)
{
    s->c[0] = crc32c_four_words(s->c[0], s0 + off);
    s->c[1] = crc32c_four_words(s->c[1], s0 + stride + off);
    s->c[2] = crc32c_four_words(s->c[2], s0 + 2 * stride + off);
    s->c[3] = crc32c_four_words(s->c[3], s0 + 3 * stride + off);
}

/* CRC of the vector part followed by the streams' parts, each stream_len long: Horner's
 * rule with the one shift constant k = x^(8 stream_len - 33). */
CRC32C_TARGET_BASE static inline uint32_t crc32c_join_streams(uint32_t crc, const crc32c_stream_regs *s,
                                                              size_t count, uint32_t k)
{
    for (size_t i = 0; i < count; i++)
        crc = crc32c_shift_by(crc, k) ^ (uint32_t)s->c[i];
    return crc;
}

/* Where the hybrid's parts lie: `rounds` vector blocks at the front, then the four streams'
 * equal parts of stream_len bytes each. */
typedef struct {
    size_t rounds, stream_len;
    const unsigned char *streams;
} crc32c_hybrid_layout;

CRC32C_TARGET_BASE static inline crc32c_hybrid_layout crc32c_plan_hybrid(const unsigned char *p, size_t len, size_t vector_bytes)
{
    size_t rounds = len / (vector_bytes + CRC32C_HYBRID_STREAMS * CRC32C_HYBRID_STREAM_BYTES);
    return (crc32c_hybrid_layout){rounds, rounds * CRC32C_HYBRID_STREAM_BYTES, p + rounds * vector_bytes};
}

/* Moves *pp / *plen past the hybrid's whole rounds. */
CRC32C_TARGET_BASE static inline void crc32c_skip_hybrid(const crc32c_hybrid_layout *h, const unsigned char **pp, size_t *plen,
                                                  size_t vector_bytes)
{
    *pp = h->streams + CRC32C_HYBRID_STREAMS * h->stream_len;
    *plen -= h->rounds * (vector_bytes + CRC32C_HYBRID_STREAMS * CRC32C_HYBRID_STREAM_BYTES);
}

/* x^(8n-33) mod P for n a multiple of 8 (n >= 8): a product of crc32c_shift_pow2_table entries. */
uint32_t crc32c_x86_shift_constant(size_t n);

#endif

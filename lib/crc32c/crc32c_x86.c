/* crc32c_x86.c: x86-64 CRC-32C with the SSE 4.2 crc32 instruction, PCLMULQDQ folding and
 * AVX-512 VPCLMULQDQ folding. Function-level target attributes keep default build flags. */
#if defined(__x86_64__)

#include <cpuid.h>
#include <immintrin.h>
#include <string.h>

#include "crc32c_internal.h"

#define TARGET_BASE __attribute__((target("sse4.2,pclmul")))
#define TARGET_AVX512 __attribute__((target("sse4.2,pclmul,avx2,avx512f,vpclmulqdq")))

/* Up to this length the crc argument is folded in by one multiplication at the end, so a
 * chain of calls waits only for that, not for the data (the data part runs ahead). */
enum { SHORT_MAX = CRC32C_SHIFT_TABLE_MAX };

TARGET_BASE static inline uint64_t load64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

TARGET_BASE static inline uint32_t load32(const unsigned char *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

TARGET_BASE static inline uint16_t load16(const unsigned char *p)
{
    uint16_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* Four crc32 steps on one stream: loads first, so a whole short buffer is a few branches. */
TARGET_BASE static inline uint64_t four_words(uint64_t reg, const unsigned char *p)
{
    uint64_t w0 = load64(p), w1 = load64(p + 8), w2 = load64(p + 16), w3 = load64(p + 24);
    reg = _mm_crc32_u64(reg, w0);
    reg = _mm_crc32_u64(reg, w1);
    reg = _mm_crc32_u64(reg, w2);
    return _mm_crc32_u64(reg, w3);
}

/* One crc32 stream over the raw register: the plain loop, also used for tails. */
TARGET_BASE static inline uint32_t one_stream(uint32_t reg, const unsigned char *p, size_t len)
{
    uint64_t wide = reg;
    for (; len >= 32; len -= 32, p += 32)
        wide = four_words(wide, p);
    for (; len >= 8; len -= 8, p += 8)
        wide = _mm_crc32_u64(wide, load64(p));
    reg = (uint32_t)wide;
    if (len & 4) {
        reg = _mm_crc32_u32(reg, load32(p));
        p += 4;
    }
    if (len & 2) {
        reg = _mm_crc32_u16(reg, load16(p));
        p += 2;
    }
    if (len & 1)
        reg = _mm_crc32_u8(reg, *p);
    return reg;
}

/* reg * x^(8n) mod P given k = x^(8n-33): the 63-bit carry-less product fed to crc32 as
 * data gains the missing x^32 and is reduced by the instruction itself. */
TARGET_BASE static inline uint32_t shift_by(uint32_t reg, uint32_t k)
{
    __m128i product = _mm_clmulepi64_si128(_mm_cvtsi32_si128((int)reg), _mm_cvtsi32_si128((int)k), 0);
    return (uint32_t)_mm_crc32_u64(0, (uint64_t)_mm_cvtsi128_si64(product));
}

/* Short buffers: the data's CRC does not depend on crc, and crc's contribution is one
 * multiplication, so chained calls overlap. crc == 0 (a fresh CRC) skips the multiply. */
TARGET_BASE static inline uint32_t short_buffer(uint32_t crc, const unsigned char *p, size_t len)
{
    uint32_t data_crc = ~one_stream(~0u, p, len);
    if (crc == 0)
        return data_crc;
    return shift_by(crc, crc32c_shift_table[len]) ^ data_crc;
}

/* Three crc32 streams over blocks of `block` bytes (a multiple of 8), joined by shifting
 * the first two across the blocks that follow them. Consumes whole 3-block groups. */
TARGET_BASE static inline uint32_t three_streams(uint32_t reg, const unsigned char **pp, size_t *plen,
                                                 size_t block, uint32_t k_block, uint32_t k_2block)
{
    const unsigned char *p = *pp;
    size_t len = *plen;
    for (; len >= 3 * block; len -= 3 * block, p += 3 * block) {
        uint64_t a = reg, b = 0, c = 0;
        for (size_t i = 0; i < block; i += 8) {
            a = _mm_crc32_u64(a, load64(p + i));
            b = _mm_crc32_u64(b, load64(p + block + i));
            c = _mm_crc32_u64(c, load64(p + 2 * block + i));
        }
        reg = shift_by((uint32_t)a, k_2block) ^ shift_by((uint32_t)b, k_block) ^ (uint32_t)c;
    }
    *pp = p;
    *plen = len;
    return reg;
}

TARGET_BASE uint32_t crc32c_sse42(uint32_t crc, const void *buf, size_t len)
{
    const unsigned char *p = buf;
    if (len < 16)
        return ~one_stream(~crc, p, len);
    if (len <= SHORT_MAX)
        return short_buffer(crc, p, len);
    uint32_t reg = ~crc;
    reg = three_streams(reg, &p, &len, 2048, CRC32C_SHIFT_2048, CRC32C_SHIFT_4096);
    reg = three_streams(reg, &p, &len, 256, CRC32C_SHIFT_256, CRC32C_SHIFT_512);
    reg = three_streams(reg, &p, &len, 32, crc32c_shift_table[32], crc32c_shift_table[64]);
    return ~one_stream(reg, p, len);
}

/* Fold constants for distance d bytes: low qword multiplies the lane's first (higher
 * degree) half by x^(8d+31), high qword the second half by x^(8d-33). */
#define FOLD_PAIR(d) _mm_set_epi64x(CRC32C_FOLD_LO_##d, CRC32C_FOLD_HI_##d)

/* acc moved forward by the distance encoded in k, as a 128-bit lane (not yet reduced). */
TARGET_BASE static inline __m128i fold128(__m128i acc, __m128i k)
{
    return _mm_xor_si128(_mm_clmulepi64_si128(acc, k, 0x00), _mm_clmulepi64_si128(acc, k, 0x11));
}

TARGET_BASE static inline __m128i load128(const unsigned char *p)
{
    return _mm_loadu_si128((const __m128i *)(const void *)p);
}

/* A 128-bit lane at the end of the data so far, reduced to the raw register: feeding its
 * 16 bytes to crc32 from zero multiplies by x^32 and reduces, which is exactly the CRC. */
TARGET_BASE static inline uint32_t reduce128(__m128i lane)
{
    uint64_t reg = _mm_crc32_u64(0, (uint64_t)_mm_cvtsi128_si64(lane));
    return (uint32_t)_mm_crc32_u64(reg, (uint64_t)_mm_extract_epi64(lane, 1));
}

/* Folds 16-byte blocks into lane while they last, then finishes with crc32 on the tail. */
TARGET_BASE static inline uint32_t finish128(__m128i lane, const unsigned char *p, size_t len)
{
    const __m128i k16 = FOLD_PAIR(16);
    for (; len >= 16; len -= 16, p += 16)
        lane = _mm_xor_si128(fold128(lane, k16), load128(p));
    return one_stream(reduce128(lane), p, len);
}

/* 128-bit folding with four lanes, 64 bytes a round; needs len >= 64. */
TARGET_BASE static uint32_t fold_four_lanes(uint32_t reg, const unsigned char *p, size_t len)
{
    const __m128i k64 = FOLD_PAIR(64);
    __m128i x0 = _mm_xor_si128(load128(p), _mm_cvtsi32_si128((int)reg));
    __m128i x1 = load128(p + 16), x2 = load128(p + 32), x3 = load128(p + 48);
    for (p += 64, len -= 64; len >= 64; p += 64, len -= 64) {
        x0 = _mm_xor_si128(fold128(x0, k64), load128(p));
        x1 = _mm_xor_si128(fold128(x1, k64), load128(p + 16));
        x2 = _mm_xor_si128(fold128(x2, k64), load128(p + 32));
        x3 = _mm_xor_si128(fold128(x3, k64), load128(p + 48));
    }
    __m128i lane = _mm_xor_si128(_mm_xor_si128(fold128(x0, FOLD_PAIR(48)), fold128(x1, FOLD_PAIR(32))),
                                 _mm_xor_si128(fold128(x2, FOLD_PAIR(16)), x3));
    return finish128(lane, p, len);
}

TARGET_BASE uint32_t crc32c_pclmul(uint32_t crc, const void *buf, size_t len)
{
    const unsigned char *p = buf;
    if (len < 16)
        return ~one_stream(~crc, p, len);
    if (len <= SHORT_MAX)
        return short_buffer(crc, p, len);
    return ~fold_four_lanes(~crc, p, len);
}

#define FOLD_PAIR512(d) _mm512_broadcast_i32x4(FOLD_PAIR(d))

/* acc moved forward by k's distance, plus data, in one three-way xor. */
TARGET_AVX512 static inline __m512i fold512(__m512i acc, __m512i k, __m512i data)
{
    return _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(acc, k, 0x00),
                                     _mm512_clmulepi64_epi128(acc, k, 0x11), data, 0x96);
}

TARGET_AVX512 static inline __m512i load512(const unsigned char *p)
{
    return _mm512_loadu_si512((const void *)p);
}

/* The four 128-bit lanes of z folded onto the last one. */
TARGET_AVX512 static inline __m128i fold_zmm_lanes(__m512i z)
{
    const __m512i k = _mm512_inserti32x4(
        _mm512_inserti32x4(_mm512_castsi128_si512(FOLD_PAIR(48)), FOLD_PAIR(32), 1), FOLD_PAIR(16), 2);
    __m512i folded = _mm512_xor_si512(_mm512_clmulepi64_epi128(z, k, 0x00), _mm512_clmulepi64_epi128(z, k, 0x11));
    __m128i lanes01 = _mm_xor_si128(_mm512_castsi512_si128(folded), _mm512_extracti32x4_epi32(folded, 1));
    __m128i lanes23 = _mm_xor_si128(_mm512_extracti32x4_epi32(folded, 2), _mm512_extracti32x4_epi32(z, 3));
    return _mm_xor_si128(lanes01, lanes23);
}

/* Four 512-bit accumulators, consecutive 64-byte blocks, folded onto the last one. */
TARGET_AVX512 static inline __m512i fold_zmm_registers(__m512i z0, __m512i z1, __m512i z2, __m512i z3)
{
    const __m512i k64 = FOLD_PAIR512(64);
    return fold512(fold512(fold512(z0, k64, z1), k64, z2), k64, z3);
}

/* The first 256 bytes as four accumulators, with the register folded into the first word. */
#define LOAD_FOUR_ZMM(reg, p, z0, z1, z2, z3)                                                        \
    __m512i z0 = _mm512_xor_si512(load512(p), _mm512_castsi128_si512(_mm_cvtsi32_si128((int)(reg)))); \
    __m512i z1 = load512((p) + 64), z2 = load512((p) + 128), z3 = load512((p) + 192)

/* Folds what is left of z (the data before p) with the remaining bytes and reduces. */
TARGET_AVX512 static inline uint32_t finish512(__m512i z, const unsigned char *p, size_t len)
{
    const __m512i k64 = FOLD_PAIR512(64);
    for (; len >= 64; p += 64, len -= 64)
        z = fold512(z, k64, load512(p));
    return finish128(fold_zmm_lanes(z), p, len);
}

/* 512-bit folding with four registers, 256 bytes a round; needs len >= 256. */
TARGET_AVX512 static uint32_t fold_four_zmm(uint32_t reg, const unsigned char *p, size_t len)
{
    const __m512i k256 = FOLD_PAIR512(256);
    LOAD_FOUR_ZMM(reg, p, z0, z1, z2, z3);
    for (p += 256, len -= 256; len >= 256; p += 256, len -= 256) {
        z0 = fold512(z0, k256, load512(p));
        z1 = fold512(z1, k256, load512(p + 64));
        z2 = fold512(z2, k256, load512(p + 128));
        z3 = fold512(z3, k256, load512(p + 192));
    }
    return finish512(fold_zmm_registers(z0, z1, z2, z3), p, len);
}

/* x^(8n-33) mod P for n a multiple of 8: the product of the entries for n's set bits. */
TARGET_BASE static uint32_t shift_constant(size_t len)
{
    uint32_t k = 0;
    bool have_factor = false;
    for (unsigned bit = 3; (len >> bit) != 0; bit++) {
        if (((len >> bit) & 1) == 0)
            continue;
        uint32_t factor = crc32c_shift_pow2_table[bit];
        k = have_factor ? shift_by(k, factor) : factor;
        have_factor = true;
    }
    return k;
}

/* The hybrid's round: 256 bytes into the zmm accumulators (VPCLMULQDQ issues about one
 * every other cycle) and 32 bytes into each of six crc32 streams (two issue a cycle with
 * latency 3), so both units stay busy. */
enum {
    HYBRID_STREAMS = 6,
    HYBRID_STREAM_BYTES = 32,
    HYBRID_VECTOR_BYTES = 256,
    HYBRID_ROUND = HYBRID_VECTOR_BYTES + HYBRID_STREAMS * HYBRID_STREAM_BYTES,
    HYBRID_MIN = 16384
};

/* Whole hybrid rounds: the zmm part covers the front of the buffer, the six streams the
 * equal parts after it; Horner's rule with one shift constant joins them. */
TARGET_AVX512 static uint32_t hybrid(uint32_t reg, const unsigned char **pp, size_t *plen)
{
    const unsigned char *vec = *pp;
    size_t rounds = *plen / HYBRID_ROUND, stream_len = rounds * HYBRID_STREAM_BYTES;
    const unsigned char *s0 = vec + rounds * HYBRID_VECTOR_BYTES, *s3 = s0 + 3 * stream_len;
    const __m512i k256 = FOLD_PAIR512(256);
    LOAD_FOUR_ZMM(reg, vec, z0, z1, z2, z3);
    uint64_t c0 = 0, c1 = 0, c2 = 0, c3 = 0, c4 = 0, c5 = 0;
    for (size_t off = 0;;) {
        c0 = four_words(c0, s0 + off);
        c1 = four_words(c1, s0 + stream_len + off);
        c2 = four_words(c2, s0 + 2 * stream_len + off);
        c3 = four_words(c3, s3 + off);
        c4 = four_words(c4, s3 + stream_len + off);
        c5 = four_words(c5, s3 + 2 * stream_len + off);
        off += HYBRID_STREAM_BYTES;
        if (off == stream_len)
            break;
        vec += HYBRID_VECTOR_BYTES;
        z0 = fold512(z0, k256, load512(vec));
        z1 = fold512(z1, k256, load512(vec + 64));
        z2 = fold512(z2, k256, load512(vec + 128));
        z3 = fold512(z3, k256, load512(vec + 192));
    }
    uint32_t crc = reduce128(fold_zmm_lanes(fold_zmm_registers(z0, z1, z2, z3)));
    uint32_t k = shift_constant(stream_len);
    crc = shift_by(crc, k) ^ (uint32_t)c0;
    crc = shift_by(crc, k) ^ (uint32_t)c1;
    crc = shift_by(crc, k) ^ (uint32_t)c2;
    crc = shift_by(crc, k) ^ (uint32_t)c3;
    crc = shift_by(crc, k) ^ (uint32_t)c4;
    crc = shift_by(crc, k) ^ (uint32_t)c5;
    *pp = s0 + HYBRID_STREAMS * stream_len;
    *plen -= rounds * HYBRID_ROUND;
    return crc;
}

/* Raw register over any length with the AVX-512 machine's best tools for that length. */
TARGET_AVX512 static uint32_t avx512_raw(uint32_t reg, const unsigned char *p, size_t len)
{
    if (len >= HYBRID_MIN)
        reg = hybrid(reg, &p, &len);
    if (len >= 256)
        return fold_four_zmm(reg, p, len);
    if (len >= 64)
        return fold_four_lanes(reg, p, len);
    return one_stream(reg, p, len);
}

TARGET_AVX512 uint32_t crc32c_avx512(uint32_t crc, const void *buf, size_t len)
{
    const unsigned char *p = buf;
    if (len < 16)
        return ~one_stream(~crc, p, len);
    if (len <= SHORT_MAX)
        return short_buffer(crc, p, len);
    return ~avx512_raw(~crc, p, len);
}

/* XCR0 bits the OS must enable for the registers a path uses. */
enum { XCR0_AVX512 = 0xe6 }; /* SSE, AVX, opmask, ZMM upper halves, ZMM16-31 */

static bool os_saves(unsigned mask)
{
    unsigned eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx) || !(ecx & bit_OSXSAVE))
        return false;
    unsigned lo, hi;
    __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (lo & mask) == mask;
}

bool crc32c_cpu_has_sse42_pclmul(void)
{
    unsigned eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx))
        return false;
    return (ecx & bit_SSE4_2) && (ecx & bit_PCLMUL);
}

bool crc32c_cpu_has_avx512_vpclmul(void)
{
    unsigned eax, ebx, ecx, edx;
    if (!crc32c_cpu_has_sse42_pclmul() || !__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx))
        return false;
    bool cpu = (ebx & bit_AVX512F) && (ebx & bit_AVX2) && (ecx & bit_VPCLMULQDQ);
    return cpu && os_saves(XCR0_AVX512);
}

#endif

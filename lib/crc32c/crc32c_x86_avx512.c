/* crc32c_x86_avx512.c: x86-64 CRC-32C on 512-bit VPCLMULQDQ (Ice Lake and later Xeons, Zen 4
 * and 5): zmm folding, and from 16 KiB a hybrid that also runs six crc32 streams. */
#if defined(__x86_64__)

#include "crc32c_x86_kernels.h"

#define FOLD_PAIR512(d) _mm512_broadcast_i32x4(CRC32C_FOLD_PAIR(d))

/* acc moved forward by k's distance, plus data, in one three-way xor. */
CRC32C_TARGET_AVX512 static inline __m512i fold512(__m512i acc, __m512i k, __m512i data)
{
    return _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(acc, k, 0x00),
                                     _mm512_clmulepi64_epi128(acc, k, 0x11), data, 0x96);
}

CRC32C_TARGET_AVX512 static inline __m512i load512(const unsigned char *p)
{
    return _mm512_loadu_si512((const void *)p);
}

/* The four 128-bit lanes of z folded onto the last one. */
CRC32C_TARGET_AVX512 static inline __m128i fold_zmm_lanes(__m512i z)
{
    const __m512i k = _mm512_inserti32x4(
        _mm512_inserti32x4(_mm512_castsi128_si512(CRC32C_FOLD_PAIR(48)), CRC32C_FOLD_PAIR(32), 1),
        CRC32C_FOLD_PAIR(16), 2);
    __m512i folded = _mm512_xor_si512(_mm512_clmulepi64_epi128(z, k, 0x00), _mm512_clmulepi64_epi128(z, k, 0x11));
    __m128i lanes01 = _mm_xor_si128(_mm512_castsi512_si128(folded), _mm512_extracti32x4_epi32(folded, 1));
    __m128i lanes23 = _mm_xor_si128(_mm512_extracti32x4_epi32(folded, 2), _mm512_extracti32x4_epi32(z, 3));
    return _mm_xor_si128(lanes01, lanes23);
}

/* Four 512-bit accumulators, consecutive 64-byte blocks, folded onto the last one. */
CRC32C_TARGET_AVX512 static inline __m512i fold_zmm_registers(__m512i z0, __m512i z1, __m512i z2, __m512i z3)
{
    const __m512i k64 = FOLD_PAIR512(64);
    return fold512(fold512(fold512(z0, k64, z1), k64, z2), k64, z3);
}

/* The first 256 bytes as four accumulators, with the register folded into the first word. */
#define LOAD_FOUR_ZMM(reg, p, z0, z1, z2, z3)                                                               \
    __m512i z0 = _mm512_xor_si512(load512(p), _mm512_castsi128_si512(crc32c_reg128(reg)));                 \
    __m512i z1 = load512((p) + 64), z2 = load512((p) + 128), z3 = load512((p) + 192)

/* Folds what is left of z (the data before p) with the remaining bytes and reduces. */
CRC32C_TARGET_AVX512 static inline uint32_t finish512(__m512i z, const unsigned char *p, size_t len)
{
    const __m512i k64 = FOLD_PAIR512(64);
    for (; len >= 64; p += 64, len -= 64)
        z = fold512(z, k64, load512(p));
    return crc32c_finish128(fold_zmm_lanes(z), p, len);
}

/* 512-bit folding with four registers, 256 bytes a round; needs len >= 256. */
CRC32C_TARGET_AVX512 static uint32_t fold_four_zmm(uint32_t reg, const unsigned char *p, size_t len)
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

/* The hybrid's round: 256 bytes into the zmm accumulators (VPCLMULQDQ issues about one
 * every other cycle on Zen 5) and 32 bytes into each of six crc32 streams (two issue a
 * cycle there, latency 3), so both units stay busy. */
enum {
    HYBRID_STREAMS = 6,
    HYBRID_VECTOR_BYTES = 256,
    HYBRID_ROUND = HYBRID_VECTOR_BYTES + HYBRID_STREAMS * CRC32C_HYBRID_STREAM_BYTES,
    HYBRID_MIN = 16384
};

/* Six streams as two groups of the shared four-stream registers (the second half-used). */
CRC32C_TARGET_AVX512 static inline void six_streams_round(crc32c_stream_regs *a, crc32c_stream_regs *b,
                                                          const unsigned char *s0, size_t stride, size_t off)
{
    crc32c_streams_round(a, s0, stride, off);
    b->c[0] = crc32c_four_words(b->c[0], s0 + 4 * stride + off);
    b->c[1] = crc32c_four_words(b->c[1], s0 + 5 * stride + off);
}

/* Whole hybrid rounds: the zmm part covers the front of the buffer, the six streams the
 * equal parts after it; Horner's rule with one shift constant joins them. */
CRC32C_TARGET_AVX512 static uint32_t hybrid(uint32_t reg, const unsigned char **pp, size_t *plen)
{
    const unsigned char *vec = *pp;
    size_t rounds = *plen / HYBRID_ROUND, stream_len = rounds * CRC32C_HYBRID_STREAM_BYTES;
    const unsigned char *s0 = vec + rounds * HYBRID_VECTOR_BYTES;
    uint32_t k = crc32c_x86_shift_constant(stream_len);
    const __m512i k256 = FOLD_PAIR512(256);
    LOAD_FOUR_ZMM(reg, vec, z0, z1, z2, z3);
    crc32c_stream_regs a = {{0, 0, 0, 0}}, b = {{0, 0, 0, 0}};
    for (size_t off = 0;;) {
        six_streams_round(&a, &b, s0, stream_len, off);
        off += CRC32C_HYBRID_STREAM_BYTES;
        if (off == stream_len)
            break;
        vec += HYBRID_VECTOR_BYTES;
        z0 = fold512(z0, k256, load512(vec));
        z1 = fold512(z1, k256, load512(vec + 64));
        z2 = fold512(z2, k256, load512(vec + 128));
        z3 = fold512(z3, k256, load512(vec + 192));
    }
    uint32_t crc = crc32c_reduce128(fold_zmm_lanes(fold_zmm_registers(z0, z1, z2, z3)));
    crc = crc32c_join_streams(crc, &a, CRC32C_HYBRID_STREAMS, k);
    crc = crc32c_join_streams(crc, &b, HYBRID_STREAMS - CRC32C_HYBRID_STREAMS, k);
    *pp = s0 + HYBRID_STREAMS * stream_len;
    *plen -= rounds * HYBRID_ROUND;
    return crc;
}

/* Raw register over any length with the AVX-512 machine's best tools for that length. */
CRC32C_TARGET_AVX512 static uint32_t avx512_raw(uint32_t reg, const unsigned char *p, size_t len)
{
    if (len >= HYBRID_MIN)
        reg = hybrid(reg, &p, &len);
    if (len >= 256)
        return fold_four_zmm(reg, p, len);
    if (len >= 64)
        return crc32c_fold_four_lanes(reg, p, len);
    return crc32c_one_stream(reg, p, len);
}

CRC32C_TARGET_AVX512 CRC32C_LONG static uint32_t avx512_long(uint32_t crc, const unsigned char *p, size_t len)
{
    return ~avx512_raw(~crc, p, len);
}

CRC32C_TARGET_AVX512 uint32_t crc32c_avx512(uint32_t crc, const void *buf, size_t len)
{
    if (CRC32C_SHORT_FIRST(len <= CRC32C_X86_SHORT_MAX))
        return crc32c_x86_short(crc, buf, len);
    return avx512_long(crc, buf, len);
}

#endif

/* crc32c_x86_avx2.c: x86-64 CRC-32C on 256-bit VPCLMULQDQ without AVX-512 (Zen 3, Alder
 * Lake): folding alone (avx2_vpclmul) and folding beside four crc32 streams (avx2_hybrid). */
#if defined(__x86_64__)

#include "crc32c_x86_kernels.h"

#define FOLD_PAIR256(d) _mm256_broadcastsi128_si256(CRC32C_FOLD_PAIR(d))

/* acc moved forward by k's distance, plus data. */
CRC32C_TARGET_AVX2_VPCLMUL static inline __m256i fold256(__m256i acc, __m256i k, __m256i data)
{
    __m256i lo = _mm256_clmulepi64_epi128(acc, k, 0x00), hi = _mm256_clmulepi64_epi128(acc, k, 0x11);
    return _mm256_xor_si256(_mm256_xor_si256(lo, data), hi);
}

CRC32C_TARGET_AVX2_VPCLMUL static inline __m256i load256(const unsigned char *p)
{
    return _mm256_loadu_si256((const __m256i *)(const void *)p);
}

/* Four 256-bit accumulators over 128 consecutive bytes. */
typedef struct {
    __m256i y0, y1, y2, y3;
} ymm4;

CRC32C_TARGET_AVX2_VPCLMUL static inline ymm4 load_ymm4(const unsigned char *p, uint32_t reg)
{
    ymm4 y = {load256(p), load256(p + 32), load256(p + 64), load256(p + 96)};
    y.y0 = _mm256_xor_si256(y.y0, _mm256_castsi128_si256(crc32c_reg128(reg)));
    return y;
}

CRC32C_TARGET_AVX2_VPCLMUL static inline void fold_ymm4(ymm4 *y, __m256i k, const unsigned char *p)
{
    y->y0 = fold256(y->y0, k, load256(p));
    y->y1 = fold256(y->y1, k, load256(p + 32));
    y->y2 = fold256(y->y2, k, load256(p + 64));
    y->y3 = fold256(y->y3, k, load256(p + 96));
}

/* The four accumulators folded onto the last one, as a tree (two levels, not three). */
CRC32C_TARGET_AVX2_VPCLMUL static inline __m256i join_ymm4(const ymm4 *y)
{
    const __m256i k32 = FOLD_PAIR256(32);
    __m256i a = fold256(y->y0, k32, y->y1), b = fold256(y->y2, k32, y->y3);
    return fold256(a, FOLD_PAIR256(64), b);
}

/* Folds 32-byte blocks into y while they last, then the 128-bit tail machinery. */
CRC32C_TARGET_AVX2_VPCLMUL static inline uint32_t finish256(__m256i y, const unsigned char *p, size_t len)
{
    const __m256i k32 = FOLD_PAIR256(32);
    for (; len >= 32; len -= 32, p += 32)
        y = fold256(y, k32, load256(p));
    __m128i lo = _mm256_castsi256_si128(y), hi = _mm256_extracti128_si256(y, 1);
    return crc32c_finish128(_mm_xor_si128(crc32c_fold128(lo, CRC32C_FOLD_PAIR(16)), hi), p, len);
}

/* 256-bit folding, 128 bytes a round; needs len >= 128. Four accumulators: a fold's latency
 * (vpclmulqdq 3-4 cycles, two xors) is under two rounds' issue time on Zen 3 and Alder Lake. */
CRC32C_TARGET_AVX2_VPCLMUL static uint32_t fold_ymm_raw(uint32_t reg, const unsigned char *p, size_t len)
{
    const __m256i k128 = FOLD_PAIR256(128);
    ymm4 y = load_ymm4(p, reg);
    for (p += 128, len -= 128; len >= 128; p += 128, len -= 128)
        fold_ymm4(&y, k128, p);
    return finish256(join_ymm4(&y), p, len);
}

/* Any length past the short path: 256-bit folding, 128-bit folding below 128 bytes. */
CRC32C_TARGET_AVX2_VPCLMUL static uint32_t vpclmul_raw(uint32_t reg, const unsigned char *p, size_t len)
{
    if (len >= 128)
        return fold_ymm_raw(reg, p, len);
    if (len >= 64)
        return crc32c_fold_four_lanes(reg, p, len);
    return crc32c_one_stream(reg, p, len);
}

/* From this length the 256-bit fold beats the one-stream short path on Zen 3 (measured:
 * 14.1 against 19.7 ns per independent 256-byte call, 12.5 against 14.3 at 192 bytes);
 * for chained calls the short path, with crc joined by one multiplication, still wins at
 * 192 bytes (13.8 against 17.2 ns) and ties near 224. */
enum { FOLD_MIN = 224 };

CRC32C_TARGET_AVX2_VPCLMUL CRC32C_LONG static uint32_t vpclmul_long(uint32_t crc, const unsigned char *p, size_t len)
{
    return ~vpclmul_raw(~crc, p, len);
}

CRC32C_TARGET_AVX2_VPCLMUL uint32_t crc32c_avx2_vpclmul(uint32_t crc, const void *buf, size_t len)
{
    if (CRC32C_SHORT_FIRST(len < FOLD_MIN))
        return crc32c_x86_short(crc, buf, len);
    return vpclmul_long(crc, buf, len);
}

/* The hybrid's round: 128 bytes into the ymm accumulators and 32 into each of four crc32
 * streams. On Zen 3 vpclmulqdq ymm and crc32 each take 16 cycles for their share (two
 * vpclmulqdq a fold, one every two cycles; crc32 one a cycle), on different ports. */
enum {
    HYBRID_VECTOR_BYTES = 128,
    HYBRID_MIN = 1024
};

CRC32C_TARGET_AVX2_VPCLMUL static uint32_t hybrid(uint32_t reg, const unsigned char **pp, size_t *plen)
{
    const unsigned char *vec = *pp;
    crc32c_hybrid_layout h = crc32c_plan_hybrid(vec, *plen, HYBRID_VECTOR_BYTES);
    uint32_t k = crc32c_x86_shift_constant(h.stream_len);
    const __m256i k128 = FOLD_PAIR256(128);
    ymm4 y = load_ymm4(vec, reg);
    crc32c_stream_regs s = {{0, 0, 0, 0}};
    for (size_t off = 0;;) {
        crc32c_streams_round(&s, h.streams, h.stream_len, off);
        off += CRC32C_HYBRID_STREAM_BYTES;
        if (off == h.stream_len)
            break;
        vec += HYBRID_VECTOR_BYTES;
        fold_ymm4(&y, k128, vec);
    }
    uint32_t crc = finish256(join_ymm4(&y), vec, 0);
    crc32c_skip_hybrid(&h, pp, plen, HYBRID_VECTOR_BYTES);
    return crc32c_join_streams(crc, &s, CRC32C_HYBRID_STREAMS, k);
}

/* Buffers of HYBRID_MIN or more; a function of its own so that the shorter ones, which
 * fold only, do not pay for the hybrid's saved registers. */
CRC32C_TARGET_AVX2_VPCLMUL CRC32C_LONG static uint32_t hybrid_long(uint32_t crc, const unsigned char *p, size_t len)
{
    uint32_t reg = hybrid(~crc, &p, &len);
    return ~vpclmul_raw(reg, p, len);
}

CRC32C_TARGET_AVX2_VPCLMUL uint32_t crc32c_avx2_hybrid(uint32_t crc, const void *buf, size_t len)
{
    if (CRC32C_SHORT_FIRST(len < FOLD_MIN))
        return crc32c_x86_short(crc, buf, len);
    if (len < HYBRID_MIN)
        return vpclmul_long(crc, buf, len);
    return hybrid_long(crc, buf, len);
}

#endif

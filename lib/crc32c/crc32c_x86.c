/* crc32c_x86.c: x86-64 CRC-32C paths on 128-bit registers: crc32 streams (sse42), PCLMULQDQ
 * folding (pclmul), and the two hybrids that run both side by side on different ports. */
#if defined(__x86_64__)

#include "crc32c_x86_kernels.h"

CRC32C_TARGET_BASE uint32_t crc32c_x86_shift_constant(size_t n)
{
    uint32_t k = 0;
    bool have_factor = false;
    for (unsigned bit = 3; (n >> bit) != 0; bit++) {
        if (((n >> bit) & 1) == 0)
            continue;
        uint32_t factor = crc32c_shift_pow2_table[bit];
        k = have_factor ? crc32c_shift_by(k, factor) : factor;
        have_factor = true;
    }
    return k;
}

CRC32C_TARGET_BASE CRC32C_LONG static uint32_t sse42_long(uint32_t crc, const unsigned char *p, size_t len)
{
    return ~crc32c_streams_raw(~crc, p, len);
}

CRC32C_TARGET_BASE uint32_t crc32c_sse42(uint32_t crc, const void *buf, size_t len)
{
    if (CRC32C_SHORT_FIRST(len <= CRC32C_X86_SHORT_MAX))
        return crc32c_x86_short(crc, buf, len);
    return sse42_long(crc, buf, len);
}

CRC32C_TARGET_BASE CRC32C_LONG static uint32_t pclmul_long(uint32_t crc, const unsigned char *p, size_t len)
{
    return ~crc32c_fold_four_lanes(~crc, p, len);
}

CRC32C_TARGET_BASE uint32_t crc32c_pclmul(uint32_t crc, const void *buf, size_t len)
{
    if (CRC32C_SHORT_FIRST(len <= CRC32C_X86_SHORT_MAX))
        return crc32c_x86_short(crc, buf, len);
    return pclmul_long(crc, buf, len);
}

/* Four 128-bit accumulators over 64 consecutive bytes. */
typedef struct {
    __m128i x0, x1, x2, x3;
} lanes4;

CRC32C_TARGET_AVX2 static inline lanes4 load_lanes4(const unsigned char *p, uint32_t reg)
{
    lanes4 l = {crc32c_load128(p), crc32c_load128(p + 16), crc32c_load128(p + 32), crc32c_load128(p + 48)};
    l.x0 = _mm_xor_si128(l.x0, crc32c_reg128(reg));
    return l;
}

CRC32C_TARGET_AVX2 static inline void fold_lanes4(lanes4 *l, __m128i k, const unsigned char *p)
{
    l->x0 = _mm_xor_si128(crc32c_fold128(l->x0, k), crc32c_load128(p));
    l->x1 = _mm_xor_si128(crc32c_fold128(l->x1, k), crc32c_load128(p + 16));
    l->x2 = _mm_xor_si128(crc32c_fold128(l->x2, k), crc32c_load128(p + 32));
    l->x3 = _mm_xor_si128(crc32c_fold128(l->x3, k), crc32c_load128(p + 48));
}

CRC32C_TARGET_AVX2 static inline __m128i join_lanes4(const lanes4 *l)
{
    return crc32c_join_four_lanes(l->x0, l->x1, l->x2, l->x3);
}

/* pclmul_hybrid's round: 128 bytes into eight 128-bit lanes and 32 bytes into each of four
 * crc32 streams. With pclmulqdq issuing once a cycle (Broadwell, Skylake) both sides take
 * 16 cycles a round. */
enum { WIDE_VECTOR_BYTES = 128, WIDE_HYBRID_MIN = 2048 };

CRC32C_TARGET_AVX2 static uint32_t wide_hybrid(uint32_t reg, const unsigned char **pp, size_t *plen)
{
    const unsigned char *vec = *pp;
    crc32c_hybrid_layout h = crc32c_plan_hybrid(vec, *plen, WIDE_VECTOR_BYTES);
    uint32_t k = crc32c_x86_shift_constant(h.stream_len);
    const __m128i k128 = CRC32C_FOLD_PAIR(128);
    lanes4 a = load_lanes4(vec, reg), b = load_lanes4(vec + 64, 0);
    crc32c_stream_regs s = {{0, 0, 0, 0}};
    for (size_t off = 0;;) {
        crc32c_streams_round(&s, h.streams, h.stream_len, off);
        off += CRC32C_HYBRID_STREAM_BYTES;
        if (off == h.stream_len)
            break;
        vec += WIDE_VECTOR_BYTES;
        fold_lanes4(&a, k128, vec);
        fold_lanes4(&b, k128, vec + 64);
    }
    __m128i lane = _mm_xor_si128(crc32c_fold128(join_lanes4(&a), CRC32C_FOLD_PAIR(64)), join_lanes4(&b));
    crc32c_skip_hybrid(&h, pp, plen, WIDE_VECTOR_BYTES);
    return crc32c_join_streams(crc32c_reduce128(lane), &s, CRC32C_HYBRID_STREAMS, k);
}

/* Buffers of WIDE_HYBRID_MIN or more (shorter ones take sse42_long, without this one's saved registers). */
CRC32C_TARGET_AVX2 CRC32C_LONG static uint32_t wide_hybrid_long(uint32_t crc, const unsigned char *p, size_t len)
{
    uint32_t reg = wide_hybrid(~crc, &p, &len);
    return ~crc32c_streams_raw(reg, p, len);
}

CRC32C_TARGET_AVX2 uint32_t crc32c_pclmul_hybrid(uint32_t crc, const void *buf, size_t len)
{
    if (CRC32C_SHORT_FIRST(len <= CRC32C_X86_SHORT_MAX))
        return crc32c_x86_short(crc, buf, len);
    if (len < WIDE_HYBRID_MIN)
        return sse42_long(crc, buf, len);
    return wide_hybrid_long(crc, buf, len);
}

/* sse42_hybrid's round: 64 bytes into four 128-bit lanes and 32 bytes into each of four
 * streams, for cores whose pclmulqdq issues every other cycle (Haswell, Zen 1 to 3): 16
 * cycles for either side, 12 bytes a cycle against 8 for crc32 alone. */
enum { NARROW_VECTOR_BYTES = 64, NARROW_HYBRID_MIN = 2048 };

CRC32C_TARGET_AVX2 static uint32_t narrow_hybrid(uint32_t reg, const unsigned char **pp, size_t *plen)
{
    const unsigned char *vec = *pp;
    crc32c_hybrid_layout h = crc32c_plan_hybrid(vec, *plen, NARROW_VECTOR_BYTES);
    uint32_t k = crc32c_x86_shift_constant(h.stream_len);
    const __m128i k64 = CRC32C_FOLD_PAIR(64);
    lanes4 a = load_lanes4(vec, reg);
    crc32c_stream_regs s = {{0, 0, 0, 0}};
    for (size_t off = 0;;) {
        crc32c_streams_round(&s, h.streams, h.stream_len, off);
        off += CRC32C_HYBRID_STREAM_BYTES;
        if (off == h.stream_len)
            break;
        vec += NARROW_VECTOR_BYTES;
        fold_lanes4(&a, k64, vec);
    }
    crc32c_skip_hybrid(&h, pp, plen, NARROW_VECTOR_BYTES);
    return crc32c_join_streams(crc32c_reduce128(join_lanes4(&a)), &s, CRC32C_HYBRID_STREAMS, k);
}

/* Buffers of NARROW_HYBRID_MIN or more (shorter ones take sse42_long, without this one's saved registers). */
CRC32C_TARGET_AVX2 CRC32C_LONG static uint32_t narrow_hybrid_long(uint32_t crc, const unsigned char *p, size_t len)
{
    uint32_t reg = narrow_hybrid(~crc, &p, &len);
    return ~crc32c_streams_raw(reg, p, len);
}

CRC32C_TARGET_AVX2 uint32_t crc32c_sse42_hybrid(uint32_t crc, const void *buf, size_t len)
{
    if (CRC32C_SHORT_FIRST(len <= CRC32C_X86_SHORT_MAX))
        return crc32c_x86_short(crc, buf, len);
    if (len < NARROW_HYBRID_MIN)
        return sse42_long(crc, buf, len);
    return narrow_hybrid_long(crc, buf, len);
}

#endif

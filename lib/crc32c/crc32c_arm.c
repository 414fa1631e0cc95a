/* crc32c_arm.c: AArch64 CRC-32C with the Armv8 CRC32 instructions, and with PMULL to join
 * streams and, for long buffers, to fold beside them. Function-level targets keep default flags. */
#if defined(__aarch64__)

#include <arm_acle.h>
#include <arm_neon.h>
#include <string.h>

#include "crc32c_internal.h"

#define TARGET_CRC __attribute__((target("+crc")))
#define TARGET_CRC_PMULL __attribute__((target("+crc+crypto")))

enum { SHORT_MAX = CRC32C_SHIFT_TABLE_MAX };

TARGET_CRC static inline uint64_t load64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* One stream of crc32cx over the raw register, bytes for the tail. */
TARGET_CRC static inline uint32_t one_stream(uint32_t reg, const unsigned char *p, size_t len)
{
    for (; len >= 8; len -= 8, p += 8)
        reg = __crc32cd(reg, load64(p));
    for (; len > 0; len--, p++)
        reg = __crc32cb(reg, *p);
    return reg;
}

/* Raw CRCs of three consecutive blocks; only the first continues from reg. */
struct stream_crcs {
    uint32_t a, b, c;
};

TARGET_CRC static inline struct stream_crcs three_streams(uint32_t reg, const unsigned char *p, size_t block)
{
    struct stream_crcs s = {reg, 0, 0};
    for (size_t i = 0; i < block; i += 8) {
        s.a = __crc32cd(s.a, load64(p + i));
        s.b = __crc32cd(s.b, load64(p + block + i));
        s.c = __crc32cd(s.c, load64(p + 2 * block + i));
    }
    return s;
}

/* Without PMULL the join is a software multiplication, so blocks are long to amortise it. */
TARGET_CRC uint32_t crc32c_armv8(uint32_t crc, const void *buf, size_t len)
{
    enum { BLOCK = 1024 };
    const unsigned char *p = buf;
    uint32_t reg = ~crc;
    for (; len >= 3 * BLOCK; len -= 3 * BLOCK, p += 3 * BLOCK) {
        struct stream_crcs s = three_streams(reg, p, BLOCK);
        reg = crc32c_shift_zeros(s.a, 2 * BLOCK) ^ crc32c_shift_zeros(s.b, BLOCK) ^ s.c;
    }
    return ~one_stream(reg, p, len);
}

/* reg * x^(8n) mod P given k = x^(8n-33), as on x86: a 64-bit polynomial product whose
 * low half, fed to crc32cx as data, gains x^32 and is reduced. */
TARGET_CRC_PMULL static inline uint32_t shift_by(uint32_t reg, uint32_t k)
{
    poly128_t product = vmull_p64((poly64_t)reg, (poly64_t)k);
    return __crc32cd(0, vgetq_lane_u64(vreinterpretq_u64_p128(product), 0));
}

/* Short buffers: crc enters through one multiplication, so chained calls overlap. */
TARGET_CRC_PMULL static inline uint32_t short_buffer(uint32_t crc, const unsigned char *p, size_t len)
{
    uint32_t data_crc = ~one_stream(~0u, p, len);
    if (crc == 0)
        return data_crc;
    return shift_by(crc, crc32c_shift_table[len]) ^ data_crc;
}

/* x^(8n-33) mod P for n a multiple of 8 (n >= 8): a product of crc32c_shift_pow2_table entries. */
TARGET_CRC_PMULL static uint32_t shift_constant(size_t n)
{
    uint32_t k = 0;
    bool have_factor = false;
    for (unsigned bit = 3; (n >> bit) != 0; bit++) {
        if (((n >> bit) & 1) == 0)
            continue;
        uint32_t factor = crc32c_shift_pow2_table[bit];
        k = have_factor ? shift_by(k, factor) : factor;
        have_factor = true;
    }
    return k;
}

/* Fold constants for distance d bytes, as on x86: lane 0 (the first, higher-degree
 * quadword) is multiplied by x^(8d+31), lane 1 by x^(8d-33). */
#define FOLD_PAIR(d) vcombine_p64(vcreate_p64(CRC32C_FOLD_HI_##d), vcreate_p64(CRC32C_FOLD_LO_##d))

/* acc moved forward by k's distance, plus data: pmull on the low lanes, pmull2 on the high. */
TARGET_CRC_PMULL static inline uint64x2_t fold128(uint64x2_t acc, poly64x2_t k, uint64x2_t data)
{
    poly64x2_t a = vreinterpretq_p64_u64(acc);
    uint64x2_t lo = vreinterpretq_u64_p128(vmull_p64(vgetq_lane_p64(a, 0), vgetq_lane_p64(k, 0)));
    uint64x2_t hi = vreinterpretq_u64_p128(vmull_high_p64(a, k));
    return veorq_u64(veorq_u64(lo, data), hi);
}

TARGET_CRC_PMULL static inline uint64x2_t load128(const unsigned char *p)
{
    return vreinterpretq_u64_u8(vld1q_u8(p));
}

/* A lane at the end of the data so far, reduced: its 16 bytes fed to crc32cx from zero. */
TARGET_CRC_PMULL static inline uint32_t reduce128(uint64x2_t lane)
{
    return __crc32cd(__crc32cd(0, vgetq_lane_u64(lane, 0)), vgetq_lane_u64(lane, 1));
}

/* The hybrid's round: 64 bytes into four 128-bit lanes (pmull + pmull2 + two eor per lane)
 * and 32 bytes into each of three crc32cx streams (latency 2 to 3, one a cycle on Neoverse
 * N1 and Apple cores). Where pmull issues once a cycle (N1) the vector side takes 8 cycles
 * and the streams 12; cores with more vector pipes (V1, M1) finish the vector side sooner. */
enum { STREAMS = 3, STREAM_BYTES = 32, VECTOR_BYTES = 64, ROUND = VECTOR_BYTES + STREAMS * STREAM_BYTES };
enum { HYBRID_MIN = 1024 };

typedef struct {
    uint64x2_t x0, x1, x2, x3;
} lanes4;

TARGET_CRC_PMULL static inline void fold_lanes4(lanes4 *l, poly64x2_t k, const unsigned char *p)
{
    l->x0 = fold128(l->x0, k, load128(p));
    l->x1 = fold128(l->x1, k, load128(p + 16));
    l->x2 = fold128(l->x2, k, load128(p + 32));
    l->x3 = fold128(l->x3, k, load128(p + 48));
}

/* The four lanes folded onto the last one, then reduced to a raw register. */
TARGET_CRC_PMULL static inline uint32_t join_lanes4(const lanes4 *l)
{
    uint64x2_t lane = fold128(l->x0, FOLD_PAIR(16), l->x1);
    lane = fold128(lane, FOLD_PAIR(16), l->x2);
    return reduce128(fold128(lane, FOLD_PAIR(16), l->x3));
}

/* Four crc32cx steps on one stream. */
TARGET_CRC static inline uint32_t four_words(uint32_t reg, const unsigned char *p)
{
    reg = __crc32cd(reg, load64(p));
    reg = __crc32cd(reg, load64(p + 8));
    reg = __crc32cd(reg, load64(p + 16));
    return __crc32cd(reg, load64(p + 24));
}

/* Whole rounds: the lanes cover the front of the buffer, the three streams equal parts
 * after it; Horner's rule with one shift constant joins them. */
TARGET_CRC_PMULL static uint32_t hybrid(uint32_t reg, const unsigned char **pp, size_t *plen)
{
    const unsigned char *vec = *pp;
    size_t rounds = *plen / ROUND, stream_len = rounds * STREAM_BYTES;
    const unsigned char *s0 = vec + rounds * VECTOR_BYTES;
    uint32_t k = shift_constant(stream_len);
    const poly64x2_t k64 = FOLD_PAIR(64);
    lanes4 l = {veorq_u64(load128(vec), vsetq_lane_u64(reg, vdupq_n_u64(0), 0)), load128(vec + 16),
                load128(vec + 32), load128(vec + 48)};
    uint32_t c0 = 0, c1 = 0, c2 = 0;
    for (size_t off = 0;;) {
        c0 = four_words(c0, s0 + off);
        c1 = four_words(c1, s0 + stream_len + off);
        c2 = four_words(c2, s0 + 2 * stream_len + off);
        off += STREAM_BYTES;
        if (off == stream_len)
            break;
        vec += VECTOR_BYTES;
        fold_lanes4(&l, k64, vec);
    }
    uint32_t crc = join_lanes4(&l);
    crc = shift_by(crc, k) ^ c0;
    crc = shift_by(crc, k) ^ c1;
    crc = shift_by(crc, k) ^ c2;
    *pp = s0 + STREAMS * stream_len;
    *plen -= rounds * ROUND;
    return crc;
}

/* From HYBRID_MIN the hybrid takes whole rounds; three joined streams take the rest. */
TARGET_CRC_PMULL uint32_t crc32c_armv8_pmull(uint32_t crc, const void *buf, size_t len)
{
    const unsigned char *p = buf;
    if (len < 16)
        return ~one_stream(~crc, p, len);
    if (len <= SHORT_MAX)
        return short_buffer(crc, p, len);
    uint32_t reg = ~crc;
    if (len >= HYBRID_MIN)
        reg = hybrid(reg, &p, &len);
    for (; len >= 3 * 1024; len -= 3 * 1024, p += 3 * 1024) {
        struct stream_crcs s = three_streams(reg, p, 1024);
        reg = shift_by(s.a, CRC32C_SHIFT_2048) ^ shift_by(s.b, CRC32C_SHIFT_1024) ^ s.c;
    }
    for (; len >= 3 * 128; len -= 3 * 128, p += 3 * 128) {
        struct stream_crcs s = three_streams(reg, p, 128);
        reg = shift_by(s.a, CRC32C_SHIFT_256) ^ shift_by(s.b, CRC32C_SHIFT_128) ^ s.c;
    }
    return ~one_stream(reg, p, len);
}

#endif

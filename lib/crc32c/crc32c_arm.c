/* crc32c_arm.c: AArch64 CRC-32C with the Armv8 CRC32 instructions, and with PMULL to
 * join interleaved streams. Function-level target attributes keep default build flags. */
#if defined(__aarch64__)

#include <arm_acle.h>
#include <arm_neon.h>
#include <asm/hwcap.h>
#include <string.h>
#include <sys/auxv.h>

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

TARGET_CRC_PMULL uint32_t crc32c_armv8_pmull(uint32_t crc, const void *buf, size_t len)
{
    const unsigned char *p = buf;
    if (len < 16)
        return ~one_stream(~crc, p, len);
    if (len <= SHORT_MAX)
        return short_buffer(crc, p, len);
    uint32_t reg = ~crc;
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

bool crc32c_cpu_has_crc32(void)
{
    return (getauxval(AT_HWCAP) & HWCAP_CRC32) != 0;
}

bool crc32c_cpu_has_crc32_pmull(void)
{
    unsigned long hwcap = getauxval(AT_HWCAP);
    return (hwcap & HWCAP_CRC32) && (hwcap & HWCAP_PMULL);
}

#endif

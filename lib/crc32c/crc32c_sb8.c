/* crc32c_sb8.c: portable CRC-32C by slicing-by-8 over generated tables, and the
 * arithmetic that combines CRCs of adjacent pieces. Runs on any CPU. */
#include "crc32c_gf2.h"
#include "crc32c_internal.h"

/* Little-endian load assembled from bytes, so the result is the same on any host. */
static uint32_t load_le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Eight bytes at once: the first byte is followed by seven others, so it uses table 7. */
static uint32_t sb8_step(uint32_t reg, const unsigned char *p)
{
    const uint32_t(*t)[256] = crc32c_sb8_table;
    uint32_t lo = reg ^ load_le32(p);
    uint32_t hi = load_le32(p + 4);
    return t[7][lo & 0xff] ^ t[6][(lo >> 8) & 0xff] ^ t[5][(lo >> 16) & 0xff] ^ t[4][lo >> 24] ^
           t[3][hi & 0xff] ^ t[2][(hi >> 8) & 0xff] ^ t[1][(hi >> 16) & 0xff] ^ t[0][hi >> 24];
}

uint32_t crc32c_sb8_raw(uint32_t reg, const unsigned char *p, size_t len)
{
    for (; len >= 8; len -= 8, p += 8)
        reg = sb8_step(reg, p);
    for (; len > 0; len--, p++)
        reg = (reg >> 8) ^ crc32c_sb8_table[0][(reg ^ *p) & 0xff];
    return reg;
}

uint32_t crc32c_sb8(uint32_t crc, const void *buf, size_t len)
{
    return ~crc32c_sb8_raw(~crc, (const unsigned char *)buf, len);
}

uint32_t crc32c_shift_zeros(uint32_t reg, uint64_t len)
{
    for (unsigned k = 0; len != 0; k++, len >>= 1)
        if (len & 1)
            reg = crc32c_gf2_multiply(reg, crc32c_pow8_table[k]);
    return reg;
}

/* The inversions at both ends cancel: crc(a|b) = crc_a * x^(8 len_b) xor crc_b. */
uint32_t crc32c_combine(uint32_t crc_a, uint32_t crc_b, uint64_t len_b)
{
    return crc32c_shift_zeros(crc_a, len_b) ^ crc_b;
}

/* crc32c_internal.h: declarations shared inside the CRC-32C library, not installed.
 * Generated tables, the portable kernel and the CPU feature probes. */
#ifndef CRC32C_INTERNAL_H
#define CRC32C_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crc32c.h"
#include "crc32c_consts.h"

/* crc32c_sb8_table[k][b]: register after byte b then k zero bytes, from a zero register. */
extern const uint32_t crc32c_sb8_table[8][256];
/* crc32c_shift_table[n] = x^(8n-33) mod P for 5 <= n <= CRC32C_SHIFT_TABLE_MAX. */
extern const uint32_t crc32c_shift_table[CRC32C_SHIFT_TABLE_MAX + 1];
/* crc32c_shift_pow2_table[k] = x^(8 * 2^k - 33) mod P for k >= 3. */
extern const uint32_t crc32c_shift_pow2_table[64];
/* crc32c_pow8_table[k] = x^(8 * 2^k) mod P. */
extern const uint32_t crc32c_pow8_table[64];

/* Slicing-by-8 on the raw register (no pre/post inversion). */
uint32_t crc32c_sb8_raw(uint32_t reg, const unsigned char *p, size_t len);

/* The raw register advanced over len zero bytes: reg * x^(8 len) mod P. */
uint32_t crc32c_shift_zeros(uint32_t reg, uint64_t len);

/* CPU feature probes, each cheap enough to call at dispatch time only. */
#if defined(__x86_64__)
bool crc32c_cpu_has_sse42_pclmul(void);
bool crc32c_cpu_has_avx512_vpclmul(void);
#endif
#if defined(__aarch64__)
bool crc32c_cpu_has_crc32(void);
bool crc32c_cpu_has_crc32_pmull(void);
#endif

#endif

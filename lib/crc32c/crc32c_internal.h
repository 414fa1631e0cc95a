/* crc32c_internal.h: declarations shared inside the CRC-32C library, not installed.
 * Generated tables, the portable kernel, the CPU description and the selection table. */
#ifndef CRC32C_INTERNAL_H
#define CRC32C_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crc32c.h"
#include "crc32c_consts.h"

/* The tables stay inside the library, so position-independent code reaches them directly
 * rather than through the GOT (one load fewer on the short path). */
#define CRC32C_HIDDEN __attribute__((visibility("hidden")))

/* crc32c_sb8_table[k][b]: register after byte b then k zero bytes, from a zero register. */
CRC32C_HIDDEN extern const uint32_t crc32c_sb8_table[8][256];
/* crc32c_shift_table[n] = x^(8n-33) mod P for 5 <= n <= CRC32C_SHIFT_TABLE_MAX. */
CRC32C_HIDDEN extern const uint32_t crc32c_shift_table[CRC32C_SHIFT_TABLE_MAX + 1];
/* crc32c_shift_pow2_table[k] = x^(8 * 2^k - 33) mod P for k >= 3. */
CRC32C_HIDDEN extern const uint32_t crc32c_shift_pow2_table[64];
/* crc32c_pow8_table[k] = x^(8 * 2^k) mod P. */
CRC32C_HIDDEN extern const uint32_t crc32c_pow8_table[64];
/* Slicing-by-8 on the raw register (no pre/post inversion). */
uint32_t crc32c_sb8_raw(uint32_t reg, const unsigned char *p, size_t len);

/* The raw register advanced over len zero bytes: reg * x^(8 len) mod P. */
uint32_t crc32c_shift_zeros(uint32_t reg, uint64_t len);

/* Features a path can need; each bit means the OS also saves the registers involved. */
enum {
    CRC32C_CPU_SSE42 = 1u << 0,     /* x86 crc32 instruction */
    CRC32C_CPU_PCLMUL = 1u << 1,    /* x86 pclmulqdq */
    CRC32C_CPU_AVX2 = 1u << 2,      /* AVX2 with ymm state */
    CRC32C_CPU_VPCLMUL = 1u << 3,   /* vpclmulqdq (ymm form with ymm state) */
    CRC32C_CPU_AVX512 = 1u << 4,    /* AVX-512F with zmm and opmask state */
    CRC32C_CPU_ARM_CRC32 = 1u << 5, /* AArch64 CRC32 */
    CRC32C_CPU_ARM_PMULL = 1u << 6  /* AArch64 PMULL (64x64 polynomial multiply) */
};

typedef enum { CRC32C_VENDOR_OTHER, CRC32C_VENDOR_INTEL, CRC32C_VENDOR_AMD } crc32c_vendor;

/* A CPU as the selection table sees it: display family and model as the vendor defines
 * them (x86 CPUID leaf 1 with the extended fields); 0 where unknown. */
typedef struct {
    unsigned features;
    crc32c_vendor vendor;
    unsigned family, model;
} crc32c_cpu;

/* This CPU, probed (cpuid + xgetbv on x86-64, getauxval on AArch64); cheap, no state. */
crc32c_cpu crc32c_probe_cpu(void);

/* Features the named path needs, or UINT32_MAX for a name the library does not know. */
uint32_t crc32c_path_requires(const char *name);

/* True when cpu has every feature the named path needs. */
bool crc32c_cpu_runs(const crc32c_cpu *cpu, const char *name);

/* Name of the path crc32c() uses on cpu: the model table's row for it if one matches (and
 * cpu runs that path), otherwise the best path its features allow. Never a path it lacks. */
const char *crc32c_select(const crc32c_cpu *cpu);

#endif

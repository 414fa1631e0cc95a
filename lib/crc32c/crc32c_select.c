/* crc32c_select.c: which path crc32c() uses on a given CPU: each path's required features,
 * the vendor/family/model table for CPUs whose features tie, and the feature defaults. */
#include <string.h>

#include "crc32c_internal.h"

enum {
    X86_BASE = CRC32C_CPU_SSE42 | CRC32C_CPU_PCLMUL,
    X86_AVX2 = X86_BASE | CRC32C_CPU_AVX2,
    X86_VPCLMUL = X86_AVX2 | CRC32C_CPU_VPCLMUL,
    X86_AVX512 = X86_VPCLMUL | CRC32C_CPU_AVX512
};

/* Every path of every architecture, so the table can be checked anywhere. */
static const struct {
    const char *name;
    uint32_t requires;
} paths[] = {
    {"sb8", 0},
    {"sse42", X86_BASE},
    {"pclmul", X86_BASE},
    {"sse42_hybrid", X86_AVX2},
    {"pclmul_hybrid", X86_AVX2},
    {"avx2_vpclmul", X86_VPCLMUL},
    {"avx2_hybrid", X86_VPCLMUL},
    {"avx512", X86_AVX512},
    {"armv8", CRC32C_CPU_ARM_CRC32},
    {"armv8_pmull", CRC32C_CPU_ARM_CRC32 | CRC32C_CPU_ARM_PMULL},
};

uint32_t crc32c_path_requires(const char *name)
{
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++)
        if (strcmp(paths[i].name, name) == 0)
            return paths[i].requires;
    return UINT32_MAX;
}

bool crc32c_cpu_runs(const crc32c_cpu *cpu, const char *name)
{
    uint32_t requires = crc32c_path_requires(name);
    return requires != UINT32_MAX && (requires & ~cpu->features) == 0;
}

/* CPUs whose best path is not the feature default below, and CPUs measured with
 * bench/crc32c (its last line prints the row for the CPU it ran on); docs/crc32c.md
 * gives the instruction-table figures behind each. A row applies only if the CPU has the
 * path's features (a VM may hide some). */
static const struct {
    crc32c_vendor vendor;
    unsigned family, model_lo, model_hi;
    const char *path;
} model_table[] = {
    /* Broadwell: pclmulqdq one a cycle, as fast as crc32, so folding takes half the bytes. */
    {CRC32C_VENDOR_INTEL, 6, 0x3d, 0x3d, "pclmul_hybrid"},
    {CRC32C_VENDOR_INTEL, 6, 0x47, 0x47, "pclmul_hybrid"},
    {CRC32C_VENDOR_INTEL, 6, 0x4f, 0x4f, "pclmul_hybrid"},
    {CRC32C_VENDOR_INTEL, 6, 0x56, 0x56, "pclmul_hybrid"},
    /* Skylake client and server (Cascade Lake, Cooper Lake: AVX-512 without VPCLMULQDQ),
     * Kaby, Coffee, Whiskey, Comet Lake: the same pclmulqdq rate. */
    {CRC32C_VENDOR_INTEL, 6, 0x4e, 0x4e, "pclmul_hybrid"},
    {CRC32C_VENDOR_INTEL, 6, 0x5e, 0x5e, "pclmul_hybrid"},
    {CRC32C_VENDOR_INTEL, 6, 0x55, 0x55, "pclmul_hybrid"},
    {CRC32C_VENDOR_INTEL, 6, 0x8e, 0x8e, "pclmul_hybrid"},
    {CRC32C_VENDOR_INTEL, 6, 0x9e, 0x9e, "pclmul_hybrid"},
    {CRC32C_VENDOR_INTEL, 6, 0xa5, 0xa6, "pclmul_hybrid"},
    /* Bulldozer to Excavator: pclmulqdq is slow (7+ cycles apart), crc32 streams alone win. */
    {CRC32C_VENDOR_AMD, 0x15, 0x00, 0xff, "sse42"},
    /* Measured: Zen 3 EPYC (family 25 model 1), Zen 5 EPYC (family 26). */
    {CRC32C_VENDOR_AMD, 0x19, 0x01, 0x01, "avx2_hybrid"},
    {CRC32C_VENDOR_AMD, 0x1a, 0x00, 0xff, "avx512"},
};

/* Without a row, the best path the features allow, best first. AVX2 marks a core whose
 * pclmulqdq issues at least every other cycle (Haswell, Zen 1 on), where sse42_hybrid
 * beats crc32 alone; older cores with PCLMULQDQ are far slower at it (Westmere, Sandy
 * Bridge: 8 cycles apart), so they keep sse42. */
static const char *const by_features[] = {
    "avx512", "avx2_hybrid", "sse42_hybrid", "sse42", "armv8_pmull", "armv8", "sb8",
};

static bool row_matches(size_t row, const crc32c_cpu *cpu)
{
    return model_table[row].vendor == cpu->vendor && model_table[row].family == cpu->family &&
           cpu->model >= model_table[row].model_lo && cpu->model <= model_table[row].model_hi;
}

const char *crc32c_select(const crc32c_cpu *cpu)
{
    for (size_t i = 0; i < sizeof model_table / sizeof model_table[0]; i++)
        if (row_matches(i, cpu) && crc32c_cpu_runs(cpu, model_table[i].path))
            return model_table[i].path;
    for (size_t i = 0; i < sizeof by_features / sizeof by_features[0]; i++)
        if (crc32c_cpu_runs(cpu, by_features[i]))
            return by_features[i];
    return "sb8";
}

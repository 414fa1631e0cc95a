/* crc32c_cpu.c: what this CPU is, as the selection table sees it: the features the paths
 * need (with the OS's register-state support) and vendor, family and model. */
#include "crc32c_internal.h"

#if defined(__x86_64__)
#include <cpuid.h>
#include <string.h>

/* XCR0 bits the OS must enable for the registers a path uses. */
enum {
    XCR0_YMM = 0x06,    /* SSE, AVX */
    XCR0_ZMM = 0xe6,    /* SSE, AVX, opmask, ZMM upper halves, ZMM16-31 */
    CPUID1_AVX = 1u << 28,
    CPUID1_OSXSAVE = 1u << 27
};

static unsigned os_register_state(unsigned ecx1)
{
    if ((ecx1 & CPUID1_OSXSAVE) == 0)
        return 0;
    unsigned lo, hi;
    __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    (void)hi;
    return lo;
}

static unsigned x86_features(unsigned ecx1)
{
    unsigned f = 0, eax, ebx, ecx, edx;
    f |= (ecx1 & bit_SSE4_2) ? CRC32C_CPU_SSE42 : 0;
    f |= (ecx1 & bit_PCLMUL) ? CRC32C_CPU_PCLMUL : 0;
    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx))
        return f;
    unsigned xcr0 = os_register_state(ecx1);
    bool ymm = (ecx1 & CPUID1_AVX) && (xcr0 & XCR0_YMM) == XCR0_YMM;
    bool zmm = ymm && (xcr0 & XCR0_ZMM) == XCR0_ZMM;
    f |= (ymm && (ebx & bit_AVX2)) ? CRC32C_CPU_AVX2 : 0;
    f |= (ymm && (ecx & bit_VPCLMULQDQ)) ? CRC32C_CPU_VPCLMUL : 0;
    f |= (zmm && (ebx & bit_AVX512F)) ? CRC32C_CPU_AVX512 : 0;
    return f;
}

static crc32c_vendor x86_vendor(void)
{
    unsigned eax, ebx, ecx, edx;
    char name[12];
    if (!__get_cpuid(0, &eax, &ebx, &ecx, &edx))
        return CRC32C_VENDOR_OTHER;
    memcpy(name, &ebx, 4);
    memcpy(name + 4, &edx, 4);
    memcpy(name + 8, &ecx, 4);
    if (memcmp(name, "GenuineIntel", 12) == 0)
        return CRC32C_VENDOR_INTEL;
    if (memcmp(name, "AuthenticAMD", 12) == 0)
        return CRC32C_VENDOR_AMD;
    return CRC32C_VENDOR_OTHER;
}

crc32c_cpu crc32c_probe_cpu(void)
{
    crc32c_cpu cpu = {0, CRC32C_VENDOR_OTHER, 0, 0};
    unsigned eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx))
        return cpu;
    /* Display family and model as the vendors define them (extended fields added). */
    unsigned family = (eax >> 8) & 0xf, model = (eax >> 4) & 0xf;
    if (family == 0xf)
        family += (eax >> 20) & 0xff;
    if (family == 0x6 || family >= 0xf)
        model |= ((eax >> 16) & 0xf) << 4;
    cpu.features = x86_features(ecx);
    cpu.vendor = x86_vendor();
    cpu.family = family;
    cpu.model = model;
    return cpu;
}

#elif defined(__aarch64__)
#include <asm/hwcap.h>
#include <sys/auxv.h>

/* No Arm rows in the table yet, so only the features matter. */
crc32c_cpu crc32c_probe_cpu(void)
{
    unsigned long hwcap = getauxval(AT_HWCAP);
    unsigned f = (hwcap & HWCAP_CRC32) ? CRC32C_CPU_ARM_CRC32 : 0;
    f |= (hwcap & HWCAP_PMULL) ? CRC32C_CPU_ARM_PMULL : 0;
    return (crc32c_cpu){f, CRC32C_VENDOR_OTHER, 0, 0};
}

#else

crc32c_cpu crc32c_probe_cpu(void)
{
    return (crc32c_cpu){0, CRC32C_VENDOR_OTHER, 0, 0};
}

#endif

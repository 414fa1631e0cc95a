/* crc32c_dispatch.c: binds crc32c() to the path the selection table picks for this CPU, once
 * per process (or at compile time when the build targets the instructions); lists the paths. */
#include <stdatomic.h>
#include <string.h>

#include "crc32c_internal.h"

/* This architecture's paths, slowest first (the order crc32c_available reports). */
static const crc32c_impl implementations[] = {
    {"sb8", crc32c_sb8},
#if defined(__x86_64__)
    {"sse42", crc32c_sse42},
    {"pclmul", crc32c_pclmul},
    {"sse42_hybrid", crc32c_sse42_hybrid},
    {"pclmul_hybrid", crc32c_pclmul_hybrid},
    {"avx2_vpclmul", crc32c_avx2_vpclmul},
    {"avx2_hybrid", crc32c_avx2_hybrid},
    {"avx512", crc32c_avx512},
#endif
#if defined(__aarch64__)
    {"armv8", crc32c_armv8},
    {"armv8_pmull", crc32c_armv8_pmull},
#endif
};

enum { IMPLEMENTATION_COUNT = sizeof implementations / sizeof implementations[0] };

size_t crc32c_available(crc32c_impl *out, size_t capacity)
{
    crc32c_cpu cpu = crc32c_probe_cpu();
    size_t count = 0;
    for (size_t i = 0; i < IMPLEMENTATION_COUNT; i++) {
        if (!crc32c_cpu_runs(&cpu, implementations[i].name))
            continue;
        if (count < capacity)
            out[count] = implementations[i];
        count++;
    }
    return count;
}

/* The named path whether or not this CPU runs it; NULL for an unknown name. */
static crc32c_fn lookup(const char *name)
{
    for (size_t i = 0; i < IMPLEMENTATION_COUNT; i++)
        if (strcmp(implementations[i].name, name) == 0)
            return implementations[i].fn;
    return NULL;
}

crc32c_fn crc32c_find(const char *name)
{
    crc32c_cpu cpu = crc32c_probe_cpu();
    return crc32c_cpu_runs(&cpu, name) ? lookup(name) : NULL;
}

static const char *name_of(crc32c_fn fn)
{
    for (size_t i = 0; i < IMPLEMENTATION_COUNT; i++)
        if (implementations[i].fn == fn)
            return implementations[i].name;
    return "unknown";
}

/* A build that targets the instructions needs no run-time choice; it takes the feature
 * default of crc32c_select (no model table: the target CPU is not known at compile time). */
#if defined(__x86_64__) && defined(__AVX512F__) && defined(__AVX2__) && defined(__VPCLMULQDQ__) && \
    defined(__PCLMUL__) && defined(__SSE4_2__)
#define FIXED_CHOICE crc32c_avx512
#elif defined(__x86_64__) && defined(__AVX2__) && defined(__VPCLMULQDQ__) && defined(__PCLMUL__) && \
    defined(__SSE4_2__)
#define FIXED_CHOICE crc32c_avx2_hybrid
#elif defined(__x86_64__) && defined(__AVX2__) && defined(__PCLMUL__) && defined(__SSE4_2__)
#define FIXED_CHOICE crc32c_sse42_hybrid
#elif defined(__x86_64__) && defined(__PCLMUL__) && defined(__SSE4_2__)
#define FIXED_CHOICE crc32c_sse42
#elif defined(__aarch64__) && defined(__ARM_FEATURE_CRC32) && defined(__ARM_FEATURE_AES)
#define FIXED_CHOICE crc32c_armv8_pmull
#elif defined(__aarch64__) && defined(__ARM_FEATURE_CRC32)
#define FIXED_CHOICE crc32c_armv8
#endif

#ifdef FIXED_CHOICE

uint32_t crc32c(uint32_t crc, const void *buf, size_t len)
{
    return FIXED_CHOICE(crc, buf, len);
}

const char *crc32c_implementation(void)
{
    return name_of(FIXED_CHOICE);
}

#else

/* The table's choice for this CPU; sb8 if the name had no entry here (cannot happen for a
 * CPU of this architecture, whose features never name another's paths). */
static crc32c_fn selected(void)
{
    crc32c_cpu cpu = crc32c_probe_cpu();
    crc32c_fn fn = lookup(crc32c_select(&cpu));
    return fn != NULL ? fn : crc32c_sb8;
}

static uint32_t first_call(uint32_t crc, const void *buf, size_t len);

/* The only mutable global: first_call until the first use replaces it with the choice.
 * The probe and the table are deterministic, so racing first calls all store the same
 * value; relaxed atomics suffice (the functions it points to are immutable code). */
static _Atomic(crc32c_fn) chosen = first_call;

static crc32c_fn choose_once(void)
{
    crc32c_fn fn = selected();
    atomic_store_explicit(&chosen, fn, memory_order_relaxed);
    return fn;
}

static uint32_t first_call(uint32_t crc, const void *buf, size_t len)
{
    return choose_once()(crc, buf, len);
}

uint32_t crc32c(uint32_t crc, const void *buf, size_t len)
{
    return atomic_load_explicit(&chosen, memory_order_relaxed)(crc, buf, len);
}

const char *crc32c_implementation(void)
{
    crc32c_fn fn = atomic_load_explicit(&chosen, memory_order_relaxed);
    return name_of(fn == first_call ? choose_once() : fn);
}

#endif

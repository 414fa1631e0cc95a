/* crc32c_dispatch.c: picks the CRC-32C implementation for crc32c() once per process (or at
 * compile time when the build targets the instructions) and lists the implementations. */
#include <stdatomic.h>
#include <string.h>

#include "crc32c_internal.h"

static bool always(void)
{
    return true;
}

/* Slowest first: the chosen implementation is the last one the CPU supports. */
static const struct {
    crc32c_impl impl;
    bool (*supported)(void);
} implementations[] = {
    {{"sb8", crc32c_sb8}, always},
#if defined(__x86_64__)
    {{"sse42", crc32c_sse42}, crc32c_cpu_has_sse42_pclmul},
    {{"pclmul", crc32c_pclmul}, crc32c_cpu_has_sse42_pclmul},
    {{"avx512", crc32c_avx512}, crc32c_cpu_has_avx512_vpclmul},
#endif
#if defined(__aarch64__)
    {{"armv8", crc32c_armv8}, crc32c_cpu_has_crc32},
    {{"armv8_pmull", crc32c_armv8_pmull}, crc32c_cpu_has_crc32_pmull},
#endif
};

enum { IMPLEMENTATION_COUNT = sizeof implementations / sizeof implementations[0] };

size_t crc32c_available(crc32c_impl *out, size_t capacity)
{
    size_t count = 0;
    for (size_t i = 0; i < IMPLEMENTATION_COUNT; i++) {
        if (!implementations[i].supported())
            continue;
        if (count < capacity)
            out[count] = implementations[i].impl;
        count++;
    }
    return count;
}

crc32c_fn crc32c_find(const char *name)
{
    for (size_t i = 0; i < IMPLEMENTATION_COUNT; i++)
        if (strcmp(implementations[i].impl.name, name) == 0)
            return implementations[i].supported() ? implementations[i].impl.fn : NULL;
    return NULL;
}

static const char *name_of(crc32c_fn fn)
{
    for (size_t i = 0; i < IMPLEMENTATION_COUNT; i++)
        if (implementations[i].impl.fn == fn)
            return implementations[i].impl.name;
    return "unknown";
}

/* A build that targets the instructions needs no run-time choice. */
#if defined(__x86_64__) && defined(__AVX512F__) && defined(__AVX2__) && defined(__VPCLMULQDQ__) && \
    defined(__PCLMUL__) && defined(__SSE4_2__)
#define FIXED_CHOICE crc32c_avx512
#elif defined(__x86_64__) && defined(__PCLMUL__) && defined(__SSE4_2__)
#define FIXED_CHOICE crc32c_pclmul
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

static crc32c_fn best_supported(void)
{
    crc32c_fn best = crc32c_sb8;
    for (size_t i = 0; i < IMPLEMENTATION_COUNT; i++)
        if (implementations[i].supported())
            best = implementations[i].impl.fn;
    return best;
}

static uint32_t first_call(uint32_t crc, const void *buf, size_t len);

/* The only mutable global: first_call until the first use replaces it with the choice.
 * Racing first calls all store the same value, so relaxed atomics suffice. */
static _Atomic(crc32c_fn) chosen = first_call;

static crc32c_fn choose_once(void)
{
    crc32c_fn fn = best_supported();
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

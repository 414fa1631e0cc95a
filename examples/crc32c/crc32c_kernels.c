/* The seed's CRC-32C experiment as a verdict kernel module: slicing-by-8, the dispatched
 * crc32c(), a direct call as a compile-time choice, forced inlining, and ISA-L. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_ISAL
#include <isa-l/crc.h>
#endif

#include "records.h"

/* 4 MiB of records, as bench/crc32c does: larger than L2, so records come from L3 like
 * WAL pages pg_waldump has just read. */
#define RING_BYTES (4u << 20)
#define DEFAULT_RECORD_BYTES 65
#define MAX_RECORD_BYTES (64u << 20)

/* "65", "4k", "4KiB", "1M": the bytes per record (call). */
static int parse_record_size(const char *text, size_t *out)
{
    char *end = NULL;
    unsigned long long value = strtoull(text, &end, 10);
    unsigned long long scale = 1;
    if (end == text)
        return -1;
    if (*end == 'k' || *end == 'K')
        scale = 1024, end++;
    else if (*end == 'm' || *end == 'M')
        scale = 1024 * 1024, end++;
    if (scale > 1 && (strcmp(end, "iB") == 0 || strcmp(end, "B") == 0))
        end += strlen(end);
    if (*end != '\0' || value == 0 || value * scale > MAX_RECORD_BYTES)
        return -1;
    *out = (size_t)(value * scale);
    return 0;
}

static void fill_random(unsigned char *p, size_t n)
{
    uint64_t x = 0x243f6a8885a308d3u;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        p[i] = (unsigned char)(x >> 24);
    }
}

/* Equivalence with slicing-by-8, on a fresh CRC and chained from a non-zero one: the
 * ISA-L adapter's inversions must be right in both cases. */
static int check_against_sb8(const records *r, crc32c_fn fn, char *err, size_t errlen)
{
    const unsigned char *a = r->ring + 1, *b = r->ring + 1 + r->len;
    uint32_t want = crc32c_sb8(crc32c_sb8(0, a, r->len), b, r->len);
    uint32_t got = fn(fn(0, a, r->len), b, r->len);
    if (got != want || fn(0, "123456789", 9) != 0xE3069283u) {
        snprintf(err, errlen, "CRC differs from slicing-by-8 (0x%08x, expected 0x%08x)",
                 (unsigned)got, (unsigned)want);
        return -1;
    }
    return 0;
}

int records_setup(verdict_kernel_setup *s, crc32c_fn fn)
{
    size_t len = DEFAULT_RECORD_BYTES;
    if (s->arg && parse_record_size(s->arg, &len) != 0) {
        snprintf(s->error, s->error_size, "'%s' is not a record size (65, 4k, 1M; at most 64M)",
                 s->arg);
        return -1;
    }
    records *r = calloc(1, sizeof *r);
    size_t ring = len * 4 > RING_BYTES ? len * 4 : RING_BYTES;
    if (r == NULL || (r->ring = malloc(ring)) == NULL) {
        free(r);
        snprintf(s->error, s->error_size, "out of memory for a %zu-byte ring", ring);
        return -1;
    }
    fill_random(r->ring, ring);
    *r = (records){.ring = r->ring, .ring_size = ring, .len = len, .check = fn};
    if (check_against_sb8(r, fn, s->error, s->error_size) != 0) {
        records_teardown(r);
        return -1;
    }
    s->state = r;
    s->bytes_per_call = len;
    return 0;
}

void records_teardown(void *state)
{
    records *r = state;
    if (r)
        free(r->ring);
    free(r);
}

/* ---- the kernels ------------------------------------------------------------------ */

static int sb8_setup(verdict_kernel_setup *s)
{
    return records_setup(s, crc32c_sb8);
}

static void sb8_run(void *state, uint64_t iterations)
{
    records_run(state, iterations, crc32c_sb8);
}

static int runtime_setup(verdict_kernel_setup *s)
{
    return records_setup(s, crc32c);
}

/* crc32c() loads the dispatcher's pointer and jumps: the runtime check's cost. */
static void runtime_run(void *state, uint64_t iterations)
{
    records_run(state, iterations, crc32c);
}

/* What a build fixed at compile time calls: the dispatcher's choice, named directly, so
 * the loop holds a direct call and no pointer load. The switch runs once per batch. */
/* Every hardware path the dispatcher may choose (lib/crc32c/crc32c.h), in names[] order. */
typedef enum {
    DIRECT_AVX512, DIRECT_PCLMUL, DIRECT_SSE42, DIRECT_ARMV8, DIRECT_ARMV8_PMULL,
    DIRECT_SSE42_HYBRID, DIRECT_PCLMUL_HYBRID, DIRECT_AVX2_VPCLMUL, DIRECT_AVX2_HYBRID
} direct_impl;

typedef struct {
    records r;           /* first: records_setup's state is reused */
    direct_impl impl;
} direct_records;

static int find_direct(const char *name, direct_impl *out)
{
    static const char *const names[] = {"avx512", "pclmul", "sse42", "armv8", "armv8_pmull",
                                        "sse42_hybrid", "pclmul_hybrid", "avx2_vpclmul",
                                        "avx2_hybrid"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(name, names[i]) == 0) {
            *out = (direct_impl)i;
            return 0;
        }
    return -1;
}

static int compiletime_setup(verdict_kernel_setup *s)
{
    const char *name = crc32c_implementation();
    direct_impl impl;
    if (find_direct(name, &impl) != 0) {
        snprintf(s->error, s->error_size, "crc32c() uses '%s': no hardware path to call directly",
                 name);
        return -1;
    }
    if (records_setup(s, crc32c_find(name)) != 0)
        return -1;
    direct_records *d = realloc(s->state, sizeof *d);
    if (d == NULL) {
        records_teardown(s->state);
        snprintf(s->error, s->error_size, "out of memory");
        return -1;
    }
    d->impl = impl;
    s->state = d;
    return 0;
}

static void compiletime_run(void *state, uint64_t iterations)
{
    direct_records *d = state;
    switch (d->impl) {
#if defined(__x86_64__)
    case DIRECT_AVX512: records_run(&d->r, iterations, crc32c_avx512); break;
    case DIRECT_PCLMUL: records_run(&d->r, iterations, crc32c_pclmul); break;
    case DIRECT_SSE42: records_run(&d->r, iterations, crc32c_sse42); break;
    case DIRECT_SSE42_HYBRID: records_run(&d->r, iterations, crc32c_sse42_hybrid); break;
    case DIRECT_PCLMUL_HYBRID: records_run(&d->r, iterations, crc32c_pclmul_hybrid); break;
    case DIRECT_AVX2_VPCLMUL: records_run(&d->r, iterations, crc32c_avx2_vpclmul); break;
    case DIRECT_AVX2_HYBRID: records_run(&d->r, iterations, crc32c_avx2_hybrid); break;
#endif
#if defined(__aarch64__)
    case DIRECT_ARMV8: records_run(&d->r, iterations, crc32c_armv8); break;
    case DIRECT_ARMV8_PMULL: records_run(&d->r, iterations, crc32c_armv8_pmull); break;
#endif
    default: records_run(&d->r, iterations, crc32c); break;
    }
}

#ifdef HAVE_ISAL
/* ISA-L keeps the register un-inverted at both ends; crc32c() inverts inside. */
static inline uint32_t isal_crc32c(uint32_t crc, const void *buf, size_t len)
{
    return ~crc32_iscsi((unsigned char *)buf, (int)len, ~crc);
}

static int isal_setup(verdict_kernel_setup *s)
{
    return records_setup(s, isal_crc32c);
}

static void isal_run(void *state, uint64_t iterations)
{
    records_run(state, iterations, isal_crc32c);
}
#endif

static const verdict_kernel crc32c_kernels[] = {
    {"sb8", "slicing-by-8 (portable)", sb8_setup, records_teardown, sb8_run, DEFAULT_RECORD_BYTES},
    {"runtime", "crc32c(): hardware chosen by a runtime check", runtime_setup, records_teardown,
     runtime_run, DEFAULT_RECORD_BYTES},
    {"compiletime", "the hardware implementation called directly, as a compile-time choice",
     compiletime_setup, records_teardown, compiletime_run, DEFAULT_RECORD_BYTES},
    {"inline", "crc32c_inline() chained over 16-byte pieces: forced inlining", inline_setup,
     records_teardown, inline_run, DEFAULT_RECORD_BYTES},
#ifdef HAVE_ISAL
    {"isal", "ISA-L crc32_iscsi, adapted to crc32c()'s conventions", isal_setup, records_teardown,
     isal_run, DEFAULT_RECORD_BYTES},
#endif
};

VERDICT_KERNEL_MODULE(crc32c_kernels)

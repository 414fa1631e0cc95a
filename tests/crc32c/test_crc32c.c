/* test_crc32c.c: correctness tests for the CRC-32C library: published vectors, every path
 * this CPU runs against slicing-by-8 over lengths, alignments and chains, and the selection table. */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crc32c.h"
#include "crc32c_internal.h"

enum { MAX_LEN = 4096, MAX_ALIGN = 64, MAX_IMPLS = 16, RACING_THREADS = 4 };

static unsigned passed, failed;

/* Records one comparison; prints the context of a mismatch. */
static bool check_u32(uint32_t got, uint32_t want, const char *what, const char *impl, size_t a, size_t b)
{
    if (got == want) {
        passed++;
        return true;
    }
    failed++;
    if (failed <= 20)
        fprintf(stderr, "FAIL %s [%s] (%zu, %zu): got %08x want %08x\n", what, impl, a, b, got, want);
    return false;
}

/* Bit-at-a-time CRC-32C straight from the definition, to check slicing-by-8 itself. */
static uint32_t bitwise_crc32c(uint32_t crc, const unsigned char *p, size_t len)
{
    crc = ~crc;
    for (size_t i = 0; i < len; i++) {
        crc ^= p[i];
        for (int bit = 0; bit < 8; bit++)
            crc = (crc & 1u) ? (crc >> 1) ^ 0x82F63B78u : crc >> 1;
    }
    return ~crc;
}

static uint32_t inline_path(uint32_t crc, const void *buf, size_t len)
{
    return crc32c_inline(crc, buf, len);
}

/* Every implementation the CPU runs, plus the dispatched entry point and the inline path. */
static size_t implementations_under_test(crc32c_impl *out)
{
    size_t count = crc32c_available(out, MAX_IMPLS - 2);
    out[count++] = (crc32c_impl){"crc32c", crc32c};
    out[count++] = (crc32c_impl){"inline", inline_path};
    return count;
}

/* Deterministic pseudo-random bytes (xorshift), so failures reproduce. */
static uint64_t next_random(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

static void fill_random(unsigned char *p, size_t len, uint64_t seed)
{
    for (size_t i = 0; i < len; i++)
        p[i] = (unsigned char)(next_random(&seed) >> 24);
}

struct vector {
    const char *name;
    unsigned char data[48];
    size_t len;
    uint32_t crc;
};

/* RFC 3720 appendix B.4 vectors (the CRC bytes there are little-endian) and the check string. */
static size_t make_vectors(struct vector *v)
{
    v[0] = (struct vector){.name = "32 zero bytes", .len = 32, .crc = 0x8A9136AAu};
    v[1] = (struct vector){.name = "32 0xFF bytes", .len = 32, .crc = 0x62A8AB43u};
    memset(v[1].data, 0xFF, 32);
    v[2] = (struct vector){.name = "ascending 0..31", .len = 32, .crc = 0x46DD794Eu};
    v[3] = (struct vector){.name = "descending 31..0", .len = 32, .crc = 0x113FDB5Cu};
    for (unsigned i = 0; i < 32; i++) {
        v[2].data[i] = (unsigned char)i;
        v[3].data[i] = (unsigned char)(31 - i);
    }
    static const unsigned char read_pdu[48] = {
        0x01, 0xC0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x18,
        0x28, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
    v[4] = (struct vector){.name = "iSCSI read PDU", .len = 48, .crc = 0xD9963A56u};
    memcpy(v[4].data, read_pdu, 48);
    v[5] = (struct vector){.name = "123456789", .len = 9, .crc = 0xE3069283u};
    memcpy(v[5].data, "123456789", 9);
    return 6;
}

static void test_known_vectors(const crc32c_impl *impls, size_t count)
{
    struct vector vectors[6];
    size_t n = make_vectors(vectors);
    for (size_t i = 0; i < n; i++) {
        check_u32(bitwise_crc32c(0, vectors[i].data, vectors[i].len), vectors[i].crc, vectors[i].name, "bitwise", i, 0);
        for (size_t k = 0; k < count; k++)
            check_u32(impls[k].fn(0, vectors[i].data, vectors[i].len), vectors[i].crc, vectors[i].name, impls[k].name, i, 0);
    }
}

/* want[len] = CRC of the first len bytes, built incrementally from the bitwise definition. */
static void reference_prefixes(const unsigned char *data, uint32_t *want)
{
    want[0] = 0;
    for (size_t len = 1; len <= MAX_LEN; len++)
        want[len] = bitwise_crc32c(want[len - 1], data + len - 1, 1);
}

/* Every length 0..MAX_LEN at every alignment 0..63, for every implementation. */
static void test_lengths_and_alignments(const crc32c_impl *impls, size_t count, const unsigned char *data,
                                        const uint32_t *want)
{
    unsigned char *buffer = malloc(MAX_LEN + MAX_ALIGN + 64);
    unsigned char *base = buffer + (64 - (uintptr_t)buffer % 64) % 64;
    for (size_t align = 0; align < MAX_ALIGN; align++) {
        memcpy(base + align, data, MAX_LEN);
        for (size_t k = 0; k < count; k++)
            for (size_t len = 0; len <= MAX_LEN; len++)
                check_u32(impls[k].fn(0, base + align, len), want[len], "length/alignment", impls[k].name, len, align);
    }
    free(buffer);
}

/* Each length in a heap block of exactly that size, so AddressSanitizer sees any overread. */
static void test_exact_fit(const crc32c_impl *impls, size_t count, const unsigned char *data, const uint32_t *want)
{
    for (size_t len = 0; len <= MAX_LEN; len++) {
        unsigned char *exact = malloc(len ? len : 1);
        memcpy(exact, data, len);
        for (size_t k = 0; k < count; k++)
            check_u32(impls[k].fn(0, exact, len), want[len], "exact fit", impls[k].name, len, 0);
        free(exact);
    }
}

/* Two-piece chains split at every point, for lengths around the implementations' thresholds. */
static void test_chained_splits(const crc32c_impl *impls, size_t count, const unsigned char *data, const uint32_t *want)
{
    static const size_t lengths[] = {15, 16, 17, 63, 64, 65, 223, 224, 225, 255, 256, 257, 300, 1023, 1024, 1025, 2000, 2047, 2048, 2049,
                                     3000, MAX_LEN};
    for (size_t k = 0; k < count; k++)
        for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; i++) {
            size_t len = lengths[i];
            for (size_t split = 0; split <= len; split++) {
                uint32_t head = impls[k].fn(0, data, split);
                check_u32(impls[k].fn(head, data + split, len - split), want[len], "two-piece chain", impls[k].name, len,
                          split);
            }
        }
}

/* Random three-piece chains with each piece by a different implementation. */
static void test_mixed_chains(const crc32c_impl *impls, size_t count, const unsigned char *data, const uint32_t *want)
{
    uint64_t state = 0x9E3779B97F4A7C15u;
    for (int round = 0; round < 20000; round++) {
        size_t len = next_random(&state) % (MAX_LEN + 1);
        size_t cut1 = len ? next_random(&state) % (len + 1) : 0;
        size_t cut2 = cut1 + (len - cut1 ? next_random(&state) % (len - cut1 + 1) : 0);
        const crc32c_impl *a = &impls[next_random(&state) % count], *b = &impls[next_random(&state) % count],
                          *c = &impls[next_random(&state) % count];
        uint32_t crc = a->fn(0, data, cut1);
        crc = b->fn(crc, data + cut1, cut2 - cut1);
        crc = c->fn(crc, data + cut2, len - cut2);
        check_u32(crc, want[len], "mixed chain", c->name, len, cut1);
    }
}

/* Large buffers against slicing-by-8: crosses every loop and block size of the fast paths. */
static void test_large_buffers(const crc32c_impl *impls, size_t count)
{
    static const size_t lengths[] = {4097, 6151, 8192, 12289, 16383, 16384, 16385, 65536, 100003, (1u << 20) + 13,
                                     3u << 20};
    size_t max = 3u << 20;
    unsigned char *buffer = malloc(max + 1);
    fill_random(buffer, max + 1, 42);
    for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; i++)
        for (size_t offset = 0; offset < 2; offset++) {
            uint32_t want = crc32c_sb8(0x12345678u, buffer + offset, lengths[i]);
            for (size_t k = 0; k < count; k++)
                check_u32(impls[k].fn(0x12345678u, buffer + offset, lengths[i]), want, "large", impls[k].name, lengths[i],
                          offset);
        }
    free(buffer);
}

static void test_combine(const unsigned char *data, const uint32_t *want)
{
    for (size_t len = 0; len <= MAX_LEN; len += 37)
        for (size_t split = 0; split <= len; split += 13) {
            uint32_t a = crc32c_sb8(0, data, split), b = crc32c_sb8(0, data + split, len - split);
            check_u32(crc32c_combine(a, b, len - split), want[len], "combine", "combine", len, split);
        }
}

/* crc32c_implementation() names what the selection table picks for this CPU (or what
 * CRC32C_EXPECT_IMPL names, e.g. under an emulated CPU), and always a path this CPU runs. */
static void test_dispatch_choice(const crc32c_impl *impls, size_t count)
{
    const char *chosen = crc32c_implementation();
    crc32c_cpu cpu = crc32c_probe_cpu();
    const char *expected = getenv("CRC32C_EXPECT_IMPL");
    if (!expected)
        expected = crc32c_select(&cpu);
    printf("dispatch chose %s (expected %s; cpu vendor %d family 0x%x model 0x%x features 0x%x); available:", chosen,
           expected, (int)cpu.vendor, cpu.family, cpu.model, cpu.features);
    for (size_t k = 0; k + 2 < count; k++)
        printf(" %s", impls[k].name);
    printf("\n");
    if (strcmp(chosen, expected) == 0)
        passed++;
    else {
        failed++;
        fprintf(stderr, "FAIL dispatch chose %s, expected %s\n", chosen, expected);
    }
    check_u32(crc32c_find(chosen) != NULL, 1, "chosen path runs here", chosen, 0, 0);
    check_u32(crc32c_find("no-such-implementation") == NULL, 1, "find unknown", "find", 0, 0);
    for (size_t k = 0; k + 2 < count; k++)
        check_u32(crc32c_cpu_runs(&cpu, impls[k].name), 1, "listed path runs here", impls[k].name, k, 0);
}

enum {
    X86_BASE = CRC32C_CPU_SSE42 | CRC32C_CPU_PCLMUL,
    X86_AVX2 = X86_BASE | CRC32C_CPU_AVX2,
    X86_VPCLMUL = X86_AVX2 | CRC32C_CPU_VPCLMUL,
    X86_ALL = X86_VPCLMUL | CRC32C_CPU_AVX512,
    FEATURE_BITS = 7
};

struct cpu_case {
    const char *what;
    crc32c_cpu cpu;
    const char *expect;
};

/* CPUs of every generation the table names, with the path each must get and why. */
static const struct cpu_case cpu_cases[] = {
    {"Zen 3 EPYC (measured)", {X86_VPCLMUL, CRC32C_VENDOR_AMD, 0x19, 0x01}, "avx2_hybrid"},
    {"Zen 3 in a VM hiding VPCLMULQDQ", {X86_AVX2, CRC32C_VENDOR_AMD, 0x19, 0x01}, "sse42_hybrid"},
    {"Zen 3 without AVX2", {X86_BASE, CRC32C_VENDOR_AMD, 0x19, 0x01}, "sse42"},
    {"Zen 3 without PCLMULQDQ", {CRC32C_CPU_SSE42, CRC32C_VENDOR_AMD, 0x19, 0x01}, "sb8"},
    {"Zen 3 Ryzen", {X86_VPCLMUL, CRC32C_VENDOR_AMD, 0x19, 0x21}, "avx2_hybrid"},
    {"Zen 4 EPYC", {X86_ALL, CRC32C_VENDOR_AMD, 0x19, 0x11}, "avx512"},
    {"Zen 5 EPYC (measured)", {X86_ALL, CRC32C_VENDOR_AMD, 0x1a, 0x02}, "avx512"},
    {"Zen 2 EPYC", {X86_AVX2, CRC32C_VENDOR_AMD, 0x17, 0x31}, "sse42_hybrid"},
    {"Excavator", {X86_AVX2, CRC32C_VENDOR_AMD, 0x15, 0x60}, "sse42"},
    {"Westmere", {X86_BASE, CRC32C_VENDOR_INTEL, 6, 0x2c}, "sse42"},
    {"Sandy Bridge (AVX, no AVX2)", {X86_BASE, CRC32C_VENDOR_INTEL, 6, 0x2a}, "sse42"},
    {"Haswell", {X86_AVX2, CRC32C_VENDOR_INTEL, 6, 0x3c}, "sse42_hybrid"},
    {"Broadwell-EP", {X86_AVX2, CRC32C_VENDOR_INTEL, 6, 0x4f}, "pclmul_hybrid"},
    {"Skylake client", {X86_AVX2, CRC32C_VENDOR_INTEL, 6, 0x5e}, "pclmul_hybrid"},
    {"Cascade Lake (AVX-512F, no VPCLMULQDQ)", {X86_AVX2 | CRC32C_CPU_AVX512, CRC32C_VENDOR_INTEL, 6, 0x55},
     "pclmul_hybrid"},
    {"Comet Lake", {X86_AVX2, CRC32C_VENDOR_INTEL, 6, 0xa5}, "pclmul_hybrid"},
    {"Ice Lake server", {X86_ALL, CRC32C_VENDOR_INTEL, 6, 0x6a}, "avx512"},
    {"Sapphire Rapids", {X86_ALL, CRC32C_VENDOR_INTEL, 6, 0x8f}, "avx512"},
    {"Alder Lake (AVX-512 off)", {X86_VPCLMUL, CRC32C_VENDOR_INTEL, 6, 0x97}, "avx2_hybrid"},
    {"unknown x86 with AVX2", {X86_AVX2, CRC32C_VENDOR_OTHER, 7, 0x01}, "sse42_hybrid"},
    {"AArch64 with PMULL", {CRC32C_CPU_ARM_CRC32 | CRC32C_CPU_ARM_PMULL, CRC32C_VENDOR_OTHER, 0, 0}, "armv8_pmull"},
    {"AArch64 without PMULL", {CRC32C_CPU_ARM_CRC32, CRC32C_VENDOR_OTHER, 0, 0}, "armv8"},
    {"nothing", {0, CRC32C_VENDOR_OTHER, 0, 0}, "sb8"},
};

enum { CPU_CASES = sizeof cpu_cases / sizeof cpu_cases[0] };

static void test_selection_expectations(void)
{
    for (size_t i = 0; i < CPU_CASES; i++) {
        const char *got = crc32c_select(&cpu_cases[i].cpu);
        if (strcmp(got, cpu_cases[i].expect) == 0)
            passed++;
        else {
            failed++;
            fprintf(stderr, "FAIL select for %s: got %s, want %s\n", cpu_cases[i].what, got, cpu_cases[i].expect);
        }
    }
}

/* Whatever a VM hides: every CPU identity above with every subset of features gets a path
 * whose features it has. */
static void test_selection_never_picks_absent(void)
{
    for (size_t i = 0; i < CPU_CASES; i++)
        for (unsigned mask = 0; mask < 1u << FEATURE_BITS; mask++) {
            crc32c_cpu cpu = cpu_cases[i].cpu;
            cpu.features &= mask;
            const char *got = crc32c_select(&cpu);
            check_u32(crc32c_cpu_runs(&cpu, got), 1, "selected path runs", got, i, mask);
        }
    check_u32(crc32c_path_requires("no-such-path"), UINT32_MAX, "requires unknown", "select", 0, 0);
}

static void *racing_first_call(void *arg)
{
    uint32_t *result = arg;
    *result = crc32c(0, "123456789", 9);
    return NULL;
}

/* The very first calls race on the dispatch pointer; all must get the right answer. */
static void test_racing_first_calls(void)
{
    pthread_t threads[RACING_THREADS];
    uint32_t results[RACING_THREADS] = {0};
    for (int i = 0; i < RACING_THREADS; i++)
        pthread_create(&threads[i], NULL, racing_first_call, &results[i]);
    for (int i = 0; i < RACING_THREADS; i++) {
        pthread_join(threads[i], NULL);
        check_u32(results[i], 0xE3069283u, "racing first call", "crc32c", (size_t)i, 0);
    }
}

/* A build whose library was compiled for a given implementation skips (exit 77 for meson)
 * on a CPU that lacks it, before any library code runs. */
static bool cpu_lacks_required_implementation(void)
{
    const char *required = getenv("CRC32C_REQUIRE_IMPL");
    return required != NULL && crc32c_find(required) == NULL;
}

/* CRC32C_TEST_QUICK (the emulated-CPU runs): dispatch, vectors, chains and large buffers,
 * without the every-length-every-alignment sweep that emulation would take minutes over. */
static bool quick_mode(void)
{
    const char *quick = getenv("CRC32C_TEST_QUICK");
    return quick != NULL && strcmp(quick, "0") != 0;
}

int main(void)
{
    if (cpu_lacks_required_implementation()) {
        printf("skipped: this CPU lacks %s\n", getenv("CRC32C_REQUIRE_IMPL"));
        return 77;
    }
    test_racing_first_calls();
    crc32c_impl impls[MAX_IMPLS];
    size_t count = implementations_under_test(impls);
    unsigned char *data = malloc(MAX_LEN);
    uint32_t *want = malloc((MAX_LEN + 1) * sizeof *want);
    fill_random(data, MAX_LEN, 1);
    reference_prefixes(data, want);

    test_dispatch_choice(impls, count);
    test_selection_expectations();
    test_selection_never_picks_absent();
    test_known_vectors(impls, count);
    if (!quick_mode()) {
        test_lengths_and_alignments(impls, count, data, want);
        test_exact_fit(impls, count, data, want);
    }
    test_chained_splits(impls, count, data, want);
    test_mixed_chains(impls, count, data, want);
    test_large_buffers(impls, count);
    test_combine(data, want);

    free(data);
    free(want);
    printf("%u passed, %u failed\n", passed, failed);
    return failed ? 1 : 0;
}

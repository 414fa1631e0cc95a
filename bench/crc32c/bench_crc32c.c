/* bench_crc32c.c: side-by-side CRC-32C benchmark of every implementation (and ISA-L when
 * built with it): throughput by size, chained 64-byte latency, 50 M independent 65-byte records. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "crc32c.h"

#ifdef HAVE_ISAL
#include <isa-l/crc.h>
#endif

enum { MAX_ENTRIES = 16, MAX_ROUNDS = 1001 };

typedef struct {
    const char *name;
    crc32c_fn fn;
} entry;

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Results go here so the compiler cannot drop the work. */
static volatile uint32_t sink;

#ifdef HAVE_ISAL
/* ISA-L's crc32_iscsi keeps the register un-inverted at both ends; inverting around the call
 * gives our zlib-style chaining (checked against slicing-by-8 before timing). */
static uint32_t isal_crc32c(uint32_t crc, const void *buf, size_t len)
{
    return ~crc32_iscsi((unsigned char *)(uintptr_t)buf, (int)len, ~crc);
}
#endif

static size_t collect_entries(entry *out)
{
    crc32c_impl impls[MAX_ENTRIES];
    size_t count = crc32c_available(impls, MAX_ENTRIES - 2);
    for (size_t i = 0; i < count; i++)
        out[i] = (entry){impls[i].name, impls[i].fn};
    out[count++] = (entry){"crc32c()", crc32c};
#ifdef HAVE_ISAL
    out[count++] = (entry){"isa-l", isal_crc32c};
#endif
    return count;
}

static uint64_t next_random(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

/* Fisher-Yates: a fresh random order of the entries for each round. */
static void shuffle(size_t *order, size_t count, uint64_t *state)
{
    for (size_t i = 0; i < count; i++)
        order[i] = i;
    for (size_t i = count; i > 1; i--) {
        size_t j = next_random(state) % i, t = order[i - 1];
        order[i - 1] = order[j];
        order[j] = t;
    }
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *values, size_t count)
{
    qsort(values, count, sizeof *values, compare_doubles);
    return count % 2 ? values[count / 2] : (values[count / 2 - 1] + values[count / 2]) / 2;
}

/* Seconds for `calls` independent calls over len bytes (results xored, not chained). */
static double time_independent(crc32c_fn fn, const unsigned char *buf, size_t len, size_t calls)
{
    uint32_t acc = 0;
    double start = now_seconds();
    for (size_t i = 0; i < calls; i++)
        acc ^= fn(0, buf, len);
    double seconds = now_seconds() - start;
    sink = acc;
    return seconds;
}

/* Seconds for `calls` chained 64-byte calls: each call's crc is the next call's input. */
static double time_chained64(crc32c_fn fn, const unsigned char *buf, size_t calls)
{
    uint32_t crc = 0;
    double start = now_seconds();
    for (size_t i = 0; i < calls; i++)
        crc = fn(crc, buf + (i & 255) * 64, 64);
    double seconds = now_seconds() - start;
    sink = crc;
    return seconds;
}

/* Seconds for `count` independent 65-byte records laid end to end in a ring of records. */
static double time_records65(crc32c_fn fn, const unsigned char *ring, size_t ring_records, size_t count)
{
    uint32_t acc = 0;
    double start = now_seconds();
    for (size_t i = 0, r = 0; i < count; i++) {
        acc ^= fn(0, ring + r * 65, 65);
        r = r + 1 == ring_records ? 0 : r + 1;
    }
    double seconds = now_seconds() - start;
    sink = acc;
    return seconds;
}

enum measure { THROUGHPUT, CHAINED64, RECORDS65 };

struct plan {
    enum measure what;
    size_t len;   /* bytes per call (THROUGHPUT) */
    size_t calls; /* calls per timed sample */
    size_t rounds;
};

static double run_one(const struct plan *plan, crc32c_fn fn, const unsigned char *buf)
{
    switch (plan->what) {
    case THROUGHPUT:
        return time_independent(fn, buf, plan->len, plan->calls);
    case CHAINED64:
        return time_chained64(fn, buf, plan->calls);
    case RECORDS65:
        return time_records65(fn, buf, (4u << 20) / 65, plan->calls);
    }
    return 0;
}

/* Runs every entry once per round in a random order; medians of seconds per sample go to out. */
static void measure_interleaved(const struct plan *plan, const entry *entries, size_t count,
                                const unsigned char *buf, double *out)
{
    static double samples[MAX_ENTRIES][MAX_ROUNDS];
    size_t order[MAX_ENTRIES];
    uint64_t state = 0x2545F4914F6CDD1Du ^ plan->len ^ plan->what;
    for (size_t round = 0; round < plan->rounds; round++) {
        shuffle(order, count, &state);
        for (size_t i = 0; i < count; i++)
            samples[order[i]][round] = run_one(plan, entries[order[i]].fn, buf);
    }
    for (size_t e = 0; e < count; e++)
        out[e] = median(samples[e], plan->rounds);
}

static void print_header(const char *title, const entry *entries, size_t count)
{
    printf("\n%s\n%-10s", title, "");
    for (size_t e = 0; e < count; e++)
        printf(" %10s", entries[e].name);
    printf("\n");
}

/* Index of the ISA-L column, or -1 when the benchmark was built without it. */
static int isal_column(const entry *entries, size_t count)
{
    for (size_t e = 0; e < count; e++)
        if (strcmp(entries[e].name, "isa-l") == 0)
            return (int)e;
    return -1;
}

/* Each column's value over ISA-L's, when ISA-L is present. */
static void print_ratio_row(const entry *entries, size_t count, const double *values)
{
    int isal = isal_column(entries, count);
    if (isal < 0)
        return;
    printf("%-10s", "/ isa-l");
    for (size_t e = 0; e < count; e++)
        printf(" %10.2f", values[e] / values[isal]);
    printf("\n");
}

static void bench_throughput(const entry *entries, size_t count, const unsigned char *buf, size_t rounds)
{
    static const size_t sizes[] = {64, 256, 1024, 4096, 16384, 65536, 262144, 1048576};
    double seconds[MAX_ENTRIES];
    print_header("Throughput, GB/s (median; independent calls)", entries, count);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        struct plan plan = {THROUGHPUT, sizes[s], (16u << 20) / sizes[s], rounds};
        measure_interleaved(&plan, entries, count, buf, seconds);
        double rates[MAX_ENTRIES];
        printf("%8zu B", sizes[s]);
        for (size_t e = 0; e < count; e++) {
            rates[e] = (double)plan.len * (double)plan.calls / seconds[e] / 1e9;
            printf(" %10.2f", rates[e]);
        }
        printf("\n");
        if (sizes[s] == 64 || sizes[s] == 1048576)
            print_ratio_row(entries, count, rates);
    }
}

static void bench_chained(const entry *entries, size_t count, const unsigned char *buf, size_t rounds)
{
    double seconds[MAX_ENTRIES];
    struct plan plan = {CHAINED64, 64, 1000000, rounds};
    measure_interleaved(&plan, entries, count, buf, seconds);
    print_header("Chained 64-byte calls, ns per call (median)", entries, count);
    double nanoseconds[MAX_ENTRIES];
    printf("%-10s", "ns/call");
    for (size_t e = 0; e < count; e++) {
        nanoseconds[e] = seconds[e] / (double)plan.calls * 1e9;
        printf(" %10.2f", nanoseconds[e]);
    }
    printf("\n");
    print_ratio_row(entries, count, nanoseconds);
}

static void bench_records(const entry *entries, size_t count, const unsigned char *buf, size_t rounds,
                          size_t records)
{
    double seconds[MAX_ENTRIES];
    struct plan plan = {RECORDS65, 65, records, rounds};
    measure_interleaved(&plan, entries, count, buf, seconds);
    char title[96];
    snprintf(title, sizeof title, "%zu independent 65-byte records, seconds for the loop (median)", records);
    print_header(title, entries, count);
    printf("%-10s", "seconds");
    for (size_t e = 0; e < count; e++)
        printf(" %10.3f", seconds[e]);
    printf("\n");
    print_ratio_row(entries, count, seconds);
}

/* Every entry must agree with slicing-by-8, chained from a non-zero crc, before it is timed. */
static bool entries_agree(const entry *entries, size_t count, const unsigned char *buf)
{
    for (size_t len = 0; len < 3000; len += 7)
        for (size_t e = 0; e < count; e++) {
            uint32_t want = crc32c_sb8(crc32c_sb8(0, buf, 100), buf + 100, len);
            uint32_t got = entries[e].fn(entries[e].fn(0, buf, 100), buf + 100, len);
            if (got != want) {
                fprintf(stderr, "%s disagrees at length %zu: %08x vs %08x\n", entries[e].name, len, got, want);
                return false;
            }
        }
    return true;
}

/* Keeps the CPU busy for a while first, so the clock has ramped up before the first sample. */
static void warm_up(const unsigned char *buf)
{
    double end = now_seconds() + 0.5;
    uint32_t acc = 0;
    while (now_seconds() < end)
        acc ^= crc32c(acc, buf, 65536);
    sink = acc;
}

int main(int argc, char **argv)
{
    bool quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    size_t rounds = quick ? 5 : 31, record_rounds = quick ? 3 : 9;
    size_t records = quick ? 5000000 : 50000000;
    size_t buffer_size = 4u << 20;
    unsigned char *buf = aligned_alloc(64, buffer_size);
    uint64_t state = 7;
    for (size_t i = 0; i < buffer_size; i++)
        buf[i] = (unsigned char)(next_random(&state) >> 24);

    entry entries[MAX_ENTRIES];
    size_t count = collect_entries(entries);
    if (!entries_agree(entries, count, buf))
        return 1;
    warm_up(buf);
    printf("crc32c() uses %s; %zu rounds per measurement, implementations in random order each round\n",
           crc32c_implementation(), rounds);
    bench_throughput(entries, count, buf, rounds);
    bench_chained(entries, count, buf, rounds);
    bench_records(entries, count, buf, record_rounds, records);
    printf("\n'/ isa-l' rows: value over ISA-L's (GB/s: higher is better; ns and s: lower is).\n");
    free(buf);
    return 0;
}

/* bench_crc32c.c: side-by-side CRC-32C benchmark of every path this CPU runs, crc32c() and
 * ISA-L in one process: throughput by size, chained 64-byte calls, 50 M 65-byte records. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "crc32c.h"
#include "crc32c_internal.h"

#ifdef HAVE_ISAL
#include <isa-l/crc.h>
#endif

enum { MAX_ENTRIES = 16, MAX_ROUNDS = 101, RING_BYTES = 4u << 20 };

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

/* Every path, then crc32c() (the dispatched entry), then ISA-L when built with it. */
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

static int column_of(const entry *entries, size_t count, const char *name)
{
    for (size_t e = 0; e < count; e++)
        if (strcmp(entries[e].name, name) == 0)
            return (int)e;
    return -1;
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

/* Quantile q of values (sorted in place), interpolating between neighbours. */
static double quantile(double *values, size_t count, double q)
{
    qsort(values, count, sizeof *values, compare_doubles);
    double pos = q * (double)(count - 1);
    size_t lo = (size_t)pos;
    size_t hi = lo + 1 < count ? lo + 1 : lo;
    return values[lo] + (values[hi] - values[lo]) * (pos - (double)lo);
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

/* Seconds for `count` independent 65-byte records laid end to end in a ring of records,
 * as a WAL reader checks them. */
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

/* One sample as the figure the tables show: GB/s, ns per call, or seconds for the loop. */
static double run_one(const struct plan *plan, crc32c_fn fn, const unsigned char *buf)
{
    switch (plan->what) {
    case THROUGHPUT:
        return (double)plan->len * (double)plan->calls / time_independent(fn, buf, plan->len, plan->calls) / 1e9;
    case CHAINED64:
        return time_chained64(fn, buf, plan->calls) / (double)plan->calls * 1e9;
    case RECORDS65:
        return time_records65(fn, buf, RING_BYTES / 65, plan->calls);
    }
    return 0;
}

/* A measurement's summary per entry: median, spread (half the interquartile range over the
 * median), and the median of the per-round ratios to ISA-L (0 without ISA-L). */
struct summary {
    double median[MAX_ENTRIES], spread[MAX_ENTRIES], ratio[MAX_ENTRIES];
};

static double samples[MAX_ENTRIES][MAX_ROUNDS];

static void summarise(size_t count, size_t rounds, int isal, struct summary *out)
{
    double column[MAX_ROUNDS];
    for (size_t e = 0; e < count; e++) {
        out->ratio[e] = 0;
        if (isal >= 0) {
            for (size_t r = 0; r < rounds; r++)
                column[r] = samples[e][r] / samples[isal][r];
            out->ratio[e] = quantile(column, rounds, 0.5);
        }
        memcpy(column, samples[e], rounds * sizeof column[0]);
        out->median[e] = quantile(column, rounds, 0.5);
        out->spread[e] = (quantile(column, rounds, 0.75) - quantile(column, rounds, 0.25)) / 2 / out->median[e];
    }
}

/* Runs every entry once per round in a fresh random order, so slow phases of a noisy
 * machine hit all columns alike; ratios are taken within a round. */
static void measure_interleaved(const struct plan *plan, const entry *entries, size_t count,
                                const unsigned char *buf, struct summary *out)
{
    size_t order[MAX_ENTRIES];
    uint64_t state = 0x2545F4914F6CDD1Du ^ plan->len ^ plan->what;
    for (size_t round = 0; round < plan->rounds; round++) {
        shuffle(order, count, &state);
        for (size_t i = 0; i < count; i++)
            samples[order[i]][round] = run_one(plan, entries[order[i]].fn, buf);
    }
    summarise(count, plan->rounds, column_of(entries, count, "isa-l"), out);
}

static void print_header(const char *title, const entry *entries, size_t count)
{
    printf("\n%s\n%-12s", title, "");
    for (size_t e = 0; e < count; e++)
        printf(" %13s", entries[e].name);
    printf("\n");
}

/* A row of medians with their spreads, then (with ISA-L) the row of ratios. */
static void print_rows(const char *label, const char *format, size_t count, const struct summary *s, bool isal)
{
    printf("%-12s", label);
    for (size_t e = 0; e < count; e++) {
        char cell[32];
        snprintf(cell, sizeof cell, format, s->median[e]);
        printf(" %8s ±%2.0f%%", cell, 100 * s->spread[e]);
    }
    printf("\n");
    if (!isal)
        return;
    printf("%-12s", "  / isa-l");
    for (size_t e = 0; e < count; e++)
        printf(" %13.2f", s->ratio[e]);
    printf("\n");
}

static const size_t sizes[] = {64, 256, 1024, 4096, 16384, 65536, 262144, 1048576};
enum { SIZE_COUNT = sizeof sizes / sizeof sizes[0] };

/* Throughput table; fills gbps[size][entry] with the medians for the table-row suggestion. */
static void bench_throughput(const entry *entries, size_t count, const unsigned char *buf, size_t rounds,
                             double gbps[SIZE_COUNT][MAX_ENTRIES])
{
    bool isal = column_of(entries, count, "isa-l") >= 0;
    print_header("Throughput, GB/s (independent calls)", entries, count);
    for (size_t s = 0; s < SIZE_COUNT; s++) {
        struct plan plan = {THROUGHPUT, sizes[s], (16u << 20) / sizes[s], rounds};
        struct summary sum;
        measure_interleaved(&plan, entries, count, buf, &sum);
        char label[16];
        snprintf(label, sizeof label, "%zu B", sizes[s]);
        print_rows(label, "%.2f", count, &sum, isal);
        memcpy(gbps[s], sum.median, count * sizeof sum.median[0]);
    }
}

static void bench_chained(const entry *entries, size_t count, const unsigned char *buf, size_t rounds)
{
    struct plan plan = {CHAINED64, 64, 1000000, rounds};
    struct summary sum;
    measure_interleaved(&plan, entries, count, buf, &sum);
    print_header("Chained 64-byte calls, ns per call (1 M calls a sample)", entries, count);
    print_rows("ns/call", "%.2f", count, &sum, column_of(entries, count, "isa-l") >= 0);
}

static void bench_records(const entry *entries, size_t count, const unsigned char *buf, size_t rounds,
                          size_t records)
{
    struct plan plan = {RECORDS65, 65, records, rounds};
    struct summary sum;
    measure_interleaved(&plan, entries, count, buf, &sum);
    char title[96];
    snprintf(title, sizeof title, "%zu M independent 65-byte records, seconds for the loop", records / 1000000);
    print_header(title, entries, count);
    print_rows("seconds", "%.3f", count, &sum, column_of(entries, count, "isa-l") >= 0);
}

/* Every entry must agree with slicing-by-8, chained from a non-zero crc, before it is timed. */
static bool entries_agree(const entry *entries, size_t count, const unsigned char *buf)
{
    for (size_t len = 0; len < 20000; len += len < 3000 ? 7 : 997)
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

/* "model name" from /proc/cpuinfo, or "unknown". */
static void cpu_model_name(char *out, size_t cap)
{
    snprintf(out, cap, "unknown");
    FILE *in = fopen("/proc/cpuinfo", "r");
    if (in == NULL)
        return;
    char line[512];
    while (fgets(line, sizeof line, in) != NULL) {
        char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) != 0 || colon == NULL)
            continue;
        snprintf(out, cap, "%s", colon + 2);
        out[strcspn(out, "\n")] = '\0';
        break;
    }
    fclose(in);
}

static const char *vendor_name(crc32c_vendor v)
{
    return v == CRC32C_VENDOR_INTEL ? "Intel" : v == CRC32C_VENDOR_AMD ? "AMD" : "other";
}

static void print_cpu(const crc32c_cpu *cpu)
{
    static const char *const names[] = {"sse4.2", "pclmulqdq", "avx2", "vpclmulqdq", "avx512f", "crc32", "pmull"};
    char model[256];
    cpu_model_name(model, sizeof model);
    printf("CPU: %s (vendor %s, family %u (0x%x), model %u (0x%x); features:", model, vendor_name(cpu->vendor),
           cpu->family, cpu->family, cpu->model, cpu->model);
    for (unsigned bit = 0; bit < sizeof names / sizeof names[0]; bit++)
        if (cpu->features & (1u << bit))
            printf(" %s", names[bit]);
    printf(")\n");
}

/* The path with the best geometric-mean throughput from 1 KiB to 1 MiB: the model-table
 * row this CPU would get from this run. */
static void print_table_row(const crc32c_cpu *cpu, const entry *entries, size_t count,
                            double gbps[SIZE_COUNT][MAX_ENTRIES])
{
    int best = -1;
    double best_score = 0;
    for (size_t e = 0; e < count; e++) {
        if (strcmp(entries[e].name, "crc32c()") == 0 || strcmp(entries[e].name, "isa-l") == 0)
            continue;
        double log_sum = 0;
        for (size_t s = 2; s < SIZE_COUNT; s++)
            log_sum += log(gbps[s][e]);
        if (best < 0 || log_sum > best_score) {
            best = (int)e;
            best_score = log_sum;
        }
    }
    if (best < 0)
        return;
    static const char *const vendors[] = {"CRC32C_VENDOR_OTHER", "CRC32C_VENDOR_INTEL", "CRC32C_VENDOR_AMD"};
    printf("\nFastest path here, 1 KiB to 1 MiB (geometric mean): %s; the table chose %s.\n", entries[best].name,
           crc32c_select(cpu));
    printf("Row for lib/crc32c/crc32c_select.c: {%s, 0x%x, 0x%02x, 0x%02x, \"%s\"},\n", vendors[cpu->vendor],
           cpu->family, cpu->model, cpu->model, entries[best].name);
}

/* Which measurements to run: all by default, or those named on the command line. */
struct options {
    bool quick, throughput, chained, records;
};

static struct options parse_options(int argc, char **argv)
{
    struct options o = {false, false, false, false};
    for (int i = 1; i < argc; i++) {
        o.quick |= strcmp(argv[i], "--quick") == 0;
        o.throughput |= strcmp(argv[i], "throughput") == 0;
        o.chained |= strcmp(argv[i], "chained") == 0;
        o.records |= strcmp(argv[i], "records") == 0;
    }
    if (!o.throughput && !o.chained && !o.records)
        o.throughput = o.chained = o.records = true;
    return o;
}

int main(int argc, char **argv)
{
    struct options opt = parse_options(argc, argv);
    size_t rounds = opt.quick ? 7 : 31, record_rounds = opt.quick ? 5 : 11;
    size_t records = opt.quick ? 5000000 : 50000000;
    unsigned char *buf = aligned_alloc(64, RING_BYTES);
    uint64_t state = 7;
    for (size_t i = 0; i < RING_BYTES; i++)
        buf[i] = (unsigned char)(next_random(&state) >> 24);

    entry entries[MAX_ENTRIES];
    size_t count = collect_entries(entries);
    if (!entries_agree(entries, count, buf))
        return 1;
    warm_up(buf);
    crc32c_cpu cpu = crc32c_probe_cpu();
    print_cpu(&cpu);
    printf("crc32c() uses %s. Each round runs every column once, in a fresh random order;\n"
           "cells are medians over %zu rounds (%zu for the records) with ±half the interquartile\n"
           "range; '/ isa-l' rows are medians of the per-round ratios to ISA-L's crc32_iscsi.\n",
           crc32c_implementation(), rounds, record_rounds);
    double gbps[SIZE_COUNT][MAX_ENTRIES];
    if (opt.throughput)
        bench_throughput(entries, count, buf, rounds, gbps);
    if (opt.chained)
        bench_chained(entries, count, buf, rounds);
    if (opt.records)
        bench_records(entries, count, buf, record_rounds, records);
    printf("\n'/ isa-l': GB/s higher is better; ns and seconds lower is better.\n");
    if (opt.throughput)
        print_table_row(&cpu, entries, count, gbps);
    free(buf);
    return 0;
}

/* Benchmark: Hodges–Lehmann estimates and order statistics in O(n log n) against the naive
 * way (materialise and sort all n² Walsh averages or differences), side by side in one run. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stats/hodges_lehmann.h"
#include "stats/rank_tests.h"

/* The fast paths are timed as the best of this many runs; the naive ones run once. */
enum { FAST_REPEATS = 5 };

typedef struct {
    const char *name;
    double fast_seconds, naive_seconds;
    double fast_value, naive_value;
} comparison;

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

/* Log run times around 100 ms with a few percent of noise, rounded to microseconds so that
 * ties occur as they do in real measurements. */
static void fill_log_times(double *x, size_t n, double shift, uint64_t *state)
{
    for (size_t i = 0; i < n; i++) {
        double u = (double)(next_random(state) >> 11) * 0x1p-53;
        double ms = 100.0 * (1.0 + shift) + 5.0 * (u - 0.5) + 2.0 * u * u * u;
        x[i] = log(round(ms * 1000.0) / 1000.0);
    }
}

static void *checked_malloc(size_t bytes)
{
    void *p = malloc(bytes);
    if (p == NULL) {
        fprintf(stderr, "bench_hodges_lehmann: cannot allocate %zu bytes\n", bytes);
        exit(1);
    }
    return p;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double *sorted_copy(const double *x, size_t n)
{
    double *copy = checked_malloc(n * sizeof *copy);
    memcpy(copy, x, n * sizeof *copy);
    qsort(copy, n, sizeof *copy, compare_doubles);
    return copy;
}

static double median_of_sorted(const double *v, size_t count)
{
    return count % 2 ? v[count / 2] : (v[count / 2 - 1] + v[count / 2]) / 2;
}

/* The naive reference: every Walsh average (or difference), sorted. */
static double *naive_walsh(const double *x, size_t n, size_t *count)
{
    *count = n * (n + 1) / 2;
    double *v = checked_malloc(*count * sizeof *v);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i; j < n; j++)
            v[k++] = (x[i] + x[j]) / 2;
    qsort(v, *count, sizeof *v, compare_doubles);
    return v;
}

static double *naive_differences(const double *x, size_t m, const double *y, size_t n)
{
    double *v = checked_malloc(m * n * sizeof *v);
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++)
            v[i * n + j] = x[i] - y[j];
    qsort(v, m * n, sizeof *v, compare_doubles);
    return v;
}

static void require_ok(stats_status status, const char *what)
{
    if (status != STATS_OK) {
        fprintf(stderr, "bench_hodges_lehmann: %s: %s\n", what, stats_status_message(status));
        exit(1);
    }
}

/* Everything the fast side computes, timed as one unit per figure. */
typedef struct {
    const double *x, *y, *xs, *ys;
    size_t n;
    uint64_t walsh_k, diff_k;
} bench_input;

static double time_fast(const bench_input *in, int which, double *value)
{
    double best = INFINITY;
    for (int r = 0; r < FAST_REPEATS; r++) {
        double start = now_seconds();
        switch (which) {
        case 0: require_ok(hl_one_sample(in->x, in->n, value), "hl_one_sample"); break;
        case 1: require_ok(hl_walsh_kth(in->xs, in->n, in->walsh_k, value), "hl_walsh_kth"); break;
        case 2: require_ok(hl_two_sample(in->x, in->n, in->y, in->n, value), "hl_two_sample"); break;
        default:
            require_ok(hl_diff_kth(in->xs, in->n, in->ys, in->n, in->diff_k, value), "hl_diff_kth");
        }
        double elapsed = now_seconds() - start;
        if (elapsed < best)
            best = elapsed;
    }
    return best;
}

static void print_row(const comparison *c)
{
    printf("%-34s %11.4f %11.3f %9.0fx   %s\n", c->name, c->fast_seconds * 1e3, c->naive_seconds,
           c->naive_seconds / c->fast_seconds, c->fast_value == c->naive_value ? "yes" : "NO");
}

/* The full tests as verdict runs them (normal approximation at this size), for scale. */
static void time_full_tests(const bench_input *in)
{
    double *diff = checked_malloc(in->n * sizeof *diff);
    for (size_t i = 0; i < in->n; i++)
        diff[i] = in->y[i] - in->x[i];
    shift_result r;
    double start = now_seconds();
    require_ok(wilcoxon_signed_rank(diff, in->n, 0.95, &r), "wilcoxon_signed_rank");
    double signed_seconds = now_seconds() - start;
    start = now_seconds();
    require_ok(wilcoxon_rank_sum(in->y, in->n, in->x, in->n, 0.95, &r), "wilcoxon_rank_sum");
    double sum_seconds = now_seconds() - start;
    printf("\nwhole tests with interval and estimate: signed-rank %.1f ms, rank-sum %.1f ms\n",
           signed_seconds * 1e3, sum_seconds * 1e3);
    free(diff);
}

static size_t parse_size(int argc, char **argv)
{
    if (argc < 2)
        return 10000;
    char *end;
    errno = 0;
    unsigned long long n = strtoull(argv[1], &end, 10);
    if (errno != 0 || *end != '\0' || n < 2 || n > 100000) {
        fprintf(stderr, "usage: %s [values per group, 2..100000; default 10000]\n", argv[0]);
        exit(2);
    }
    return (size_t)n;
}

int main(int argc, char **argv)
{
    size_t n = parse_size(argc, argv);
    uint64_t state = 20261130;
    double *x = checked_malloc(n * sizeof *x), *y = checked_malloc(n * sizeof *y);
    fill_log_times(x, n, 0.0, &state);
    fill_log_times(y, n, 0.02, &state);
    double *xs = sorted_copy(x, n), *ys = sorted_copy(y, n);
    size_t walsh_count = n * (n + 1) / 2;
    bench_input in = {x, y, xs, ys, n, walsh_count / 40 + 1, n * n / 40 + 1};
    comparison rows[4] = {
        {"hl_one_sample (median of Walsh)", 0, 0, 0, 0},
        {"hl_walsh_kth (2.5% order stat)", 0, 0, 0, 0},
        {"hl_two_sample (median of diffs)", 0, 0, 0, 0},
        {"hl_diff_kth (2.5% order stat)", 0, 0, 0, 0},
    };
    for (int i = 0; i < 4; i++)
        rows[i].fast_seconds = time_fast(&in, i, &rows[i].fast_value);

    double start = now_seconds();
    double *walsh = naive_walsh(xs, n, &walsh_count);
    rows[0].naive_seconds = rows[1].naive_seconds = now_seconds() - start;
    rows[0].naive_value = median_of_sorted(walsh, walsh_count);
    rows[1].naive_value = walsh[in.walsh_k - 1];
    free(walsh);
    start = now_seconds();
    double *diffs = naive_differences(x, n, y, n);
    rows[2].naive_seconds = rows[3].naive_seconds = now_seconds() - start;
    rows[2].naive_value = median_of_sorted(diffs, n * n);
    rows[3].naive_value = diffs[in.diff_k - 1];
    free(diffs);

    printf("Hodges-Lehmann, %zu values per group (%zu Walsh averages, %zu differences)\n", n,
           walsh_count, n * n);
    printf("%-34s %11s %11s %10s   %s\n", "", "fast (ms)", "naive (s)", "ratio", "same");
    for (int i = 0; i < 4; i++)
        print_row(&rows[i]);
    printf("(naive: build all values and qsort once, shared by the median and the order "
           "statistic; fast: best of %d runs)\n", FAST_REPEATS);
    time_full_tests(&in);
    free(x);
    free(y);
    free(xs);
    free(ys);
    return 0;
}

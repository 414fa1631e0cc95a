/* Exact null distributions of the Wilcoxon signed-rank (V) and rank-sum (W) statistics,
 * with R's conventions for psignrank, pwilcox, qsignrank and qwilcox. Hand-written: GSL has none. */
#include "distributions.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

/* The tables are built from probabilities (not counts) in long double: no overflow for any
 * size, and rounding far below the 10 * DBL_EPSILON fuzz R's quantile search relies on. */
typedef long double prob;

/* Largest tabulation we accept (about a second of work); wilcox.test needs far less, since
 * its exact branch stops at 49 observations per sample. */
static const double max_table_work = 4e8;

/* R's quantile functions forgive this much rounding in the cumulative sums. */
static const double quantile_fuzz = 10 * DBL_EPSILON;

/* Where q lands among the integer support 0..top of a discrete statistic. */
typedef enum { BELOW_SUPPORT, INSIDE_SUPPORT, ABOVE_SUPPORT } support_position;

static support_position locate(double q, long top)
{
    if (q < 0.0)
        return BELOW_SUPPORT;
    if (q >= (double)top)
        return ABOVE_SUPPORT;
    return INSIDE_SUPPORT;
}

/* P(V = v) for v = 0..limit, n observations. Adding observation k halves every probability
 * and moves half the mass up by k: P_k(v) = (P_{k-1}(v) + P_{k-1}(v - k)) / 2. Each entry
 * only reads lower entries, so the table can stop at limit. */
static stats_status signrank_density(int n, long limit, prob **out)
{
    if ((double)n * (double)(limit + 1) > max_table_work)
        return STATS_ERR_DOMAIN;
    prob *density = calloc((size_t)limit + 1, sizeof *density);
    if (density == NULL)
        return STATS_ERR_NOMEM;
    density[0] = 1.0L;
    for (long k = 1; k <= n; k++) {
        for (long v = limit; v >= k; v--)
            density[v] = (density[v] + density[v - k]) / 2;
        for (long v = (k - 1 < limit ? k - 1 : limit); v >= 0; v--)
            density[v] /= 2;
    }
    *out = density;
    return STATS_OK;
}

/* Length of the (possibly truncated) table of W for i and j observations. */
static long wilcox_length(long i, long j, long limit)
{
    long top = i * j;
    return (top < limit ? top : limit) + 1;
}

/* One row of the rank-sum recursion: the tables for (i, 0..cols), stored end to end. */
typedef struct {
    prob *values;
    long *offset; /* offset[j] = start of the table for (i, j); offset[cols + 1] = end */
} wilcox_row;

static void wilcox_row_layout(wilcox_row *row, long i, long cols, long limit)
{
    row->offset[0] = 0;
    for (long j = 0; j <= cols; j++)
        row->offset[j + 1] = row->offset[j] + wilcox_length(i, j, limit);
}

/* Fills the tables of row i from row i - 1. The largest of the i + j observations is one
 * of the i (probability i / (i + j)), beating all j others, or one of the j:
 * P_{i,j}(w) = (i P_{i-1,j}(w - j) + j P_{i,j-1}(w)) / (i + j). */
static void wilcox_row_fill(const wilcox_row *previous, wilcox_row *current, long i,
                            long cols, long limit)
{
    wilcox_row_layout(current, i, cols, limit);
    current->values[0] = 1.0L; /* (i, 0): W is 0 */
    for (long j = 1; j <= cols; j++) {
        const prob *from_first = previous->values + previous->offset[j];
        long first_length = previous->offset[j + 1] - previous->offset[j];
        const prob *from_second = current->values + current->offset[j - 1];
        long second_length = current->offset[j] - current->offset[j - 1];
        prob *target = current->values + current->offset[j];
        long length = current->offset[j + 1] - current->offset[j];
        for (long w = 0; w < length; w++) {
            prob first = (w >= j && w - j < first_length) ? from_first[w - j] : 0.0L;
            prob second = w < second_length ? from_second[w] : 0.0L;
            target[w] = ((prob)i * first + (prob)j * second) / (prob)(i + j);
        }
    }
}

/* P(W = w) for w = 0..limit, samples of m and n. W's law is symmetric in (m, n), so the
 * recursion runs over the larger count with rows as wide as the smaller one. */
static stats_status wilcox_density(int m, int n, long limit, prob **out)
{
    long rows = m > n ? m : n, cols = m > n ? n : m;
    if ((double)rows * (double)(cols + 1) * (double)(limit + 1) > max_table_work)
        return STATS_ERR_DOMAIN;
    size_t row_size = (size_t)((cols + 1) * (limit + 1));
    wilcox_row a = {calloc(row_size, sizeof(prob)), calloc((size_t)cols + 2, sizeof(long))};
    wilcox_row b = {calloc(row_size, sizeof(prob)), calloc((size_t)cols + 2, sizeof(long))};
    prob *density = calloc((size_t)limit + 1, sizeof *density);
    stats_status status = STATS_ERR_NOMEM;
    if (a.values && a.offset && b.values && b.offset && density) {
        wilcox_row_layout(&a, 0, cols, limit);
        for (long j = 0; j <= cols; j++)
            a.values[a.offset[j]] = 1.0L; /* (0, j): W is 0 */
        wilcox_row *previous = &a, *current = &b;
        for (long i = 1; i <= rows; i++) {
            wilcox_row_fill(previous, current, i, cols, limit);
            wilcox_row *swap = previous;
            previous = current;
            current = swap;
        }
        const prob *final = previous->values + previous->offset[cols];
        long final_length = previous->offset[cols + 1] - previous->offset[cols];
        for (long w = 0; w < final_length; w++)
            density[w] = final[w];
        *out = density;
        density = NULL;
        status = STATS_OK;
    }
    free(a.values);
    free(a.offset);
    free(b.values);
    free(b.offset);
    free(density);
    return status;
}

typedef stats_status (*density_builder)(int m, int n, long limit, prob **out);

static stats_status signrank_builder(int unused, int n, long limit, prob **out)
{
    (void)unused;
    return signrank_density(n, limit, out);
}

/* A symmetric statistic on 0..top: its law and how to tabulate it. */
typedef struct {
    density_builder build;
    int m, n;
    long top;
} rank_law;

/* P(S <= x) and P(S > x) for an integer x in [0, top). Only the shorter tail is summed
 * (by symmetry P(S > x) = P(S <= top - x - 1)), so small probabilities keep full precision. */
static stats_status rank_law_tails(const rank_law *law, long x, double *lower, double *upper)
{
    long mirrored = law->top - x - 1;
    bool lower_is_short = x <= mirrored;
    long limit = lower_is_short ? x : mirrored;
    prob *density;
    stats_status status = law->build(law->m, law->n, limit, &density);
    if (status != STATS_OK)
        return status;
    prob tail = 0.0L;
    for (long v = 0; v <= limit; v++)
        tail += density[v];
    free(density);
    *lower = (double)(lower_is_short ? tail : 1.0L - tail);
    *upper = (double)(lower_is_short ? 1.0L - tail : tail);
    return STATS_OK;
}

/* Distribution function at an already rounded q, either tail. */
static stats_status rank_law_cdf(const rank_law *law, double q, bool upper_tail, double *out)
{
    if (isnan(q))
        return STATS_ERR_DOMAIN;
    double lower, upper;
    switch (locate(q, law->top)) {
    case BELOW_SUPPORT:
        lower = 0.0, upper = 1.0;
        break;
    case ABOVE_SUPPORT:
        lower = 1.0, upper = 0.0;
        break;
    default: {
        stats_status status = rank_law_tails(law, (long)q, &lower, &upper);
        if (status != STATS_OK)
            return status;
    }
    }
    *out = upper_tail ? upper : lower;
    return STATS_OK;
}

/* R's quantile search: for p <= 1/2 the smallest q with P(S <= q) >= p - fuzz; above 1/2 the
 * same from the upper end (the largest q with P(S >= q) > 1 - p + fuzz, by symmetry). */
static stats_status rank_law_quantile(const rank_law *law, double p, int *out)
{
    if (!(p >= 0.0 && p <= 1.0))
        return STATS_ERR_DOMAIN;
    if (p == 0.0 || p == 1.0) {
        *out = p == 0.0 ? 0 : (int)law->top;
        return STATS_OK;
    }
    long half = law->top / 2; /* the law is symmetric: the lower half tells all */
    prob *density;
    stats_status status = law->build(law->m, law->n, half, &density);
    if (status != STATS_OK)
        return status;
    bool from_below = p <= 0.5;
    double target = from_below ? p - quantile_fuzz : 1.0 - p + quantile_fuzz;
    double cumulative = 0.0;
    long q = 0;
    for (; q < law->top; q++) {
        cumulative += (double)density[q <= half ? q : law->top - q];
        if (from_below ? cumulative >= target : cumulative > target)
            break;
    }
    free(density);
    *out = (int)(from_below ? q : law->top - q);
    return STATS_OK;
}

static stats_status signrank_law(int n, rank_law *law)
{
    if (n <= 0)
        return STATS_ERR_DOMAIN;
    *law = (rank_law){signrank_builder, 0, n, (long)n * (n + 1) / 2};
    return STATS_OK;
}

static stats_status wilcox_law(int m, int n, rank_law *law)
{
    if (m <= 0 || n <= 0)
        return STATS_ERR_DOMAIN;
    *law = (rank_law){wilcox_density, m, n, (long)m * n};
    return STATS_OK;
}

/* R rounds psignrank's argument to the nearest integer, but floors pwilcox's; both first
 * add 1e-7 so that values computed as 3 - 1e-12 still count as 3. */
static double signrank_argument(double q) { return nearbyint(q + 1e-7); }
static double wilcox_argument(double q) { return floor(q + 1e-7); }

stats_status dist_psignrank(double q, int n, double *out)
{
    rank_law law;
    stats_status status = signrank_law(n, &law);
    return status ? status : rank_law_cdf(&law, signrank_argument(q), false, out);
}

stats_status dist_psignrank_upper(double q, int n, double *out)
{
    rank_law law;
    stats_status status = signrank_law(n, &law);
    return status ? status : rank_law_cdf(&law, signrank_argument(q), true, out);
}

stats_status dist_qsignrank(double p, int n, int *out)
{
    rank_law law;
    stats_status status = signrank_law(n, &law);
    return status ? status : rank_law_quantile(&law, p, out);
}

stats_status dist_pwilcox(double q, int m, int n, double *out)
{
    rank_law law;
    stats_status status = wilcox_law(m, n, &law);
    return status ? status : rank_law_cdf(&law, wilcox_argument(q), false, out);
}

stats_status dist_pwilcox_upper(double q, int m, int n, double *out)
{
    rank_law law;
    stats_status status = wilcox_law(m, n, &law);
    return status ? status : rank_law_cdf(&law, wilcox_argument(q), true, out);
}

stats_status dist_qwilcox(double p, int m, int n, int *out)
{
    rank_law law;
    stats_status status = wilcox_law(m, n, &law);
    return status ? status : rank_law_quantile(&law, p, out);
}

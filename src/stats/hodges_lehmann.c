/* Hodges–Lehmann estimators: order statistics of the n(n+1)/2 Walsh averages or the m*n
 * pairwise differences, selected in O(n log n) without ever materialising the n² values. */
#include "hodges_lehmann.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/sort.h"
#include "random.h"

/* Once this few candidates remain (or no more than one per row), they are gathered and
 * sorted. Small, so that even small samples exercise the selection loop. */
enum { GATHER_THRESHOLD = 32 };

/* The implicit matrix of pairwise values. Rows follow `rows` and columns follow `columns`
 * (both ascending), and each value is nondecreasing along a row and down a column, because
 * floating-point addition and subtraction are monotone in each operand. */
typedef enum { WALSH_AVERAGES, DIFFERENCES } pair_kind;

typedef struct {
    pair_kind kind;
    const double *rows;
    size_t row_count;
    const double *columns; /* for differences: y, read backwards so values ascend */
    size_t column_count;
} pair_matrix;

/* Walsh averages are computed as (x_i + x_j) / 2, the values R sorts (sums, then halved). */
static double pair_value(const pair_matrix *pm, size_t i, size_t j)
{
    if (pm->kind == WALSH_AVERAGES)
        return (pm->rows[i] + pm->rows[j]) / 2;
    return pm->rows[i] - pm->columns[pm->column_count - 1 - j];
}

/* Walsh averages only use j >= i: each unordered pair once, plus the observations themselves. */
static size_t row_start(const pair_matrix *pm, size_t i)
{
    return pm->kind == WALSH_AVERAGES ? i : 0;
}

/* Per row, the half-open column range still in play. */
typedef struct {
    size_t *begin, *end;
} candidate_window;

/* For every row, the first column whose value is > v (or >= v when strict), clamped into
 * the row's window. The cut moves only leftwards as rows grow: one sweep, O(rows + columns). */
static void cut_rows(const pair_matrix *pm, const candidate_window *win, double v, bool strict,
                     size_t *cut)
{
    size_t j = pm->column_count;
    for (size_t i = 0; i < pm->row_count; i++) {
        while (j > 0 && (strict ? pair_value(pm, i, j - 1) >= v : pair_value(pm, i, j - 1) > v))
            j--;
        size_t c = j;
        if (c < win->begin[i])
            c = win->begin[i];
        if (c > win->end[i])
            c = win->end[i];
        cut[i] = c;
    }
}

static uint64_t window_size(const pair_matrix *pm, const candidate_window *win)
{
    uint64_t total = 0;
    for (size_t i = 0; i < pm->row_count; i++)
        total += win->end[i] - win->begin[i];
    return total;
}

static uint64_t cut_size(const pair_matrix *pm, const candidate_window *win, const size_t *cut)
{
    uint64_t total = 0;
    for (size_t i = 0; i < pm->row_count; i++)
        total += cut[i] - win->begin[i];
    return total;
}

/* The value of a uniformly chosen candidate. */
static double random_candidate(const pair_matrix *pm, const candidate_window *win,
                               uint64_t total, stats_random *random)
{
    uint64_t r = stats_random_below(random, total);
    size_t i = 0;
    while (r >= win->end[i] - win->begin[i]) {
        r -= win->end[i] - win->begin[i];
        i++;
    }
    return pair_value(pm, i, win->begin[i] + (size_t)r);
}

/* The rank-th smallest (0-based) of the remaining candidates, by sorting them. */
static stats_status select_gathered(const pair_matrix *pm, const candidate_window *win,
                                    uint64_t total, uint64_t rank, double *out)
{
    double *values = malloc((size_t)total * sizeof *values);
    if (values == NULL)
        return STATS_ERR_NOMEM;
    size_t count = 0;
    for (size_t i = 0; i < pm->row_count; i++)
        for (size_t j = win->begin[i]; j < win->end[i]; j++)
            values[count++] = pair_value(pm, i, j);
    qsort(values, count, sizeof *values, compare_doubles);
    *out = values[rank];
    free(values);
    return STATS_OK;
}

/* Randomised selection on the implicit sorted matrix: a random candidate v splits every row
 * window into < v, == v and > v; the k-th value is v itself or lies on one side, and the
 * window shrinks to that side (v always leaves, so equal values cannot stall the loop). */
static stats_status select_in_windows(const pair_matrix *pm, candidate_window *win,
                                      size_t *less_cut, size_t *equal_cut, uint64_t k,
                                      double *out)
{
    /* Any pivot gives the same answer; randomness only keeps the expected number of rounds
     * logarithmic, and a fixed seed keeps the work repeatable. */
    stats_random random;
    stats_random_seed(&random, 0x5EED0F4B1A5EDull ^ (uint64_t)pm->row_count ^ (k << 20));
    uint64_t below = 0; /* values left of every window: all smaller than the k-th */
    for (;;) {
        uint64_t total = window_size(pm, win);
        if (total <= GATHER_THRESHOLD || total <= pm->row_count)
            return select_gathered(pm, win, total, k - below - 1, out);
        double v = random_candidate(pm, win, total, &random);
        cut_rows(pm, win, v, true, less_cut);
        cut_rows(pm, win, v, false, equal_cut);
        uint64_t less = below + cut_size(pm, win, less_cut);
        uint64_t less_or_equal = below + cut_size(pm, win, equal_cut);
        if (k <= less) {
            memcpy(win->end, less_cut, pm->row_count * sizeof *less_cut);
        } else if (k > less_or_equal) {
            memcpy(win->begin, equal_cut, pm->row_count * sizeof *equal_cut);
            below = less_or_equal;
        } else {
            *out = v;
            return STATS_OK;
        }
    }
}

static stats_status select_kth(const pair_matrix *pm, uint64_t k, double *out)
{
    size_t rows = pm->row_count;
    size_t *buffer = malloc(4 * rows * sizeof *buffer);
    if (buffer == NULL)
        return STATS_ERR_NOMEM;
    candidate_window win = {buffer, buffer + rows};
    for (size_t i = 0; i < rows; i++) {
        win.begin[i] = row_start(pm, i);
        win.end[i] = pm->column_count;
    }
    stats_status status = select_in_windows(pm, &win, buffer + 2 * rows, buffer + 3 * rows, k, out);
    free(buffer);
    return status;
}

/* Ascending and finite (NaN fails every comparison, so it is caught here too). */
static bool is_sorted_finite(const double *x, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(x[i]))
            return false;
        if (i > 0 && !(x[i - 1] <= x[i]))
            return false;
    }
    return true;
}

/* Sizes beyond 2^32 would overflow the pair counts; no sample is that large. */
static bool size_ok(size_t n) { return n > 0 && (uint64_t)n <= UINT32_MAX; }

stats_status hl_walsh_kth(const double *sorted, size_t n, uint64_t k, double *out)
{
    if (n == 0)
        return STATS_ERR_TOO_FEW;
    if (sorted == NULL || out == NULL || !size_ok(n) || !is_sorted_finite(sorted, n))
        return STATS_ERR_DOMAIN;
    uint64_t count = (uint64_t)n * (n + 1) / 2;
    if (k < 1 || k > count)
        return STATS_ERR_DOMAIN;
    pair_matrix pm = {WALSH_AVERAGES, sorted, n, sorted, n};
    return select_kth(&pm, k, out);
}

stats_status hl_diff_kth(const double *x_sorted, size_t m, const double *y_sorted, size_t n,
                         uint64_t k, double *out)
{
    if (m == 0 || n == 0)
        return STATS_ERR_TOO_FEW;
    if (x_sorted == NULL || y_sorted == NULL || out == NULL || !size_ok(m) || !size_ok(n) ||
        !is_sorted_finite(x_sorted, m) || !is_sorted_finite(y_sorted, n))
        return STATS_ERR_DOMAIN;
    uint64_t count = (uint64_t)m * n;
    if (k < 1 || k > count)
        return STATS_ERR_DOMAIN;
    pair_matrix pm = {DIFFERENCES, x_sorted, m, y_sorted, n};
    return select_kth(&pm, k, out);
}

/* A sorted copy, refusing NaN and infinities. */
static stats_status sorted_finite_copy(const double *x, size_t n, double **out)
{
    if (x == NULL)
        return STATS_ERR_DOMAIN;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return STATS_ERR_DOMAIN;
    double *copy = malloc(n * sizeof *copy);
    if (copy == NULL)
        return STATS_ERR_NOMEM;
    memcpy(copy, x, n * sizeof *copy);
    qsort(copy, n, sizeof *copy, compare_doubles);
    *out = copy;
    return STATS_OK;
}

typedef stats_status (*kth_selector)(const void *context, uint64_t k, double *out);

/* R's median of `count` values given their order statistics: the middle one, or the mean
 * of the two middle ones. */
static stats_status median_of_order_statistics(kth_selector select, const void *context,
                                               uint64_t count, double *out)
{
    double low, high;
    stats_status status = select(context, (count + 1) / 2, &low);
    if (status != STATS_OK)
        return status;
    if (count % 2 == 1) {
        *out = low;
        return STATS_OK;
    }
    status = select(context, count / 2 + 1, &high);
    if (status == STATS_OK)
        *out = (low + high) / 2;
    return status;
}

static stats_status select_from_matrix(const void *context, uint64_t k, double *out)
{
    return select_kth(context, k, out);
}

stats_status hl_one_sample(const double *x, size_t n, double *out)
{
    if (n == 0)
        return STATS_ERR_TOO_FEW;
    if (out == NULL || !size_ok(n))
        return STATS_ERR_DOMAIN;
    double *sorted;
    stats_status status = sorted_finite_copy(x, n, &sorted);
    if (status != STATS_OK)
        return status;
    pair_matrix pm = {WALSH_AVERAGES, sorted, n, sorted, n};
    status = median_of_order_statistics(select_from_matrix, &pm, (uint64_t)n * (n + 1) / 2, out);
    free(sorted);
    return status;
}

stats_status hl_two_sample(const double *x, size_t m, const double *y, size_t n, double *out)
{
    if (m == 0 || n == 0)
        return STATS_ERR_TOO_FEW;
    if (out == NULL || !size_ok(m) || !size_ok(n))
        return STATS_ERR_DOMAIN;
    double *xs, *ys = NULL;
    stats_status status = sorted_finite_copy(x, m, &xs);
    if (status != STATS_OK)
        return status;
    status = sorted_finite_copy(y, n, &ys);
    if (status == STATS_OK) {
        pair_matrix pm = {DIFFERENCES, xs, m, ys, n};
        status = median_of_order_statistics(select_from_matrix, &pm, (uint64_t)m * n, out);
    }
    free(xs);
    free(ys);
    return status;
}

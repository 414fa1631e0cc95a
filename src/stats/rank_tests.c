/* Wilcoxon signed-rank and rank-sum tests with Hodges–Lehmann estimates, following R's
 * wilcox.test(conf.int = TRUE, correct = TRUE) step by step for p-values and intervals. */
#include "rank_tests.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/sort.h"
#include "distributions.h"
#include "hodges_lehmann.h"

/* R uses the exact null distribution only below this many observations (per sample). */
enum { EXACT_LIMIT = 50 };

/* R's uniroot settings in wilcox.test: tol.root = 1e-4 and uniroot's maxiter. */
static const double r_root_tolerance = 1e-4;
enum { R_ROOT_MAX_ITERATIONS = 1000 };

/* Where R's search stops short of a jump (within its tolerance), the jump is pinned down to
 * this fraction of the remaining bracket. */
static const double jump_precision = 1e-10;

/* The data a rank statistic is recomputed on while the hypothesised shift d moves:
 * signed-rank uses x - d alone (y == NULL); rank-sum uses x - d against y. Both sorted. */
typedef struct {
    const double *x;
    size_t m;
    const double *y;
    size_t n;
} shift_data;

/* One evaluation of the statistic, with what its null mean and variance need. */
typedef struct {
    double statistic; /* V, or W = (sum of the ranks of x) - m(m+1)/2 */
    double count;     /* signed-rank: observations left once zeros are dropped */
    double tie_sum;   /* sum over groups of tied values of t^3 - t */
} rank_summary;

static bool all_finite(const double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return false;
    return true;
}

/* First index i in [0, n) at which the predicate on the rounded x_i - d becomes true;
 * x is ascending, so x_i - d is too and the predicate is monotone. */
static size_t first_shifted(const double *x, size_t n, double d, bool or_equal)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        double v = x[mid] - d;
        if (or_equal ? v >= 0 : v > 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* Adds one group of t tied values (the next t ranks, averaged) to the summary. */
static void add_tie_group(rank_summary *s, double *ranked, size_t t, size_t counted)
{
    double tied = (double)t;
    double average_rank = *ranked + (tied + 1) / 2;
    s->statistic += (double)counted * average_rank;
    s->tie_sum += tied * tied * tied - tied;
    *ranked += tied;
}

/* V for x - d: ranks of |x_i - d| (zeros dropped, ties averaged) summed over x_i - d > 0.
 * The negative and positive parts are already ordered by absolute value, so they are
 * merged in O(n) instead of sorted again. */
static void signed_rank_at(const double *x, size_t n, double d, rank_summary *s)
{
    size_t negatives = first_shifted(x, n, d, true);
    size_t positive = first_shifted(x, n, d, false);
    double ranked = 0;
    *s = (rank_summary){0, 0, 0};
    while (negatives > 0 || positive < n) {
        double next_negative = negatives > 0 ? -(x[negatives - 1] - d) : 0;
        double next_positive = positive < n ? x[positive] - d : 0;
        double v = negatives == 0 ? next_positive
                 : positive == n  ? next_negative
                                  : fmin(next_negative, next_positive);
        size_t tied_negative = 0, tied_positive = 0;
        while (negatives > 0 && -(x[negatives - 1] - d) == v)
            negatives--, tied_negative++;
        while (positive < n && x[positive] - d == v)
            positive++, tied_positive++;
        add_tie_group(s, &ranked, tied_negative + tied_positive, tied_positive);
    }
    s->count = ranked;
}

/* W for x - d against y, by merging the two ascending sequences. */
static void rank_sum_at(const shift_data *data, double d, rank_summary *s)
{
    size_t i = 0, j = 0;
    double ranked = 0;
    *s = (rank_summary){0, 0, 0};
    while (i < data->m || j < data->n) {
        double v = i == data->m ? data->y[j]
                 : j == data->n ? data->x[i] - d
                                : fmin(data->x[i] - d, data->y[j]);
        size_t tied_x = 0, tied_y = 0;
        while (i < data->m && data->x[i] - d == v)
            i++, tied_x++;
        while (j < data->n && data->y[j] == v)
            j++, tied_y++;
        add_tie_group(s, &ranked, tied_x + tied_y, tied_x);
    }
    double m = (double)data->m;
    s->statistic -= m * (m + 1) / 2;
    s->count = ranked;
}

static void summarize_at(const shift_data *data, double d, rank_summary *s)
{
    if (data->y == NULL)
        signed_rank_at(data->x, data->m, d, s);
    else
        rank_sum_at(data, d, s);
}

/* Null mean and tie-corrected standard deviation, in R's order of operations. */
static void null_moments(const shift_data *data, const rank_summary *s, double *mean,
                         double *sd)
{
    if (data->y == NULL) {
        double n = s->count;
        *mean = n * (n + 1) / 4;
        *sd = sqrt(n * (n + 1) * (2 * n + 1) / 24 - s->tie_sum / 48);
    } else {
        double m = (double)data->m, n = (double)data->n;
        *mean = m * n / 2;
        *sd = sqrt((m * n / 12) * ((m + n + 1) - s->tie_sum / ((m + n) * (m + n - 1))));
    }
}

static double sign_of(double z) { return (z > 0) - (z < 0); }

/* The standardised statistic with continuity correction as a function of the shift d
 * (R's W(d) inside wilcox.test). Nonincreasing in d; NaN when every value is tied or zero. */
static double corrected_score(const shift_data *data, double d)
{
    rank_summary s;
    double mean, sd;
    summarize_at(data, d, &s);
    null_moments(data, &s, &mean, &sd);
    double z = s.statistic - mean;
    return (z - sign_of(z) * 0.5) / sd;
}

static double two_sided_normal_p(double z)
{
    return 2 * fmin(dist_pnorm(z), dist_pnorm_upper(z));
}

/* score(d) = level, solved for the shift d: R's wdiff(d, zq) = W(d) - zq. */
typedef struct {
    const shift_data *data;
    double level;
} score_equation;

static double equation_value(const score_equation *eq, double d)
{
    return corrected_score(eq->data, d) - eq->level;
}

/* Bisection for the last shift at which the equation's value is positive (nonnegative when
 * inclusive); lo satisfies that, hi does not. */
static double value_boundary(const score_equation *eq, double lo, double hi, bool inclusive)
{
    double tolerance = (hi - lo) * jump_precision;
    while (hi - lo > tolerance) {
        double mid = lo + (hi - lo) / 2;
        if (mid <= lo || mid >= hi)
            break;
        double value = equation_value(eq, mid);
        if (inclusive ? value >= 0 : value > 0)
            lo = mid;
        else
            hi = mid;
    }
    return lo + (hi - lo) / 2;
}

/* The jump of the nonincreasing step function through zero inside [lo, hi] (positive at
 * lo, negative at hi); the middle, should it rest on zero for a while. */
static double exact_jump(const score_equation *eq, double lo, double hi)
{
    return (value_boundary(eq, lo, hi, false) + value_boundary(eq, lo, hi, true)) / 2;
}

/* State of Brent's method: b is the current best guess, c the point on the other side of
 * the sign change, a the previous b. */
typedef struct {
    double a, b, c, fa, fb, fc;
} brent_state;

/* One step of Brent's method (Brent 1973, ch. 4): inverse quadratic or secant interpolation
 * when it stays well inside the bracket and shrinks fast enough, otherwise bisection. */
static double brent_step(const brent_state *s, double previous_step, double tolerance)
{
    double bisection = (s->c - s->b) / 2;
    if (fabs(previous_step) < tolerance || fabs(s->fa) <= fabs(s->fb))
        return bisection;
    double to_c = s->c - s->b, p, q;
    if (s->a == s->c) {
        double ratio = s->fb / s->fa;
        p = to_c * ratio;
        q = 1.0 - ratio;
    } else {
        double qa = s->fa / s->fc, rb = s->fb / s->fc, sb = s->fb / s->fa;
        p = sb * (to_c * qa * (qa - rb) - (s->b - s->a) * (rb - 1.0));
        q = (qa - 1.0) * (rb - 1.0) * (sb - 1.0);
    }
    if (p > 0)
        q = -q;
    else
        p = -p;
    if (p < 0.75 * to_c * q - fabs(tolerance * q) / 2 && p < fabs(previous_step * q / 2))
        return p / q;
    return bisection;
}

/* R's uniroot(f, c(a, b), tol = 1e-4) reproduced step by step, so that the evaluations, and
 * hence any exact zero it lands on, are R's. Returns whether it landed on an exact zero
 * (then s->b is R's root); otherwise the sign change lies between b and c. */
static bool r_uniroot(const score_equation *eq, brent_state *s)
{
    s->c = s->a;
    s->fc = s->fa;
    for (int iteration = 0; iteration <= R_ROOT_MAX_ITERATIONS; iteration++) {
        double previous_step = s->b - s->a;
        if (fabs(s->fc) < fabs(s->fb)) { /* keep the best guess in b */
            s->a = s->b, s->b = s->c, s->c = s->a;
            s->fa = s->fb, s->fb = s->fc, s->fc = s->fa;
        }
        double tolerance = 2 * DBL_EPSILON * fabs(s->b) + r_root_tolerance / 2;
        if (s->fb == 0)
            return true;
        if (fabs((s->c - s->b) / 2) <= tolerance)
            return false;
        double step = brent_step(s, previous_step, tolerance);
        if (fabs(step) < tolerance)
            step = step > 0 ? tolerance : -tolerance;
        s->a = s->b, s->fa = s->fb;
        s->b += step;
        s->fb = equation_value(eq, s->b);
        if ((s->fb > 0 && s->fc > 0) || (s->fb < 0 && s->fc < 0))
            s->c = s->a, s->fc = s->fa;
    }
    return false;
}

/* The root R's wilcox.test reports for the equation on [lo, hi]. R's uniroot stops within
 * 1e-4 of a jump; we follow its path, so that we pick the same crossing (and the same point
 * should it land exactly on zero), and then locate the jump exactly instead. */
static double solve_for_shift(const score_equation *eq, double lo, double hi)
{
    brent_state s = {.a = lo, .b = hi, .fa = equation_value(eq, lo), .fb = equation_value(eq, hi)};
    if (s.fa <= 0)
        return lo;
    if (s.fb >= 0)
        return hi;
    if (r_uniroot(eq, &s))
        return s.b;
    bool b_positive = s.fb > 0;
    double positive = b_positive ? s.b : s.c, negative = b_positive ? s.c : s.b;
    if (!(positive < negative)) /* not a decreasing crossing: keep R's answer */
        return s.b;
    return exact_jump(eq, positive, negative);
}

/* The interval ends: where the corrected score passes -z and +z (z = qnorm(alpha / 2) < 0). */
/* How many critical shifts (where the statistic can jump: the Walsh averages of x, or the
 * differences x_i - y_j) are <= v, with the arithmetic of hodges_lehmann.c, in O(m + n). */
static uint64_t critical_at_most(const shift_data *data, double v)
{
    uint64_t count = 0;
    if (data->y == NULL) {
        size_t boundary = data->m; /* row i: first j >= i whose average exceeds v */
        for (size_t i = 0; i < data->m; i++) {
            while (boundary > i && (data->x[i] + data->x[boundary - 1]) / 2 > v)
                boundary--;
            if (boundary <= i)
                break;
            count += boundary - i;
        }
        return count;
    }
    size_t start = 0; /* row i: first j whose difference x_i - y_j is <= v */
    for (size_t i = 0; i < data->m; i++) {
        while (start < data->n && data->x[i] - data->y[start] > v)
            start++;
        count += data->n - start;
    }
    return count;
}

static stats_status critical_kth(const shift_data *data, uint64_t k, double *out)
{
    return data->y == NULL ? hl_walsh_kth(data->x, data->m, k, out)
                           : hl_diff_kth(data->x, data->m, data->y, data->n, k, out);
}

/* Puts an end found by bisection exactly on the critical shift it stands for, and says
 * whether that shift is itself in the set (the statistic there lies within the levels z and
 * -z, z < 0): an end where a tied difference is rejected is open. */
static void snap_to_critical(const shift_data *data, double z, double *end, bool *open)
{
    uint64_t total = data->y == NULL ? (uint64_t)data->m * (data->m + 1) / 2
                                     : (uint64_t)data->m * data->n;
    uint64_t below = critical_at_most(data, *end);
    double at_or_below = NAN, above = NAN;
    if (below >= 1 && critical_kth(data, below, &at_or_below) != STATS_OK)
        return;
    if (below < total && critical_kth(data, below + 1, &above) != STATS_OK)
        return;
    double nearest = !isfinite(above) || (isfinite(at_or_below) &&
                                          *end - at_or_below <= above - *end)
                         ? at_or_below : above;
    if (!isfinite(nearest))
        return;
    double score = corrected_score(data, nearest);
    *end = nearest;
    *open = !(z <= score && score <= -z);
}

static void normal_interval(const shift_data *data, double lo, double hi, double z,
                            shift_result *out)
{
    score_equation low_end = {data, -z}, high_end = {data, z};
    out->ci_low = solve_for_shift(&low_end, lo, hi);
    out->ci_high = solve_for_shift(&high_end, lo, hi);
    snap_to_critical(data, z, &out->ci_low, &out->low_open);
    snap_to_critical(data, z, &out->ci_high, &out->high_open);
    if (out->ci_low >= out->ci_high) {
        /* a test that rejects every shift (discrete data, where B is no shift of A): the
         * set is the point at which the statistic changes sign */
        out->ci_high = out->ci_low;
        out->low_open = out->high_open = false;
    }
}

/* R's signif(x, 2): two significant digits, halves rounded to even after scaling. */
static double two_significant_digits(double x)
{
    if (x == 0 || !isfinite(x))
        return x;
    double magnitude = fabs(x);
    int exponent = 1 - (int)floor(log10(magnitude));
    double scaled;
    if (exponent > 0) {
        double scale = pow(10.0, exponent);
        scaled = nearbyint(magnitude * scale) / scale;
    } else {
        double scale = pow(10.0, -exponent);
        scaled = nearbyint(magnitude / scale) * scale;
    }
    return copysign(scaled, x);
}

/* Exact two-sided p-value from the smaller tail: P(S >= s) above the centre, P(S <= s) below. */
typedef stats_status (*tail_fn)(double q, int m, int n, double *out);

static stats_status signrank_lower(double q, int unused, int n, double *out)
{
    (void)unused;
    return dist_psignrank(q, n, out);
}

static stats_status signrank_upper(double q, int unused, int n, double *out)
{
    (void)unused;
    return dist_psignrank_upper(q, n, out);
}

static stats_status exact_p_value(tail_fn lower, tail_fn upper, double statistic,
                                  double centre, int m, int n, double *out)
{
    double p;
    stats_status status = statistic > centre ? upper(statistic - 1, m, n, &p)
                                             : lower(statistic, m, n, &p);
    if (status == STATS_OK)
        *out = fmin(2 * p, 1.0);
    return status;
}

/* The exact interval runs from order statistic qu to total + 1 - qu of the Walsh averages
 * or differences, with qu = max(1, q(alpha / 2)); the level it reaches is
 * 1 - 2 P(S <= qu - 1), as in wilcox.test. */
typedef struct {
    uint64_t lower_rank, upper_rank;
    double achieved_alpha;
} exact_bounds;

static int interval_rank(int quantile) { return quantile == 0 ? 1 : quantile; }

static exact_bounds exact_interval(int quantile, uint64_t total, double tail_below_rank)
{
    uint64_t rank = (uint64_t)interval_rank(quantile);
    return (exact_bounds){rank, total - rank + 1, 2 * tail_below_rank};
}

/* Exact branch of the signed-rank test on the sorted nonzero differences. */
static stats_status signed_rank_exact(const double *x, size_t n, double v, double confidence,
                                      shift_result *out)
{
    int count = (int)n;
    double centre = (double)n * ((double)n + 1) / 4;
    stats_status status = exact_p_value(signrank_lower, signrank_upper, v, centre, 0, count,
                                        &out->p_value);
    double alpha = 1 - confidence;
    int quantile = 0;
    double tail = 0;
    if (status == STATS_OK)
        status = dist_qsignrank(alpha / 2, count, &quantile);
    if (status == STATS_OK)
        status = dist_psignrank(interval_rank(quantile) - 1, count, &tail);
    if (status != STATS_OK)
        return status;
    exact_bounds bounds = exact_interval(quantile, (uint64_t)n * (n + 1) / 2, tail);
    status = hl_walsh_kth(x, n, bounds.lower_rank, &out->ci_low);
    if (status == STATS_OK)
        status = hl_walsh_kth(x, n, bounds.upper_rank, &out->ci_high);
    /* The signed-rank test reports the reached level rounded to two digits; rank-sum does not. */
    bool unreachable = bounds.achieved_alpha - alpha > alpha / 2;
    out->achieved_confidence =
        unreachable ? 1 - two_significant_digits(bounds.achieved_alpha) : confidence;
    return status;
}

/* The smallest two-sided p-value any data of this size can give, from the permutation
 * distribution without ties (ties only make it coarser): 2 / 2^n for the n nonzero paired
 * differences the test at 0 uses, 2 / C(m + n, m) for two samples. */
static double permutation_floor(const shift_data *data, size_t usable)
{
    if (data->y == NULL)
        return fmin(1.0, ldexp(2.0, -(int)fmin((double)usable, 1000.0)));
    double m = (double)data->m, n = (double)data->n;
    double log_choose = lgamma(m + n + 1) - lgamma(m + 1) - lgamma(n + 1);
    return fmin(1.0, 2.0 * exp(-log_choose));
}

/* No data of this size can reach a level the permutation distribution cannot (R's rule:
 * the achieved alpha within alpha / 2 of the requested one); the level is capped there. */
static void cap_at_permutation_floor(const shift_data *data, size_t usable, double confidence,
                                     shift_result *out)
{
    double floor = permutation_floor(data, usable), alpha = 1 - confidence;
    if (floor - alpha > alpha / 2)
        out->achieved_confidence = fmin(out->achieved_confidence, fmax(0, 1 - floor));
}

/* Makes the interval agree exactly with the test at 0 (whose p-value R reports). With ties
 * the statistic jumps at data differences, very often exactly at 0, and the bisection's end
 * then lands a few ulps on either side of it; the test at 0 says which side is right. */
static void agree_with_test_at_zero(const shift_data *data, double alpha, shift_result *out)
{
    double z = dist_qnorm(1 - alpha / 2), score = corrected_score(data, 0);
    if (!isfinite(score))
        return;
    if (score > z) { /* every shift in the set is above 0 */
        if (!(out->ci_low > 0))
            out->ci_low = 0, out->low_open = true;
        out->ci_high = fmax(out->ci_high, out->ci_low);
    } else if (score < -z) { /* every shift in the set is below 0 */
        if (!(out->ci_high < 0))
            out->ci_high = 0, out->high_open = true;
        out->ci_low = fmin(out->ci_low, out->ci_high);
    } else { /* 0 is in the set */
        out->ci_low = fmin(out->ci_low, 0);
        out->ci_high = fmax(out->ci_high, 0);
    }
}

/* Where the interval is searched ([lo, hi], the extreme data differences) and the shifts
 * at which reachability is judged: R's extremes themselves for the signed-rank test, shifts
 * beyond every difference (complete separation) for the rank-sum test. */
typedef struct {
    double lo, hi, reach_lo, reach_hi;
} search_range;

/* Normal-approximation interval for both tests. Where even the extreme shifts cannot reach
 * the requested quantile, the confidence set is unbounded: alpha doubles until they can and
 * the level settled on is reported (R's rule for the signed-rank test, applied to the
 * rank-sum test too, where R clamps to the extremes and decides on them). The level is also
 * capped by what the permutation distribution of this many values can ever reach.
 * Returns false when every value is tied at the extremes (then no interval exists). */
static bool normal_interval_between(const shift_data *data, const search_range *range,
                                    size_t usable, double confidence, shift_result *out)
{
    double score_lo = corrected_score(data, range->reach_lo);
    double score_hi = corrected_score(data, range->reach_hi);
    if (!isfinite(corrected_score(data, range->lo)) || !isfinite(corrected_score(data, range->hi)) ||
        !isfinite(score_lo) || !isfinite(score_hi))
        return false;
    double alpha = 1 - confidence;
    while (alpha < 2 && (score_lo + dist_qnorm(alpha / 2) < 0 ||
                         score_hi - dist_qnorm(alpha / 2) > 0))
        alpha *= 2;
    out->achieved_confidence = confidence;
    if (alpha >= 1 || 1 - confidence < alpha * 0.75)
        out->achieved_confidence = 1 - fmin(1, alpha);
    if (alpha < 1) {
        normal_interval(data, range->lo, range->hi, dist_qnorm(alpha / 2), out);
        agree_with_test_at_zero(data, alpha, out);
    } else {
        out->ci_low = out->ci_high = out->estimate;
    }
    cap_at_permutation_floor(data, usable, confidence, out);
    return true;
}

/* Normal-approximation interval for the signed-rank test on all differences; `usable` of
 * them are nonzero. */
static void signed_rank_normal_interval(const shift_data *data, size_t usable, double confidence,
                                        shift_result *out)
{
    /* The set is searched, and reachability judged as R does, at the extreme differences,
     * zeros included (R judges at the extreme nonzero ones, having dropped the zeros). */
    double lo = data->x[0], hi = data->x[data->m - 1];
    search_range range = {lo, hi, lo, hi};
    out->min_p_value = permutation_floor(data, usable);
    if (!normal_interval_between(data, &range, usable, confidence, out)) {
        /* every difference equal: R gives no interval and a zero level; compare_samples
         * settles the known shift when the test allows it */
        out->ci_low = out->ci_high = NAN;
        out->achieved_confidence = 0;
    }
}

/* A sorted copy of d, and how many of its values are zero. */
static stats_status sorted_with_zeros(const double *d, size_t n, double **out, size_t *zeros)
{
    double *x = malloc(n * sizeof *x);
    if (x == NULL)
        return STATS_ERR_NOMEM;
    memcpy(x, d, n * sizeof *x);
    qsort(x, n, sizeof *x, compare_doubles);
    size_t count = 0;
    for (size_t i = 0; i < n; i++)
        count += x[i] == 0;
    *out = x;
    *zeros = count;
    return STATS_OK;
}

static stats_status check_inputs(const double *x, size_t n, double confidence)
{
    if (n == 0)
        return STATS_ERR_TOO_FEW;
    if (x == NULL || !all_finite(x, n) || !(confidence > 0 && confidence < 1))
        return STATS_ERR_DOMAIN;
    return STATS_OK;
}

static void begin_result(shift_result *out, double statistic, bool exact)
{
    *out = (shift_result){.estimate = NAN, .ci_low = NAN, .ci_high = NAN, .p_value = NAN,
                          .statistic = statistic, .df = NAN, .achieved_confidence = NAN,
                          .exact = exact};
}

stats_status wilcoxon_signed_rank(const double *d, size_t n, double confidence, shift_result *out)
{
    stats_status status = check_inputs(d, n, confidence);
    if (status != STATS_OK || out == NULL)
        return status != STATS_OK ? status : STATS_ERR_DOMAIN;
    double *x;
    size_t zeros;
    status = sorted_with_zeros(d, n, &x, &zeros);
    if (status != STATS_OK)
        return status;
    if (zeros == n) {
        free(x);
        return STATS_ERR_DEGENERATE; /* every difference is zero */
    }
    /* Zero differences are data: they take part in the estimate (the Hodges–Lehmann median
     * of all differences) and in the interval, which is the set of shifts the test does not
     * reject. The test of a shift sets aside the differences equal to it (Wilcoxon's rule),
     * so the test of no change sets the zeros aside, and its p-value is R's. R's interval
     * drops the zeros before searching instead, which is not the inversion of its own test
     * and is biased when zeros come from rounding (docs/statistics.md). */
    shift_data data = {x, n, NULL, 0};
    rank_summary at_zero;
    summarize_at(&data, 0, &at_zero);
    bool exact = n < EXACT_LIMIT && zeros == 0 && at_zero.tie_sum == 0;
    begin_result(out, at_zero.statistic, exact);
    out->set_aside = zeros;
    status = hl_one_sample(x, n, &out->estimate);
    if (status == STATS_OK && exact) {
        status = signed_rank_exact(x, n, at_zero.statistic, confidence, out);
    } else if (status == STATS_OK) {
        out->p_value = two_sided_normal_p(corrected_score(&data, 0));
        signed_rank_normal_interval(&data, n - zeros, confidence, out);
    }
    free(x);
    return status;
}

static stats_status wilcox_lower(double q, int m, int n, double *out)
{
    return dist_pwilcox(q, m, n, out);
}

static stats_status wilcox_upper(double q, int m, int n, double *out)
{
    return dist_pwilcox_upper(q, m, n, out);
}

/* Exact branch of the rank-sum test on sorted samples. */
static stats_status rank_sum_exact(const shift_data *data, double w, double confidence,
                                   shift_result *out)
{
    int m = (int)data->m, n = (int)data->n;
    double centre = (double)m * n / 2;
    stats_status status = exact_p_value(wilcox_lower, wilcox_upper, w, centre, m, n,
                                        &out->p_value);
    double alpha = 1 - confidence;
    int quantile = 0;
    double tail = 0;
    if (status == STATS_OK)
        status = dist_qwilcox(alpha / 2, m, n, &quantile);
    if (status == STATS_OK)
        status = dist_pwilcox(interval_rank(quantile) - 1, m, n, &tail);
    if (status != STATS_OK)
        return status;
    exact_bounds bounds = exact_interval(quantile, (uint64_t)m * n, tail);
    status = hl_diff_kth(data->x, data->m, data->y, data->n, bounds.lower_rank, &out->ci_low);
    if (status == STATS_OK)
        status = hl_diff_kth(data->x, data->m, data->y, data->n, bounds.upper_rank, &out->ci_high);
    bool unreachable = bounds.achieved_alpha - alpha > alpha / 2;
    out->achieved_confidence = unreachable ? 1 - bounds.achieved_alpha : confidence;
    return status;
}

/* Normal-approximation interval for the rank-sum test, between the extreme shifts. When each
 * sample is constant (but they differ) no interval exists: the shift is known exactly and
 * compare_samples settles it, as for a constant paired difference. */
static void rank_sum_normal_interval(const shift_data *data, double confidence,
                                     shift_result *out)
{
    double lo = data->x[0] - data->y[data->n - 1];
    double hi = data->x[data->m - 1] - data->y[0];
    search_range range = {lo, hi, lo - 1, hi + 1}; /* logs: 1 is far beyond any tie */
    out->min_p_value = permutation_floor(data, data->m + data->n);
    if (!normal_interval_between(data, &range, data->m + data->n, confidence, out)) {
        out->ci_low = out->ci_high = NAN;
        out->achieved_confidence = 0;
    }
}

static stats_status sorted_copy(const double *x, size_t n, double **out)
{
    double *copy = malloc(n * sizeof *copy);
    if (copy == NULL)
        return STATS_ERR_NOMEM;
    memcpy(copy, x, n * sizeof *copy);
    qsort(copy, n, sizeof *copy, compare_doubles);
    *out = copy;
    return STATS_OK;
}

static stats_status rank_sum_sorted(const shift_data *data, double estimate, double confidence,
                                    shift_result *out)
{
    rank_summary at_zero;
    summarize_at(data, 0, &at_zero);
    bool exact = data->m < EXACT_LIMIT && data->n < EXACT_LIMIT && at_zero.tie_sum == 0;
    begin_result(out, at_zero.statistic, exact);
    out->estimate = estimate;
    if (exact)
        return rank_sum_exact(data, at_zero.statistic, confidence, out);
    double z = corrected_score(data, 0);
    if (isnan(z))
        return STATS_ERR_DEGENERATE; /* all m + n values tied */
    out->p_value = two_sided_normal_p(z);
    rank_sum_normal_interval(data, confidence, out);
    return STATS_OK;
}

stats_status wilcoxon_rank_sum(const double *x, size_t m, const double *y, size_t n,
                               double confidence, shift_result *out)
{
    stats_status status = check_inputs(x, m, confidence);
    if (status == STATS_OK)
        status = check_inputs(y, n, confidence);
    if (status == STATS_OK && out == NULL)
        status = STATS_ERR_DOMAIN;
    if (status != STATS_OK)
        return status;
    double *xs = NULL, *ys = NULL;
    status = sorted_copy(x, m, &xs);
    if (status == STATS_OK)
        status = sorted_copy(y, n, &ys);
    double estimate = NAN;
    if (status == STATS_OK) /* Hodges–Lehmann, in both branches: see wilcoxon_signed_rank */
        status = hl_two_sample(xs, m, ys, n, &estimate);
    if (status == STATS_OK) {
        shift_data data = {xs, m, ys, n};
        status = rank_sum_sorted(&data, estimate, confidence, out);
    }
    free(xs);
    free(ys);
    return status;
}

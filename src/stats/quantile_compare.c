/* Paired Harrell-Davis quantile comparison: within-block swaps as the exact null, each flip's
 * statistic in O(n) by merging the blocks' sorted low and high values; interval by inversion. */
#include "quantile_compare.h"

#include <assert.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/sort.h"
#include "quantile.h"
#include "random.h"

/* A flip's statistic counts as at least as extreme as the observed one within this relative
 * distance: a flip and its complement give exactly opposite statistics, and a value equal in
 * exact arithmetic must not be lost to rounding (it would make the test anti-conservative). */
#define QUANTILE_TIE 1e-12
#define QUANTILE_MAX_ITERATIONS 60
/* Interval ends are found to this precision on the log scale (a ratio's fifth decimal). */
#define QUANTILE_END_TOLERANCE 1e-5

/* A value in the list of the blocks' lower (or higher) values, with the block it came from. */
typedef struct {
    double value;
    size_t block;
} ranked;

/* Everything the flips of one comparison share; rebuilt for each shift d. */
typedef struct {
    size_t n, words, flips;
    bool exact;
    uint64_t seed;
    const double *baseline, *candidate;
    double *weights;        /* Harrell-Davis weights for n values */
    ranked *low, *high;     /* each block's lower and higher value, ascending */
    uint64_t *high_is_base; /* bit i: the baseline holds block i's higher value */
    uint64_t *flip;         /* the flip being evaluated: bit i set = block i swapped */
    uint64_t *base_high;    /* flip XOR high_is_base: the baseline side has block i's higher
                               value after the flip */
    double *extreme;        /* |statistic| of every flip (none excluded) */
} flip_space;

static int compare_ranked(const void *x, const void *y)
{
    return compare_doubles(&((const ranked *)x)->value, &((const ranked *)y)->value);
}

static bool bit(const uint64_t *bits, size_t i)
{
    return (bits[i / 64] >> (i % 64)) & 1u;
}

/* Orders each block's values at shift d (candidate divided by exp(d)). */
static void space_shift(flip_space *w, double d)
{
    memset(w->high_is_base, 0, w->words * sizeof *w->high_is_base);
    double scale = exp(-d);
    for (size_t i = 0; i < w->n; i++) {
        double a = w->baseline[i], b = w->candidate[i] * scale;
        bool base_high = a > b;
        w->low[i] = (ranked){base_high ? b : a, i};
        w->high[i] = (ranked){base_high ? a : b, i};
        if (base_high)
            w->high_is_base[i / 64] |= UINT64_C(1) << (i % 64);
    }
    qsort(w->low, w->n, sizeof *w->low, compare_ranked);
    qsort(w->high, w->n, sizeof *w->high, compare_ranked);
}

/* The Harrell-Davis estimate of one side after the flip: the side gets block i's higher value
 * when bit i of base_high equals `gets_high_when`; both lists being sorted, the side's sorted
 * values come from one merge. */
static double side_quantile(const flip_space *w, bool gets_high_when)
{
    size_t i = 0, j = 0, n = w->n;
    double sum = 0;
    for (size_t r = 0; r < n; r++) {
        while (i < n && bit(w->base_high, w->low[i].block) == gets_high_when)
            i++;
        while (j < n && bit(w->base_high, w->high[j].block) != gets_high_when)
            j++;
        assert(i < n || j < n);
        double v = (j >= n || (i < n && w->low[i].value <= w->high[j].value)) ? w->low[i++].value
                                                                               : w->high[j++].value;
        sum += w->weights[r] * v;
    }
    return sum;
}

/* The statistic after the current flip: log candidate side - log baseline side. The baseline
 * side holds the higher value of block i when bit i of flip XOR high_is_base is 1, the
 * candidate side when it is 0. */
static double flip_statistic(flip_space *w)
{
    for (size_t k = 0; k < w->words; k++)
        w->base_high[k] = w->flip[k] ^ w->high_is_base[k];
    return log(side_quantile(w, false)) - log(side_quantile(w, true));
}

static void next_flip(flip_space *w, stats_random *rng, uint64_t index)
{
    if (w->exact) {
        w->flip[0] = index + 1; /* 1 .. 2^n - 1: every flip but none */
        return;
    }
    for (size_t k = 0; k < w->words; k++)
        w->flip[k] = stats_random_next(rng);
    if (w->n % 64)
        w->flip[w->words - 1] &= (UINT64_C(1) << (w->n % 64)) - 1;
}

/* |statistic| of every flip at shift d; the same flips at every d (the seed restarts). */
static void space_distribution(flip_space *w, double d)
{
    space_shift(w, d);
    stats_random rng;
    stats_random_seed(&rng, w->seed);
    for (size_t f = 0; f < w->flips; f++) {
        next_flip(w, &rng, f);
        w->extreme[f] = fabs(flip_statistic(w));
    }
}

static int compare_descending(const void *x, const void *y)
{
    return compare_doubles(y, x);
}

/* The critical value at shift d: d is not rejected while |T(d)| <= the k-th largest flip,
 * k the fewest flips at least as extreme that keep p = (1 + count) / (flips + 1) above alpha. */
static double critical_value(flip_space *w, double d, size_t k)
{
    space_distribution(w, d);
    qsort(w->extreme, w->flips, sizeof *w->extreme, compare_descending);
    return w->extreme[k - 1];
}

/* How far shift d is beyond the critical value: |T(d)| - c(d) (T(d) = estimate - d, the
 * Harrell-Davis estimate being scale-equivariant), with the p-value's rule for ties (a flip
 * that moves a value of negligible weight keeps |T| to 1e-16 over a range of d: it counts
 * as extreme there); d is rejected when this is positive. */
static double beyond(flip_space *w, double estimate, double d, size_t k)
{
    return fabs(estimate - d) * (1.0 - QUANTILE_TIE) - critical_value(w, d, k);
}

/* One end of the interval (side -1: the lower end): the shift where beyond() turns positive,
 * bracketed by steps of the first critical value and then found by false position with the
 * Illinois rule. c(d) grows nearly as fast as d moves away from the estimate when the blocks
 * are few, so plain fixed-point iteration crawls; false position takes about ten steps. */
static double interval_end(flip_space *w, double estimate, double side, size_t k)
{
    double inside = estimate, f_inside = -critical_value(w, estimate, k);
    /* every block tied: no flip moves the statistic at the estimate, c = 0 there */
    double step = fmax(-f_inside, QUANTILE_END_TOLERANCE), outside = estimate + side * step;
    double f_outside = beyond(w, estimate, outside, k);
    for (int i = 0; f_outside <= 0 && i < QUANTILE_MAX_ITERATIONS; i++) {
        inside = outside;
        f_inside = f_outside;
        step *= 2.0;
        outside = estimate + side * step;
        f_outside = beyond(w, estimate, outside, k);
    }
    if (f_outside <= 0)
        return side * INFINITY;
    int kept = 0; /* which end was kept last time: halve its value (Illinois) */
    for (int i = 0; i < QUANTILE_MAX_ITERATIONS &&
                    fabs(outside - inside) > QUANTILE_END_TOLERANCE * (1.0 + fabs(outside));
         i++) {
        double d = outside - f_outside * (outside - inside) / (f_outside - f_inside);
        double f = beyond(w, estimate, d, k);
        if (f > 0) {
            outside = d;
            f_outside = f;
            if (kept == 1)
                f_inside /= 2.0;
            kept = 1;
        } else {
            inside = d;
            f_inside = f;
            if (kept == -1)
                f_outside /= 2.0;
            kept = -1;
        }
    }
    return outside; /* the rejected side of the last bracket: never narrower than the set */
}

static int check_input(const double *baseline, const double *candidate, size_t n,
                       const quantile_options *o, verdict_error *err)
{
    if (n < 2)
        return error_set(err, ERROR_BAD_INPUT, "quantile comparison: %zu blocks, needs 2", n);
    if (!(o->q > 0 && o->q < 1) || !(o->confidence > 0 && o->confidence < 1))
        return error_set(err, ERROR_BAD_INPUT,
                         "quantile comparison: quantile %g and confidence %g must be in (0, 1)",
                         o->q, o->confidence);
    for (size_t i = 0; i < n; i++)
        if (!(baseline[i] > 0 && isfinite(baseline[i]) && candidate[i] > 0 &&
              isfinite(candidate[i])))
            return error_set(err, ERROR_BAD_INPUT,
                             "quantile comparison: block %zu has %g and %g, needs positive values",
                             i + 1, baseline[i], candidate[i]);
    return 0;
}

static void space_free(flip_space *w)
{
    free(w->weights);
    free(w->low);
    free(w->high);
    free(w->high_is_base);
    free(w->flip);
    free(w->base_high);
    free(w->extreme);
}

static int space_init(flip_space *w, const double *baseline, const double *candidate, size_t n,
                      const quantile_options *o, verdict_error *err)
{
    size_t drawn = o->flips ? o->flips : QUANTILE_DEFAULT_FLIPS;
    *w = (flip_space){.n = n, .words = (n + 63) / 64, .seed = o->seed, .baseline = baseline,
                      .candidate = candidate};
    w->exact = n < 63 && (UINT64_C(1) << n) - 1 <= drawn;
    w->flips = w->exact ? (size_t)((UINT64_C(1) << n) - 1) : drawn;
    w->weights = malloc(n * sizeof *w->weights);
    w->low = malloc(n * sizeof *w->low);
    w->high = malloc(n * sizeof *w->high);
    w->high_is_base = calloc(w->words, sizeof *w->high_is_base);
    w->flip = calloc(w->words, sizeof *w->flip);
    w->base_high = calloc(w->words, sizeof *w->base_high);
    w->extreme = malloc(w->flips * sizeof *w->extreme);
    if (!w->weights || !w->low || !w->high || !w->high_is_base || !w->flip || !w->base_high ||
        !w->extreme) {
        space_free(w);
        return error_no_memory(err);
    }
    quantile_hd_weights(n, o->q, w->weights);
    return 0;
}

/* The observed statistic: no flip. Also the two quantiles. */
static double observed(flip_space *w, quantile_comparison *out)
{
    space_shift(w, 0.0);
    memset(w->flip, 0, w->words * sizeof *w->flip);
    memcpy(w->base_high, w->high_is_base, w->words * sizeof *w->base_high);
    out->baseline_quantile = side_quantile(w, true);
    out->candidate_quantile = side_quantile(w, false);
    return log(out->candidate_quantile) - log(out->baseline_quantile);
}

int quantile_compare_paired(const double *baseline, const double *candidate, size_t n,
                            const quantile_options *options, quantile_comparison *out,
                            verdict_error *err)
{
    flip_space w;
    if (check_input(baseline, candidate, n, options, err) != 0 ||
        space_init(&w, baseline, candidate, n, options, err) != 0)
        return -1;
    memset(out, 0, sizeof *out);
    double estimate = observed(&w, out);
    space_distribution(&w, 0.0);
    size_t as_extreme = 0;
    for (size_t f = 0; f < w.flips; f++)
        as_extreme += w.extreme[f] >= fabs(estimate) * (1.0 - QUANTILE_TIE);
    double alpha = 1.0 - options->confidence, denominator = (double)w.flips + 1.0;
    /* the complement of no flip (every block swapped) is exactly -estimate: always counted */
    size_t k = (size_t)floor(alpha * denominator - 1.0 + 1e-9) + 1;
    out->flips = w.flips;
    out->shift = (shift_result){
        .estimate = estimate, .statistic = estimate, .df = NAN, .exact = w.exact,
        .p_value = (1.0 + (double)as_extreme) / denominator,
        .min_p_value = (w.exact ? 2.0 : 1.0) / denominator,
        .achieved_confidence = options->confidence, .ci_low = -INFINITY, .ci_high = INFINITY};
    if (!options->test_only && k <= w.flips && out->shift.min_p_value <= alpha) {
        out->shift.ci_low = interval_end(&w, estimate, -1.0, k);
        out->shift.ci_high = interval_end(&w, estimate, +1.0, k);
    }
    space_free(&w);
    return 0;
}

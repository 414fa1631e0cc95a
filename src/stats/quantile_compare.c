/* Harrell-Davis quantile comparisons: within-block swaps (paired) or permutations of the pooled
 * runs (unpaired) as the exact null, each in O(n) from sorted values; interval by inversion. */
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
static void space_distribution(void *space, double d)
{
    flip_space *w = space;
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

/* The null distribution a test is inverted over: |statistic| of every rearrangement of the
 * data (within-block swaps, or permutations of the pooled runs) at shift d, the candidate
 * divided by exp(d); the same rearrangements at every d. */
typedef struct {
    void (*fill)(void *space, double d);
    void *space;
    size_t count;    /* rearrangements other than the observed one */
    double *extreme; /* filled by fill: one per rearrangement */
} null_law;

/* The critical value at shift d: d is not rejected while |T(d)| <= the k-th largest
 * rearrangement, k the fewest at least as extreme that keep p = (1 + count) / (count + 1)
 * above alpha. */
static double critical_value(null_law *law, double d, size_t k)
{
    law->fill(law->space, d);
    qsort(law->extreme, law->count, sizeof *law->extreme, compare_descending);
    return law->extreme[k - 1];
}

/* How far shift d is beyond the critical value: |T(d)| - c(d) (T(d) = estimate - d, the
 * Harrell-Davis estimate being scale-equivariant), with the p-value's rule for ties (a flip
 * that moves a value of negligible weight keeps |T| to 1e-16 over a range of d: it counts
 * as extreme there); d is rejected when this is positive. */
static double beyond(null_law *law, double estimate, double d, size_t k)
{
    return fabs(estimate - d) * (1.0 - QUANTILE_TIE) - critical_value(law, d, k);
}

/* One end of the interval (side -1: the lower end): the shift where beyond() turns positive,
 * bracketed by steps of the first critical value and then found by false position with the
 * Illinois rule, safeguarded by bisection. c(d) grows nearly as fast as d moves away from the estimate when the blocks
 * are few, so plain fixed-point iteration crawls; false position takes about ten steps. */
static double interval_end(null_law *law, double estimate, double side, size_t k)
{
    double inside = estimate, f_inside = -critical_value(law, estimate, k);
    /* every block tied: no flip moves the statistic at the estimate, c = 0 there */
    double step = fmax(-f_inside, QUANTILE_END_TOLERANCE), outside = estimate + side * step;
    double f_outside = beyond(law, estimate, outside, k);
    for (int i = 0; f_outside <= 0 && i < QUANTILE_MAX_ITERATIONS; i++) {
        inside = outside;
        f_inside = f_outside;
        step *= 2.0;
        outside = estimate + side * step;
        f_outside = beyond(law, estimate, outside, k);
    }
    if (f_outside <= 0)
        return side * INFINITY;
    int kept = 0; /* which end was kept last time: halve its value (Illinois) */
    double width = INFINITY;
    for (int i = 0; i < QUANTILE_MAX_ITERATIONS &&
                    fabs(outside - inside) > QUANTILE_END_TOLERANCE * (1.0 + fabs(outside));
         i++) {
        /* c(d) is a step function: where |T(d)| rests on a tied critical value over a range
         * (rounded values), f is ~0 on one side and false position crawls, so a step that
         * did not halve the bracket is followed by bisection */
        bool halved = fabs(outside - inside) <= width / 2.0;
        width = fabs(outside - inside);
        double d = halved ? outside - f_outside * (outside - inside) / (f_outside - f_inside)
                          : (inside + outside) / 2.0;
        double f = beyond(law, estimate, d, k);
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

/* The test at d = 0 and its inversion into out->shift, from the observed estimate. `exact`:
 * every rearrangement was enumerated; `mirrored`: one of them gives exactly -estimate (every
 * block swapped; the two groups exchanged when they have as many runs), so the smallest
 * p-value is 2 / (count + 1). */
static void test_and_invert(null_law *law, double estimate, bool exact, bool mirrored,
                            const quantile_options *o, quantile_comparison *out)
{
    law->fill(law->space, 0.0);
    size_t as_extreme = 0;
    for (size_t f = 0; f < law->count; f++)
        as_extreme += law->extreme[f] >= fabs(estimate) * (1.0 - QUANTILE_TIE);
    double alpha = 1.0 - o->confidence, denominator = (double)law->count + 1.0;
    size_t k = (size_t)floor(alpha * denominator - 1.0 + 1e-9) + 1;
    out->flips = law->count;
    out->shift = (shift_result){
        .estimate = estimate, .statistic = estimate, .df = NAN, .exact = exact,
        .p_value = (1.0 + (double)as_extreme) / denominator,
        .min_p_value = (exact && mirrored ? 2.0 : 1.0) / denominator,
        .achieved_confidence = o->confidence, .ci_low = -INFINITY, .ci_high = INFINITY};
    if (!o->test_only && k <= law->count && out->shift.min_p_value <= alpha) {
        out->shift.ci_low = interval_end(law, estimate, -1.0, k);
        out->shift.ci_high = interval_end(law, estimate, +1.0, k);
    }
}

static int check_sample(const char *side, const double *x, size_t n, verdict_error *err)
{
    if (n < 2)
        return error_set(err, ERROR_BAD_INPUT, "quantile comparison: %zu %s runs, needs 2", n,
                         side);
    for (size_t i = 0; i < n; i++)
        if (!(x[i] > 0 && isfinite(x[i])))
            return error_set(err, ERROR_BAD_INPUT, "quantile comparison: %s run %zu is %g, "
                             "needs a positive value", side, i + 1, x[i]);
    return 0;
}

static int check_input(const double *baseline, size_t nb, const double *candidate, size_t nc,
                       const quantile_options *o, verdict_error *err)
{
    if (!(o->q > 0 && o->q < 1) || !(o->confidence > 0 && o->confidence < 1))
        return error_set(err, ERROR_BAD_INPUT,
                         "quantile comparison: quantile %g and confidence %g must be in (0, 1)",
                         o->q, o->confidence);
    if (check_sample("baseline", baseline, nb, err) != 0 ||
        check_sample("candidate", candidate, nc, err) != 0)
        return -1;
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
    if (check_input(baseline, n, candidate, n, options, err) != 0 ||
        space_init(&w, baseline, candidate, n, options, err) != 0)
        return -1;
    memset(out, 0, sizeof *out);
    double estimate = observed(&w, out);
    null_law law = {space_distribution, &w, w.flips, w.extreme};
    test_and_invert(&law, estimate, w.exact, true, options, out);
    space_free(&w);
    return 0;
}

/* ---- unpaired: permutations of the pooled runs ---- */

/* The rearrangements of two unpaired samples; rebuilt for each shift d. Runs are numbered
 * 0 .. nb - 1 (baseline) and nb .. n - 1 (candidate). */
typedef struct {
    size_t nb, n, count;
    bool exact;
    uint64_t seed;
    const double *baseline, *candidate;
    double *weights_b, *weights_c; /* Harrell-Davis weights for nb and n - nb values */
    ranked *pooled;                /* every run at shift d, ascending, with its number */
    unsigned char *to_base;        /* run i goes to the baseline side in this permutation */
    size_t *chosen;                /* exact: the nb runs of the current combination */
    size_t *order;                 /* drawn: runs shuffled, the first nb to the baseline */
    double *extreme;
} pool_space;

static void pool_free(pool_space *w)
{
    free(w->weights_b);
    free(w->weights_c);
    free(w->pooled);
    free(w->to_base);
    free(w->chosen);
    free(w->order);
    free(w->extreme);
}

/* C(n, k) when it is at most limit; limit + 1 otherwise (no overflow). */
static size_t combinations_up_to(size_t n, size_t k, size_t limit)
{
    double c = 1;
    for (size_t i = 1; i <= k && c <= (double)limit; i++)
        c = c * (double)(n - k + i) / (double)i;
    return c <= (double)limit ? (size_t)llround(c) : limit + 1;
}

static int pool_init(pool_space *w, const double *baseline, size_t nb, const double *candidate,
                     size_t nc, const quantile_options *o, verdict_error *err)
{
    size_t drawn = o->flips ? o->flips : QUANTILE_DEFAULT_FLIPS;
    size_t n = nb + nc, all = combinations_up_to(n, nb, drawn + 1);
    *w = (pool_space){.nb = nb, .n = n, .seed = o->seed, .baseline = baseline,
                      .candidate = candidate};
    w->exact = all <= drawn + 1; /* every permutation but the observed one fits */
    w->count = w->exact ? all - 1 : drawn;
    w->weights_b = malloc(nb * sizeof *w->weights_b);
    w->weights_c = malloc(nc * sizeof *w->weights_c);
    w->pooled = malloc(n * sizeof *w->pooled);
    w->to_base = malloc(n);
    w->chosen = malloc(nb * sizeof *w->chosen);
    w->order = malloc(n * sizeof *w->order);
    w->extreme = malloc((w->count ? w->count : 1) * sizeof *w->extreme);
    if (!w->weights_b || !w->weights_c || !w->pooled || !w->to_base || !w->chosen ||
        !w->order || !w->extreme) {
        pool_free(w);
        return error_no_memory(err);
    }
    quantile_hd_weights(nb, o->q, w->weights_b);
    quantile_hd_weights(nc, o->q, w->weights_c);
    return 0;
}

/* The two sides' Harrell-Davis estimates under the current permutation (to_base): one pass
 * over the pooled runs gives each side's values in ascending order. */
static void pool_sides(const pool_space *w, double *base, double *cand)
{
    double sum_b = 0, sum_c = 0;
    size_t rb = 0, rc = 0;
    for (size_t r = 0; r < w->n; r++) {
        const ranked *v = &w->pooled[r];
        if (w->to_base[v->block])
            sum_b += w->weights_b[rb++] * v->value;
        else
            sum_c += w->weights_c[rc++] * v->value;
    }
    assert(rb == w->nb && rc == w->n - w->nb);
    *base = sum_b;
    *cand = sum_c;
}

static double pool_statistic(const pool_space *w)
{
    double base, cand;
    pool_sides(w, &base, &cand);
    return log(cand) - log(base);
}

/* The next combination of nb runs in lexicographic order (the first, 0 .. nb - 1, is the
 * observed assignment and is skipped by starting from it). */
static void next_combination(pool_space *w)
{
    size_t k = w->nb, i = k;
    while (i > 0 && w->chosen[i - 1] == w->n - k + i - 1)
        i--;
    assert(i > 0);
    w->chosen[i - 1]++;
    for (size_t j = i; j < k; j++)
        w->chosen[j] = w->chosen[j - 1] + 1;
    memset(w->to_base, 0, w->n);
    for (size_t j = 0; j < k; j++)
        w->to_base[w->chosen[j]] = 1;
}

/* A uniformly drawn permutation: the first nb of the shuffled runs go to the baseline. */
static void draw_permutation(pool_space *w, stats_random *rng)
{
    for (size_t i = 0; i < w->nb; i++) { /* a partial Fisher-Yates shuffle */
        size_t j = i + (size_t)stats_random_below(rng, w->n - i);
        size_t t = w->order[i];
        w->order[i] = w->order[j];
        w->order[j] = t;
    }
    memset(w->to_base, 0, w->n);
    for (size_t i = 0; i < w->nb; i++)
        w->to_base[w->order[i]] = 1;
}

/* Sorts the pooled runs at shift d and puts back the observed assignment. */
static void pool_shift(pool_space *w, double d)
{
    double scale = exp(-d);
    for (size_t i = 0; i < w->n; i++) {
        double v = i < w->nb ? w->baseline[i] : w->candidate[i - w->nb] * scale;
        w->pooled[i] = (ranked){v, i};
        w->to_base[i] = i < w->nb;
        w->order[i] = i;
    }
    qsort(w->pooled, w->n, sizeof *w->pooled, compare_ranked);
    for (size_t i = 0; i < w->nb; i++)
        w->chosen[i] = i;
}

/* |statistic| of every permutation at shift d; the same permutations at every d. */
static void pool_distribution(void *space, double d)
{
    pool_space *w = space;
    pool_shift(w, d);
    stats_random rng;
    stats_random_seed(&rng, w->seed);
    for (size_t f = 0; f < w->count; f++) {
        if (w->exact)
            next_combination(w);
        else
            draw_permutation(w, &rng);
        w->extreme[f] = fabs(pool_statistic(w));
    }
}

int quantile_compare_unpaired(const double *baseline, size_t nb, const double *candidate,
                              size_t nc, const quantile_options *options,
                              quantile_comparison *out, verdict_error *err)
{
    pool_space w;
    if (check_input(baseline, nb, candidate, nc, options, err) != 0 ||
        pool_init(&w, baseline, nb, candidate, nc, options, err) != 0)
        return -1;
    memset(out, 0, sizeof *out);
    pool_shift(&w, 0.0);
    pool_sides(&w, &out->baseline_quantile, &out->candidate_quantile);
    double estimate = log(out->candidate_quantile) - log(out->baseline_quantile);
    null_law law = {pool_distribution, &w, w.count, w.extreme};
    test_and_invert(&law, estimate, w.exact, nb == nc, options, out);
    pool_free(&w);
    return 0;
}

size_t quantile_compare_min_n(double confidence, bool paired)
{
    double alpha = 1.0 - confidence;
    for (size_t n = 2; n < 64; n++) {
        /* the smallest p-value of n blocks (2 / 2^n) or n runs a side (2 / C(2n, n)) */
        double ways = paired ? ldexp(1.0, (int)n) : (double)combinations_up_to(2 * n, n, 1u << 30);
        if (2.0 / ways <= alpha || ways > QUANTILE_DEFAULT_FLIPS + 1)
            return n;
    }
    return 64;
}

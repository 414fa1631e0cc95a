/* Change points of a per-commit series: circular binary segmentation with a permutation test
 * of whole commits at each cut (docs/history.md says why commits and not samples). */
#include "change_points.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "descriptive.h"
#include "distributions.h"
#include "random.h"

/* What one segmentation carries through its recursion. */
typedef struct {
    const double *levels;
    size_t n;
    const change_point_options *options;
    double *scratch; /* n values for the permuted copies */
    double *prefix;  /* n + 1 prefix sums */
    change_point *out;
    size_t found;
} segmentation;

change_point_options change_points_default_options(void)
{
    return (change_point_options){.alpha = 0.01, .confidence = 0.95, .permutations = 999,
                                  .min_segment = 2, .seed = 1};
}

stats_status change_points_levels(const double *const *samples, const size_t *counts, size_t n,
                                  double *levels)
{
    for (size_t i = 0; i < n; i++) {
        if (counts[i] == 0)
            return STATS_ERR_TOO_FEW;
        for (size_t j = 0; j < counts[i]; j++)
            if (!(samples[i][j] > 0.0) || !isfinite(samples[i][j]))
                return STATS_ERR_DOMAIN;
        double median = 0.0;
        stats_status status = stats_median(samples[i], counts[i], &median);
        if (status != STATS_OK)
            return status;
        levels[i] = log(median);
    }
    return STATS_OK;
}

/* Where the best arc of a segment lies: [begin, end) against the rest of the segment. */
typedef struct {
    size_t begin;
    size_t end;
} arc;

/* Whether arc [i, j) of a segment of n leaves every piece at least min_segment long. */
static int arc_allowed(size_t i, size_t j, size_t n, size_t min_segment)
{
    size_t inside = j - i;
    return inside >= min_segment && n - inside >= min_segment &&
           (i == 0 || i >= min_segment) && (j == n || n - j >= min_segment);
}

/* The largest between-pieces sum of squares of an arc [i, j) of the centred y[0..n) against
 * the rest, n/(len (n - len)) * S^2 with S the arc's sum (circular binary segmentation,
 * Olshen et al. 2004: an arc at one end is one change, an arc inside is a change there and
 * back, which one split alone finds poorly). With the segment's total sum of squares fixed,
 * as it is under permutation, this is the largest pooled two-sample t. prefix has n + 1. */
static double best_arc(const double *y, size_t n, size_t min_segment, double *prefix, arc *at)
{
    prefix[0] = 0.0;
    for (size_t i = 0; i < n; i++)
        prefix[i + 1] = prefix[i] + y[i];
    double best = -1.0;
    for (size_t i = 0; i < n; i++) {
        for (size_t j = i + 1; j <= n; j++) {
            if (!arc_allowed(i, j, n, min_segment))
                continue;
            double sum = prefix[j] - prefix[i];
            double len = (double)(j - i);
            double between = (double)n / (len * ((double)n - len)) * sum * sum;
            if (between > best) {
                best = between;
                *at = (arc){i, j};
            }
        }
    }
    return best;
}

/* Levels of [start, end) less their mean, so that permuted sums round alike. */
static double centre(const double *levels, size_t start, size_t end, double *y)
{
    size_t n = end - start;
    double mean = stats_mean(levels + start, n);
    double total_squares = 0.0;
    for (size_t i = 0; i < n; i++) {
        y[i] = levels[start + i] - mean;
        total_squares += y[i] * y[i];
    }
    return total_squares;
}

static void shuffle(double *y, size_t n, stats_random *random)
{
    for (size_t i = n - 1; i > 0; i--) {
        size_t j = (size_t)stats_random_below(random, (uint64_t)i + 1);
        double t = y[i];
        y[i] = y[j];
        y[j] = t;
    }
}

/* Permutation p-value of the best arc of the centred y[0..n): under no change the commits
 * are exchangeable, so every order of them is as likely as the one observed. A permuted
 * statistic equal to the observed one up to rounding counts as at least as large. */
static double permutation_p(segmentation *s, double *y, size_t n, double observed,
                            double total_squares, uint64_t stream)
{
    stats_random random;
    stats_random_seed(&random, s->options->seed ^ stream);
    double tolerance = 1e-10 * total_squares;
    size_t as_large = 0;
    arc unused = {0, 0};
    for (size_t r = 0; r < s->options->permutations; r++) {
        shuffle(y, n, &random);
        if (best_arc(y, n, s->options->min_segment, s->prefix, &unused) >= observed - tolerance)
            as_large++;
    }
    return (double)(as_large + 1) / (double)(s->options->permutations + 1);
}

static void keep(segmentation *s, size_t index, double p_value)
{
    assert(s->found < s->n);
    size_t at = s->found++;
    /* Insertion keeps the change points in index order as the recursion finds them. */
    while (at > 0 && s->out[at - 1].index > index) {
        s->out[at] = s->out[at - 1];
        at--;
    }
    s->out[at] = (change_point){.index = index, .p_value = p_value};
}

/* Tests the best arc of [start, end) and, if kept, segments every piece. */
static void segment(segmentation *s, size_t start, size_t end)
{
    size_t n = end - start;
    if (n < 2 * s->options->min_segment)
        return;
    double *y = s->scratch;
    double total_squares = centre(s->levels, start, end, y);
    if (!(total_squares > 0.0))
        return; /* identical levels: nothing to split */
    arc at = {0, 0};
    double observed = best_arc(y, n, s->options->min_segment, s->prefix, &at);
    uint64_t stream = (uint64_t)start * 0x9E3779B97F4A7C15u + (uint64_t)end;
    double p_value = permutation_p(s, y, n, observed, total_squares, stream);
    if (p_value > s->options->alpha)
        return;
    size_t begin = start + at.begin;
    size_t finish = start + at.end;
    if (begin > start)
        keep(s, begin, p_value);
    if (finish < end)
        keep(s, finish, p_value);
    segment(s, start, begin);
    segment(s, begin, finish);
    segment(s, finish, end);
}

/* Sum of squares of levels[start, end) about their mean. */
static double squares(const double *levels, size_t start, size_t end, double mean)
{
    double sum = 0.0;
    for (size_t i = start; i < end; i++)
        sum += (levels[i] - mean) * (levels[i] - mean);
    return sum;
}

/* The change's size: the difference of mean levels of the segments on either side, with a
 * pooled two-sample t interval over their commits (the spread between commits, not between
 * samples, is what a change must stand out from). */
static void size_change(const double *levels, size_t start, size_t index, size_t end,
                        double confidence, change_point *cp)
{
    size_t nl = index - start;
    size_t nr = end - index;
    assert(nl >= 1 && nr >= 1);
    double ml = stats_mean(levels + start, nl);
    double mr = stats_mean(levels + index, nr);
    double gap = mr - ml;
    cp->ratio = exp(gap);
    cp->low = 0.0;
    cp->high = INFINITY;
    size_t df = nl + nr - 2;
    if (df == 0)
        return;
    double pooled = (squares(levels, start, index, ml) + squares(levels, index, end, mr)) /
                    (double)df;
    double se = sqrt(pooled * (1.0 / (double)nl + 1.0 / (double)nr));
    double t = dist_qt(1.0 - (1.0 - confidence) / 2.0, (double)df);
    cp->low = exp(gap - t * se);
    cp->high = exp(gap + t * se);
}

static int valid_options(const change_point_options *o)
{
    return o->alpha > 0.0 && o->alpha < 1.0 && o->confidence > 0.0 && o->confidence < 1.0 &&
           o->permutations >= 1 && o->min_segment >= 1;
}

stats_status change_points_find(const double *const *samples, const size_t *counts, size_t n,
                                const change_point_options *options, change_point *out,
                                size_t *found)
{
    if (samples == NULL || counts == NULL || options == NULL || out == NULL || found == NULL ||
        !valid_options(options))
        return STATS_ERR_DOMAIN;
    *found = 0;
    if (n == 0)
        return STATS_ERR_TOO_FEW;
    stats_status status = STATS_ERR_NOMEM;
    /* The levels, then the permuted copy (n) and its prefix sums (n + 1): one allocation. */
    double *levels = malloc((3 * n + 1) * sizeof *levels);
    if (levels == NULL)
        goto done;
    status = change_points_levels(samples, counts, n, levels);
    if (status != STATS_OK)
        goto done;
    segmentation s = {.levels = levels, .n = n, .options = options, .scratch = levels + n,
                      .prefix = levels + 2 * n, .out = out};
    segment(&s, 0, n);
    for (size_t i = 0; i < s.found; i++)
        size_change(levels, i == 0 ? 0 : out[i - 1].index, out[i].index,
                    i + 1 == s.found ? n : out[i + 1].index, options->confidence, &out[i]);
    *found = s.found;
done:
    free(levels);
    return status;
}

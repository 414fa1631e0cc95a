/* Applies the verdict rules (docs/statistics.md) to a ratio interval, and estimates how
 * many more runs per side would likely decide an inconclusive comparison. */
#include "verdict_rules.h"

#include <math.h>

#include "distributions.h"

/* Growth of the estimate beyond the square-root law: the spread is itself estimated
 * from few samples, so ask for a little more than the bare projection. */
#define NEEDED_SAFETY 1.2
#define NEEDED_CAP 1000000L

const char *verdict_kind_name(verdict_kind kind)
{
    switch (kind) {
    case VERDICT_BETTER: return "better";
    case VERDICT_WORSE: return "worse";
    case VERDICT_EQUIVALENT: return "equivalent";
    case VERDICT_INCONCLUSIVE: return "inconclusive";
    }
    return "inconclusive";
}

static bool rank_level_reachable(double confidence, bool paired, int n)
{
    double alpha = 1.0 - confidence, achieved_alpha;
    int qu;
    if (paired) {
        if (dist_qsignrank(alpha / 2, n, &qu) != STATS_OK)
            return false;
        if (qu == 0)
            qu = 1;
        if (dist_psignrank(qu - 1, n, &achieved_alpha) != STATS_OK)
            return false;
    } else {
        if (dist_qwilcox(alpha / 2, n, n, &qu) != STATS_OK)
            return false;
        if (qu == 0)
            qu = 1;
        if (dist_pwilcox(qu - 1, n, n, &achieved_alpha) != STATS_OK)
            return false;
    }
    achieved_alpha *= 2;
    return achieved_alpha - alpha <= alpha / 2;
}

size_t rank_test_min_n(double confidence, bool paired)
{
    /* The exact distributions are only used below 50; beyond that every level is
     * reachable through the normal approximation. */
    for (int n = 1; n < 50; n++)
        if (rank_level_reachable(confidence, paired, n))
            return (size_t)n;
    return 50;
}

static double two_sided_z(double confidence)
{
    return dist_qnorm(1.0 - (1.0 - confidence) / 2.0);
}

/* Runs per side likely needed in total: the half-width shrinks like 1/sqrt(n). */
static long projected_total_n(const verdict_input *in, double half_width, double target)
{
    size_t n = in->n_baseline < in->n_candidate ? in->n_baseline : in->n_candidate;
    if (!(target > 0.0) || !isfinite(half_width))
        return -1;
    double factor = half_width / target;
    double total = ceil((double)n * factor * factor * NEEDED_SAFETY);
    if (total > (double)NEEDED_CAP)
        return NEEDED_CAP;
    return (long)total;
}

/* The fewest runs per side that can ever decide: min_n usable runs, and with paired zeros
 * set aside at the share observed so far, proportionally more runs. */
static long smallest_workable_n(const verdict_input *in)
{
    double share = in->usable_share > 0.0 && in->usable_share <= 1.0 ? in->usable_share : 1.0;
    double n = ceil((double)in->min_n / share);
    return n > (double)NEEDED_CAP ? NEEDED_CAP : (long)n;
}

static long needed_more_blocks(const verdict_input *in)
{
    size_t n = in->n_baseline < in->n_candidate ? in->n_baseline : in->n_candidate;
    double half_width = (in->high - in->low) / 2.0;
    double estimate = fabs(in->estimate);
    double band = log1p(in->margin);

    /* An interval at a lower level than requested is too narrow: widen it first. */
    if (in->achieved_confidence < in->confidence && in->achieved_confidence > 0.0)
        half_width *= two_sided_z(in->confidence) / two_sided_z(in->achieved_confidence);

    /* Decided either way: excluding 1 needs half-width < |e|; equivalence needs
     * |e| + half-width < band. The easier of the two is the likely outcome. */
    double target = fmax(estimate, band - estimate);
    long total = projected_total_n(in, half_width, target);
    /* Below this size no amount of agreement between the samples can decide, whichever
     * branch (exact or approximate) the test takes: ties only make it coarser. */
    long floor = smallest_workable_n(in);
    if (total >= 0 && total < floor)
        total = floor;
    if (total < 0)
        return -1;
    long more = total - (long)n;
    return more < 1 ? 1 : more;
}

static bool reachable(const verdict_input *in)
{
    return !(in->achieved_confidence < in->confidence - 1e-12);
}

/* Every shift in the set is above 0 (below 0): the end at 0 counts only if it is open. */
static bool entirely_above_zero(const verdict_input *in)
{
    return in->low > 0.0 || (in->low == 0.0 && in->low_open);
}

static bool entirely_below_zero(const verdict_input *in)
{
    return in->high < 0.0 || (in->high == 0.0 && in->high_open);
}

verdict_decision verdict_decide(const verdict_input *in)
{
    verdict_decision d = {VERDICT_INCONCLUSIVE, false, UNDECIDED_WIDE_INTERVAL, -1};
    double band = log1p(in->margin);
    bool inside_band = in->low >= -band && in->high <= band;

    if (!reachable(in)) {
        d.reason = UNDECIDED_CONFIDENCE;
        d.needed_blocks = needed_more_blocks(in);
        return d;
    }
    if (entirely_above_zero(in) || entirely_below_zero(in)) {
        bool increased = entirely_above_zero(in);
        d.kind = increased == in->higher_is_better ? VERDICT_BETTER : VERDICT_WORSE;
        d.negligible = inside_band;
        d.reason = UNDECIDED_NONE;
        return d;
    }
    if (inside_band) {
        d.kind = VERDICT_EQUIVALENT;
        d.reason = UNDECIDED_NONE;
        return d;
    }
    if (in->resolution_limited) {
        d.reason = UNDECIDED_RESOLUTION;
        return d;
    }
    d.needed_blocks = needed_more_blocks(in);
    return d;
}

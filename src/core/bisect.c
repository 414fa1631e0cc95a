/* The rules of a statistical bisection: a midpoint classified from its two comparisons,
 * the next commit around skipped ones, and the steps alpha is split among. */
#include "core/bisect.h"

#include <assert.h>

verdict_kind bisect_flip(verdict_kind k)
{
    if (k == VERDICT_BETTER)
        return VERDICT_WORSE;
    if (k == VERDICT_WORSE)
        return VERDICT_BETTER;
    return k;
}

/* Which way "away from the bad end" is. */
static verdict_kind opposite(verdict_kind bad_kind)
{
    return bad_kind == VERDICT_WORSE ? VERDICT_BETTER : VERDICT_WORSE;
}

bisect_class bisect_classify(verdict_kind mid_vs_good, verdict_kind mid_vs_bad,
                             verdict_kind bad_kind)
{
    assert(bad_kind == VERDICT_WORSE || bad_kind == VERDICT_BETTER);
    verdict_kind toward = bad_kind, away = opposite(bad_kind);
    bool same_good = mid_vs_good == VERDICT_EQUIVALENT, same_bad = mid_vs_bad == VERDICT_EQUIVALENT;
    /* one end the same and the other not: the midpoint is that end's (both the same: the
     * ends are within the margin of each other here, nothing to tell them apart) */
    if (same_good && !same_bad)
        return BISECT_LIKE_GOOD;
    if (same_bad && !same_good)
        return BISECT_LIKE_BAD;
    if (same_good)
        return BISECT_UNKNOWN;
    /* one end apart and the other undecided: the midpoint is on the other end's side */
    if (mid_vs_bad == VERDICT_INCONCLUSIVE)
        return mid_vs_good == toward ? BISECT_LIKE_BAD : BISECT_UNKNOWN;
    if (mid_vs_good == VERDICT_INCONCLUSIVE)
        return mid_vs_bad == away ? BISECT_LIKE_GOOD : BISECT_UNKNOWN;
    /* apart from both ends: where it lies says which way the history went */
    if (mid_vs_good == toward)
        return mid_vs_bad == away ? BISECT_BETWEEN : BISECT_BEYOND_BAD;
    /* away from good: beyond it when also away from bad; toward bad as well contradicts */
    return mid_vs_bad == away ? BISECT_BEYOND_GOOD : BISECT_UNKNOWN;
}

bool bisect_class_is_bad(bisect_class c)
{
    return c == BISECT_LIKE_BAD || c == BISECT_BETWEEN || c == BISECT_BEYOND_BAD;
}

const char *bisect_class_name(bisect_class c)
{
    static const char *const names[] = {"like-good", "like-bad", "between", "beyond-bad",
                                        "beyond-good", "unknown"};
    assert((size_t)c < sizeof names / sizeof names[0]);
    return names[c];
}

size_t bisect_planned_steps(size_t n_commits)
{
    assert(n_commits > 0);
    size_t midpoints = 0;
    while (((size_t)1 << midpoints) < n_commits)
        midpoints++;
    return midpoints + 1;
}

long bisect_next(size_t lo, size_t hi, const bool *skipped)
{
    assert(lo + 1 < hi);
    size_t mid = lo + (hi - lo) / 2;
    for (size_t d = 0; d < hi - lo; d++) {
        if (mid + d < hi && !skipped[mid + d])
            return (long)(mid + d);
        if (d > 0 && d < mid - lo && !skipped[mid - d])
            return (long)(mid - d);
    }
    return -1;
}

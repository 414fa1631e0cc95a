/* Multiple-comparison adjustments of p-values, as R's p.adjust: Holm's step-down method
 * (controls the family-wise error) and Benjamini–Hochberg's step-up method (controls FDR). */
#include "multiplicity.h"

#include <math.h>
#include <stdlib.h>

typedef struct {
    double p;
    size_t index; /* position in the caller's array, so the output keeps its order */
} indexed_p;

/* Ascending p; ties keep input order (a stable order, as R's order() gives). */
static int compare_ascending(const void *a, const void *b)
{
    const indexed_p *x = a, *y = b;
    if (x->p != y->p)
        return x->p < y->p ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

static stats_status validate(const double *p, size_t n, const double *adjusted)
{
    if (n > 0 && (p == NULL || adjusted == NULL))
        return STATS_ERR_DOMAIN;
    for (size_t i = 0; i < n; i++)
        if (!(p[i] >= 0.0 && p[i] <= 1.0))
            return STATS_ERR_DOMAIN;
    return STATS_OK;
}

/* Validated copy of p with original positions, sorted ascending; the caller frees it. */
static stats_status sorted_with_index(const double *p, size_t n, const double *adjusted,
                                      indexed_p **out)
{
    stats_status status = validate(p, n, adjusted);
    if (status != STATS_OK)
        return status;
    indexed_p *items = malloc((n + 1) * sizeof *items);
    if (items == NULL)
        return STATS_ERR_NOMEM;
    for (size_t i = 0; i < n; i++)
        items[i] = (indexed_p){.p = p[i], .index = i};
    qsort(items, n, sizeof *items, compare_ascending);
    *out = items;
    return STATS_OK;
}

stats_status p_adjust_holm(const double *p, size_t n, double *adjusted)
{
    indexed_p *items;
    stats_status status = sorted_with_index(p, n, adjusted, &items);
    if (status != STATS_OK)
        return status;
    /* The k-th smallest (0-based) is multiplied by the n - k hypotheses still in play;
     * the running maximum keeps the adjusted values in the order of the raw ones. */
    double running_max = 0.0;
    for (size_t k = 0; k < n; k++) {
        running_max = fmax(running_max, (double)(n - k) * items[k].p);
        adjusted[items[k].index] = fmin(1.0, running_max);
    }
    free(items);
    return STATS_OK;
}

stats_status p_adjust_bh(const double *p, size_t n, double *adjusted)
{
    indexed_p *items;
    stats_status status = sorted_with_index(p, n, adjusted, &items);
    if (status != STATS_OK)
        return status;
    /* From the largest down: p_(k) * n / k, with a running minimum so that a smaller raw
     * p-value never gets a larger adjusted one. n / k first, then times p, as R does. */
    double running_min = INFINITY;
    for (size_t k = n; k > 0; k--) {
        double factor = (double)n / (double)k;
        running_min = fmin(running_min, factor * items[k - 1].p);
        adjusted[items[k - 1].index] = fmin(1.0, running_min);
    }
    free(items);
    return STATS_OK;
}

/* Planned looks at given or geometrically growing block counts, each at the boundary its
 * spending function allows, and the share of alpha kept for extensions. */
#include "core/stopping.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "stats/distributions.h"

stopping_rule stopping_rule_growth(size_t min_blocks, size_t max_blocks, spending_kind spending)
{
    return (stopping_rule){.min_blocks = min_blocks, .max_blocks = max_blocks,
                           .growth = STOPPING_GROWTH, .spending = spending};
}

/* The look `growth` times after `blocks` (at least one block on), at most `cap`. */
static size_t grown(const stopping_rule *rule, size_t blocks, size_t cap)
{
    size_t next = (size_t)ceil((double)blocks * rule->growth);
    if (next <= blocks)
        next = blocks + 1;
    return next > cap ? cap : next;
}

/* The look after one at `blocks` (0: the first); 0 when none follows. Planned looks are the
 * file's or the growth series up to max_blocks; each extension continues the growth from the
 * look before it up to its own end. */
static size_t look_after(const stopping_rule *rule, size_t blocks)
{
    if (blocks < rule->max_blocks) {
        if (rule->looks == NULL)
            return blocks < rule->min_blocks ? rule->min_blocks
                                             : grown(rule, blocks, rule->max_blocks);
        for (size_t k = 0; k < rule->n_looks; k++)
            if (rule->looks[k] > blocks)
                return rule->looks[k];
        return 0;
    }
    for (size_t j = 0; j < rule->n_extensions; j++)
        if (rule->extensions[j] > blocks)
            return grown(rule, blocks, rule->extensions[j]);
    return 0;
}

size_t stopping_looks(const stopping_rule *rule)
{
    size_t looks = 0;
    for (size_t b = look_after(rule, 0); b > 0; b = look_after(rule, b))
        looks++;
    return looks;
}

size_t stopping_planned_looks(const stopping_rule *rule)
{
    stopping_rule planned = *rule;
    planned.n_extensions = 0;
    return stopping_looks(&planned);
}

size_t stopping_look_blocks(const stopping_rule *rule, size_t look)
{
    size_t b = look_after(rule, 0);
    for (size_t k = 0; k < look; k++) {
        size_t next = look_after(rule, b);
        assert(next > 0); /* look < stopping_looks(rule) */
        b = next;
    }
    return b;
}

bool stopping_is_look(const stopping_rule *rule, size_t blocks)
{
    size_t b = look_after(rule, 0);
    while (b > 0 && b < blocks)
        b = look_after(rule, b);
    return b == blocks;
}

/* The boundaries of looks at `blocks` (n of them) of a plan whose last planned look is at
 * rule->max_blocks; looks beyond it spend the reserve. */
static int boundaries_at(const stopping_rule *rule, double alpha, const size_t *blocks,
                         size_t n, spending_look *out, verdict_error *err)
{
    double fractions[STOPPING_MAX_LOOKS + 1];
    assert(n <= STOPPING_MAX_LOOKS + 1 && rule->max_blocks > 0);
    for (size_t k = 0; k < n; k++)
        fractions[k] = (double)blocks[k] / (double)rule->max_blocks;
    spending_plan plan = {rule->spending, alpha, rule->reserve};
    return spending_boundaries(&plan, fractions, n, out, err);
}

int stopping_boundaries(const stopping_rule *rule, double alpha, spending_look *out,
                        verdict_error *err)
{
    size_t n = stopping_looks(rule), blocks[STOPPING_MAX_LOOKS + 1];
    if (n > STOPPING_MAX_LOOKS)
        return error_set(err, ERROR_USAGE, "%zu looks planned: at most %d", n,
                         STOPPING_MAX_LOOKS);
    for (size_t k = 0; k < n; k++)
        blocks[k] = stopping_look_blocks(rule, k);
    return boundaries_at(rule, alpha, blocks, n, out, err);
}

int stopping_look_at(const stopping_rule *rule, double alpha, size_t blocks,
                     spending_look *out, verdict_error *err)
{
    size_t n = stopping_looks(rule), taken[STOPPING_MAX_LOOKS + 1], k = 0;
    spending_look looks[STOPPING_MAX_LOOKS + 1];
    if (n > STOPPING_MAX_LOOKS)
        return error_set(err, ERROR_USAGE, "%zu looks planned: at most %d", n,
                         STOPPING_MAX_LOOKS);
    while (k < n && stopping_look_blocks(rule, k) < blocks) {
        taken[k] = stopping_look_blocks(rule, k);
        k++;
    }
    taken[k++] = blocks > 0 ? blocks : 1;
    if (boundaries_at(rule, alpha, taken, k, looks, err) != 0)
        return -1;
    *out = looks[k - 1];
    return 0;
}

int stopping_check_looks(const size_t *looks, size_t n, verdict_error *err)
{
    if (n == 0 || n > STOPPING_MAX_LOOKS)
        return error_set(err, ERROR_USAGE, "looks: give 1 to %d block counts, not %zu",
                         STOPPING_MAX_LOOKS, n);
    for (size_t k = 0; k < n; k++)
        if (looks[k] == 0 || (k > 0 && looks[k] <= looks[k - 1]))
            return error_set(err, ERROR_USAGE, "looks: block counts must be positive and "
                             "increasing; %zu follows %zu", looks[k], k ? looks[k - 1] : 0);
    return 0;
}

int stopping_parse_looks(const char *text, size_t **out, size_t *n, verdict_error *err)
{
    size_t *looks = calloc(STOPPING_MAX_LOOKS + 1, sizeof *looks), count = 0;
    if (looks == NULL)
        return error_no_memory(err);
    int rc = -1;
    for (const char *p = text; count <= STOPPING_MAX_LOOKS; p++) {
        char *end;
        errno = 0;
        unsigned long long v = *p >= '0' && *p <= '9' ? strtoull(p, &end, 10) : 0;
        if (v == 0 || errno != 0 || (*end != ',' && *end != '\0')) {
            error_set(err, ERROR_USAGE, "--looks '%s': expected block counts such as "
                      "10,20,30", text);
            goto done;
        }
        looks[count++] = (size_t)v;
        if (*end == '\0')
            break;
        p = end;
    }
    if (stopping_check_looks(looks, count, err) != 0) {
        error_prefix(err, "--looks '%s'", text);
        goto done;
    }
    *out = looks;
    *n = count;
    looks = NULL;
    rc = 0;
done:
    free(looks);
    return rc;
}

double stopping_planned_alpha(double alpha, double reserve, size_t looks)
{
    return alpha * (1.0 - reserve) / (double)(looks > 1 ? looks : 1);
}

double stopping_extension_alpha(double alpha, double reserve, size_t planned, size_t from,
                                size_t to)
{
    if (planned == 0 || from < planned || to <= from || !(reserve > 0))
        return 0.0;
    /* beyond the planned information every spending function spends the reserve alike */
    spending_plan plan = {STOPPING_DEFAULT_SPENDING, alpha, reserve};
    return spending_extension_alpha(&plan, (double)from / (double)planned,
                                    (double)to / (double)planned);
}

static double two_sided_z(double alpha)
{
    return dist_qnorm(1.0 - alpha / 2.0);
}

size_t stopping_blocks_to_decide(double alpha, double reserve, size_t planned, size_t blocks,
                                 size_t comparisons, double confidence_now, double half_width,
                                 double target)
{
    if (!(half_width > 0) || !(target > 0) || blocks == 0 || comparisons == 0)
        return 0;
    double z_now = two_sided_z(1.0 - confidence_now);
    for (size_t more = 1; more <= 100 * blocks; more++) {
        double a = stopping_extension_alpha(alpha, reserve, planned, blocks, blocks + more) /
                   (double)comparisons;
        double shrunk = half_width * two_sided_z(a) / z_now *
                        sqrt((double)blocks / (double)(blocks + more));
        if (shrunk < target)
            return more;
    }
    return 0;
}

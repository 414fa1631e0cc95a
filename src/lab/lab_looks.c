/* The looks of an experiment: planned ones spend alpha by the plan's spending function,
 * each extension a part of the reserve (core/stopping.h), so no sequence of them spends more. */
#include "lab/lab_looks.h"

#include <assert.h>
#include <limits.h>

#include "common/error.h"
#include "core/stopping.h"

static size_t planned_looks(const experiment *e)
{
    if (!e->adaptive)
        return 1;
    stopping_rule rule = experiment_stopping_rule(e);
    return stopping_planned_looks(&rule);
}

static int take_extension(void *context, long blocks)
{
    lab_looks *l = context;
    l->extensions++;
    l->from_blocks = l->blocks;
    l->blocks = (size_t)blocks;
    if (l->n_ends < STOPPING_MAX_LOOKS)
        l->ends[l->n_ends++] = l->blocks;
    return 0;
}

/* The adaptive rule with the extensions of `looks` (not those e may hold). */
static stopping_rule rule_of(const lab_looks *looks, const experiment *e)
{
    stopping_rule rule = experiment_stopping_rule(e);
    rule.extensions = looks->ends;
    rule.n_extensions = looks->n_ends;
    return rule;
}

int lab_looks_load(store *db, int64_t experiment_id, const experiment *e, lab_looks *out,
                   verdict_error *err)
{
    size_t planned = e->adaptive ? e->max_blocks : e->repetitions;
    *out = (lab_looks){.planned_looks = planned_looks(e), .planned_blocks = planned,
                       .from_blocks = planned, .blocks = planned};
    if (store_for_each_extension(db, experiment_id, take_extension, out, err) != 0)
        return -1;
    return 0;
}

void lab_looks_apply(const lab_looks *looks, experiment *e)
{
    assert(looks->blocks >= looks->planned_blocks && looks->n_ends <= STOPPING_MAX_LOOKS);
    e->more_blocks = looks->blocks - looks->planned_blocks;
    e->n_extended = e->adaptive ? looks->n_ends : 0;
    for (size_t j = 0; j < e->n_extended; j++)
        e->extended_to[j] = looks->ends[j];
}

/* An adaptive plan's looks with one more extension, to `blocks`: at most STOPPING_MAX_LOOKS. */
static int check_looks_room(const lab_looks *looks, const experiment *e, size_t blocks,
                            verdict_error *err)
{
    lab_looks next = *looks;
    if (!e->adaptive)
        return 0;
    if (next.n_ends < STOPPING_MAX_LOOKS) {
        next.ends[next.n_ends++] = blocks;
        stopping_rule rule = rule_of(&next, e);
        if (stopping_looks(&rule) <= STOPPING_MAX_LOOKS)
            return 0;
    }
    return error_set(err, ERROR_USAGE, "%s: --more to %zu blocks per point would take the "
                     "adaptive plan past %d looks; run it again in a new store with a larger "
                     "max_blocks", e->path, blocks, STOPPING_MAX_LOOKS);
}

int lab_looks_extend(store *db, int64_t experiment_id, experiment *e, size_t more,
                     lab_looks *looks, verdict_error *err)
{
    if (!(e->reserve_for_more > 0))
        return error_set(err, ERROR_USAGE, "%s: the experiment kept no alpha for extensions "
                         "(reserve_for_more: 0%s), so its verdicts are final; run it again in "
                         "a new store with %s", e->path,
                         e->adaptive ? ", as an adaptive plan does unless told" : "",
                         e->adaptive ? "a larger max_blocks, or 'reserve_for_more: 0.2' to "
                                       "keep a share of alpha for --more"
                                     : "more repetitions");
    if (more == 0 || more > (size_t)LONG_MAX - looks->blocks)
        return error_set(err, ERROR_USAGE, "--more %zu: give a number of blocks per point "
                         "above 0", more);
    if (check_looks_room(looks, e, looks->blocks + more, err) != 0)
        return -1;
    long blocks = (long)(looks->blocks + more);
    /* blocks grows the stored count by construction: a refusal is the store's own failure
     * (its file, its server), or another process's extension meanwhile */
    if (store_add_extension(db, experiment_id, blocks, err) != 0)
        return -1;
    take_extension(looks, blocks);
    lab_looks_apply(looks, e);
    return 0;
}

double lab_looks_confidence(const lab_looks *looks, const experiment *e, double confidence,
                            size_t blocks)
{
    double alpha = 1.0 - confidence;
    if (e->adaptive) {
        stopping_rule rule = rule_of(looks, e);
        spending_look look;
        verdict_error err = {0};
        /* the loader checked the looks: only a plan of more than STOPPING_MAX_LOOKS fails,
         * and it is refused before it runs (an extension past it, by lab_looks_extend) */
        if (stopping_look_at(&rule, alpha, blocks ? blocks : looks->blocks, &look, &err) != 0)
            return 1.0 - stopping_planned_alpha(alpha, 0.0, looks->planned_looks);
        return spending_look_confidence(&look);
    }
    if (looks->extensions == 0)
        return 1.0 - stopping_planned_alpha(alpha, e->reserve_for_more, 1);
    return 1.0 - stopping_extension_alpha(alpha, e->reserve_for_more, looks->planned_blocks,
                                          looks->from_blocks, looks->blocks);
}

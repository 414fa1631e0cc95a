/* The looks of an experiment: planned ones spend alpha by the plan's spending function,
 * each extension a part of the reserve (core/stopping.h), so no sequence of them spends more. */
#include "lab/lab_looks.h"

#include <limits.h>

#include "common/error.h"
#include "core/stopping.h"

static size_t planned_looks(const experiment *e)
{
    if (!e->adaptive)
        return 1;
    stopping_rule rule = experiment_stopping_rule(e);
    return stopping_looks(&rule);
}

static int take_extension(void *context, long blocks)
{
    lab_looks *l = context;
    l->extensions++;
    l->from_blocks = l->blocks;
    l->blocks = (size_t)blocks;
    return 0;
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

int lab_looks_extend(store *db, int64_t experiment_id, experiment *e, size_t more,
                     lab_looks *looks, verdict_error *err)
{
    if (e->adaptive)
        return error_set(err, ERROR_USAGE, "%s: --more extends experiments with a fixed "
                         "'repetitions'; this one is adaptive and stops each point on its own "
                         "(docs/statistics.md, \"Running more\")", e->path);
    if (!(e->reserve_for_more > 0))
        return error_set(err, ERROR_USAGE, "%s: the experiment kept no alpha for extensions "
                         "(reserve_for_more: 0), so its verdicts are final; run it again in a "
                         "new store with more repetitions", e->path);
    if (more == 0 || more > (size_t)LONG_MAX - looks->blocks)
        return error_set(err, ERROR_USAGE, "--more %zu: give a number of blocks per point "
                         "above 0", more);
    long blocks = (long)(looks->blocks + more);
    /* blocks grows the stored count by construction: a refusal is the store's own failure
     * (its file, its server), or another process's extension meanwhile */
    if (store_add_extension(db, experiment_id, blocks, err) != 0)
        return -1;
    take_extension(looks, blocks);
    e->more_blocks = looks->blocks - looks->planned_blocks;
    return 0;
}

double lab_looks_confidence(const lab_looks *looks, const experiment *e, double confidence,
                            size_t blocks)
{
    double alpha = 1.0 - confidence;
    if (e->adaptive) {
        stopping_rule rule = experiment_stopping_rule(e);
        spending_look look;
        verdict_error err = {0};
        /* the loader checked the looks: only a plan of more than STOPPING_MAX_LOOKS fails,
         * and it is refused before it runs */
        if (stopping_look_at(&rule, alpha, blocks ? blocks : e->max_blocks, &look, &err) != 0)
            return 1.0 - stopping_planned_alpha(alpha, 0.0, looks->planned_looks);
        return spending_look_confidence(&look);
    }
    if (looks->extensions == 0)
        return 1.0 - stopping_planned_alpha(alpha, e->reserve_for_more, 1);
    return 1.0 - stopping_extension_alpha(alpha, e->reserve_for_more, looks->planned_blocks,
                                          looks->from_blocks, looks->blocks);
}

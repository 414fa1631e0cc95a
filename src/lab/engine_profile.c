/* The engine's profiled runs (docs/profiles.md): after a block's timed runs, each unit once
 * more under perf, its samples per symbol and per stack kept in the store at once and
 * never as a timed sample; on resume, the profiles the store holds are not made again. */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "core/profile.h"
#include "lab/engine_internal.h"
#include "lab/lab_helpers.h"

typedef struct {
    engine *g;
    verdict_error *err;
} load_context;

/* One stored profile: held when it is this machine's and of this plan. */
static int hold_profile(void *context, const store_profile *p)
{
    load_context *l = context;
    engine *g = l->g;
    long point = point_index_find(&g->points, p->point);
    long variant = experiment_variant_index(g->e, p->variant);
    if (strcmp(p->machine ? p->machine : "", engine_machine(g->c)) != 0 || point < 0 ||
        variant < 0 || p->layout < 0 ||
        (size_t)p->layout >= experiment_variant_layouts(&g->e->variants[variant]))
        return 0;
    if (array_reserve((void **)&g->profiled, &g->profiled_capacity, g->n_profiled + 1,
                      sizeof *g->profiled) != 0)
        return error_no_memory(l->err);
    g->profiled[g->n_profiled++] = (held_sample){
        .point = (size_t)point,
        .unit = experiment_unit_index(g->e, (size_t)variant, (size_t)p->layout),
        .block = p->block};
    return 0;
}

int engine_profile_load(engine *g, verdict_error *err)
{
    load_context l = {g, err};
    if (store_for_each_profile(g->c->db, g->c->experiment_id, hold_profile, &l, err) != 0)
        return -1;
    if (g->n_profiled > 1)
        qsort(g->profiled, g->n_profiled, sizeof *g->profiled, engine_compare_held);
    return 0;
}

static bool profiled_already(const engine *g, size_t point, size_t unit, long block)
{
    held_sample key = {.point = point, .unit = unit, .block = block};
    return g->n_profiled > 0 && bsearch(&key, g->profiled, g->n_profiled, sizeof key,
                                        engine_compare_held) != NULL;
}

/* The profile's text forms into the store, as one row of the run. */
static int keep_profile(engine *g, size_t unit, long block, const profile_data *data,
                        double wall, verdict_error *err)
{
    size_t layout, variant = experiment_unit_variant(g->e, unit, &layout);
    strbuf symbols = STRBUF_INIT, stacks = STRBUF_INIT;
    profile_symbols_text(data, &symbols);
    profile_stacks_text(data, &stacks);
    int rc = -1;
    if (strbuf_status(&symbols) != 0 || strbuf_status(&stacks) != 0) {
        error_no_memory(err);
        goto done;
    }
    store_profile row = {.point = g->points.ids[g->at.point],
                         .variant = g->e->variants[variant].name,
                         .machine = engine_machine(g->c), .layout = (long)layout,
                         .block = block, .event = experiment_profile_event(g->e),
                         .wall = wall, .samples = data->samples,
                         .symbols = strbuf_text(&symbols), .stacks = strbuf_text(&stacks)};
    rc = store_add_profile(g->c->db, g->out->run_id, &row, err);
done:
    strbuf_free(&symbols);
    strbuf_free(&stacks);
    return rc;
}

/* One profiled run: the experiment's prepare command first, as before a timed run. */
static int profile_unit(engine *g, size_t unit, long block, verdict_error *err)
{
    const experiment *e = g->e;
    if (engine_ready_point(g, err) != 0 ||
        lab_run_helper(e, &g->at.prepare, "prepare", e->directory, g->c->stop, err) != 0)
        return -1;
    size_t layout, variant = experiment_unit_variant(e, unit, &layout);
    target_unit u = {.point = g->at.point, .variant = variant, .layout = layout,
                     .block = block, .seq = -1};
    profile_data data;
    double wall = NAN;
    if (e->target->profile(g->t, &u, experiment_profile_event(e), g->c->stop, &data, &wall,
                           err) != 0)
        return error_prefix(err, "the profiled run of %s, block %ld", e->variants[variant].name,
                            block);
    int rc = keep_profile(g, unit, block, &data, wall, err);
    profile_data_free(&data);
    return rc;
}

int engine_profile_block(engine *g, const engine_task *task, const size_t *order,
                         verdict_error *err)
{
    assert(g->e->profile && g->e->target->profile && g->at.active &&
           g->at.point == task->point);
    for (size_t i = 0; i < g->n_units; i++) {
        if (*g->c->stop)
            return error_set(err, ERROR_INTERRUPTED, "interrupted");
        if (!profiled_already(g, task->point, order[i], task->block) &&
            profile_unit(g, order[i], task->block, err) != 0)
            return -1;
    }
    return 0;
}

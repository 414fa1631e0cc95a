/* The plan's own work source: points in the seed's order, each one's blocks in order until
 * the plan, an adaptive look or the time budget ends it; samples committed in batches. */
#include "lab/engine_internal.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>

#include "common/error.h"
#include "core/runner.h"

typedef struct {
    size_t position;             /* the current point's place in g->point_order */
    size_t blocks;               /* blocks of the current point retired (run or stored) */
    bool decided;                /* an adaptive look decided every comparison of it */
} plan_source;

/* ---- adaptive looks ---- */

/* Analyses the current point's first `blocks` blocks; true when every comparison is
 * decided. The series are lab_series_build's, those the report of these blocks analyses. */
static bool look_decides(engine *g, size_t blocks)
{
    point_run *p = &g->at;
    size_t n_series = g->n_metrics * g->n_units, used = 0;
    double *values = malloc((n_series * blocks + 1) * sizeof *values);
    analysis_series *series = malloc((n_series + 1) * sizeof *series);
    bool decided = values && series;
    for (size_t m = 0; decided && m < g->n_metrics; m++)
        used += lab_series_build(g->e, &g->table.values, m, blocks, g->points.ids[p->point],
                                 engine_machine(g->c), values + used * blocks, series + used)
                        .analysed
                    ? g->n_units : 0;
    analysis_options o = g->c->analysis;
    verdict_error err = {0};
    spending_look look;
    /* it fails only for more looks than STOPPING_MAX_LOOKS, a plan lab_run refused */
    decided = decided && stopping_look_at(&p->rule, 1.0 - o.confidence, blocks, &look, &err) == 0;
    if (decided) {
        o.confidence = g->out->look_confidence = spending_look_confidence(&look);
        g->out->look_alpha = look.nominal_alpha;
    }
    if (p->have_latest)
        analysis_result_free(&p->latest);
    p->have_latest = decided && used > 0 &&
                     analysis_run(series, used, &o, &p->latest, &err) == 0;
    decided = p->have_latest;
    for (size_t k = 0; decided && k < p->latest.n_comparisons; k++)
        decided = p->latest.comparisons[k].ok &&
                  p->latest.comparisons[k].result.decision.kind != VERDICT_INCONCLUSIVE;
    free(values);
    free(series);
    return decided;
}

/* ---- the source ---- */

static void report_progress(engine *g, size_t blocks_done)
{
    if (g->c->progress == NULL)
        return;
    const experiment *e = g->e;
    const point_run *p = &g->at;
    lab_progress pr = {.position = p->position, .n_points = g->points.n,
                       .point_id = g->points.ids[p->point], .blocks_done = blocks_done,
                       .blocks_planned = experiment_blocks(e),
                       .elapsed = runner_monotonic_seconds() - g->start, .eta = -1,
                       .latest = p->have_latest ? &p->latest : NULL};
    double point_elapsed = runner_monotonic_seconds() - p->start;
    if (blocks_done > 0) {
        double per_block = point_elapsed / (double)blocks_done;
        pr.eta = per_block * (double)(pr.blocks_planned - blocks_done);
        if (e->adaptive && e->max_seconds > 0 && pr.eta > e->max_seconds - point_elapsed)
            pr.eta = fmax(0.0, e->max_seconds - point_elapsed);
    }
    for (size_t b = blocks_done + 1; e->adaptive && b <= experiment_blocks(e); b++)
        if (stopping_is_look(&p->rule, b)) {
            pr.next_look = b;
            break;
        }
    g->c->progress(g->c->progress_context, &pr);
}

/* Whether the current point runs another block: the plan's count not reached, no look has
 * decided it, the time budget not spent. */
static bool budget_left(const engine *g, const plan_source *ps)
{
    const experiment *e = g->e;
    if (ps->decided || ps->blocks >= experiment_blocks(e))
        return false;
    return !(e->adaptive && e->max_seconds > 0 &&
             runner_monotonic_seconds() - g->at.start >= e->max_seconds);
}

static int plan_next(engine *g, void *source, engine_task *task, verdict_error *err)
{
    (void)err;
    plan_source *ps = source;
    bool at_point = g->at.active && ps->position < g->points.n &&
                    g->at.point == g->point_order[ps->position];
    if (at_point && !budget_left(g, ps)) {
        if (g->e->adaptive && !ps->decided) {
            g->out->budget_spent = true;
            engine_note_warning(g, "budget-spent", g->points.ids[g->at.point], "",
                                "not decided within the budget");
        }
        *ps = (plan_source){.position = ps->position + 1};
    }
    if (ps->position >= g->points.n)
        return 0;
    *task = (engine_task){.point = g->point_order[ps->position], .block = (long)ps->blocks};
    return 1;
}

static int plan_kept(engine *g, void *source, const engine_task *task, verdict_error *err)
{
    (void)g, (void)source, (void)task, (void)err;
    return 0;
}

/* store_add_samples: the batch in one transaction. */
static int add_samples(engine *g, void *context, const store_sample *rows, size_t n,
                       verdict_error *err)
{
    (void)context;
    return store_add_samples(g->c->db, g->out->run_id, rows, n, err);
}

/* A block run in full: committed with the batch once that is due, then the look. */
static int plan_retire(engine *g, void *source, const engine_task *task, int status,
                       verdict_error *err)
{
    (void)task;
    plan_source *ps = source;
    if (status != 0 ||
        (engine_batch_due(g) && engine_batch_commit(g, add_samples, NULL, err) != 0))
        return -1;
    ps->blocks++;
    g->out->complete_blocks++;
    if (g->e->adaptive && stopping_is_look(&g->at.rule, ps->blocks)) {
        g->out->looks_taken++;
        ps->decided = look_decides(g, ps->blocks);
    }
    report_progress(g, ps->blocks);
    return 0;
}

static int plan_flush(engine *g, void *source, verdict_error *err)
{
    (void)source;
    return engine_batch_commit(g, add_samples, NULL, err);
}

static int plan_start(engine *g, void *source, verdict_error *err)
{
    (void)source, (void)err;
    assert(experiment_blocks(g->e) > 0); /* the loader refuses a plan without blocks */
    return 0;
}

const engine_source_kind engine_plan_source = {
    .state_size = sizeof(plan_source), .start = plan_start, .next = plan_next,
    .kept = plan_kept, .retire = plan_retire, .flush = plan_flush};

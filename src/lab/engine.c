/* The engine's loop: builds, the target opened, facts recorded, then every point in shuffled
 * order, its blocks in shuffled unit order, each sample committed at once; resume skips what
 * the store holds, adaptive looks replay it, a stop request ends the run after the current one. */
#include "lab/engine.h"
#include "common/error.h"
#include "lab/engine_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "common/strbuf.h"
#include "core/runner.h"
#include "core/schedule.h"
#include "core/stopping.h"
#include "env/machine.h"
#include "lab/lab_builds.h"
#include "lab/lab_helpers.h"
#include "lab/lab_store.h"
#include "lab/point_index.h"
#include "version.h"

/* Blocks and sequence numbers are stored as 64-bit integers: no plan may outgrow them. */
#define LARGEST_PLAN ((uint64_t)INT64_MAX)

/* ---- what the store already holds ---- */

static int index_points(engine *g, verdict_error *err)
{
    return point_index_build(g->e, &g->points) == 0
               ? 0 : error_set(err, ERROR_INTERNAL, "out of memory");
}

typedef struct {
    engine *g;
    verdict_error *err;
} hold_context;

const char *engine_machine(const lab_config *c)
{
    return c->machine ? c->machine : "";
}

/* One stored sample: kept when it belongs to this plan (a point, a variant, a block) and was
 * taken by this machine; other machines' samples are theirs to resume. */
static int hold_sample(void *context, const store_sample *s)
{
    hold_context *h = context;
    engine *g = h->g;
    if (strcmp(s->machine ? s->machine : "", engine_machine(g->c)) != 0)
        return 0;
    if (s->seq >= g->seq)
        g->seq = s->seq + 1;
    long point = point_index_find(&g->points, s->point);
    long variant = experiment_variant_index(g->e, s->variant);
    if (point < 0 || variant < 0 || s->block < 0 || s->layout < 0 ||
        (size_t)s->layout >= experiment_variant_layouts(&g->e->variants[variant]))
        return 0;
    if (array_reserve((void **)&g->held, &g->held_capacity, g->n_held + 1, sizeof *g->held) != 0)
        return error_set(h->err, ERROR_INTERNAL, "out of memory");
    if (g->e->machines == MACHINES_SHARE)
        return 0; /* a shared plan's blocks are claimed, not resumed (only seq counts) */
    held_sample *k = &g->held[g->n_held];
    k->point = (size_t)point;
    k->unit = experiment_unit_index(g->e, (size_t)variant, (size_t)s->layout);
    k->block = s->block;
    if ((k->values = calloc(g->n_metrics + 1, sizeof *k->values)) == NULL)
        return error_set(h->err, ERROR_INTERNAL, "out of memory");
    g->n_held++;
    for (size_t m = 0; m < g->n_metrics; m++) {
        k->values[m] = NAN;
        for (size_t i = 0; i < s->n_metrics; i++)
            if (strcmp(s->metric_names[i], g->e->metrics[m].name) == 0)
                k->values[m] = s->metric_values[i];
    }
    return 0;
}

static int compare_held(const void *a, const void *b)
{
    const held_sample *x = a, *y = b;
    if (x->point != y->point)
        return x->point < y->point ? -1 : 1;
    if (x->unit != y->unit)
        return x->unit < y->unit ? -1 : 1;
    return (x->block > y->block) - (x->block < y->block);
}

static int load_held(engine *g, verdict_error *err)
{
    hold_context h = {g, err};
    int rc = store_for_each_sample(g->c->db, g->c->experiment_id, hold_sample, &h, err);
    if (rc != 0)
        return err->kind != ERROR_NONE ? -1 : error_no_memory(err);
    if (g->n_held > 1) /* qsort's pointer must be valid even for no items */
        qsort(g->held, g->n_held, sizeof *g->held, compare_held);
    g->out->samples_resumed = g->n_held;
    if (g->n_held > 0 && g->c->notes)
        fprintf(g->c->notes, "verdict: resuming %s (%zu samples stored)\n", g->e->name,
                g->n_held);
    return 0;
}

/* ---- the plan ---- */

static size_t planned_blocks(const experiment *e)
{
    return experiment_blocks(e);
}

/* Refuses a plan whose samples could not all be numbered in the store. */
static int check_plan_size(const engine *g, verdict_error *err)
{
    size_t per_point, total;
    if (size_multiply(g->n_units, planned_blocks(g->e), &per_point) != 0 ||
        size_multiply(per_point, g->points.n, &total) != 0 || (uint64_t)total > LARGEST_PLAN)
        return error_set(err, ERROR_USAGE, "%s: the plan has more samples than can be stored "
                         "(%zu points x %zu variants x %zu blocks): lower 'repetitions' or the "
                         "budget", g->e->path, g->points.n, g->n_units, planned_blocks(g->e));
    return 0;
}

/* Makes room for block in the point's table. */
static int table_reserve(engine *g, size_t block)
{
    point_table *t = &g->table;
    if (block < t->blocks)
        return 0;
    size_t blocks = t->blocks ? t->blocks : 16, cells, values, value_bytes;
    while (blocks <= block)
        if (size_multiply(blocks, 2, &blocks) != 0)
            return -1;
    if (size_multiply(blocks, g->n_units, &cells) != 0 ||
        size_multiply(cells, g->n_metrics, &values) != 0 ||
        size_multiply(values, sizeof *t->values, &value_bytes) != 0)
        return -1;
    double *v = realloc(t->values, value_bytes);
    if (v)
        t->values = v;
    bool *p = v ? realloc(t->present, cells * sizeof *p) : NULL;
    if (v == NULL || p == NULL)
        return -1;
    size_t old_cells = t->blocks * g->n_units;
    memset(p + old_cells, 0, (cells - old_cells) * sizeof *p);
    t->present = p;
    t->blocks = blocks;
    return 0;
}

static void table_put(engine *g, size_t block, size_t unit, const double *values)
{
    size_t cell = block * g->n_units + unit;
    memcpy(g->table.values + cell * g->n_metrics, values, g->n_metrics * sizeof *values);
    g->table.present[cell] = true;
}

static bool table_has(const engine *g, size_t block, size_t unit)
{
    return block < g->table.blocks && g->table.present[block * g->n_units + unit];
}

/* The point's stored samples, into a fresh table. */
static int fill_table(engine *g, size_t point)
{
    point_table *t = &g->table;
    if (t->present)
        memset(t->present, 0, t->blocks * g->n_units * sizeof *t->present);
    for (size_t i = 0; i < g->n_held; i++) {
        const held_sample *h = &g->held[i];
        if (h->point != point)
            continue;
        if (table_reserve(g, (size_t)h->block) != 0)
            return -1;
        table_put(g, (size_t)h->block, h->unit, h->values);
    }
    return 0;
}

/* ---- adaptive looks ---- */

static double table_value(const engine *g, size_t block, size_t unit, size_t metric)
{
    return g->table.values[(block * g->n_units + unit) * g->n_metrics + metric];
}

/* One metric's series of every unit over the blocks in which all units have a value of it,
 * as the report reads them (lab/results.c); false when some unit has none at all (a kernel
 * without bytes has no gbps), and the metric is left out of the look. */
static bool metric_series(engine *g, size_t point, size_t m, size_t blocks, double *values,
                          analysis_series *series)
{
    size_t complete = 0;
    for (size_t u = 0; u < g->n_units; u++) {
        bool any = false;
        for (size_t b = 0; b < blocks && !any; b++)
            any = isfinite(table_value(g, b, u, m));
        if (!any)
            return false;
    }
    for (size_t b = 0; b < blocks; b++) {
        bool all = true;
        for (size_t u = 0; u < g->n_units && all; u++)
            all = isfinite(table_value(g, b, u, m));
        for (size_t u = 0; all && u < g->n_units; u++)
            values[u * blocks + complete] = table_value(g, b, u, m);
        complete += all;
    }
    for (size_t u = 0; u < g->n_units; u++) {
        size_t layout, v = experiment_unit_variant(g->e, u, &layout);
        series[u] = (analysis_series){
            .point = g->points.ids[point], .metric = g->e->metrics[m].name,
            .variant = g->e->variants[v].name, .layout = layout,
            .n_layouts = experiment_variant_layouts(&g->e->variants[v]), .values = values + u * blocks,
            .n = complete, .higher_is_better = g->e->metrics[m].higher_is_better};
    }
    return true;
}

/* Analyses the point's first `blocks` blocks; true when every comparison is decided. */
static bool look_decides(engine *g, size_t point, size_t blocks, analysis_result *latest,
                         bool *have_latest)
{
    size_t n_series = g->n_metrics * g->n_units, used = 0;
    double *values = malloc((n_series * blocks + 1) * sizeof *values);
    analysis_series *series = malloc((n_series + 1) * sizeof *series);
    bool decided = values && series;
    for (size_t m = 0; decided && m < g->n_metrics; m++)
        if (metric_series(g, point, m, blocks, values + used * blocks, series + used))
            used += g->n_units;
    analysis_options o = g->c->analysis;
    o.confidence = g->out->look_confidence;
    verdict_error err = {0};
    if (*have_latest)
        analysis_result_free(latest);
    *have_latest = decided && used > 0 &&
                   analysis_run(series, used, &o, latest, &err) == 0;
    decided = *have_latest;
    for (size_t k = 0; decided && k < latest->n_comparisons; k++)
        decided = latest->comparisons[k].ok &&
                  latest->comparisons[k].result.decision.kind != VERDICT_INCONCLUSIVE;
    free(values);
    free(series);
    return decided;
}

/* ---- one point ---- */

void engine_note_warning(engine *g, const char *code, const char *point, const char *variant,
                         const char *message)
{
    strbuf_appendf(&g->warnings, "%s\t%s\t%s\t%s\n", code, point, variant, message);
}

int engine_begin_point(engine *g, point_run *p, verdict_error *err)
{
    const experiment *e = g->e;
    if (lab_helper_words(e, &e->setup, p->point, &p->setup, err) != 0 ||
        lab_helper_words(e, &e->teardown, p->point, &p->teardown, err) != 0 ||
        lab_helper_words(e, &e->prepare, p->point, &p->prepare, err) != 0)
        return -1;
    if (e->target->begin_point(g->t, p->point, g->c->stop, err) != 0)
        return -1;
    p->begun = true;
    return lab_run_helper(e, &p->setup, "setup", e->directory, g->c->stop, err);
}

/* One run of a unit, the prepare command first: a target_run_status, or -1. */
static int measure_unit(engine *g, point_run *p, size_t unit, long block, target_measurement *m,
                        verdict_error *err)
{
    if (lab_run_helper(g->e, &p->prepare, "prepare", g->e->directory, g->c->stop, err) != 0)
        return err->kind == ERROR_INTERRUPTED ? TARGET_RUN_INTERRUPTED : -1;
    memset(m, 0, sizeof *m);
    m->values = g->values;
    for (size_t k = 0; k < g->n_metrics; k++)
        g->values[k] = NAN;
    size_t layout, variant = experiment_unit_variant(g->e, unit, &layout);
    target_unit u = {.point = p->point, .variant = variant, .layout = layout, .block = block,
                     .seq = g->seq};
    return g->e->target->measure(g->t, &u, g->c->stop, m, err);
}

/* Retried as the failure policy says; a failure that stands is an error unless recorded. */
int engine_measure(engine *g, point_run *p, size_t unit, long block,
                               target_measurement *m, verdict_error *err)
{
    int tries = g->e->on_failure == FAILURE_RETRY ? 1 + g->e->retries : 1, rc = -1;
    for (int i = 0; i < tries; i++) {
        if (*g->c->stop)
            return error_set(err, ERROR_INTERRUPTED, "interrupted");
        rc = measure_unit(g, p, unit, block, m, err);
        if (rc != TARGET_RUN_FAILED)
            break;
    }
    if (rc < 0)
        return -1;
    if (rc == TARGET_RUN_INTERRUPTED)
        return error_set(err, ERROR_INTERRUPTED, "interrupted");
    if (rc == TARGET_RUN_FAILED && g->e->on_failure != FAILURE_RECORD) {
        if (g->e->n_parameters == 0)
            return error_set(err, ERROR_COMMAND_FAILED, "%s", m->failure);
        return error_set(err, ERROR_COMMAND_FAILED, "at %s: %s", g->points.ids[p->point],
                         m->failure);
    }
    return 0;
}

/* The store's row for a measurement (its strings borrowed from the engine and m). */
store_sample engine_sample_row(const engine *g, size_t point, size_t unit, long block,
                               const target_measurement *m, double started)
{
    size_t layout, variant = experiment_unit_variant(g->e, unit, &layout);
    return (store_sample){
        .point = g->points.ids[point], .variant = g->e->variants[variant].name,
        .layout = (long)layout,
        .machine = engine_machine(g->c), .block = block, .seq = g->seq, .started = started,
        .wall = m->wall,
        .user = m->user, .sys = m->sys, .maxrss_kib = m->maxrss_kib,
        .voluntary_switches = m->voluntary_switches,
        .involuntary_switches = m->involuntary_switches, .exit_code = m->exit_code,
        .timed_out = m->timed_out, .tainted = m->tainted,
        .taint_reason = m->tainted ? m->taint_reason : NULL, .steal = m->steal,
        .other_busy = m->other_busy, .load1 = m->load1, .metric_names = g->metric_names,
        .metric_values = m->values, .n_metrics = g->n_metrics};
}

/* Unmeasured runs of every unit, in the first block's order, before the point's first one. */
int engine_warm_up(engine *g, point_run *p, verdict_error *err)
{
    size_t *order = calloc(g->n_units, sizeof *order);
    if (order == NULL)
        return error_set(err, ERROR_INTERNAL, "out of memory");
    schedule_block_order(g->e->seed, p->point, SIZE_MAX, g->n_units, order);
    int rc = 0;
    target_measurement m;
    for (size_t w = 0; rc == 0 && w < g->e->warmup; w++)
        for (size_t i = 0; rc == 0 && i < g->n_units; i++)
            rc = engine_measure(g, p, order[i], -1, &m, err);
    free(order);
    p->warmed = true;
    return rc;
}

static int run_unit(engine *g, point_run *p, size_t unit, size_t block, verdict_error *err)
{
    if (!p->begun && engine_begin_point(g, p, err) != 0)
        return -1;
    if (!p->warmed && engine_warm_up(g, p, err) != 0)
        return -1;
    target_measurement m;
    double started = runner_monotonic_seconds() - g->start;
    if (engine_measure(g, p, unit, (long)block, &m, err) != 0)
        return -1;
    if (engine_batch_add(g, p->point, unit, (long)block, &m, started) != 0)
        return error_set(err, ERROR_INTERNAL, "out of memory");
    if (table_reserve(g, block) != 0)
        return error_set(err, ERROR_INTERNAL, "out of memory");
    table_put(g, block, unit, m.values);
    return 0;
}

static int run_block(engine *g, point_run *p, size_t block, size_t *order, verdict_error *err)
{
    schedule_block_order(g->e->seed, p->point, block, g->n_units, order);
    for (size_t i = 0; i < g->n_units; i++)
        if (!table_has(g, block, order[i]) && run_unit(g, p, order[i], block, err) != 0)
            return -1;
    return engine_batch_due(g) ? engine_batch_flush(g, err) : 0;
}

static void report_progress(engine *g, const point_run *p, size_t blocks_done)
{
    if (g->c->progress == NULL)
        return;
    const experiment *e = g->e;
    lab_progress pr = {.position = p->position, .n_points = g->points.n,
                       .point_id = g->points.ids[p->point], .blocks_done = blocks_done,
                       .blocks_planned = planned_blocks(e),
                       .elapsed = runner_monotonic_seconds() - g->start, .eta = -1,
                       .latest = p->have_latest ? &p->latest : NULL};
    double point_elapsed = runner_monotonic_seconds() - p->start;
    if (blocks_done > 0) {
        double per_block = point_elapsed / (double)blocks_done;
        pr.eta = per_block * (double)(pr.blocks_planned - blocks_done);
        if (e->adaptive && e->max_seconds > 0 && pr.eta > e->max_seconds - point_elapsed)
            pr.eta = fmax(0.0, e->max_seconds - point_elapsed);
    }
    for (size_t b = blocks_done + 1; e->adaptive && b <= e->max_blocks; b++)
        if (stopping_is_look(&p->rule, b)) {
            pr.next_look = b;
            break;
        }
    g->c->progress(g->c->progress_context, &pr);
}

static bool budget_left(const engine *g, const point_run *p, size_t blocks)
{
    const experiment *e = g->e;
    if (blocks >= planned_blocks(e))
        return false;
    return !(e->adaptive && e->max_seconds > 0 &&
             runner_monotonic_seconds() - p->start >= e->max_seconds);
}

static int run_blocks(engine *g, point_run *p, verdict_error *err)
{
    size_t *order = calloc(g->n_units, sizeof *order);
    if (order == NULL)
        return error_set(err, ERROR_INTERNAL, "out of memory");
    bool decided = false;
    size_t block = 0;
    int rc = 0;
    for (; budget_left(g, p, block); block++) {
        if ((rc = run_block(g, p, block, order, err)) != 0)
            break;
        if (g->e->adaptive && stopping_is_look(&p->rule, block + 1)) {
            g->out->looks_taken++;
            if ((decided = look_decides(g, p->point, block + 1, &p->latest, &p->have_latest))) {
                block++;
                break;
            }
        }
        report_progress(g, p, block + 1);
    }
    g->out->complete_blocks += block;
    if (rc == 0 && g->e->adaptive && !decided) {
        g->out->budget_spent = true;
        engine_note_warning(g, "budget-spent", g->points.ids[p->point], "",
                     "not decided within the budget");
    }
    free(order);
    return rc;
}

/* Teardown runs even after a failure or a stop (but cannot itself be stopped). */
void engine_end_point(engine *g, point_run *p, verdict_error *err)
{
    if (p->begun) {
        volatile sig_atomic_t no_stop = 0;
        verdict_error cleanup;
        error_clear(&cleanup);
        if (lab_run_helper(g->e, &p->teardown, "teardown", g->e->directory, &no_stop,
                           &cleanup) != 0 && err->kind == ERROR_NONE)
            *err = cleanup;
        g->e->target->end_point(g->t);
    }
    command_words_free(&p->prepare);
    command_words_free(&p->setup);
    command_words_free(&p->teardown);
    if (p->have_latest)
        analysis_result_free(&p->latest);
}

/* What was measured is committed whatever ended the blocks (a failure, a stop); a commit
 * that fails after another error is told on the notes, the first error kept. */
static int commit_measured(engine *g, int rc, verdict_error *err)
{
    verdict_error commit_err;
    error_clear(&commit_err);
    if (engine_batch_flush(g, &commit_err) == 0)
        return rc;
    if (rc == 0) {
        *err = commit_err;
        return -1;
    }
    if (g->c->notes)
        fprintf(g->c->notes, "verdict: %s\n", commit_err.message);
    return rc;
}

static int run_point(engine *g, size_t point, size_t position, verdict_error *err)
{
    point_run p = {.point = point, .position = position, .start = runner_monotonic_seconds(),
                   .rule = {g->e->min_blocks, g->e->max_blocks, STOPPING_GROWTH}};
    g->out->points_started++;
    int rc = fill_table(g, point) != 0 ? error_set(err, ERROR_INTERNAL, "out of memory")
                                       : run_blocks(g, &p, err);
    rc = commit_measured(g, rc, err);
    engine_end_point(g, &p, err);
    return rc != 0 || err->kind != ERROR_NONE ? -1 : 0;
}

/* ---- the run ---- */

static int open_target(engine *g, verdict_error *err)
{
    const experiment *e = g->e;
    if (lab_check_helper(e, &e->setup, "setup", err) != 0 ||
        lab_check_helper(e, &e->prepare, "prepare", err) != 0 ||
        lab_check_helper(e, &e->teardown, "cleanup", err) != 0)
        return -1;
    if (lab_builds_ensure(e, g->c->cache_dir, g->c->build_logs, g->c->stop, g->c->notes, NULL,
                          NULL, &g->measured, err) != 0)
        return -1;
    return e->target->open(e, &g->c->target, &g->t, err);
}

/* Whether the experiment builds anything: only then are the compilers facts of it. */
static bool builds_something(const experiment *e)
{
    for (size_t i = 0; i < e->n_variants; i++)
        if (e->variants[i].build || e->variants[i].source.path)
            return true;
    return false;
}

/* The machine's facts (every one on a fleet's machine, for its survey), kept by its name too;
 * then the run, its facts and what each variant ran. */
static int record_facts(engine *g, verdict_error *err)
{
    machine_facts facts = {0};
    verdict_error why = {0};
    bool fleet = g->e->machines != MACHINES_ONE;
    machine_fact_set which = builds_something(g->e) || fleet ? MACHINE_FACTS_ALL
                                                             : MACHINE_FACTS_WITHOUT_COMPILERS;
    if (machine_facts_collect(&facts, which, &why) != 0)
        facts.n = 0;
    int rc = machine_facts_set(&facts, "verdict", VERDICT_VERSION) == 0
                 ? 0 : error_set(err, ERROR_INTERNAL, "out of memory");
    /* a named machine is a fleet's: kept by its name for the survey, its name checked */
    if (rc == 0 && engine_machine(g->c)[0])
        rc = lab_record_machine(g->c->db, engine_machine(g->c), &facts, err);
    if (rc == 0 && g->measured.length && machine_facts_set(&facts, LAB_BUILDS_FACT,
                                                           strbuf_text(&g->measured)) != 0)
        rc = error_set(err, ERROR_INTERNAL, "out of memory");
    store_fact *rows = rc == 0 ? lab_fact_rows(&facts) : NULL;
    if (rc == 0 && rows == NULL)
        rc = error_no_memory(err);
    if (rc == 0 && store_begin_run(g->c->db, g->c->experiment_id, rows, facts.n,
                                   &g->out->run_id, err) != 0)
        rc = -1;
    free(rows);
    machine_facts_free(&facts);
    return rc;
}

/* What was learnt while running (a kernel's calibration) and the warnings, as facts. */
static void record_end_facts(engine *g)
{
    machine_facts facts = {0};
    verdict_error why = {0};
    if (g->t && g->e->target->facts)
        g->e->target->facts(g->t, &facts);
    if (g->warnings.length)
        machine_facts_set(&facts, LAB_WARNINGS_FACT "engine", strbuf_text(&g->warnings));
    store_fact *rows = lab_fact_rows(&facts);
    if (rows && facts.n > 0 &&
        store_add_run_facts(g->c->db, g->out->run_id, rows, facts.n, &why) != 0 &&
        g->c->notes)
        fprintf(g->c->notes, "verdict: %s\n", why.message);
    free(rows);
    machine_facts_free(&facts);
}

static int run_points(engine *g, verdict_error *err)
{
    if (g->e->machines == MACHINES_SHARE)
        return engine_run_shared(g, err);
    size_t *order = calloc(g->points.n + 1, sizeof *order);
    if (order == NULL)
        return error_set(err, ERROR_INTERNAL, "out of memory");
    schedule_point_order(g->e->seed, g->points.n, order);
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < g->points.n; i++)
        rc = run_point(g, order[i], i + 1, err);
    free(order);
    return rc;
}

static void engine_free(engine *g)
{
    if (g->t)
        g->e->target->close(g->t);
    point_index_free(&g->points);
    for (size_t i = 0; i < g->n_held; i++)
        free(g->held[i].values);
    free(g->held);
    free(g->values);
    free(g->metric_names);
    free(g->table.values);
    free(g->table.present);
    strbuf_free(&g->warnings);
    strbuf_free(&g->measured);
    engine_batch_free(&g->batch);
}

static int prepare_engine(engine *g, verdict_error *err)
{
    const experiment *e = g->e;
    g->values = calloc(g->n_metrics + 1, sizeof *g->values);
    g->metric_names = calloc(g->n_metrics + 1, sizeof *g->metric_names);
    if (g->values == NULL || g->metric_names == NULL)
        return error_set(err, ERROR_INTERNAL, "out of memory");
    for (size_t m = 0; m < g->n_metrics; m++)
        g->metric_names[m] = e->metrics[m].name;
    if (index_points(g, err) != 0 || check_plan_size(g, err) != 0)
        return -1;
    return load_held(g, err);
}

int lab_run(const lab_config *c, lab_outcome *out, verdict_error *err)
{
    const experiment *e = c->e;
    engine g = {.c = c, .e = e, .out = out, .n_units = experiment_unit_count(e), .n_metrics = e->n_metrics,
                .start = runner_monotonic_seconds(), .warnings = STRBUF_INIT,
                .measured = STRBUF_INIT};
    memset(out, 0, sizeof *out);
    error_clear(err);
    stopping_rule rule = {e->min_blocks, e->max_blocks, STOPPING_GROWTH};
    out->looks_planned = e->adaptive ? stopping_looks(&rule) : 0;
    out->look_confidence = e->adaptive ? stopping_look_confidence(c->analysis.confidence, &rule)
                                       : c->analysis.confidence;
    int rc = prepare_engine(&g, err);
    out->n_points = g.points.n;
    if (rc == 0)
        rc = open_target(&g, err);
    if (rc == 0)
        rc = record_facts(&g, err);
    if (rc == 0)
        rc = run_points(&g, err);
    if (out->run_id) {
        verdict_error why = {0};
        if (err->kind == ERROR_INTERRUPTED)
            engine_note_warning(&g, "interrupted", "", "", "interrupted: the analysis covers the "
                         "complete blocks");
        record_end_facts(&g);
        store_end_run(c->db, out->run_id, rc == 0 ? "done"
                                          : err->kind == ERROR_INTERRUPTED ? "interrupted"
                                                                           : "failed",
                      &why);
    }
    out->elapsed = runner_monotonic_seconds() - g.start;
    engine_free(&g);
    return rc;
}

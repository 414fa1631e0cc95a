/* The engine's one loop: builds, the target opened, facts recorded, then the blocks a work
 * source supplies (the plan's own, or a shared plan's claims), each point begun at its first
 * run and ended when the source moves on; resume skips what the store holds. */
#include "lab/engine.h"
#include "common/error.h"
#include "lab/engine_internal.h"

#include <assert.h>
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
#include "lab/lab_series.h"
#include "lab/lab_store.h"
#include "lab/point_index.h"
#include "version.h"

/* Blocks and sequence numbers are stored as 64-bit integers: no plan may outgrow them. */
#define LARGEST_PLAN ((uint64_t)INT64_MAX)

/* ---- what the store already holds ---- */

static int index_points(engine *g, verdict_error *err)
{
    return point_index_build(g->e, &g->points) == 0 ? 0 : error_no_memory(err);
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
    if (g->e->machines == MACHINES_SHARE)
        return 0; /* a shared plan's blocks are claimed, not resumed (only seq counts) */
    if (array_reserve((void **)&g->held, &g->held_capacity, g->n_held + 1, sizeof *g->held) != 0)
        return error_no_memory(h->err);
    held_sample *k = &g->held[g->n_held];
    k->point = (size_t)point;
    k->unit = experiment_unit_index(g->e, (size_t)variant, (size_t)s->layout);
    k->block = s->block;
    k->values = NULL;
    g->n_held++;
    if (!lab_sample_measured(s->exit_code, s->timed_out))
        return 0; /* its cell is taken, it has no values (lab_series.h) */
    if ((k->values = calloc(g->n_metrics + 1, sizeof *k->values)) == NULL)
        return error_no_memory(h->err);
    for (size_t m = 0; m < g->n_metrics; m++)
        k->values[m] = lab_sample_reading(s, g->e->metrics[m].name);
    return 0;
}

int engine_compare_held(const void *a, const void *b)
{
    const held_sample *x = a, *y = b;
    if (x->point != y->point)
        return x->point < y->point ? -1 : 1;
    if (x->unit != y->unit)
        return x->unit < y->unit ? -1 : 1;
    return (x->block > y->block) - (x->block < y->block);
}

/* store_for_each_sample over the experiment's samples: every one held or skipped. */
static int read_stored_samples(engine *g, verdict_error *err)
{
    hold_context h = {g, err};
    return store_for_each_sample(g->c->db, g->c->experiment_id, hold_sample, &h, err);
}

static int load_held(engine *g, verdict_error *err)
{
    if (read_stored_samples(g, err) != 0)
        return -1;
    if (g->n_held > 1) /* qsort's pointer must be valid even for no items */
        qsort(g->held, g->n_held, sizeof *g->held, engine_compare_held);
    g->out->samples_resumed = g->n_held;
    if (g->n_held > 0 && g->c->notes)
        fprintf(g->c->notes, "verdict: resuming %s (%zu samples stored)\n", g->e->name,
                g->n_held);
    return 0;
}

/* ---- the plan ---- */

/* Refuses a plan whose samples could not all be numbered in the store. */
static int check_plan_size(const engine *g, verdict_error *err)
{
    size_t per_point, total, blocks = experiment_blocks(g->e);
    if (size_multiply(g->n_units, blocks, &per_point) != 0 ||
        size_multiply(per_point, g->points.n, &total) != 0 || (uint64_t)total > LARGEST_PLAN)
        return error_set(err, ERROR_USAGE, "%s: the plan has more samples than can be stored "
                         "(%zu points x %zu variants x %zu blocks): lower 'repetitions' or the "
                         "budget", g->e->path, g->points.n, g->n_units, blocks);
    return 0;
}

/* ---- the current point's table ---- */

/* Makes room for block in the point's table; -1 when out of memory. */
static int table_reserve(engine *g, size_t block)
{
    point_table *t = &g->table;
    if (block < t->blocks)
        return 0;
    size_t old_cells = t->blocks * g->n_units, cells;
    if (lab_block_table_reserve(&t->values, block + 1) != 0 ||
        size_multiply(t->values.blocks, g->n_units, &cells) != 0)
        return -1;
    bool *p = realloc(t->present, (cells + 1) * sizeof *p);
    if (p == NULL)
        return -1;
    memset(p + old_cells, 0, (cells - old_cells) * sizeof *p);
    t->present = p;
    t->blocks = t->values.blocks;
    return 0;
}

/* A cell's index in present; the block must have been reserved. */
static size_t table_cell(const engine *g, size_t block, size_t unit)
{
    assert(block < g->table.blocks && g->table.blocks <= g->table.values.blocks &&
           unit < g->n_units);
    return block * g->n_units + unit;
}

/* The unit's sample in the block: its values, or NULL for a run that is no measurement. */
static int table_put(engine *g, size_t block, size_t unit, const double *values)
{
    if (table_reserve(g, block) != 0)
        return -1;
    lab_block_table_put(&g->table.values, block, unit, values);
    g->table.present[table_cell(g, block, unit)] = true;
    return 0;
}

static bool table_has(const engine *g, size_t block, size_t unit)
{
    return block < g->table.blocks && g->table.present[table_cell(g, block, unit)];
}

void engine_forget_block(engine *g, long block)
{
    assert(g->at.active && block >= 0);
    for (size_t u = 0; (size_t)block < g->table.blocks && u < g->n_units; u++) {
        g->table.present[table_cell(g, (size_t)block, u)] = false;
        lab_block_table_put(&g->table.values, (size_t)block, u, NULL);
    }
}

/* The first held sample of the point or a later one (held is sorted by point first). */
static size_t first_held(const engine *g, size_t point)
{
    size_t low = 0, high = g->n_held;
    while (low < high) {
        size_t mid = low + (high - low) / 2;
        if (g->held[mid].point < point)
            low = mid + 1;
        else
            high = mid;
    }
    return low;
}

/* The point's stored samples, into a fresh table. */
static int fill_table(engine *g, size_t point)
{
    point_table *t = &g->table;
    if (t->present)
        memset(t->present, 0, t->blocks * g->n_units * sizeof *t->present);
    lab_block_table_clear(&t->values);
    for (size_t i = first_held(g, point); i < g->n_held && g->held[i].point == point; i++) {
        const held_sample *h = &g->held[i];
        if (table_put(g, (size_t)h->block, h->unit, h->values) != 0)
            return -1;
    }
    return 0;
}

/* ---- one point ---- */

void engine_note_warning(engine *g, const char *code, const char *point, const char *variant,
                         const char *message)
{
    strbuf_appendf(&g->warnings, "%s\t%s\t%s\t%s\n", code, point, variant, message);
}

/* The point's helpers read, the target's begin_point, then the setup helper. */
static int begin_point(engine *g, point_run *p, verdict_error *err)
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

/* One run of a unit with the failure policy applied (retried as it says; a failure that
 * stands is an error unless recorded); 0, or -1 with err. */
static int measure(engine *g, point_run *p, size_t unit, long block, target_measurement *m,
                   verdict_error *err)
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

store_sample engine_sample_row(const engine *g, size_t point, size_t unit, long block, long seq,
                               const target_measurement *m, const double *values,
                               double started)
{
    size_t layout, variant = experiment_unit_variant(g->e, unit, &layout);
    return (store_sample){
        .point = g->points.ids[point], .variant = g->e->variants[variant].name,
        .layout = (long)layout, .machine = engine_machine(g->c), .block = block, .seq = seq,
        .started = started, .wall = m->wall, .user = m->user, .sys = m->sys,
        .maxrss_kib = m->maxrss_kib, .voluntary_switches = m->voluntary_switches,
        .involuntary_switches = m->involuntary_switches, .exit_code = m->exit_code,
        .timed_out = m->timed_out, .tainted = m->tainted,
        .taint_reason = m->tainted ? m->taint_reason : NULL, .steal = m->steal,
        .other_busy = m->other_busy, .load1 = m->load1, .metric_names = g->metric_names,
        .metric_values = values, .n_metrics = g->n_metrics};
}

/* Unmeasured runs of every unit, in the first block's order, before the point's first one;
 * none is kept. */
static int warm_up(engine *g, point_run *p, verdict_error *err)
{
    size_t *order = calloc(g->n_units, sizeof *order);
    if (order == NULL)
        return error_no_memory(err);
    schedule_block_order(g->e->seed, p->point, SIZE_MAX, g->n_units, order);
    int rc = 0;
    target_measurement m;
    for (size_t w = 0; rc == 0 && w < g->e->warmup; w++)
        for (size_t i = 0; rc == 0 && i < g->n_units; i++)
            rc = measure(g, p, order[i], -1, &m, err);
    free(order);
    p->warmed = true;
    return rc;
}

int engine_ready_point(engine *g, verdict_error *err)
{
    point_run *p = &g->at;
    assert(p->active);
    if (!p->begun && begin_point(g, p, err) != 0)
        return -1;
    if (!p->warmed && warm_up(g, p, err) != 0)
        return -1;
    return 0;
}

/* One measured run: the point begun and warmed first if it was not, the sample put in the
 * batch (to be committed) and in the point's table (for the looks). */
static int run_unit(engine *g, size_t unit, long block, verdict_error *err)
{
    point_run *p = &g->at;
    if (engine_ready_point(g, err) != 0)
        return -1;
    target_measurement m;
    double started = runner_monotonic_seconds() - g->start;
    if (measure(g, p, unit, block, &m, err) != 0)
        return -1;
    bool measured = lab_sample_measured(m.exit_code, m.timed_out);
    if (engine_batch_add(g, p->point, unit, block, &m, started) != 0 ||
        table_put(g, (size_t)block, unit, measured ? m.values : NULL) != 0)
        return error_no_memory(err);
    return 0;
}

/* Teardown runs even after a failure or a stop (but cannot itself be stopped). */
static void end_point(engine *g, point_run *p, verdict_error *err)
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
    p->active = false;
}

/* ---- the loop ---- */

/* What the source left in the batch is committed whatever ended the work (a failure, a
 * stop); a commit that fails after another error is told on the notes, the first kept. */
static int flush_source(engine *g, const engine_source_kind *kind, void *source, int rc,
                        verdict_error *err)
{
    verdict_error commit_err;
    error_clear(&commit_err);
    if (kind->flush(g, source, &commit_err) == 0)
        return rc;
    if (rc == 0)
        return error_copy(err, &commit_err);
    if (g->c->notes)
        fprintf(g->c->notes, "verdict: %s\n", commit_err.message);
    return rc;
}

/* Leaves the current point, if any: its samples committed, then its teardown. */
static int leave_point(engine *g, const engine_source_kind *kind, void *source, int rc,
                       verdict_error *err)
{
    if (!g->at.active)
        return rc;
    rc = flush_source(g, kind, source, rc, err);
    end_point(g, &g->at, err);
    return rc != 0 || err->kind != ERROR_NONE ? -1 : 0;
}

/* Moves the loop to the task's point: the one before left, this one's stored samples read
 * into the table; the point is begun lazily, by its first run. */
static int enter_point(engine *g, const engine_source_kind *kind, void *source, size_t point,
                       verdict_error *err)
{
    assert(point < g->points.n);
    if (g->at.active && g->at.point == point)
        return 0;
    if (leave_point(g, kind, source, 0, err) != 0)
        return -1;
    g->at = (point_run){.point = point, .position = ++g->out->points_started, .active = true,
                        .start = runner_monotonic_seconds(),
                        .rule = experiment_stopping_rule(g->e)};
    return fill_table(g, point) == 0 ? 0 : error_no_memory(err);
}

/* The task's block: its units in the seeded order, those the store holds skipped. */
static int run_block(engine *g, const engine_source_kind *kind, void *source,
                     const engine_task *task, size_t *order, verdict_error *err)
{
    assert(task->block >= 0 && g->at.active && g->at.point == task->point);
    schedule_block_order(g->e->seed, task->point, (size_t)task->block, g->n_units, order);
    for (size_t i = 0; i < g->n_units; i++)
        if (!table_has(g, (size_t)task->block, order[i]) &&
            (run_unit(g, order[i], task->block, err) != 0 ||
             kind->kept(g, source, task, err) != 0))
            return -1;
    return g->e->profile ? engine_profile_block(g, task, order, err) : 0;
}

/* The one loop: a block from the source, run, retired, until the source has no more or
 * one ends the work; then the last point left, its samples committed. */
static int run_work(engine *g, verdict_error *err)
{
    const engine_source_kind *kind = g->e->machines == MACHINES_SHARE ? &engine_shared_source
                                                                      : &engine_plan_source;
    void *source = calloc(1, kind->state_size);
    size_t *order = calloc(g->n_units + 1, sizeof *order);
    int rc = source && order ? kind->start(g, source, err) : error_no_memory(err);
    engine_task task;
    while (rc == 0 && (rc = kind->next(g, source, &task, err)) > 0) {
        int status = enter_point(g, kind, source, task.point, err);
        if (status == 0)
            status = run_block(g, kind, source, &task, order, err);
        rc = kind->retire(g, source, &task, status, err);
    }
    rc = leave_point(g, kind, source, rc, err);
    free(source);
    free(order);
    return rc;
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

/* store_begin_run: the run recorded with its facts, its id in the outcome. */
static int begin_run(engine *g, const machine_facts *facts, verdict_error *err)
{
    store_fact *rows = lab_fact_rows(facts);
    int rc = rows == NULL ? error_no_memory(err)
             : store_begin_run(g->c->db, g->c->experiment_id, rows, facts->n, &g->out->run_id,
                               err);
    free(rows);
    return rc;
}

/* The machine's facts (every one on a fleet's machine, for its survey), kept by its name too;
 * then the run, its facts and what each variant ran. */
static int record_facts(engine *g, verdict_error *err)
{
    machine_facts facts = {0};
    verdict_error ignored = {0}; /* a fact that cannot be read is left out, not an error */
    bool fleet = g->e->machines != MACHINES_ONE;
    machine_fact_set which = builds_something(g->e) || fleet ? MACHINE_FACTS_ALL
                                                             : MACHINE_FACTS_WITHOUT_COMPILERS;
    if (machine_facts_collect(&facts, which, &ignored) != 0)
        facts.n = 0;
    int rc = machine_facts_set(&facts, "verdict", VERDICT_VERSION) == 0 ? 0 : error_no_memory(err);
    /* a named machine is a fleet's: kept by its name for the survey, its name checked */
    if (rc == 0 && engine_machine(g->c)[0])
        rc = lab_record_machine(g->c->db, engine_machine(g->c), &facts, err);
    if (rc == 0 && g->measured.length && machine_facts_set(&facts, LAB_BUILDS_FACT,
                                                           strbuf_text(&g->measured)) != 0)
        rc = error_no_memory(err);
    if (rc == 0)
        rc = begin_run(g, &facts, err);
    machine_facts_free(&facts);
    return rc;
}

/* store_add_run_facts; a failure is told on the notes (the run's outcome stands). */
static void add_run_facts(engine *g, const machine_facts *facts)
{
    verdict_error why = {0};
    store_fact *rows = lab_fact_rows(facts);
    if (rows && facts->n > 0 &&
        store_add_run_facts(g->c->db, g->out->run_id, rows, facts->n, &why) != 0 &&
        g->c->notes)
        fprintf(g->c->notes, "verdict: %s\n", why.message);
    free(rows);
}

/* What was learnt while running (a kernel's calibration) and the warnings, as facts. */
static void record_end_facts(engine *g)
{
    machine_facts facts = {0};
    if (g->t && g->e->target->facts)
        g->e->target->facts(g->t, &facts);
    if (g->warnings.length)
        machine_facts_set(&facts, LAB_WARNINGS_FACT "engine", strbuf_text(&g->warnings));
    add_run_facts(g, &facts);
    machine_facts_free(&facts);
}

/* store_end_run: the run marked done, interrupted or failed (a failure here changes nothing
 * the caller could act on). */
static void end_run(engine *g, int rc, const verdict_error *err)
{
    verdict_error ignored = {0};
    store_end_run(g->c->db, g->out->run_id, rc == 0 ? "done"
                                            : err->kind == ERROR_INTERRUPTED ? "interrupted"
                                                                             : "failed",
                  &ignored);
}

static void engine_free(engine *g)
{
    if (g->t)
        g->e->target->close(g->t);
    point_index_free(&g->points);
    free(g->point_order);
    for (size_t i = 0; i < g->n_held; i++)
        free(g->held[i].values);
    free(g->held);
    free(g->values);
    free(g->metric_names);
    lab_block_table_free(&g->table.values);
    free(g->table.present);
    strbuf_free(&g->warnings);
    strbuf_free(&g->measured);
    engine_batch_free(&g->batch);
    free(g->profiled);
}

static int prepare_engine(engine *g, verdict_error *err)
{
    const experiment *e = g->e;
    g->values = calloc(g->n_metrics + 1, sizeof *g->values);
    g->metric_names = calloc(g->n_metrics + 1, sizeof *g->metric_names);
    if (g->values == NULL || g->metric_names == NULL)
        return error_no_memory(err);
    for (size_t m = 0; m < g->n_metrics; m++)
        g->metric_names[m] = e->metrics[m].name;
    if (index_points(g, err) != 0 || check_plan_size(g, err) != 0)
        return -1;
    if ((g->point_order = calloc(g->points.n + 1, sizeof *g->point_order)) == NULL)
        return error_no_memory(err);
    schedule_point_order(e->seed, g->points.n, g->point_order);
    if (e->profile && engine_profile_load(g, err) != 0)
        return -1;
    return load_held(g, err);
}

int lab_run(const lab_config *c, lab_outcome *out, verdict_error *err)
{
    const experiment *e = c->e;
    engine g = {.c = c, .e = e, .out = out, .n_units = experiment_unit_count(e),
                .n_metrics = e->n_metrics, .start = runner_monotonic_seconds(),
                .warnings = STRBUF_INIT, .measured = STRBUF_INIT};
    g.table.values = lab_block_table_make(g.n_units, g.n_metrics);
    memset(out, 0, sizeof *out);
    error_clear(err);
    stopping_rule rule = experiment_stopping_rule(e);
    out->looks_planned = e->adaptive ? stopping_looks(&rule) : 0;
    spending_look last = {.nominal_alpha = 1.0 - c->analysis.confidence};
    int rc = e->adaptive ? stopping_look_at(&rule, last.nominal_alpha, experiment_blocks(e),
                                            &last, err)
                         : 0;
    out->look_confidence = spending_look_confidence(&last);
    out->look_alpha = last.nominal_alpha;
    if (rc == 0)
        rc = prepare_engine(&g, err);
    out->n_points = g.points.n;
    if (rc == 0)
        rc = open_target(&g, err);
    if (rc == 0)
        rc = record_facts(&g, err);
    if (rc == 0)
        rc = run_work(&g, err);
    if (out->run_id) {
        if (err->kind == ERROR_INTERRUPTED)
            engine_note_warning(&g, "interrupted", "", "", "interrupted: the analysis covers "
                                "the complete blocks");
        record_end_facts(&g);
        end_run(&g, rc, err);
    }
    out->elapsed = runner_monotonic_seconds() - g.start;
    engine_free(&g);
    return rc;
}

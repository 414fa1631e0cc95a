/* A shared plan (machines: share): the plan's blocks put in the store, then claimed one at a
 * time under a lease, every unit measured on this machine, the block committed whole. */
#include "lab/engine_internal.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/error.h"
#include "core/runner.h"
#include "core/schedule.h"

/* How often a worker with nothing to claim looks again for blocks whose lease ran out. */
#define SHARE_POLL_SECONDS 0.5

/* A claimed block's measurements, kept until the block is committed as a whole. */
typedef struct {
    target_measurement *runs;    /* one per unit, in the block's order */
    size_t *units;
    double *values, *started;
    size_t n;
} block_batch;

static int batch_init(engine *g, block_batch *b)
{
    memset(b, 0, sizeof *b);
    b->runs = calloc(g->n_units, sizeof *b->runs);
    b->units = calloc(g->n_units, sizeof *b->units);
    b->values = calloc(g->n_units * g->n_metrics + 1, sizeof *b->values);
    b->started = calloc(g->n_units, sizeof *b->started);
    return b->runs && b->units && b->values && b->started ? 0 : -1;
}

static void batch_free(block_batch *b)
{
    free(b->runs);
    free(b->units);
    free(b->values);
    free(b->started);
}

/* The plan's blocks in claim order: the points in the seed's order, blocks in order, so
 * workers go through a point together before the next one (one server start per point). */
static int plan_shared_blocks(engine *g, const size_t *order, verdict_error *err)
{
    size_t n = g->points.n * experiment_blocks(g->e);
    store_block *blocks = calloc(n + 1, sizeof *blocks);
    if (blocks == NULL)
        return error_set(err, ERROR_INTERNAL, "out of memory");
    for (size_t i = 0, k = 0; i < g->points.n; i++)
        for (size_t b = 0; b < experiment_blocks(g->e); b++, k++)
            blocks[k] = (store_block){g->points.ids[order[i]], (long)b};
    int rc = store_plan_blocks(g->c->db, g->c->experiment_id, blocks, n, err);
    free(blocks);
    return rc;
}

/* Measures every unit of the claimed block, keeping the lease; -1 with ERROR_CLAIM_LOST when
 * the block was taken over meanwhile (this worker stalled past its lease). */
static int measure_claimed(engine *g, point_run *p, const store_claim *claim, block_batch *b,
                           verdict_error *err)
{
    schedule_block_order(g->e->seed, p->point, (size_t)claim->block, g->n_units, b->units);
    for (b->n = 0; b->n < g->n_units; b->n++) {
        if ((!p->begun && engine_begin_point(g, p, err) != 0) ||
            (!p->warmed && engine_warm_up(g, p, err) != 0))
            return -1;
        target_measurement *m = &b->runs[b->n];
        b->started[b->n] = runner_monotonic_seconds() - g->start;
        if (engine_measure(g, p, b->units[b->n], claim->block, m, err) != 0)
            return -1;
        memcpy(b->values + b->n * g->n_metrics, m->values, g->n_metrics * sizeof *b->values);
        m->values = b->values + b->n * g->n_metrics;
        if (store_renew_claim(g->c->db, claim->claim, g->c->worker, g->c->lease_seconds,
                              err) != 0)
            return -1;
    }
    return 0;
}

/* Commits the block's samples together with the block; a lost block is noted, not an error. */
static int finish_claimed(engine *g, const point_run *p, const store_claim *claim,
                          const block_batch *b, verdict_error *err)
{
    store_sample *rows = calloc(b->n + 1, sizeof *rows);
    if (rows == NULL)
        return error_set(err, ERROR_INTERNAL, "out of memory");
    for (size_t i = 0; i < b->n; i++) {
        rows[i] = engine_sample_row(g, p->point, b->units[i], claim->block, &b->runs[i], b->started[i]);
        rows[i].seq = g->seq + (long)i;
    }
    int rc = store_finish_block(g->c->db, claim->claim, g->c->worker, g->out->run_id, rows,
                                b->n, err);
    free(rows);
    if (rc == 0) {
        g->seq += (long)b->n;
        g->out->samples_taken += b->n;
        g->out->complete_blocks++;
        g->out->blocks_retaken += claim->attempt > 1;
    }
    return rc;
}

static void note_lost_block(engine *g, const store_claim *claim)
{
    char message[256];
    snprintf(message, sizeof message, "block %ld was taken over by another worker after this "
             "one's lease ran out; its runs here were not kept", claim->block);
    engine_note_warning(g, "block-lost", claim->point, "", message);
    g->out->blocks_lost++;
}

/* One claimed block, start to end: measured, then committed or given back. */
static int run_claimed(engine *g, point_run *p, const store_claim *claim, verdict_error *err)
{
    block_batch b;
    if (batch_init(g, &b) != 0) {
        batch_free(&b);
        return error_set(err, ERROR_INTERNAL, "out of memory");
    }
    int rc = measure_claimed(g, p, claim, &b, err);
    if (rc == 0)
        rc = finish_claimed(g, p, claim, &b, err);
    if (rc != 0 && error_is(err, ERROR_CLAIM_LOST)) {
        note_lost_block(g, claim);
        error_clear(err);
        rc = 0;
    } else if (rc != 0) { /* stopped or failed: the block is open again for any worker */
        verdict_error why = {0};
        store_release_block(g->c->db, claim->claim, g->c->worker, &why);
    }
    batch_free(&b);
    return rc;
}

typedef struct {
    point_run run;
    bool active;
} shared_point;

/* Moves the worker to the claimed block's point: the previous point ended, this one begun
 * lazily by its first run. */
static int enter_point(engine *g, shared_point *sp, const char *point_id, verdict_error *err)
{
    long point = point_index_find(&g->points, point_id);
    if (point < 0)
        return error_set(err, ERROR_INTERNAL, "the store's shared plan names point %s, which "
                         "this experiment does not have", point_id);
    if (sp->active && sp->run.point == (size_t)point)
        return 0;
    if (sp->active)
        engine_end_point(g, &sp->run, err);
    sp->run = (point_run){.point = (size_t)point, .position = g->out->points_started + 1,
                          .start = runner_monotonic_seconds()};
    sp->active = true;
    g->out->points_started++;
    return err->kind == ERROR_NONE ? 0 : -1;
}

static void report_shared_progress(engine *g, const shared_point *sp, const store_claim *c)
{
    if (g->c->progress == NULL || !sp->active)
        return;
    size_t total = (size_t)(c->open + c->in_flight + c->done);
    lab_progress pr = {.position = sp->run.position, .n_points = g->points.n,
                       .point_id = g->points.ids[sp->run.point],
                       .blocks_done = (size_t)c->done, .blocks_planned = total,
                       .elapsed = runner_monotonic_seconds() - g->start, .eta = -1};
    /* the fleet's pace while this worker ran: every worker's blocks over this one's time */
    if (g->out->complete_blocks > 0 && c->done > 0)
        pr.eta = pr.elapsed * (double)(total - (size_t)c->done) / (double)c->done;
    g->c->progress(g->c->progress_context, &pr);
}

static void pause_seconds(double seconds)
{
    struct timespec ts = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    nanosleep(&ts, NULL);
}

/* Claims blocks until none is left: open blocks first, then (waiting) those whose worker's
 * lease runs out, until every block of the plan is done. */
static int claim_until_done(engine *g, shared_point *sp, verdict_error *err)
{
    for (;;) {
        if (*g->c->stop)
            return error_set(err, ERROR_INTERRUPTED, "interrupted");
        store_claim claim;
        if (store_claim_block(g->c->db, g->c->experiment_id, NULL, engine_machine(g->c),
                              g->c->worker, g->c->lease_seconds, &claim, err) != 0)
            return -1;
        if (!claim.claimed && claim.in_flight == 0)
            return 0;
        if (!claim.claimed) {
            pause_seconds(SHARE_POLL_SECONDS);
            continue;
        }
        if (enter_point(g, sp, claim.point, err) != 0 || run_claimed(g, &sp->run, &claim, err) != 0)
            return -1;
        report_shared_progress(g, sp, &claim);
    }
}

int engine_run_shared(engine *g, verdict_error *err)
{
    size_t *order = calloc(g->points.n + 1, sizeof *order);
    if (order == NULL)
        return error_set(err, ERROR_INTERNAL, "out of memory");
    schedule_point_order(g->e->seed, g->points.n, order);
    shared_point sp = {.active = false};
    int rc = plan_shared_blocks(g, order, err);
    if (rc == 0)
        rc = claim_until_done(g, &sp, err);
    if (sp.active)
        engine_end_point(g, &sp.run, err);
    free(order);
    return rc != 0 || err->kind != ERROR_NONE ? -1 : 0;
}


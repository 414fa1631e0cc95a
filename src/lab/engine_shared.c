/* A shared plan's work source (machines: share): the plan's blocks put in the store, then
 * claimed one at a time under a lease kept while it runs, each committed whole with its claim. */
#include "lab/engine_internal.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/error.h"
#include "core/runner.h"

/* How often a worker with nothing to claim looks again for blocks whose lease ran out. */
#define SHARE_POLL_SECONDS 0.5

typedef struct {
    store_claim claim;           /* the block being run (its point is read at once) */
} shared_source;

/* ---- the store's operations, one function each ---- */

/* store_plan_blocks: the plan's blocks in claim order (the points in the seed's order, the
 * blocks in order, so workers go through a point together: one server start per point). */
static int plan_blocks(engine *g, verdict_error *err)
{
    size_t n = g->points.n * experiment_blocks(g->e);
    store_block *blocks = calloc(n + 1, sizeof *blocks);
    if (blocks == NULL)
        return error_no_memory(err);
    for (size_t i = 0, k = 0; i < g->points.n; i++)
        for (size_t b = 0; b < experiment_blocks(g->e); b++, k++)
            blocks[k] = (store_block){g->points.ids[g->point_order[i]], (long)b};
    int rc = store_plan_blocks(g->c->db, g->c->experiment_id, blocks, n, err);
    free(blocks);
    return rc;
}

/* store_claim_block: the first free block of the plan, for this worker. */
static int claim_block(engine *g, store_claim *claim, verdict_error *err)
{
    return store_claim_block(g->c->db, g->c->experiment_id, NULL, engine_machine(g->c),
                             g->c->worker, g->c->lease_seconds, claim, err);
}

/* store_renew_claim: the lease extended; ERROR_CLAIM_LOST when the block was taken over
 * (this worker stalled past its lease). */
static int renew_claim(engine *g, const store_claim *claim, verdict_error *err)
{
    return store_renew_claim(g->c->db, claim->claim, g->c->worker, g->c->lease_seconds, err);
}

/* store_finish_block: the block's samples and the block done, in one transaction, while the
 * claim is still this worker's (ERROR_CLAIM_LOST otherwise: nothing written). */
static int finish_block(engine *g, void *context, const store_sample *rows, size_t n,
                        verdict_error *err)
{
    const store_claim *claim = context;
    return store_finish_block(g->c->db, claim->claim, g->c->worker, g->out->run_id, rows, n,
                              err);
}

/* store_release_block: the block open again at once for any worker (this one stopped or
 * failed). A failure leaves it to its lease. */
static void release_block(engine *g, const store_claim *claim)
{
    verdict_error ignored = {0};
    store_release_block(g->c->db, claim->claim, g->c->worker, &ignored);
}

/* ---- the source ---- */

static void pause_seconds(double seconds)
{
    struct timespec ts = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    nanosleep(&ts, NULL);
}

/* Claims a block: an open one first, then (waiting) one whose worker's lease runs out; none
 * when every block of the plan is done. */
static int shared_next(engine *g, void *source, engine_task *task, verdict_error *err)
{
    shared_source *ss = source;
    for (;;) {
        if (*g->c->stop)
            return error_set(err, ERROR_INTERRUPTED, "interrupted");
        if (claim_block(g, &ss->claim, err) != 0)
            return -1;
        if (!ss->claim.claimed && ss->claim.in_flight == 0)
            return 0;
        if (ss->claim.claimed)
            break;
        pause_seconds(SHARE_POLL_SECONDS);
    }
    long point = point_index_find(&g->points, ss->claim.point);
    if (point < 0) {
        error_set(err, ERROR_INTERNAL, "the store's shared plan names point %s, which this "
                  "experiment does not have", ss->claim.point);
        release_block(g, &ss->claim);
        return -1;
    }
    *task = (engine_task){.point = (size_t)point, .block = ss->claim.block};
    return 1;
}

static int shared_kept(engine *g, void *source, const engine_task *task, verdict_error *err)
{
    (void)task;
    shared_source *ss = source;
    return renew_claim(g, &ss->claim, err);
}

static void note_lost_block(engine *g, const engine_task *task)
{
    char message[256];
    snprintf(message, sizeof message, "block %ld was taken over by another worker after this "
             "one's lease ran out; its runs here were not kept", task->block);
    engine_note_warning(g, "block-lost", g->points.ids[task->point], "", message);
    g->out->blocks_lost++;
}

static void report_progress(engine *g, const store_claim *c)
{
    if (g->c->progress == NULL)
        return;
    size_t total = (size_t)(c->open + c->in_flight + c->done);
    lab_progress pr = {.position = g->at.position, .n_points = g->points.n,
                       .point_id = g->points.ids[g->at.point],
                       .blocks_done = (size_t)c->done, .blocks_planned = total,
                       .elapsed = runner_monotonic_seconds() - g->start, .eta = -1};
    /* the fleet's pace while this worker ran: every worker's blocks over this one's time */
    if (g->out->complete_blocks > 0 && c->done > 0)
        pr.eta = pr.elapsed * (double)(total - (size_t)c->done) / (double)c->done;
    g->c->progress(g->c->progress_context, &pr);
}

/* The block measured in full is committed with its claim; a block lost to another worker is
 * noted and the work goes on; a stopped or failed one is given back. Whatever was not
 * committed is thrown away with its seq, and measured again if the block comes back. */
static int shared_retire(engine *g, void *source, const engine_task *task, int status,
                         verdict_error *err)
{
    shared_source *ss = source;
    assert(status != 0 || g->batch.n == g->n_units); /* every unit of a claimed block ran */
    if (status == 0 && engine_batch_commit(g, finish_block, &ss->claim, err) == 0) {
        g->out->complete_blocks++;
        g->out->blocks_retaken += ss->claim.attempt > 1;
        report_progress(g, &ss->claim);
        return 0;
    }
    engine_batch_discard(g);
    if (g->at.active && g->at.point == task->point)
        engine_forget_block(g, task->block);
    if (error_is(err, ERROR_CLAIM_LOST)) {
        error_clear(err);
        note_lost_block(g, task);
        return 0;
    }
    release_block(g, &ss->claim);
    return -1;
}

/* Nothing to commit: retire commits or throws away every block's batch. */
static int shared_flush(engine *g, void *source, verdict_error *err)
{
    (void)source, (void)err;
    assert(g->batch.n == 0);
    return 0;
}

static int shared_start(engine *g, void *source, verdict_error *err)
{
    (void)source;
    return plan_blocks(g, err);
}

const engine_source_kind engine_shared_source = {
    .state_size = sizeof(shared_source), .start = shared_start, .next = shared_next,
    .kept = shared_kept, .retire = shared_retire, .flush = shared_flush};

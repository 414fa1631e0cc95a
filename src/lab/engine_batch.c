/* Measurements held until they are committed together: one transaction for many samples
 * instead of one per sample, flushed at block ends, before anything returns, on any stop. */
#include "lab/engine_internal.h"

#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "common/error.h"
#include "core/runner.h"

int engine_batch_add(engine *g, size_t point, size_t unit, long block,
                     const target_measurement *m, double started)
{
    engine_batch *b = &g->batch;
    size_t values_needed;
    if (array_reserve((void **)&b->items, &b->capacity, b->n + 1, sizeof *b->items) != 0 ||
        size_multiply(b->n + 1, g->n_metrics + 1, &values_needed) != 0 ||
        array_reserve((void **)&b->values, &b->values_capacity, values_needed,
                      sizeof *b->values) != 0)
        return -1;
    engine_batch_item *item = &b->items[b->n];
    *item = (engine_batch_item){.point = point, .unit = unit, .block = block,
                                .started = started, .seq = g->seq, .m = *m};
    /* the values move with the array: pointed to again when the rows are made */
    memcpy(b->values + b->n * g->n_metrics, m->values, g->n_metrics * sizeof *b->values);
    item->m.values = NULL;
    if (b->n == 0)
        b->oldest = runner_monotonic_seconds();
    b->n++;
    g->seq++;
    return 0;
}

bool engine_batch_due(const engine *g)
{
    const engine_batch *b = &g->batch;
    return b->n >= ENGINE_BATCH_SAMPLES ||
           (b->n > 0 && runner_monotonic_seconds() - b->oldest >= ENGINE_BATCH_SECONDS);
}

/* The store's rows of the batch (strings borrowed from the engine and the batch), or NULL
 * when out of memory; the caller frees the array. */
static store_sample *batch_rows(engine *g)
{
    engine_batch *b = &g->batch;
    store_sample *rows = calloc(b->n + 1, sizeof *rows);
    for (size_t i = 0; rows && i < b->n; i++) {
        engine_batch_item *item = &b->items[i];
        item->m.values = b->values + i * g->n_metrics;
        rows[i] = engine_sample_row(g, item->point, item->unit, item->block, &item->m,
                                    item->started);
        rows[i].seq = item->seq;
    }
    return rows;
}

int engine_batch_flush(engine *g, verdict_error *err)
{
    engine_batch *b = &g->batch;
    if (b->n == 0)
        return 0;
    store_sample *rows = batch_rows(g);
    int rc = rows == NULL ? error_no_memory(err)
                          : store_add_samples(g->c->db, g->out->run_id, rows, b->n, err);
    free(rows);
    if (rc != 0)
        return -1;
    g->out->samples_taken += b->n;
    b->n = 0;
    return 0;
}

void engine_batch_free(engine_batch *b)
{
    free(b->items);
    free(b->values);
    memset(b, 0, sizeof *b);
}

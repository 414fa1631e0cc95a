/* The plan's duration from the store's own measurements: a resumed or extended experiment
 * knows its runs' mean; a new one only a bound, from its timeout, or nothing. */
#include "lab/lab_estimate.h"

#include <math.h>
#include <unistd.h>

#include "common/error.h"
#include "lab/lab_looks.h"
#include "store/store.h"

typedef struct {
    size_t runs;
    size_t timed;   /* of those, runs that kept their time (none under counters: valgrind) */
    double seconds;
} stored_runs;

static int add_run(void *context, const store_sample *s)
{
    stored_runs *r = context;
    if (s->block < 0 || s->timed_out)
        return 0;
    r->runs++;
    if (isfinite(s->wall)) {
        r->timed++;
        r->seconds += s->wall;
    }
    return 0;
}

/* The stored runs of the experiment and its blocks per point after extensions. */
static void read_store(const char *path, const experiment *e, stored_runs *runs,
                       lab_looks *looks)
{
    store *db = NULL;
    int64_t id;
    verdict_error why = {0};
    lab_looks read;
    verdict_error err;
    if (!store_is_postgres(path) && access(path, R_OK) != 0)
        return;
    if (store_open_read_only(path, &db, &why) != 0 ||
        store_find_experiment(db, e->name, &id, &why) != 0) {
        store_close(db);
        return;
    }
    if (store_for_each_sample(db, id, add_run, runs, &why) != 0)
        *runs = (stored_runs){0, 0, 0};
    if (lab_looks_load(db, id, e, &read, &err) == 0 && read.blocks > looks->blocks)
        *looks = read;
    store_close(db);
}

void lab_estimate_duration(const char *store_path, const experiment *e, lab_estimate *out)
{
    stored_runs stored = {0, 0, 0};
    size_t blocks = experiment_blocks(e);
    lab_looks looks = {.planned_blocks = blocks, .from_blocks = blocks, .blocks = blocks};
    if (store_path)
        read_store(store_path, e, &stored, &looks);
    size_t per_block = experiment_unit_count(e) * experiment_point_count(e);
    *out = (lab_estimate){.blocks = looks.blocks, .extensions = looks.extensions,
                          .looks = looks,
                          .runs_planned = per_block * looks.blocks, .runs_stored = stored.runs,
                          .warmup_runs = e->warmup * per_block, .mean_run_seconds = NAN,
                          .seconds_left = NAN, .seconds_bound = NAN};
    if (out->runs_stored > out->runs_planned)
        out->runs_stored = out->runs_planned;
    if (out->runs_stored == out->runs_planned) /* done: no point warms up again */
        out->warmup_runs = 0;
    size_t to_go = out->runs_planned - out->runs_stored + out->warmup_runs;
    if (stored.timed > 0) {
        out->mean_run_seconds = stored.seconds / (double)stored.timed;
        out->seconds_left = out->mean_run_seconds * (double)to_go;
    }
    if (e->timeout > 0)
        out->seconds_bound = e->timeout * (double)to_go;
}

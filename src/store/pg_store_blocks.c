/* The PostgreSQL back end's plan changes: shared blocks claimed by one worker at a time (FOR
 * UPDATE SKIP LOCKED) under leases by the database's clock, and extensions of a plan. */
#include <assert.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"

#include "store/pg_store.h"

#define BLOCK_FREE "(state = 'open' OR (state = 'claimed' AND lease_until < now()))"
#define LEASE_RUNNING "(state = 'claimed' AND lease_until >= now())"

static const char sql_plan_blocks[] =
    "INSERT INTO block (experiment_id, point, block, position)"
    " SELECT $1::bigint, b.point, b.block, b.position - 1"
    " FROM unnest($2::text[], $3::bigint[]) WITH ORDINALITY AS b(point, block, position)"
    " ON CONFLICT (experiment_id, point, block) DO NOTHING";
/* a block another claim holds locked is skipped, not waited for: never given twice */
static const char sql_free_block[] =
    "SELECT id FROM block WHERE experiment_id = $1::bigint"
    " AND ($2::text IS NULL OR point = $2::text) AND " BLOCK_FREE
    " ORDER BY position, id LIMIT 1 FOR UPDATE SKIP LOCKED";
static const char sql_take_block[] =
    "UPDATE block SET state = 'claimed', machine = $2, worker = $3,"
    " lease_until = now() + $4::float8 * interval '1 second', attempts = attempts + 1"
    " WHERE id = $1::bigint RETURNING point, block, attempts";
static const char sql_count_blocks[] =
    "SELECT count(*) FILTER (WHERE " BLOCK_FREE "),"
    " count(*) FILTER (WHERE " LEASE_RUNNING "),"
    " count(*) FILTER (WHERE state = 'done') FROM block WHERE experiment_id = $1::bigint";
static const char sql_renew_claim[] =
    "UPDATE block SET lease_until = now() + $3::float8 * interval '1 second'"
    " WHERE id = $1::bigint AND state = 'claimed' AND worker = $2";
static const char sql_lock_claim[] =
    "SELECT state, worker FROM block WHERE id = $1::bigint FOR UPDATE";
static const char sql_block_done[] =
    "UPDATE block SET state = 'done', lease_until = NULL WHERE id = $1::bigint";
static const char sql_release_block[] =
    "UPDATE block SET state = 'open', machine = '', worker = '', lease_until = NULL"
    " WHERE id = $1::bigint AND state = 'claimed' AND worker = $2";

/* only when it grows the last extension: concurrent `--more`s cannot shrink the plan */
static const char sql_add_extension[] =
    "INSERT INTO extension (experiment_id, blocks) SELECT $1::bigint, $2::bigint"
    " WHERE $2::bigint > (SELECT coalesce(max(blocks), 0) FROM extension"
    " WHERE experiment_id = $1::bigint) RETURNING blocks";

/* ---- planning ---- */

typedef struct {
    pg_store_number experiment;
    char *points, *blocks;
    int64_t experiment_id;
} plan_args;

static int plan_body(pg_store *s, void *args, verdict_error *err)
{
    plan_args *a = args;
    const char *params[] = {pg_store_int(&a->experiment, a->experiment_id), a->points,
                            a->blocks};
    if (pg_store_command(s, sql_plan_blocks, 3, params, "planning the blocks", err) == 0)
        return 0;
    return pg_store_fail_experiment(s, a->experiment_id, err);
}

/* The blocks as two arrays for unnest, in the order given; NULL when out of memory. */
static int plan_arrays(const store_block *blocks, size_t n, plan_args *a)
{
    const char **points = malloc(n * sizeof *points);
    double *numbers = malloc(n * sizeof *numbers);
    if (points != NULL && numbers != NULL) {
        for (size_t i = 0; i < n; i++) {
            points[i] = blocks[i].point;
            numbers[i] = (double)blocks[i].block; /* exact: block numbers are far below 2^53 */
        }
        a->points = pg_store_text_array(points, n);
        a->blocks = pg_store_double_array(numbers, n);
    }
    free(points);
    free(numbers);
    return a->points != NULL && a->blocks != NULL ? 0 : -1;
}

int pg_store_plan_blocks(store *base, int64_t experiment_id, const store_block *blocks,
                         size_t n, verdict_error *err)
{
    assert(n > 0 && blocks != NULL); /* the dispatcher calls with blocks only */
    pg_store *s = pg_store_of(base);
    plan_args a = {.experiment_id = experiment_id};
    int status = plan_arrays(blocks, n, &a) == 0
                     ? pg_store_call(s, NULL, plan_body, &a, "planning the blocks", err)
                     : error_set(err, ERROR_NO_MEMORY, "%s: out of memory", s->label);
    free(a.points);
    free(a.blocks);
    return status;
}

/* ---- claiming ---- */

typedef struct {
    int64_t experiment_id;
    const char *point, *machine, *worker;
    pg_store_number lease;
    store_claim *out;
} claim_args;

static int take_block(pg_store *s, claim_args *a, const char *id, verdict_error *err)
{
    const char *params[] = {id, a->machine, a->worker, a->lease.text};
    PGresult *res = pg_store_exec(s, sql_take_block, 4, params, PGRES_TUPLES_OK,
                                  "claiming a block", err);
    if (res == NULL)
        return -1;
    a->out->claimed = true;
    a->out->claim = strtoll(id, NULL, 10);
    a->out->block = (long)pg_store_get_int(res, 0, 1);
    a->out->attempt = (long)pg_store_get_int(res, 0, 2);
    bool kept = pg_store_keep(&s->got_point, PQgetvalue(res, 0, 0));
    PQclear(res);
    a->out->point = s->got_point;
    return kept ? 0 : error_set(err, ERROR_NO_MEMORY, "%s: out of memory", s->label);
}

static int count_blocks(pg_store *s, claim_args *a, const char *experiment, verdict_error *err)
{
    const char *params[] = {experiment};
    PGresult *res = pg_store_exec(s, sql_count_blocks, 1, params, PGRES_TUPLES_OK,
                                  "counting the blocks", err);
    if (res == NULL)
        return -1;
    a->out->open = (long)pg_store_get_int(res, 0, 0);
    a->out->in_flight = (long)pg_store_get_int(res, 0, 1);
    a->out->done = (long)pg_store_get_int(res, 0, 2);
    PQclear(res);
    return 0;
}

static int claim_body(pg_store *s, void *args, verdict_error *err)
{
    claim_args *a = args;
    memset(a->out, 0, sizeof *a->out);
    pg_store_number experiment;
    const char *params[] = {pg_store_int(&experiment, a->experiment_id), a->point};
    PGresult *res = pg_store_exec(s, sql_free_block, 2, params, PGRES_TUPLES_OK,
                                  "finding a free block", err);
    if (res == NULL)
        return -1;
    int status = PQntuples(res) == 1 ? take_block(s, a, PQgetvalue(res, 0, 0), err) : 0;
    PQclear(res);
    return status == 0 ? count_blocks(s, a, params[0], err) : status;
}

int pg_store_claim_block(store *base, int64_t experiment_id, const char *point,
                         const char *machine, const char *worker, double lease_seconds,
                         store_claim *out, verdict_error *err)
{
    assert(machine != NULL && worker != NULL && out != NULL); /* "" is the local machine */
    claim_args a = {experiment_id, point, machine, worker, {""}, out};
    pg_store_double(&a.lease, lease_seconds);
    int status = pg_store_call(pg_store_of(base), "BEGIN", claim_body, &a, "claiming a block",
                               err);
    if (status != 0)
        memset(out, 0, sizeof *out);
    return status;
}

/* ---- renewing, finishing, releasing ---- */

typedef struct {
    pg_store_number claim_text, lease;
    int64_t claim, run_id;
    const char *worker;
    const store_sample *samples;
    size_t n_samples;
} held_args;

/* An UPDATE of the worker's own claim: 0 when it touched the row, -1 with ERROR_CLAIM_LOST when not
 * (after a reconnect, `done_before` says whether a lost commit may have done it already). */
static int update_claim(pg_store *s, held_args *a, const char *sql, int n_params,
                        bool done_before, const char *doing, verdict_error *err)
{
    const char *params[] = {pg_store_int(&a->claim_text, a->claim), a->worker, a->lease.text};
    PGresult *res = pg_store_exec(s, sql, n_params, params, PGRES_COMMAND_OK, doing, err);
    if (res == NULL)
        return -1;
    bool touched = strcmp(PQcmdTuples(res), "1") == 0;
    PQclear(res);
    if (touched || (done_before && s->retrying))
        return 0;
    return store_fail_claim_lost(s->label, a->claim, err);
}

static int renew_body(pg_store *s, void *args, verdict_error *err)
{
    return update_claim(s, args, sql_renew_claim, 3, false, "renewing a claim", err);
}

int pg_store_renew_claim(store *base, int64_t claim, const char *worker, double lease_seconds,
                         verdict_error *err)
{
    held_args a = {.claim = claim, .worker = worker};
    pg_store_double(&a.lease, lease_seconds);
    return pg_store_call(pg_store_of(base), NULL, renew_body, &a, "renewing a claim", err);
}

/* The release of a lost commit already opened the block: a redo that finds it gone is done. */
static int release_body(pg_store *s, void *args, verdict_error *err)
{
    return update_claim(s, args, sql_release_block, 2, true, "releasing a block", err);
}

int pg_store_release_block(store *base, int64_t claim, const char *worker, verdict_error *err)
{
    held_args a = {.claim = claim, .worker = worker};
    return pg_store_call(pg_store_of(base), NULL, release_body, &a, "releasing a block", err);
}

/* Locks the block's row: 0 when it is still claimed by the worker, 1 when this worker
 * finished it already (a commit cut by a lost connection), -1 with ERROR_CLAIM_LOST otherwise. */
static int lock_claim(pg_store *s, held_args *a, verdict_error *err)
{
    const char *params[] = {pg_store_int(&a->claim_text, a->claim)};
    PGresult *res = pg_store_exec(s, sql_lock_claim, 1, params, PGRES_TUPLES_OK,
                                  "checking a claim", err);
    if (res == NULL)
        return -1;
    bool found = PQntuples(res) == 1;
    bool ours = found && strcmp(PQgetvalue(res, 0, 1), a->worker) == 0;
    const char *state = found ? PQgetvalue(res, 0, 0) : "";
    int status = !found ? error_set(err, ERROR_STORE, "%s: no block %" PRId64, s->label, a->claim)
                 : ours && strcmp(state, "claimed") == 0 ? 0
                 : ours && s->retrying && strcmp(state, "done") == 0
                     ? 1
                     : store_fail_claim_lost(s->label, a->claim, err);
    PQclear(res);
    return status;
}

static int finish_body(pg_store *s, void *args, verdict_error *err)
{
    held_args *a = args;
    int status = lock_claim(s, a, err);
    if (status != 0)
        return status > 0 ? 0 : status;
    for (size_t i = 0; status == 0 && i < a->n_samples; i++)
        status = pg_store_insert_sample(s, a->run_id, &a->samples[i], err);
    if (status != 0)
        return status;
    const char *params[] = {a->claim_text.text};
    return pg_store_command(s, sql_block_done, 1, params, "finishing a block", err);
}

int pg_store_finish_block(store *base, int64_t claim, const char *worker, int64_t run_id,
                          const store_sample *samples, size_t n_samples, verdict_error *err)
{
    held_args a = {.claim = claim, .run_id = run_id, .worker = worker, .samples = samples,
                   .n_samples = n_samples};
    return pg_store_call(pg_store_of(base), "BEGIN", finish_body, &a, "finishing a block", err);
}

/* ---- extensions ---- */

typedef struct {
    int64_t experiment_id;
    long blocks;
    bool inserted;
} extension_args;

static int extension_body(pg_store *s, void *args, verdict_error *err)
{
    extension_args *a = args;
    pg_store_number id, blocks;
    const char *params[] = {pg_store_int(&id, a->experiment_id), pg_store_int(&blocks, a->blocks)};
    PGresult *res = pg_store_exec(s, sql_add_extension, 2, params, PGRES_TUPLES_OK,
                                  "extending the experiment", err);
    if (res == NULL)
        return pg_store_fail_experiment(s, a->experiment_id, err);
    a->inserted = PQntuples(res) == 1;
    PQclear(res);
    return 0;
}

int pg_store_add_extension(store *base, int64_t experiment_id, long blocks, verdict_error *err)
{
    pg_store *s = pg_store_of(base);
    extension_args a = {.experiment_id = experiment_id, .blocks = blocks};
    if (pg_store_call(s, NULL, extension_body, &a, "extending the experiment", err) != 0)
        return -1;
    return a.inserted ? 0 : 1;
}

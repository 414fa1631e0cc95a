/* The PostgreSQL back end's signatures of experiments (`verdict run --sign`, issue 31): one
 * per signer's key, replaced when the same key signs again, read back by public key. */
#include <assert.h>
#include <stdlib.h>

#include "common/error.h"

#include "store/pg_store.h"

static const char sql_sign[] =
    "INSERT INTO experiment_signature (experiment_id, public_key, signature, text_sha256,"
    " plan_hash, tool_build, extensions) VALUES ($1::bigint, $2, $3, $4, $5, $6, $7)"
    " ON CONFLICT (experiment_id, public_key) DO UPDATE SET signature = excluded.signature,"
    " text_sha256 = excluded.text_sha256, plan_hash = excluded.plan_hash,"
    " tool_build = excluded.tool_build, extensions = excluded.extensions, recorded = now()";
static const char sql_select_signatures[] =
    "SELECT public_key, signature, text_sha256, plan_hash, tool_build, extensions"
    " FROM experiment_signature WHERE experiment_id = $1::bigint ORDER BY public_key";

typedef struct {
    int64_t experiment_id;
    const store_signature *signature;
    PGresult *rows;
} signature_args;

static int sign_body(pg_store *s, void *args, verdict_error *err)
{
    signature_args *a = args;
    const store_signature *g = a->signature;
    pg_store_number id;
    const char *params[] = {pg_store_int(&id, a->experiment_id), g->public_key, g->signature,
                            g->text_sha256, g->plan_hash, g->tool_build, g->extensions};
    if (pg_store_command(s, sql_sign, 7, params, "signing the experiment", err) != 0)
        return pg_store_fail_experiment(s, a->experiment_id, err);
    return 0;
}

int pg_store_sign_experiment(store *base, int64_t experiment_id, const store_signature *signature,
                             verdict_error *err)
{
    signature_args a = {.experiment_id = experiment_id, .signature = signature};
    return pg_store_call(pg_store_of(base), NULL, sign_body, &a, "signing the experiment", err);
}

static int select_body(pg_store *s, void *args, verdict_error *err)
{
    signature_args *a = args;
    pg_store_number id;
    const char *params[] = {pg_store_int(&id, a->experiment_id)};
    PQclear(a->rows);
    a->rows = pg_store_exec(s, sql_select_signatures, 1, params, PGRES_TUPLES_OK,
                            "reading the signatures", err);
    return a->rows != NULL ? 0 : -1;
}

int pg_store_for_each_signature(store *base, int64_t experiment_id, store_signature_fn fn,
                                void *context, verdict_error *err)
{
    signature_args a = {.experiment_id = experiment_id};
    if (pg_store_call(pg_store_of(base), NULL, select_body, &a, "reading the signatures",
                      err) != 0) {
        PQclear(a.rows);
        return -1;
    }
    int status = 0;
    for (int row = 0; status == 0 && row < PQntuples(a.rows); row++) {
        store_signature g = {
            .public_key = PQgetvalue(a.rows, row, 0), .signature = PQgetvalue(a.rows, row, 1),
            .text_sha256 = PQgetvalue(a.rows, row, 2), .plan_hash = PQgetvalue(a.rows, row, 3),
            .tool_build = PQgetvalue(a.rows, row, 4), .extensions = PQgetvalue(a.rows, row, 5)};
        status = fn(context, &g);
    }
    PQclear(a.rows);
    return status;
}

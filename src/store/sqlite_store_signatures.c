/* The SQLite back end's signatures of experiments (`verdict run --sign`, issue 31): one per
 * signer's key, replaced when the same key signs again, read back by public key. */
#include <inttypes.h>

#include "common/error.h"
#include "store/sqlite_store_internal.h"

int sqlite_store_sign_experiment(store *base, int64_t experiment_id,
                                 const store_signature *signature, verdict_error *err)
{
    sqlite_store *s = sqlite_store_of(base);
    sqlite3_stmt *stmt = sqlite_store_statement(s, STMT_SIGN_EXPERIMENT, err);
    if (stmt == NULL)
        return -1;
    const char *texts[] = {signature->public_key, signature->signature, signature->text_sha256,
                           signature->plan_hash, signature->tool_build, signature->extensions};
    sqlite3_bind_int64(stmt, 1, experiment_id);
    for (int i = 0; i < 6; i++)
        sqlite3_bind_text(stmt, i + 2, texts[i], -1, SQLITE_STATIC);
    int rc = sqlite3_step(stmt);
    sqlite3_reset(stmt);
    if (rc == SQLITE_CONSTRAINT_FOREIGNKEY)
        return error_set(err, ERROR_STORE, "%s: no experiment %" PRId64, s->path, experiment_id);
    return rc == SQLITE_DONE ? 0 : sqlite_store_fail(s, rc, "signing the experiment", err);
}

static const char *text_at(sqlite3_stmt *stmt, int column)
{
    const char *text = (const char *)sqlite3_column_text(stmt, column);
    return text != NULL ? text : "";
}

int sqlite_store_for_each_signature(store *base, int64_t experiment_id, store_signature_fn fn,
                                    void *context, verdict_error *err)
{
    sqlite_store *s = sqlite_store_of(base);
    sqlite3_stmt *stmt = sqlite_store_statement(s, STMT_SELECT_SIGNATURES, err);
    if (stmt == NULL)
        return -1;
    sqlite3_bind_int64(stmt, 1, experiment_id);
    int rc = SQLITE_DONE, status = 0;
    while (status == 0 && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        store_signature g = {.public_key = text_at(stmt, 0), .signature = text_at(stmt, 1),
                             .text_sha256 = text_at(stmt, 2), .plan_hash = text_at(stmt, 3),
                             .tool_build = text_at(stmt, 4), .extensions = text_at(stmt, 5)};
        status = fn(context, &g);
    }
    if (status == 0 && rc != SQLITE_DONE)
        status = sqlite_store_fail(s, rc, "reading the signatures", err);
    sqlite3_reset(stmt);
    return status;
}

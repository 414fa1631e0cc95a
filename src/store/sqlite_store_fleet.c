/* The SQLite back end's fleet and plan changes: machines and their facts, the blocks of a
 * shared plan claimed under leases (BEGIN IMMEDIATE serialises claims), and extensions. */
#include <assert.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"

#include "store/sqlite_store_internal.h"

static int insert_machine_facts(sqlite_store *s, const char *machine, const store_fact *facts,
                                size_t n_facts, verdict_error *err)
{
    for (size_t i = 0; i < n_facts; i++) {
        sqlite3_stmt *stmt = sqlite_store_statement(s, STMT_INSERT_MACHINE_FACT, err);
        if (stmt == NULL)
            return -1;
        const char *key = facts[i].key != NULL ? facts[i].key : "";
        sqlite3_bind_text(stmt, 1, machine, -1, SQLITE_STATIC);
        sqlite3_bind_int64(stmt, 2, (sqlite3_int64)i);
        sqlite3_bind_text(stmt, 3, key, -1, SQLITE_STATIC);
        sqlite3_bind_text(stmt, 4, facts[i].value != NULL ? facts[i].value : "", -1,
                          SQLITE_STATIC);
        int rc = sqlite3_step(stmt);
        sqlite3_reset(stmt);
        if (rc == SQLITE_CONSTRAINT_UNIQUE || rc == SQLITE_CONSTRAINT_PRIMARYKEY)
            return store_fail_machine_fact_twice(s->path, key, machine, err);
        if (rc != SQLITE_DONE)
            return sqlite_store_fail(s, rc, "recording the machine's facts", err);
    }
    return 0;
}

static int record_machine_locked(sqlite_store *s, const char *machine, const store_fact *facts,
                                 size_t n_facts, verdict_error *err)
{
    const char *doing = "recording the machine";
    sqlite3_stmt *upsert = sqlite_store_statement(s, STMT_UPSERT_MACHINE, err);
    if (upsert == NULL)
        return -1;
    sqlite3_bind_text(upsert, 1, machine, -1, SQLITE_STATIC);
    if (sqlite_store_run(s, upsert, doing, err) != 0)
        return -1;
    sqlite3_stmt *forget = sqlite_store_statement(s, STMT_DELETE_MACHINE_FACTS, err);
    if (forget == NULL)
        return -1;
    sqlite3_bind_text(forget, 1, machine, -1, SQLITE_STATIC);
    if (sqlite_store_run(s, forget, doing, err) != 0)
        return -1;
    return insert_machine_facts(s, machine, facts, n_facts, err);
}

int sqlite_store_record_machine(store *base, const char *machine, const store_fact *facts,
                                size_t n_facts, verdict_error *err)
{
    sqlite_store *s = sqlite_store_of(base);
    const char *doing = "recording the machine";
    if (sqlite_store_begin(s, doing, err) != 0)
        return -1;
    int status = record_machine_locked(s, machine, facts, n_facts, err);
    return sqlite_store_finish(s, status, doing, err);
}

static int plan_blocks_locked(sqlite_store *s, int64_t experiment_id, const store_block *blocks,
                              size_t n, verdict_error *err)
{
    for (size_t i = 0; i < n; i++) {
        sqlite3_stmt *stmt = sqlite_store_statement(s, STMT_INSERT_BLOCK, err);
        if (stmt == NULL)
            return -1;
        sqlite3_bind_int64(stmt, 1, experiment_id);
        sqlite3_bind_text(stmt, 2, blocks[i].point, -1, SQLITE_STATIC);
        sqlite3_bind_int64(stmt, 3, blocks[i].block);
        sqlite3_bind_int64(stmt, 4, (sqlite3_int64)i);
        int rc = sqlite3_step(stmt);
        sqlite3_reset(stmt);
        if (rc == SQLITE_CONSTRAINT_FOREIGNKEY)
            return error_set(err, ERROR_STORE, "%s: no experiment %" PRId64, s->path,
                             experiment_id);
        if (rc != SQLITE_DONE)
            return sqlite_store_fail(s, rc, "planning the blocks", err);
    }
    return 0;
}

int sqlite_store_plan_blocks(store *base, int64_t experiment_id, const store_block *blocks,
                             size_t n, verdict_error *err)
{
    assert(n > 0 && blocks != NULL); /* the dispatcher calls with blocks only */
    sqlite_store *s = sqlite_store_of(base);
    const char *doing = "planning the blocks";
    if (sqlite_store_begin(s, doing, err) != 0)
        return -1;
    int status = plan_blocks_locked(s, experiment_id, blocks, n, err);
    return sqlite_store_finish(s, status, doing, err);
}

static int count_blocks(sqlite_store *s, int64_t experiment_id, store_claim *out,
                        verdict_error *err)
{
    sqlite3_stmt *stmt = sqlite_store_statement(s, STMT_COUNT_BLOCKS, err);
    if (stmt == NULL)
        return -1;
    sqlite3_bind_int64(stmt, 1, experiment_id);
    int rc = sqlite3_step(stmt);
    if (rc == SQLITE_ROW) {
        out->open = (long)sqlite3_column_int64(stmt, 0);
        out->in_flight = (long)sqlite3_column_int64(stmt, 1);
        out->done = (long)sqlite3_column_int64(stmt, 2);
    }
    sqlite3_reset(stmt);
    return rc == SQLITE_ROW ? 0 : sqlite_store_fail(s, rc, "counting the blocks", err);
}

/* Marks the free block the worker's; out's point is kept by the store until the next claim. */
static int take_block(sqlite_store *s, sqlite3_stmt *found, const char *machine,
                      const char *worker, double lease_seconds, store_claim *out,
                          verdict_error *err)
{
    out->claim = sqlite3_column_int64(found, 0);
    out->block = (long)sqlite3_column_int64(found, 2);
    free(s->got_point);
    s->got_point = store_copy_string((const char *)sqlite3_column_text(found, 1));
    sqlite3_reset(found);
    if (s->got_point == NULL)
        return error_set(err, ERROR_NO_MEMORY, "%s: out of memory", s->path);
    out->point = s->got_point;
    sqlite3_stmt *take = sqlite_store_statement(s, STMT_TAKE_BLOCK, err);
    if (take == NULL)
        return -1;
    sqlite3_bind_int64(take, 1, out->claim);
    sqlite3_bind_text(take, 2, machine, -1, SQLITE_STATIC);
    sqlite3_bind_text(take, 3, worker, -1, SQLITE_STATIC);
    sqlite3_bind_double(take, 4, lease_seconds);
    int rc = sqlite3_step(take);
    if (rc == SQLITE_ROW)
        out->attempt = (long)sqlite3_column_int64(take, 0);
    sqlite3_reset(take);
    out->claimed = rc == SQLITE_ROW;
    return out->claimed ? 0 : sqlite_store_fail(s, rc, "claiming a block", err);
}

static int claim_locked(sqlite_store *s, int64_t experiment_id, const char *point,
                        const char *machine, const char *worker, double lease_seconds,
                        store_claim *out, verdict_error *err)
{
    sqlite3_stmt *found = sqlite_store_statement(s, STMT_FREE_BLOCK, err);
    if (found == NULL)
        return -1;
    sqlite3_bind_int64(found, 1, experiment_id);
    if (point != NULL)
        sqlite3_bind_text(found, 2, point, -1, SQLITE_STATIC);
    int rc = sqlite3_step(found);
    int status = 0;
    if (rc == SQLITE_ROW)
        status = take_block(s, found, machine, worker, lease_seconds, out, err);
    else if (rc != SQLITE_DONE)
        status = sqlite_store_fail(s, rc, "finding a free block", err);
    sqlite3_reset(found);
    if (status == 0)
        status = count_blocks(s, experiment_id, out, err);
    return status;
}

int sqlite_store_claim_block(store *base, int64_t experiment_id, const char *point,
                             const char *machine, const char *worker, double lease_seconds,
                             store_claim *out, verdict_error *err)
{
    assert(machine != NULL && worker != NULL && out != NULL); /* "" is the local machine */
    sqlite_store *s = sqlite_store_of(base);
    const char *doing = "claiming a block";
    if (sqlite_store_begin(s, doing, err) != 0)
        return -1;
    int status = claim_locked(s, experiment_id, point, machine, worker, lease_seconds, out, err);
    status = sqlite_store_finish(s, status, doing, err);
    if (status != 0)
        memset(out, 0, sizeof *out);
    return status;
}

int sqlite_store_renew_claim(store *base, int64_t claim, const char *worker, double lease_seconds,
                             verdict_error *err)
{
    sqlite_store *s = sqlite_store_of(base);
    sqlite3_stmt *stmt = sqlite_store_statement(s, STMT_RENEW_CLAIM, err);
    if (stmt == NULL)
        return -1;
    sqlite3_bind_int64(stmt, 1, claim);
    sqlite3_bind_text(stmt, 2, worker, -1, SQLITE_STATIC);
    sqlite3_bind_double(stmt, 3, lease_seconds);
    if (sqlite_store_run(s, stmt, "renewing a claim", err) != 0)
        return -1;
    return sqlite3_changes(s->db) == 1 ? 0 : store_fail_claim_lost(s->path, claim, err);
}

/* 0 when the block is claimed by the worker; -1 with ERROR_CLAIM_LOST when not, or another
 * kind on failure. */
static int check_claim(sqlite_store *s, int64_t claim, const char *worker, verdict_error *err)
{
    sqlite3_stmt *stmt = sqlite_store_statement(s, STMT_CHECK_CLAIM, err);
    if (stmt == NULL)
        return -1;
    sqlite3_bind_int64(stmt, 1, claim);
    int rc = sqlite3_step(stmt);
    bool ours = rc == SQLITE_ROW &&
                strcmp((const char *)sqlite3_column_text(stmt, 0), "claimed") == 0 &&
                strcmp((const char *)sqlite3_column_text(stmt, 1), worker) == 0;
    sqlite3_reset(stmt);
    if (rc == SQLITE_DONE)
        return error_set(err, ERROR_STORE, "%s: no block %" PRId64, s->path, claim);
    if (rc != SQLITE_ROW)
        return sqlite_store_fail(s, rc, "checking a claim", err);
    return ours ? 0 : store_fail_claim_lost(s->path, claim, err);
}

static int finish_locked(sqlite_store *s, int64_t claim, const char *worker, int64_t run_id,
                         const store_sample *samples, size_t n_samples, verdict_error *err)
{
    int status = check_claim(s, claim, worker, err);
    for (size_t i = 0; status == 0 && i < n_samples; i++)
        status = sqlite_store_insert_sample(s, run_id, &samples[i], err);
    if (status != 0)
        return status;
    sqlite3_stmt *done = sqlite_store_statement(s, STMT_BLOCK_DONE, err);
    if (done == NULL)
        return -1;
    sqlite3_bind_int64(done, 1, claim);
    return sqlite_store_run(s, done, "finishing a block", err);
}

int sqlite_store_finish_block(store *base, int64_t claim, const char *worker, int64_t run_id,
                              const store_sample *samples, size_t n_samples, verdict_error *err)
{
    sqlite_store *s = sqlite_store_of(base);
    const char *doing = "finishing a block";
    if (sqlite_store_begin(s, doing, err) != 0)
        return -1;
    int status = finish_locked(s, claim, worker, run_id, samples, n_samples, err);
    return sqlite_store_finish(s, status, doing, err);
}

int sqlite_store_release_block(store *base, int64_t claim, const char *worker, verdict_error *err)
{
    sqlite_store *s = sqlite_store_of(base);
    sqlite3_stmt *stmt = sqlite_store_statement(s, STMT_RELEASE_BLOCK, err);
    if (stmt == NULL)
        return -1;
    sqlite3_bind_int64(stmt, 1, claim);
    sqlite3_bind_text(stmt, 2, worker, -1, SQLITE_STATIC);
    if (sqlite_store_run(s, stmt, "releasing a block", err) != 0)
        return -1;
    return sqlite3_changes(s->db) == 1 ? 0 : store_fail_claim_lost(s->path, claim, err);
}

int sqlite_store_add_extension(store *base, int64_t experiment_id, long blocks, verdict_error *err)
{
    sqlite_store *s = sqlite_store_of(base);
    sqlite3_stmt *stmt = sqlite_store_statement(s, STMT_INSERT_EXTENSION, err);
    if (stmt == NULL)
        return -1;
    sqlite3_bind_int64(stmt, 1, experiment_id);
    sqlite3_bind_int64(stmt, 2, blocks);
    int rc = sqlite3_step(stmt);
    sqlite3_reset(stmt);
    if (rc == SQLITE_CONSTRAINT_FOREIGNKEY)
        return error_set(err, ERROR_STORE, "%s: no experiment %" PRId64, s->path, experiment_id);
    if (rc != SQLITE_DONE)
        return sqlite_store_fail(s, rc, "extending the experiment", err);
    return sqlite3_changes(s->db) == 1 ? 0 : 1;
}

/* The SQLite back end's writes: experiments (plan checked, text history), runs and their
 * facts, each sample with its metrics in its own transaction. */
#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"

#include "store/sqlite_store_internal.h"

/* Binds the experiment's text and its hash (?2, ?3), shared by insert and update. */
static int bind_text_and_hash(sqlite3_stmt *stmt, const store_experiment *e, char hash[17])
{
    store_format_hash(e->text_hash, hash);
    const char *text = e->text != NULL ? e->text : "";
    sqlite3_uint64 length = e->text != NULL ? e->text_length : 0;
    int rc = sqlite3_bind_text64(stmt, 2, text, length, SQLITE_STATIC, SQLITE_UTF8);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_text(stmt, 3, hash, 16, SQLITE_STATIC);
    return rc;
}

static int insert_experiment(sqlite_store *s, const store_experiment *e, int64_t *id,
                             verdict_error *err)
{
    const char *doing = "recording the experiment";
    sqlite3_stmt *stmt = sqlite_store_statement(s, STMT_INSERT_EXPERIMENT, err);
    if (stmt == NULL)
        return -1;
    char text_hash[17], plan_hash[17], seed[24];
    store_format_hash(e->plan_hash, plan_hash);
    snprintf(seed, sizeof seed, "%" PRIu64, e->seed);
    int rc = sqlite3_bind_text(stmt, 1, e->name, -1, SQLITE_STATIC);
    if (rc == SQLITE_OK)
        rc = bind_text_and_hash(stmt, e, text_hash);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_text(stmt, 4, plan_hash, 16, SQLITE_STATIC);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_text(stmt, 5, seed, -1, SQLITE_STATIC);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_text(stmt, 6, s->tool_version, -1, SQLITE_STATIC);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_text(stmt, 7, e->tool_build != NULL ? e->tool_build : "", -1,
                               SQLITE_STATIC);
    if (rc != SQLITE_OK)
        return sqlite_store_fail(s, rc, doing, err);
    if (sqlite_store_run(s, stmt, doing, err) != 0)
        return -1;
    *id = sqlite3_last_insert_rowid(s->db);
    return 0;
}

/* Same plan, new text (a comment edited, say): keep the old text in the history table. */
static int replace_text(sqlite_store *s, int64_t id, const store_experiment *e, verdict_error *err)
{
    const char *doing = "recording the experiment's new text";
    sqlite3_stmt *archive = sqlite_store_statement(s, STMT_ARCHIVE_TEXT, err);
    if (archive == NULL)
        return -1;
    sqlite3_bind_int64(archive, 1, id);
    if (sqlite_store_run(s, archive, doing, err) != 0)
        return -1;
    sqlite3_stmt *update = sqlite_store_statement(s, STMT_UPDATE_TEXT, err);
    if (update == NULL)
        return -1;
    char text_hash[17];
    sqlite3_bind_int64(update, 1, id);
    int rc = bind_text_and_hash(update, e, text_hash);
    if (rc != SQLITE_OK)
        return sqlite_store_fail(s, rc, doing, err);
    return sqlite_store_run(s, update, doing, err);
}

/* Looks the experiment up by name: found is 0/1, and its id and hashes when found. */
static int find_experiment(sqlite_store *s, const char *name, bool *found, int64_t *id,
                           uint64_t *plan_hash, uint64_t *text_hash, verdict_error *err)
{
    sqlite3_stmt *stmt = sqlite_store_statement(s, STMT_FIND_EXPERIMENT, err);
    if (stmt == NULL)
        return -1;
    sqlite3_bind_text(stmt, 1, name, -1, SQLITE_STATIC);
    int rc = sqlite3_step(stmt);
    *found = rc == SQLITE_ROW;
    bool hashes_ok = true;
    if (*found) {
        *id = sqlite3_column_int64(stmt, 0);
        hashes_ok = store_parse_hash((const char *)sqlite3_column_text(stmt, 1), plan_hash) &&
                    store_parse_hash((const char *)sqlite3_column_text(stmt, 2), text_hash);
    }
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        sqlite_store_fail(s, rc, "looking the experiment up", err);
    sqlite3_reset(stmt);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return -1;
    if (!hashes_ok)
        return error_set(err, ERROR_STORE, "%s: experiment %s has a damaged hash", s->path, name);
    return 0;
}

static int open_experiment_locked(sqlite_store *s, const store_experiment *e, int64_t *id,
                                  bool *existing, verdict_error *err)
{
    uint64_t plan_hash = 0, text_hash = 0;
    if (find_experiment(s, e->name, existing, id, &plan_hash, &text_hash, err) != 0)
        return -1;
    if (!*existing)
        return insert_experiment(s, e, id, err);
    if (plan_hash != e->plan_hash)
        return store_fail_plan_changed(s->path, e->name, err);
    if (text_hash != e->text_hash)
        return replace_text(s, *id, e, err);
    return 0;
}

int sqlite_store_open_experiment(store *base, const store_experiment *e, int64_t *experiment_id,
                                 bool *existing, verdict_error *err)
{
    sqlite_store *s = sqlite_store_of(base);
    /* runs started through this handle record the verdict that ran them */
    char *version = store_copy_string(e->tool_version != NULL ? e->tool_version : "unknown");
    if (version == NULL)
        return error_set(err, ERROR_NO_MEMORY, "%s: out of memory", s->path);
    free(s->tool_version);
    s->tool_version = version;
    const char *doing = "opening the experiment";
    if (sqlite_store_begin(s, doing, err) != 0)
        return -1;
    int status = open_experiment_locked(s, e, experiment_id, existing, err);
    return sqlite_store_finish(s, status, doing, err);
}

/* Facts take positions first, first + 1, ... in the run. */
static int insert_facts(sqlite_store *s, int64_t run_id, int64_t first, const store_fact *facts,
                        size_t n_facts, verdict_error *err)
{
    const char *doing = "recording the run's facts";
    for (size_t i = 0; i < n_facts; i++) {
        sqlite3_stmt *stmt = sqlite_store_statement(s, STMT_INSERT_FACT, err);
        if (stmt == NULL)
            return -1;
        sqlite3_bind_int64(stmt, 1, run_id);
        sqlite3_bind_int64(stmt, 2, first + (sqlite3_int64)i);
        sqlite3_bind_text(stmt, 3, facts[i].key != NULL ? facts[i].key : "", -1, SQLITE_STATIC);
        /* readers strdup values: never hand them NULL */
        sqlite3_bind_text(stmt, 4, facts[i].value != NULL ? facts[i].value : "", -1,
                          SQLITE_STATIC);
        int rc = sqlite3_step(stmt);
        sqlite3_reset(stmt);
        if (rc == SQLITE_CONSTRAINT_FOREIGNKEY)
            return error_set(err, ERROR_STORE, "%s: no run %" PRId64 " to add facts to", s->path,
                             run_id);
        if (rc == SQLITE_CONSTRAINT_UNIQUE || rc == SQLITE_CONSTRAINT_PRIMARYKEY)
            return store_fail_fact_twice(s->path, facts[i].key, err);
        if (rc != SQLITE_DONE)
            return sqlite_store_fail(s, rc, doing, err);
    }
    return 0;
}

static int begin_run_locked(sqlite_store *s, int64_t experiment_id, const store_fact *facts,
                            size_t n_facts, int64_t *run_id, verdict_error *err)
{
    sqlite3_stmt *stmt = sqlite_store_statement(s, STMT_INSERT_RUN, err);
    if (stmt == NULL)
        return -1;
    sqlite3_bind_int64(stmt, 1, experiment_id);
    sqlite3_bind_text(stmt, 2, s->tool_version != NULL ? s->tool_version : "unknown", -1,
                      SQLITE_STATIC);
    int rc = sqlite3_step(stmt);
    sqlite3_reset(stmt);
    if (rc == SQLITE_CONSTRAINT_FOREIGNKEY)
        return error_set(err, ERROR_STORE, "%s: no experiment %" PRId64, s->path, experiment_id);
    if (rc != SQLITE_DONE)
        return sqlite_store_fail(s, rc, "recording the run", err);
    *run_id = sqlite3_last_insert_rowid(s->db);
    return insert_facts(s, *run_id, 0, facts, n_facts, err);
}

int sqlite_store_begin_run(store *base, int64_t experiment_id, const store_fact *facts,
                           size_t n_facts, int64_t *run_id, verdict_error *err)
{
    sqlite_store *s = sqlite_store_of(base);
    const char *doing = "recording the run";
    if (sqlite_store_begin(s, doing, err) != 0)
        return -1;
    int status = begin_run_locked(s, experiment_id, facts, n_facts, run_id, err);
    return sqlite_store_finish(s, status, doing, err);
}

static int add_facts_locked(sqlite_store *s, int64_t run_id, const store_fact *facts,
                            size_t n_facts, verdict_error *err)
{
    sqlite3_stmt *stmt = sqlite_store_statement(s, STMT_NEXT_FACT_POSITION, err);
    if (stmt == NULL)
        return -1;
    sqlite3_bind_int64(stmt, 1, run_id);
    int rc = sqlite3_step(stmt);
    int64_t first = rc == SQLITE_ROW ? sqlite3_column_int64(stmt, 0) : 0;
    sqlite3_reset(stmt);
    if (rc != SQLITE_ROW)
        return sqlite_store_fail(s, rc, "recording the run's facts", err);
    return insert_facts(s, run_id, first, facts, n_facts, err);
}

int sqlite_store_add_run_facts(store *base, int64_t run_id, const store_fact *facts,
                               size_t n_facts, verdict_error *err)
{
    sqlite_store *s = sqlite_store_of(base);
    const char *doing = "recording the run's facts";
    if (sqlite_store_begin(s, doing, err) != 0)
        return -1;
    int status = add_facts_locked(s, run_id, facts, n_facts, err);
    return sqlite_store_finish(s, status, doing, err);
}

/* Unknown readings are NaN in memory and NULL in the store. */
static void bind_reading(sqlite3_stmt *stmt, int index, double value)
{
    if (isnan(value))
        sqlite3_bind_null(stmt, index);
    else
        sqlite3_bind_double(stmt, index, value);
}

static void bind_sample(sqlite3_stmt *stmt, int64_t run_id, const store_sample *x)
{
    sqlite3_bind_int64(stmt, 1, run_id);
    sqlite3_bind_text(stmt, 2, x->point, -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 3, x->variant, -1, SQLITE_STATIC);
    sqlite3_bind_int64(stmt, 4, x->block);
    sqlite3_bind_int64(stmt, 5, x->seq);
    bind_reading(stmt, 6, x->started);
    bind_reading(stmt, 7, x->wall);
    bind_reading(stmt, 8, x->user);
    bind_reading(stmt, 9, x->sys);
    bind_reading(stmt, 10, x->maxrss_kib);
    sqlite3_bind_int64(stmt, 11, x->voluntary_switches);
    sqlite3_bind_int64(stmt, 12, x->involuntary_switches);
    sqlite3_bind_int(stmt, 13, x->exit_code);
    sqlite3_bind_int(stmt, 14, x->timed_out ? 1 : 0);
    sqlite3_bind_int(stmt, 15, x->tainted ? 1 : 0);
    sqlite3_bind_text(stmt, 16, x->taint_reason, -1, SQLITE_STATIC);
    bind_reading(stmt, 17, x->steal);
    bind_reading(stmt, 18, x->other_busy);
    bind_reading(stmt, 19, x->load1);
    sqlite3_bind_int64(stmt, 20, x->layout);
    sqlite3_bind_text(stmt, 21, x->machine ? x->machine : "", -1, SQLITE_STATIC);
}

static int insert_sample_row(sqlite_store *s, int64_t run_id, const store_sample *x,
                             int64_t *sample_id, verdict_error *err)
{
    sqlite3_stmt *stmt = sqlite_store_statement(s, STMT_INSERT_SAMPLE, err);
    if (stmt == NULL)
        return -1;
    bind_sample(stmt, run_id, x);
    int rc = sqlite3_step(stmt);
    int inserted = sqlite3_changes(s->db);
    if (rc != SQLITE_DONE && rc != SQLITE_CONSTRAINT_UNIQUE)
        sqlite_store_fail(s, rc, "adding a sample", err);
    sqlite3_reset(stmt);
    if (rc == SQLITE_CONSTRAINT_UNIQUE)
        return store_fail_block_stored(s->path, x, err);
    if (rc != SQLITE_DONE)
        return -1;
    if (inserted != 1)
        return error_set(err, ERROR_STORE, "%s: no run %" PRId64 " to add a sample to", s->path,
                         run_id);
    *sample_id = sqlite3_last_insert_rowid(s->db);
    return 0;
}

static int insert_metrics(sqlite_store *s, int64_t sample_id, const store_sample *x,
                          verdict_error *err)
{
    for (size_t i = 0; i < x->n_metrics; i++) {
        sqlite3_stmt *stmt = sqlite_store_statement(s, STMT_INSERT_METRIC, err);
        if (stmt == NULL)
            return -1;
        sqlite3_bind_int64(stmt, 1, sample_id);
        sqlite3_bind_int64(stmt, 2, (sqlite3_int64)i);
        sqlite3_bind_text(stmt, 3, x->metric_names[i], -1, SQLITE_STATIC);
        bind_reading(stmt, 4, x->metric_values[i]);
        int rc = sqlite3_step(stmt);
        if (rc != SQLITE_DONE && rc != SQLITE_CONSTRAINT_UNIQUE)
            sqlite_store_fail(s, rc, "adding a sample's metrics", err);
        sqlite3_reset(stmt);
        if (rc == SQLITE_CONSTRAINT_UNIQUE)
            return store_fail_metric_twice(s->path, x->metric_names[i], err);
        if (rc != SQLITE_DONE)
            return -1;
    }
    return 0;
}

int sqlite_store_insert_sample(sqlite_store *s, int64_t run_id, const store_sample *x,
                               verdict_error *err)
{
    int64_t sample_id = 0;
    if (insert_sample_row(s, run_id, x, &sample_id, err) != 0)
        return -1;
    return insert_metrics(s, sample_id, x, err);
}

int sqlite_store_add_samples(store *base, int64_t run_id, const store_sample *samples,
                             size_t n, verdict_error *err)
{
    assert(n > 0 && samples != NULL); /* the dispatcher calls with samples only */
    sqlite_store *s = sqlite_store_of(base);
    const char *doing = n == 1 ? "adding a sample" : "adding samples";
    if (sqlite_store_begin(s, doing, err) != 0)
        return -1;
    int status = 0;
    for (size_t i = 0; status == 0 && i < n; i++)
        status = sqlite_store_insert_sample(s, run_id, &samples[i], err);
    return sqlite_store_finish(s, status, doing, err);
}

int sqlite_store_end_run(store *base, int64_t run_id, const char *status, verdict_error *err)
{
    sqlite_store *s = sqlite_store_of(base);
    sqlite3_stmt *stmt = sqlite_store_statement(s, STMT_END_RUN, err);
    if (stmt == NULL)
        return -1;
    sqlite3_bind_int64(stmt, 1, run_id);
    sqlite3_bind_text(stmt, 2, status, -1, SQLITE_STATIC);
    /* one statement outside BEGIN is its own transaction, committed when it returns */
    if (sqlite_store_run(s, stmt, "finishing the run", err) != 0)
        return -1;
    if (sqlite3_changes(s->db) != 1)
        return error_set(err, ERROR_STORE, "%s: no run %" PRId64 " to finish", s->path, run_id);
    return 0;
}

/* Internals shared by the files of the SQLite back end: its store struct, its cache of
 * prepared statements, transactions and error messages. Not part of the store's interface. */
#ifndef VERDICT_STORE_SQLITE_STORE_INTERNAL_H
#define VERDICT_STORE_SQLITE_STORE_INTERNAL_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "store/store_backend.h"

/* How long a writer waits for another verdict holding the store before giving up. */
#define STORE_BUSY_TIMEOUT_SECONDS 5

/* Every statement the store runs, prepared once on first use and kept until close. */
typedef enum {
    STMT_BEGIN,
    STMT_COMMIT,
    STMT_ROLLBACK,
    STMT_FIND_EXPERIMENT,
    STMT_INSERT_EXPERIMENT,
    STMT_ARCHIVE_TEXT,
    STMT_UPDATE_TEXT,
    STMT_INSERT_RUN,
    STMT_INSERT_FACT,
    STMT_END_RUN,
    STMT_NEXT_FACT_POSITION,
    STMT_INSERT_SAMPLE,
    STMT_INSERT_METRIC,
    STMT_SELECT_SAMPLES,
    STMT_SELECT_METRICS,
    STMT_GET_EXPERIMENT,
    STMT_LATEST_EXPERIMENT,
    STMT_SELECT_FACTS,
    STMT_SELECT_EXPERIMENTS,
    STMT_UPSERT_MACHINE,
    STMT_DELETE_MACHINE_FACTS,
    STMT_INSERT_MACHINE_FACT,
    STMT_SELECT_MACHINE_FACTS,
    STMT_INSERT_BLOCK,
    STMT_FREE_BLOCK,
    STMT_TAKE_BLOCK,
    STMT_COUNT_BLOCKS,
    STMT_RENEW_CLAIM,
    STMT_CHECK_CLAIM,
    STMT_BLOCK_DONE,
    STMT_RELEASE_BLOCK,
    STMT_SELECT_BLOCKS,
    STMT_INSERT_EXTENSION,
    STMT_SELECT_EXTENSIONS,
    STMT_SIGN_EXPERIMENT,
    STMT_SELECT_SIGNATURES,
    STMT_COUNT
} sqlite_store_statement_id;

typedef struct {
    store base;                              /* first: a store * is a sqlite_store * */
    sqlite3 *db;
    char *path;                              /* for messages */
    int lock_fd;                             /* the writer's flock on the file; -1: none */
    sqlite3_stmt *statements[STMT_COUNT];
    char *tool_version;                      /* the running verdict's, stamped on runs */
    /* store_get_experiment's and store_claim_block's strings, owned here so they outlive
     * the statement */
    char *got_name, *got_text, *got_tool_version, *got_tool_build, *got_point;
} sqlite_store;

extern const store_backend sqlite_store_backend;

static inline sqlite_store *sqlite_store_of(store *s)
{
    return (sqlite_store *)s;
}

/* The cached statement, reset and unbound, ready for binding; NULL with a message. */
sqlite3_stmt *sqlite_store_statement(sqlite_store *s, sqlite_store_statement_id id,
                                     verdict_error *err);
/* Runs a statement that returns no rows; resets it so it holds no lock afterwards. */
int sqlite_store_run(sqlite_store *s, sqlite3_stmt *stmt, const char *doing, verdict_error *err);

int sqlite_store_begin(sqlite_store *s, const char *doing, verdict_error *err);
/* Ends a write: commits after status 0; otherwise rolls back and returns -1, the error
 * already in err (ERROR_PLAN_CHANGED, ERROR_CLAIM_LOST) kept. */
int sqlite_store_finish(sqlite_store *s, int status, const char *doing, verdict_error *err);

/* Explains SQLite result rc while `doing` something to the store at path; returns -1. */
int sqlite_store_fail_db(sqlite3 *db, const char *path, int rc, const char *doing,
                         verdict_error *err);
int sqlite_store_fail(const sqlite_store *s, int rc, const char *doing, verdict_error *err);

/* Checks the file is a verdict store this verdict can read, switches it to WAL and applies
 * the pending migrations (sqlite_store_schema.c). */
int sqlite_store_schema_prepare(sqlite3 *db, const char *path, verdict_error *err);
/* The same checks for a read-only connection, which changes nothing: a store of an older
 * schema, which would need a migration, or an empty file is refused with a message. */
int sqlite_store_schema_check_readable(sqlite3 *db, const char *path, verdict_error *err);

/* The writes (sqlite_store_write.c); insert_sample is shared with finish_block. */
int sqlite_store_insert_sample(sqlite_store *s, int64_t run_id, const store_sample *x,
                               verdict_error *err);
int sqlite_store_open_experiment(store *s, const store_experiment *e, int64_t *experiment_id,
                                 bool *existing, verdict_error *err);
int sqlite_store_begin_run(store *s, int64_t experiment_id, const store_fact *facts,
                           size_t n_facts, int64_t *run_id, verdict_error *err);
int sqlite_store_add_run_facts(store *s, int64_t run_id, const store_fact *facts,
                               size_t n_facts, verdict_error *err);
int sqlite_store_add_samples(store *s, int64_t run_id, const store_sample *samples, size_t n,
                             verdict_error *err);
int sqlite_store_end_run(store *s, int64_t run_id, const char *status, verdict_error *err);

/* The reads (sqlite_store_read.c). */
int sqlite_store_for_each_sample(store *s, int64_t experiment_id, store_sample_fn fn,
                                 void *context, verdict_error *err);
int sqlite_store_get_experiment(store *s, int64_t experiment_id, store_experiment *out,
                                verdict_error *err);
int sqlite_store_latest_experiment(store *s, int64_t *experiment_id, verdict_error *err);
int sqlite_store_for_each_fact(store *s, int64_t experiment_id, store_fact_fn fn,
                               void *context, verdict_error *err);
int sqlite_store_for_each_experiment(store *s, store_experiment_fn fn, void *context,
                                     verdict_error *err);
int sqlite_store_for_each_machine_fact(store *s, store_machine_fact_fn fn, void *context,
                                       verdict_error *err);
int sqlite_store_for_each_block(store *s, int64_t experiment_id, store_block_fn fn,
                                void *context, verdict_error *err);
int sqlite_store_for_each_extension(store *s, int64_t experiment_id, store_extension_fn fn,
                                    void *context, verdict_error *err);
int sqlite_store_sign_experiment(store *s, int64_t experiment_id,
                                 const store_signature *signature, verdict_error *err);
int sqlite_store_for_each_signature(store *s, int64_t experiment_id, store_signature_fn fn,
                                    void *context, verdict_error *err);
int sqlite_store_add_extension(store *s, int64_t experiment_id, long blocks, verdict_error *err);
/* Profiled runs (sqlite_store_profile.c). */
int sqlite_store_add_profile(store *s, int64_t run_id, const store_profile *p,
                             verdict_error *err);
int sqlite_store_for_each_profile(store *s, int64_t experiment_id, store_profile_fn fn,
                                  void *context, verdict_error *err);

/* Machines and shared-plan blocks (sqlite_store_fleet.c). */
int sqlite_store_record_machine(store *s, const char *machine, const store_fact *facts,
                                size_t n_facts, verdict_error *err);
int sqlite_store_plan_blocks(store *s, int64_t experiment_id, const store_block *blocks,
                             size_t n, verdict_error *err);
int sqlite_store_claim_block(store *s, int64_t experiment_id, const char *point,
                             const char *machine, const char *worker, double lease_seconds,
                             store_claim *out, verdict_error *err);
int sqlite_store_renew_claim(store *s, int64_t claim, const char *worker, double lease_seconds,
                             verdict_error *err);
int sqlite_store_finish_block(store *s, int64_t claim, const char *worker, int64_t run_id,
                              const store_sample *samples, size_t n_samples, verdict_error *err);
int sqlite_store_release_block(store *s, int64_t claim, const char *worker, verdict_error *err);

#endif

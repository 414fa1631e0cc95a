/* Internals shared by the files of the SQLite store: the store struct, its cache of
 * prepared statements, transactions and error messages. Not part of the store's interface. */
#ifndef VERDICT_STORE_STORE_INTERNAL_H
#define VERDICT_STORE_STORE_INTERNAL_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "store/store.h"

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
    STMT_COUNT
} store_statement_id;

struct store {
    sqlite3 *db;
    char *path;                              /* for messages */
    bool read_only;                          /* store_open_read_only: every write refused */
    int lock_fd;                             /* the writer's flock on the file; -1: none */
    sqlite3_stmt *statements[STMT_COUNT];
    char *tool_version;                      /* the running verdict's, stamped on runs */
    /* store_get_experiment's strings, owned here so they outlive the statement */
    char *got_name, *got_text, *got_tool_version;
};

/* The cached statement, reset and unbound, ready for binding; NULL with a message. */
sqlite3_stmt *store_statement(store *s, store_statement_id id, char *err, size_t errlen);

int store_begin(store *s, const char *doing, char *err, size_t errlen);
int store_commit(store *s, const char *doing, char *err, size_t errlen);
/* Rolls back if a transaction is still open (SQLite ends some itself, e.g. on a full disk). */
void store_rollback(store *s);

/* Explains SQLite result rc while `doing` something to the store at path; returns -1. */
int store_fail_db(sqlite3 *db, const char *path, int rc, const char *doing, char *err,
                  size_t errlen);
int store_fail(const store *s, int rc, const char *doing, char *err, size_t errlen);

/* Checks the file is a verdict store this verdict can read, switches it to WAL and applies
 * the pending migrations (store_schema.c). */
int store_schema_prepare(sqlite3 *db, const char *path, char *err, size_t errlen);
/* The same checks for a read-only connection, which changes nothing: a store of an older
 * schema, which would need a migration, or an empty file is refused with a message. */
int store_schema_check_readable(sqlite3 *db, const char *path, char *err, size_t errlen);

/* uint64 hashes are stored as 16 hex digits: readable in the sqlite3 shell and exact. */
void store_format_hash(uint64_t hash, char out[17]);
bool store_parse_hash(const char *text, uint64_t *out);

#endif

/* Internals of the PostgreSQL back end: its store struct, statements run with the
 * connection's losses retried, and the messages. Not part of the store's interface. */
#ifndef VERDICT_STORE_PG_STORE_H
#define VERDICT_STORE_PG_STORE_H

#include <libpq-fe.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "store/store_backend.h"

/* The schema a store lives in when the name does not say `verdict_schema=`. */
#define PG_STORE_DEFAULT_SCHEMA "verdict"
/* How long a lost server is waited for when VERDICT_STORE_RETRY_SECONDS is not set. */
#define PG_STORE_DEFAULT_RETRY_SECONDS 60.0

typedef struct {
    store base;             /* first: a store * is a pg_store * */
    PGconn *conn;
    char *conninfo;         /* given to libpq: the name without verdict_schema */
    char *label;            /* the name for messages, its password redacted */
    char *schema;           /* the PostgreSQL schema that holds the store */
    double retry_seconds;   /* how long a lost server is waited for */
    bool retrying;          /* the call is being redone after a reconnect */
    bool broken;            /* the last failure was the connection's */
    char sqlstate[6];       /* of the last failed statement ("" when none) */
    char constraint[64];    /* the constraint it violated ("" when none) */
    char *tool_version;     /* the running verdict's, stamped on runs */
    /* strings handed out until the next call (store_get_experiment, store_claim_block) */
    char *got_name, *got_text, *got_tool_version, *got_tool_build, *got_point;
} pg_store;

extern const store_backend pg_store_backend;

static inline pg_store *pg_store_of(store *s)
{
    return (pg_store *)s;
}

/* Runs one statement with text parameters (NULL is SQL NULL). Returns the result when its
 * status is want (the caller PQclears it); otherwise NULL with a message naming `doing`,
 * and sqlstate, constraint and broken set for the caller to look at. */
PGresult *pg_store_exec(pg_store *s, const char *sql, int n_params, const char *const *params,
                        ExecStatusType want, const char *doing, verdict_error *err);
/* The same for statements that return no rows; 0 or -1. */
int pg_store_command(pg_store *s, const char *sql, int n_params, const char *const *params,
                     const char *doing, verdict_error *err);
/* Runs several statements without parameters (a migration's script); 0 or -1. */
int pg_store_script(pg_store *s, const char *sql, const char *doing, verdict_error *err);
/* True when the last failure was SQLSTATE code (e.g. "23505"), on constraint when not NULL. */
bool pg_store_failed_with(const pg_store *s, const char *code, const char *constraint);
/* After a failed statement that names an experiment: "no experiment N" when it broke the
 * experiment's foreign key (23503), or -1 with the server's message kept. */
int pg_store_fail_experiment(const pg_store *s, int64_t experiment_id, verdict_error *err);

/* One attempt at a call: statements that may be redone whole after a reconnect. */
typedef int (*pg_store_body)(pg_store *s, void *args, verdict_error *err);
/* Runs body inside `begin` ... COMMIT (begin NULL: no transaction, body is one statement).
 * When it fails because the connection was lost, reconnects with backoff and runs it again
 * (s->retrying true), until the retry budget is spent. Returns body's status (0 or -1)
 * with its error (ERROR_PLAN_CHANGED, ERROR_CLAIM_LOST kept as the body set them). */
int pg_store_call(pg_store *s, const char *begin, pg_store_body body, void *args,
                  const char *doing, verdict_error *err);

/* Checks the schema and creates or migrates it (writers), or only checks it (readers). */
int pg_store_schema_prepare(pg_store *s, verdict_error *err);
int pg_store_schema_check_readable(pg_store *s, verdict_error *err);

/* The store's name taken apart (pg_store_name.c): the conninfo or URI for libpq without
 * verdict_schema, and the schema it named (PG_STORE_DEFAULT_SCHEMA when none), checked to
 * be letters, digits and underscores. 0, or -1 with a message. */
int pg_store_parse_name(const char *name, const char *label, char **conninfo, char **schema,
                        verdict_error *err);
/* The name with its password replaced by "***" (password=... and user:pass@), malloc'ed. */
char *pg_store_redact(const char *name);

/* Value conversions (pg_store_values.c): numbers to text parameters, and result fields back. */
typedef struct {
    char text[32];
} pg_store_number;
const char *pg_store_int(pg_store_number *slot, long long value);
/* NULL (SQL NULL) for NaN: unknown readings are NULL in the store. */
const char *pg_store_double(pg_store_number *slot, double value);
long long pg_store_get_int(const PGresult *res, int row, int column);
double pg_store_get_double(const PGresult *res, int row, int column);
/* {"a","b"} and {1.5,NULL}: arrays for unnest, malloc'ed; NULL when out of memory. */
char *pg_store_text_array(const char *const *items, size_t n);
char *pg_store_double_array(const double *values, size_t n);

/* Keeps a copy of text in *slot (freeing the one before); false when out of memory. */
bool pg_store_keep(char **slot, const char *text);

/* The writes, reads and blocks (pg_store_write.c, pg_store_read.c, pg_store_blocks.c). */
int pg_store_insert_sample(pg_store *s, int64_t run_id, const store_sample *x, verdict_error *err);
int pg_store_open_experiment(store *s, const store_experiment *e, int64_t *experiment_id,
                             bool *existing, verdict_error *err);
int pg_store_begin_run(store *s, int64_t experiment_id, const store_fact *facts,
                       size_t n_facts, int64_t *run_id, verdict_error *err);
int pg_store_add_run_facts(store *s, int64_t run_id, const store_fact *facts, size_t n_facts,
                           verdict_error *err);
int pg_store_add_samples(store *s, int64_t run_id, const store_sample *samples, size_t n,
                         verdict_error *err);
int pg_store_end_run(store *s, int64_t run_id, const char *status, verdict_error *err);
int pg_store_record_machine(store *s, const char *machine, const store_fact *facts,
                            size_t n_facts, verdict_error *err);
int pg_store_for_each_sample(store *s, int64_t experiment_id, store_sample_fn fn,
                             void *context, verdict_error *err);
int pg_store_get_experiment(store *s, int64_t experiment_id, store_experiment *out,
                            verdict_error *err);
int pg_store_latest_experiment(store *s, int64_t *experiment_id, verdict_error *err);
int pg_store_for_each_fact(store *s, int64_t experiment_id, store_fact_fn fn, void *context,
                           verdict_error *err);
int pg_store_for_each_experiment(store *s, store_experiment_fn fn, void *context,
                                 verdict_error *err);
int pg_store_for_each_machine_fact(store *s, store_machine_fact_fn fn, void *context,
                                   verdict_error *err);
int pg_store_for_each_block(store *s, int64_t experiment_id, store_block_fn fn, void *context,
                            verdict_error *err);
int pg_store_add_extension(store *s, int64_t experiment_id, long blocks, verdict_error *err);
int pg_store_for_each_extension(store *s, int64_t experiment_id, store_extension_fn fn,
                                void *context, verdict_error *err);
int pg_store_sign_experiment(store *s, int64_t experiment_id, const store_signature *signature,
                             verdict_error *err);
int pg_store_for_each_signature(store *s, int64_t experiment_id, store_signature_fn fn,
                                void *context, verdict_error *err);
int pg_store_plan_blocks(store *s, int64_t experiment_id, const store_block *blocks, size_t n,
                         verdict_error *err);
int pg_store_claim_block(store *s, int64_t experiment_id, const char *point,
                         const char *machine, const char *worker, double lease_seconds,
                         store_claim *out, verdict_error *err);
int pg_store_renew_claim(store *s, int64_t claim, const char *worker, double lease_seconds,
                         verdict_error *err);
int pg_store_finish_block(store *s, int64_t claim, const char *worker, int64_t run_id,
                          const store_sample *samples, size_t n_samples, verdict_error *err);
int pg_store_release_block(store *s, int64_t claim, const char *worker, verdict_error *err);

/* Profiled runs (pg_store_profile.c). */
int pg_store_add_profile(store *s, int64_t run_id, const store_profile *p, verdict_error *err);
int pg_store_for_each_profile(store *s, int64_t experiment_id, store_profile_fn fn,
                              void *context, verdict_error *err);

#endif

/* The PostgreSQL back end: connecting, losing and regaining the server (exponential backoff
 * within VERDICT_STORE_RETRY_SECONDS), running statements, messages; its operations. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/strbuf.h"
#include "common/error.h"
#include "store/pg_store.h"

/* Backoff between attempts to reach the server: 0.25 s, doubling, at most 8 s. */
#define FIRST_DELAY_SECONDS 0.25
#define MAX_DELAY_SECONDS 8.0

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void sleep_seconds(double seconds)
{
    struct timespec t = {(time_t)seconds, (long)((seconds - floor(seconds)) * 1e9)};
    while (nanosleep(&t, &t) != 0 && errno == EINTR)
        continue;
}

/* libpq's message on one line: its lines joined, the trailing newline gone. */
static void one_line(const char *text, char *out, size_t size)
{
    size_t used = 0;
    bool space = false;
    for (const char *p = text != NULL ? text : ""; *p != '\0' && used + 2 < size; p++) {
        if (isspace((unsigned char)*p)) {
            space = used > 0;
            continue;
        }
        if (space)
            out[used++] = ' ';
        space = false;
        out[used++] = *p;
    }
    out[used] = '\0';
}

static void ignore_notice(void *context, const char *message)
{
    (void)context;
    (void)message; /* "schema already exists, skipping" and the like: nothing to act on */
}

static double retry_budget(void)
{
    const char *text = getenv("VERDICT_STORE_RETRY_SECONDS");
    char *end = NULL;
    double seconds = text != NULL ? strtod(text, &end) : NAN;
    if (text == NULL || end == text || *end != '\0' || !(seconds >= 0) || seconds > 86400)
        return PG_STORE_DEFAULT_RETRY_SECONDS;
    return seconds;
}

/* The keywords given beside the name: a connection attempt that hangs (a host that drops
 * packets) must not outlast the retry budget. */
static PGconn *connect_once(const pg_store *s)
{
    const char *keywords[] = {"dbname", "connect_timeout", "fallback_application_name", NULL};
    const char *values[] = {s->conninfo, "10", "verdict", NULL};
    if (strstr(s->conninfo, "connect_timeout") != NULL) {
        keywords[1] = "fallback_application_name";
        values[1] = "verdict";
        keywords[2] = values[2] = NULL;
    }
    return PQconnectdbParams(keywords, values, 1);
}

/* The session's settings, set again after every reconnect: the store's schema first in the
 * search path (the one identifier formatted into SQL, quoted by libpq), exact floats, and a
 * reader's transactions read-only. */
static int set_up_session(pg_store *s, verdict_error *err)
{
    PQsetNoticeProcessor(s->conn, ignore_notice, NULL);
    char *quoted = PQescapeIdentifier(s->conn, s->schema, strlen(s->schema));
    if (quoted == NULL)
        return error_set(err, ERROR_NO_MEMORY, "%s: out of memory", s->label);
    strbuf sql = STRBUF_INIT;
    strbuf_appendf(&sql, "SET search_path TO %s; SET extra_float_digits = 1; "
                   "SET default_transaction_read_only = %s", quoted,
                   s->base.read_only ? "on" : "off");
    PQfreemem(quoted);
    PGresult *res = strbuf_status(&sql) == 0 ? PQexec(s->conn, strbuf_text(&sql)) : NULL;
    strbuf_free(&sql);
    bool ok = PQresultStatus(res) == PGRES_COMMAND_OK;
    PQclear(res);
    if (ok)
        return 0;
    char why[512];
    one_line(PQerrorMessage(s->conn), why, sizeof why);
    return error_set(err, ERROR_STORE, "%s: cannot set up the session (libpq: %s)", s->label, why);
}

/* A server that answers but refuses us (a wrong password, no such database) will not
 * change its mind: only a server that is down, starting or unreachable is waited for. */
static bool worth_waiting_for(const pg_store *s)
{
    const char *keywords[] = {"dbname", NULL};
    const char *values[] = {s->conninfo, NULL};
    return PQpingParams(keywords, values, 1) != PQPING_OK;
}

/* Connects until it works or the deadline passes; `lost` says which message to give. */
static int connect_until(pg_store *s, double deadline, bool lost, verdict_error *err)
{
    double delay = FIRST_DELAY_SECONDS;
    for (;;) {
        PQfinish(s->conn);
        s->conn = connect_once(s);
        if (s->conn == NULL)
            return error_set(err, ERROR_NO_MEMORY, "%s: out of memory connecting", s->label);
        if (PQstatus(s->conn) == CONNECTION_OK)
            return set_up_session(s, err);
        char why[512];
        one_line(PQerrorMessage(s->conn), why, sizeof why);
        if (!lost && !worth_waiting_for(s))
            return error_set(err, ERROR_STORE, "%s: cannot connect to the server (libpq: %s)",
                             s->label, why);
        if (now_seconds() + delay > deadline) {
            if (lost)
                return error_set(err, ERROR_STORE, "%s: the server went away and did not come "
                                 "back within %g s (libpq: %s)", s->label, s->retry_seconds, why);
            return error_set(err, ERROR_STORE, "%s: cannot reach the server within %g s "
                             "(VERDICT_STORE_RETRY_SECONDS; libpq: %s)", s->label, s->retry_seconds,
                             why);
        }
        sleep_seconds(delay);
        delay = fmin(delay * 2, MAX_DELAY_SECONDS);
    }
}

/* A failure that is the connection's: libpq lost it, or the server said it is closing it
 * (class 08, or 57P01..57P03: terminated by an administrator, shutting down, starting). */
static bool connection_failed(const pg_store *s)
{
    return PQstatus(s->conn) != CONNECTION_OK || strncmp(s->sqlstate, "08", 2) == 0 ||
           strcmp(s->sqlstate, "57P01") == 0 || strcmp(s->sqlstate, "57P02") == 0 ||
           strcmp(s->sqlstate, "57P03") == 0;
}

static void note_failure(pg_store *s, const PGresult *res)
{
    const char *state = res != NULL ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
    const char *constraint = res != NULL ? PQresultErrorField(res, PG_DIAG_CONSTRAINT_NAME)
                                         : NULL;
    snprintf(s->sqlstate, sizeof s->sqlstate, "%s", state != NULL ? state : "");
    snprintf(s->constraint, sizeof s->constraint, "%s", constraint != NULL ? constraint : "");
    s->broken = connection_failed(s);
}

/* A failed result's message on one line, in err; returns -1. */
static int fail_result(pg_store *s, PGresult *res, const char *doing, verdict_error *err)
{
    note_failure(s, res);
    const char *primary = res != NULL ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;
    char why[512];
    one_line(primary != NULL ? primary : PQerrorMessage(s->conn), why, sizeof why);
    return error_set(err, ERROR_STORE, "%s: error while %s: %s", s->label, doing, why);
}

int pg_store_script(pg_store *s, const char *sql, const char *doing, verdict_error *err)
{
    PGresult *res = PQexec(s->conn, sql);
    int status = PQresultStatus(res) == PGRES_COMMAND_OK
                     ? 0 : fail_result(s, res, doing, err);
    PQclear(res);
    return status;
}

PGresult *pg_store_exec(pg_store *s, const char *sql, int n_params, const char *const *params,
                        ExecStatusType want, const char *doing, verdict_error *err)
{
    PGresult *res = PQexecParams(s->conn, sql, n_params, NULL, params, NULL, NULL, 0);
    if (PQresultStatus(res) == want)
        return res;
    fail_result(s, res, doing, err);
    PQclear(res);
    return NULL;
}

int pg_store_command(pg_store *s, const char *sql, int n_params, const char *const *params,
                     const char *doing, verdict_error *err)
{
    PGresult *res = pg_store_exec(s, sql, n_params, params, PGRES_COMMAND_OK, doing, err);
    PQclear(res);
    return res != NULL ? 0 : -1;
}

bool pg_store_failed_with(const pg_store *s, const char *code, const char *constraint)
{
    return strcmp(s->sqlstate, code) == 0 &&
           (constraint == NULL || strcmp(s->constraint, constraint) == 0);
}

int pg_store_fail_experiment(const pg_store *s, int64_t experiment_id, verdict_error *err)
{
    if (!pg_store_failed_with(s, "23503", NULL))
        return -1;
    return error_set(err, ERROR_STORE, "%s: no experiment %" PRId64, s->label, experiment_id);
}

/* One attempt: begin, the body, commit (or roll back after a failure, keeping its message). */
static int call_once(pg_store *s, const char *begin, pg_store_body body, void *args,
                     const char *doing, verdict_error *err)
{
    s->broken = false;
    s->sqlstate[0] = s->constraint[0] = '\0';
    if (begin != NULL && pg_store_command(s, begin, 0, NULL, doing, err) != 0)
        return -1;
    int status = body(s, args, err);
    if (begin == NULL)
        return status;
    if (status == 0)
        return pg_store_command(s, "COMMIT", 0, NULL, doing, err);
    bool broken = s->broken;
    PQclear(PQexec(s->conn, "ROLLBACK"));
    s->broken = broken || PQstatus(s->conn) != CONNECTION_OK;
    return status;
}

int pg_store_call(pg_store *s, const char *begin, pg_store_body body, void *args,
                  const char *doing, verdict_error *err)
{
    double deadline = -1; /* set at the first loss: the budget is for this call */
    s->retrying = false;
    for (;;) {
        int status = PQstatus(s->conn) == CONNECTION_OK
                         ? call_once(s, begin, body, args, doing, err)
                         : -1;
        if (status == 0 || (PQstatus(s->conn) == CONNECTION_OK && !s->broken))
            return status;
        if (deadline < 0)
            deadline = now_seconds() + s->retry_seconds;
        if (connect_until(s, deadline, true, err) != 0)
            return -1;
        s->retrying = true;
    }
}

static void close_store(store *base)
{
    pg_store *s = pg_store_of(base);
    PQfinish(s->conn);
    free(s->conninfo);
    free(s->label);
    free(s->schema);
    free(s->tool_version);
    free(s->got_name);
    free(s->got_text);
    free(s->got_tool_version);
    free(s->got_tool_build);
    free(s->got_point);
    free(s);
}

static pg_store *store_new(const char *name, bool read_only, verdict_error *err)
{
    pg_store *s = calloc(1, sizeof *s);
    char *label = pg_store_redact(name);
    if (s == NULL || label == NULL) {
        free(s);
        free(label);
        error_set(err, ERROR_NO_MEMORY, "store: out of memory opening a PostgreSQL store");
        return NULL;
    }
    s->base.backend = &pg_store_backend;
    s->base.label = s->label = label;
    s->base.read_only = read_only;
    s->retry_seconds = retry_budget();
    return s;
}

int pg_store_open(const char *name, bool read_only, store **out, verdict_error *err)
{
    *out = NULL;
    pg_store *s = store_new(name, read_only, err);
    if (s == NULL)
        return -1;
    int rc = pg_store_parse_name(name, s->label, &s->conninfo, &s->schema, err);
    if (rc == 0)
        rc = connect_until(s, now_seconds() + s->retry_seconds, false, err);
    if (rc == 0)
        rc = read_only ? pg_store_schema_check_readable(s, err)
                       : pg_store_schema_prepare(s, err);
    if (rc != 0) {
        close_store(&s->base);
        return -1;
    }
    *out = &s->base;
    return 0;
}

const store_backend pg_store_backend = {
    .close = close_store,
    .open_experiment = pg_store_open_experiment,
    .begin_run = pg_store_begin_run,
    .add_run_facts = pg_store_add_run_facts,
    .add_samples = pg_store_add_samples,
    .end_run = pg_store_end_run,
    .for_each_sample = pg_store_for_each_sample,
    .get_experiment = pg_store_get_experiment,
    .latest_experiment = pg_store_latest_experiment,
    .for_each_fact = pg_store_for_each_fact,
    .for_each_experiment = pg_store_for_each_experiment,
    .record_machine = pg_store_record_machine,
    .for_each_machine_fact = pg_store_for_each_machine_fact,
    .plan_blocks = pg_store_plan_blocks,
    .claim_block = pg_store_claim_block,
    .renew_claim = pg_store_renew_claim,
    .finish_block = pg_store_finish_block,
    .release_block = pg_store_release_block,
    .for_each_block = pg_store_for_each_block,
    .add_extension = pg_store_add_extension,
    .for_each_extension = pg_store_for_each_extension,
    .sign_experiment = pg_store_sign_experiment,
    .for_each_signature = pg_store_for_each_signature,
    .add_profile = pg_store_add_profile,
    .for_each_profile = pg_store_for_each_profile,
};

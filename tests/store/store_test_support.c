/* Helpers the store's tests share across back ends: fixtures of either back end, queries
 * behind the store's back, the experiment and samples the tests store, and collections. */
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libpq-fe.h>
#include <sqlite3.h>

#include "common/error.h"

#include "store_test_support.h"

int setup_sqlite(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    if (f == NULL)
        return -1;
    const char *tmp = getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp";
    snprintf(f->dir, sizeof f->dir, "%s/verdict-store-XXXXXX", tmp);
    if (mkdtemp(f->dir) == NULL) {
        free(f);
        return -1;
    }
    snprintf(f->path, sizeof f->path, "%s/store.db", f->dir);
    *state = f;
    return 0;
}

void with_parameter(char *out, size_t size, const char *name, const char *parameter)
{
    bool uri = strstr(name, "://") != NULL;
    snprintf(out, size, "%s%s%s", name, !uri ? " " : strchr(name, '?') != NULL ? "&" : "?",
             parameter);
}

int setup_pg(void **state)
{
    /* a counter per process: each test's schema is its own, even when tests fork */
    static unsigned counter;
    const char *server = getenv("VERDICT_TEST_PG");
    if (server == NULL || server[0] == '\0')
        return -1; /* main() does not register the tests then */
    fixture *f = calloc(1, sizeof *f);
    if (f == NULL)
        return -1;
    f->pg = true;
    snprintf(f->server, sizeof f->server, "%s", server);
    snprintf(f->schema, sizeof f->schema, "t_%d_%u", (int)getpid(), ++counter);
    char parameter[96];
    snprintf(parameter, sizeof parameter, "verdict_schema=%s", f->schema);
    with_parameter(f->path, sizeof f->path, server, parameter);
    *state = f;
    return 0;
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)type;
    (void)ftw;
    return remove(path);
}

int teardown_store(void **state)
{
    fixture *f = *state;
    if (f->pg) {
        char sql[128];
        snprintf(sql, sizeof sql, "DROP SCHEMA IF EXISTS %s CASCADE", f->schema);
        fixture_exec(f, sql);
    } else {
        chmod(f->dir, 0700);
        nftw(f->dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    }
    free(f);
    return 0;
}

/* A connection to the test's server with the test's schema first in the search path. */
static PGconn *pg_connect(const fixture *f)
{
    PGconn *conn = PQconnectdb(f->server);
    if (PQstatus(conn) != CONNECTION_OK)
        fail_msg("%s: %s", f->server, PQerrorMessage(conn));
    char sql[128];
    snprintf(sql, sizeof sql, "SET search_path TO %s; SET client_min_messages = warning",
             f->schema);
    PQclear(PQexec(conn, sql));
    return conn;
}

static PGresult *pg_query(const fixture *f, PGconn *conn, const char *sql)
{
    (void)f;
    PGresult *res = PQexec(conn, sql);
    ExecStatusType status = PQresultStatus(res);
    if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK) {
        char message[512];
        snprintf(message, sizeof message, "%s", PQerrorMessage(conn));
        PQclear(res);
        PQfinish(conn);
        fail_msg("%s: %s", sql, message);
    }
    return res;
}

long long fixture_int(const fixture *f, const char *sql)
{
    if (!f->pg) {
        sqlite3 *db = NULL;
        sqlite3_stmt *stmt = NULL;
        assert_int_equal(sqlite3_open_v2(f->path, &db, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
        if (sqlite3_prepare_v2(db, sql, -1, &stmt, NULL) != SQLITE_OK)
            fail_msg("%s: %s", sql, sqlite3_errmsg(db));
        assert_int_equal(sqlite3_step(stmt), SQLITE_ROW);
        long long value = sqlite3_column_int64(stmt, 0);
        sqlite3_finalize(stmt);
        sqlite3_close(db);
        return value;
    }
    PGconn *conn = pg_connect(f);
    PGresult *res = pg_query(f, conn, sql);
    long long value = PQntuples(res) > 0 ? strtoll(PQgetvalue(res, 0, 0), NULL, 10) : -1;
    PQclear(res);
    PQfinish(conn);
    return value;
}

void fixture_exec(const fixture *f, const char *sql)
{
    if (!f->pg) {
        sqlite3 *db = NULL;
        assert_int_equal(sqlite3_open_v2(f->path, &db, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
        assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
        sqlite3_close(db);
        return;
    }
    PGconn *conn = pg_connect(f);
    PQclear(pg_query(f, conn, sql));
    PQfinish(conn);
}

void fixture_check_integrity(const fixture *f)
{
    if (f->pg)
        return;
    sqlite3 *db = NULL;
    sqlite3_stmt *stmt = NULL;
    assert_int_equal(sqlite3_open_v2(f->path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &stmt, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_step(stmt), SQLITE_ROW);
    assert_string_equal((const char *)sqlite3_column_text(stmt, 0), "ok");
    sqlite3_finalize(stmt);
    sqlite3_close(db);
}

void assert_not_contains_at(const char *haystack, const char *needle, const char *file,
                            int line)
{
    if (strstr(haystack, needle) != NULL) {
        print_error("\"%s\" contains \"%s\"\n", haystack, needle);
        _fail(file, line);
    }
}

const size_t experiment_text_length = sizeof "name: crc\nvariants:\n  - name: A\n  - name: B\n" - 1;

void assert_contains_at(const char *haystack, const char *needle, const char *file,
                               int line)
{
    if (strstr(haystack, needle) == NULL) {
        print_error("\"%s\" does not contain \"%s\"\n", haystack, needle);
        _fail(file, line);
    }
}

/* ---- helpers: an experiment, a run, samples ---- */

const char experiment_text[] = "name: crc\nvariants:\n  - name: A\n  - name: B\n";

store_experiment sample_experiment(const char *name)
{
    return (store_experiment){
        .name = name,
        .text = experiment_text,
        .text_length = sizeof experiment_text - 1,
        .text_hash = UINT64_C(0xfedcba9876543210), /* top bit set: beyond int64 */
        .plan_hash = UINT64_C(0x8000000000000001),
        .seed = UINT64_MAX,
        .tool_version = "0.1.0",
    };
}

static const char *const metric_names[] = {"wall", "tps", "latency_ms"};
static const double metric_values[] = {0.0123, 48145.7, 2.5};

/* A sample with every field set to something distinct; variant A or B by seq parity. */
store_sample full_sample(long block, long seq)
{
    return (store_sample){
        .point = "clients=4",
        .variant = seq % 2 == 0 ? "A" : "B",
        .block = block,
        .seq = seq,
        .started = 1.25 + (double)seq,
        .wall = 0.5 + (double)seq / 1024.0,
        .user = 0.375,
        .sys = 0.0625,
        .maxrss_kib = 10240,
        .voluntary_switches = 17,
        .involuntary_switches = 3,
        .exit_code = 0,
        .timed_out = false,
        .tainted = true,
        .taint_reason = "steal 3.1%",
        .steal = 0.031,
        .other_busy = 0.25,
        .load1 = 1.5,
        .metric_names = metric_names,
        .metric_values = metric_values,
        .n_metrics = 3,
    };
}

store *open_store(const char *path)
{
    store *s = NULL;
    verdict_error err = {0};
    if (store_open(path, &s, &err) != 0)
        fail_msg("store_open: %s", err);
    return s;
}

int64_t open_experiment(store *s, const store_experiment *e, bool expect_existing)
{
    int64_t id = 0;
    bool existing = !expect_existing;
    verdict_error err = {0};
    if (store_open_experiment(s, e, &id, &existing, &err) != 0)
        fail_msg("store_open_experiment: %s", err);
    assert_int_equal(existing, expect_existing);
    return id;
}

int64_t begin_run(store *s, int64_t experiment_id, const store_fact *facts, size_t n)
{
    int64_t run_id = 0;
    verdict_error err = {0};
    if (store_begin_run(s, experiment_id, facts, n, &run_id, &err) != 0)
        fail_msg("store_begin_run: %s", err);
    return run_id;
}

void add_sample(store *s, int64_t run_id, const store_sample *x)
{
    verdict_error err = {0};
    if (store_add_sample(s, run_id, x, &err) != 0)
        fail_msg("store_add_sample: %s", err);
}


int collect_sample(void *context, const store_sample *x)
{
    collection *c = context;
    assert_true(c->n < MAX_COLLECTED);
    assert_true(x->n_metrics <= MAX_METRICS);
    collected_sample *out = &c->items[c->n++];
    out->x = *x;
    snprintf(out->point, sizeof out->point, "%s", x->point);
    snprintf(out->variant, sizeof out->variant, "%s", x->variant);
    /* the store hands back "" for the local machine, never NULL */
    assert_non_null(x->machine);
    snprintf(out->machine, sizeof out->machine, "%s", x->machine);
    out->has_taint_reason = x->taint_reason != NULL;
    snprintf(out->taint_reason, sizeof out->taint_reason, "%s",
             x->taint_reason != NULL ? x->taint_reason : "");
    for (size_t i = 0; i < x->n_metrics; i++) {
        snprintf(out->names[i], sizeof out->names[i], "%s", x->metric_names[i]);
        out->values[i] = x->metric_values[i];
    }
    out->x.point = out->x.variant = out->x.machine = out->x.taint_reason = NULL;
    out->x.metric_names = NULL;
    out->x.metric_values = NULL;
    return c->stop_after != 0 && c->n >= c->stop_after;
}

collection *read_samples(store *s, int64_t experiment_id)
{
    collection *c = calloc(1, sizeof *c);
    assert_non_null(c);
    verdict_error err = {0};
    if (store_for_each_sample(s, experiment_id, collect_sample, c, &err) != 0)
        fail_msg("store_for_each_sample: %s", err);
    return c;
}

void assert_same_sample(const collected_sample *got, const store_sample *want)
{
    assert_string_equal(got->point, want->point);
    assert_string_equal(got->variant, want->variant);
    assert_int_equal(got->x.layout, want->layout);
    assert_string_equal(got->machine, want->machine != NULL ? want->machine : "");
    assert_int_equal(got->x.block, want->block);
    assert_int_equal(got->x.seq, want->seq);
    assert_true(got->x.started == want->started);
    assert_true(got->x.wall == want->wall);
    assert_true(got->x.user == want->user);
    assert_true(got->x.sys == want->sys);
    assert_true(got->x.maxrss_kib == want->maxrss_kib);
    assert_int_equal(got->x.voluntary_switches, want->voluntary_switches);
    assert_int_equal(got->x.involuntary_switches, want->involuntary_switches);
    assert_int_equal(got->x.exit_code, want->exit_code);
    assert_int_equal(got->x.timed_out, want->timed_out);
    assert_int_equal(got->x.tainted, want->tainted);
    assert_int_equal(got->has_taint_reason, want->taint_reason != NULL);
    if (want->taint_reason != NULL)
        assert_string_equal(got->taint_reason, want->taint_reason);
    double got_readings[] = {got->x.steal, got->x.other_busy, got->x.load1};
    double want_readings[] = {want->steal, want->other_busy, want->load1};
    for (int i = 0; i < 3; i++) {
        if (isnan(want_readings[i]))
            assert_true(isnan(got_readings[i]));
        else
            assert_true(got_readings[i] == want_readings[i]);
    }
    assert_int_equal(got->x.n_metrics, want->n_metrics);
    for (size_t i = 0; i < want->n_metrics; i++) {
        assert_string_equal(got->names[i], want->metric_names[i]);
        if (isnan(want->metric_values[i]))
            assert_true(isnan(got->values[i]));
        else
            assert_true(got->values[i] == want->metric_values[i]);
    }
}


int collect_fact(void *context, const char *key, const char *value)
{
    fact_list *list = context;
    assert_true(list->n < 8);
    snprintf(list->keys[list->n], sizeof list->keys[0], "%s", key);
    snprintf(list->values[list->n], sizeof list->values[0], "%s", value != NULL ? value : "(null)");
    list->n++;
    return 0;
}

int refuse_fact(void *context, const char *key, const char *value)
{
    (void)context;
    (void)key;
    (void)value;
    return -1;
}

/* Unit tests of src/store: round trips of every field, durability when the writer is killed
 * with SIGKILL, uniqueness of blocks, plans, run facts, migrations and bad files' messages. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "store/sqlite_store.h"
#include "store/store.h"

#define ERR_SIZE 512
#define MAX_COLLECTED 256
#define MAX_METRICS 8

/* Every test gets its own directory, removed afterwards. */
typedef struct {
    char dir[256];
    char path[300]; /* dir/store.db */
} fixture;

static int setup_dir(void **state)
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

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)type;
    (void)ftw;
    return remove(path);
}

static int teardown_dir(void **state)
{
    fixture *f = *state;
    chmod(f->dir, 0700);
    nftw(f->dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    free(f);
    return 0;
}

/* ---- helpers: a plain SQLite connection to look at the file behind the store's back ---- */

/* The single integer a query returns, on a connection already open. */
static long long db_int(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *stmt = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &stmt, NULL) != SQLITE_OK)
        fail_msg("%s: %s", sql, sqlite3_errmsg(db));
    assert_int_equal(sqlite3_step(stmt), SQLITE_ROW);
    long long value = sqlite3_column_int64(stmt, 0);
    sqlite3_finalize(stmt);
    return value;
}

static long long raw_int(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
    long long value = db_int(db, sql);
    sqlite3_close(db);
    return value;
}

static void raw_exec(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                                     NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
}

static void assert_integrity(const char *path)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *stmt = NULL;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &stmt, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_step(stmt), SQLITE_ROW);
    assert_string_equal((const char *)sqlite3_column_text(stmt, 0), "ok");
    sqlite3_finalize(stmt);
    sqlite3_close(db);
}

#define assert_contains(haystack, needle) \
    assert_contains_at((haystack), (needle), __FILE__, __LINE__)
static void assert_contains_at(const char *haystack, const char *needle, const char *file,
                               int line)
{
    if (strstr(haystack, needle) == NULL) {
        print_error("\"%s\" does not contain \"%s\"\n", haystack, needle);
        _fail(file, line);
    }
}

/* ---- helpers: an experiment, a run, samples ---- */

static const char experiment_text[] = "name: crc\nvariants:\n  - name: A\n  - name: B\n";

static store_experiment sample_experiment(const char *name)
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
static store_sample full_sample(long block, long seq)
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

static store *open_store(const char *path)
{
    store *s = NULL;
    char err[ERR_SIZE] = "";
    if (store_open(path, &s, err, sizeof err) != 0)
        fail_msg("store_open: %s", err);
    return s;
}

static int64_t open_experiment(store *s, const store_experiment *e, bool expect_existing)
{
    int64_t id = 0;
    bool existing = !expect_existing;
    char err[ERR_SIZE] = "";
    if (store_open_experiment(s, e, &id, &existing, err, sizeof err) != 0)
        fail_msg("store_open_experiment: %s", err);
    assert_int_equal(existing, expect_existing);
    return id;
}

static int64_t begin_run(store *s, int64_t experiment_id, const store_fact *facts, size_t n)
{
    int64_t run_id = 0;
    char err[ERR_SIZE] = "";
    if (store_begin_run(s, experiment_id, facts, n, &run_id, err, sizeof err) != 0)
        fail_msg("store_begin_run: %s", err);
    return run_id;
}

static void add_sample(store *s, int64_t run_id, const store_sample *x)
{
    char err[ERR_SIZE] = "";
    if (store_add_sample(s, run_id, x, err, sizeof err) != 0)
        fail_msg("store_add_sample: %s", err);
}

/* A copy of a sample read back (the store's strings live only during the callback). */
typedef struct {
    char point[32], variant[32], machine[32], taint_reason[64];
    bool has_taint_reason;
    store_sample x;
    char names[MAX_METRICS][32];
    double values[MAX_METRICS];
} collected_sample;

typedef struct {
    collected_sample items[MAX_COLLECTED];
    size_t n;
    size_t stop_after; /* 0: read all */
} collection;

static int collect_sample(void *context, const store_sample *x)
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

static collection *read_samples(store *s, int64_t experiment_id)
{
    collection *c = calloc(1, sizeof *c);
    assert_non_null(c);
    char err[ERR_SIZE] = "";
    if (store_for_each_sample(s, experiment_id, collect_sample, c, err, sizeof err) != 0)
        fail_msg("store_for_each_sample: %s", err);
    return c;
}

/* Exact equality, bit for bit where it matters: a store must not round numbers. */
static void assert_same_sample(const collected_sample *got, const store_sample *want)
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

/* ---- round trips ---- */

static void experiment_round_trips_with_uint64_hashes(void **state)
{
    fixture *f = *state;
    store *s = open_store(f->path);
    store_experiment e = sample_experiment("crc");
    int64_t id = open_experiment(s, &e, false);

    store_experiment got;
    char err[ERR_SIZE] = "";
    assert_int_equal(store_get_experiment(s, id, &got, err, sizeof err), 0);
    assert_string_equal(got.name, "crc");
    assert_int_equal(got.text_length, e.text_length);
    assert_memory_equal(got.text, e.text, e.text_length);
    assert_true(got.text_hash == e.text_hash);
    assert_true(got.plan_hash == e.plan_hash);
    assert_true(got.seed == UINT64_MAX);
    assert_string_equal(got.tool_version, "0.1.0");

    assert_int_equal(store_get_experiment(s, id + 1, &got, err, sizeof err), -1);
    assert_contains(err, "no experiment");
    store_close(s);
}

static void samples_round_trip_every_field(void **state)
{
    fixture *f = *state;
    store *s = open_store(f->path);
    store_experiment e = sample_experiment("crc");
    int64_t id = open_experiment(s, &e, false);
    int64_t run = begin_run(s, id, NULL, 0);

    static const char *const nan_names[] = {"z_last", "a_first", "unknown"};
    static const double nan_values[] = {-1e300, 4.9406564584124654e-324, NAN};
    store_sample samples[3] = {full_sample(0, 0), full_sample(0, 1), full_sample(-1, 2)};
    /* the third: a failed run outside blocks, every unknown reading NaN, odd metric order */
    samples[2].exit_code = -9;
    samples[2].timed_out = true;
    samples[2].tainted = false;
    samples[2].taint_reason = NULL;
    samples[2].steal = samples[2].other_busy = samples[2].load1 = NAN;
    samples[2].voluntary_switches = 0x7fffffffL;
    samples[2].metric_names = nan_names;
    samples[2].metric_values = nan_values;
    /* stored out of seq order: reading back must follow seq */
    add_sample(s, run, &samples[1]);
    add_sample(s, run, &samples[0]);
    add_sample(s, run, &samples[2]);

    collection *c = read_samples(s, id);
    assert_int_equal(c->n, 3);
    for (int i = 0; i < 3; i++)
        assert_same_sample(&c->items[i], &samples[i]);
    free(c);
    store_close(s);
    /* NaN went to the file as NULL, not as a number */
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM sample WHERE steal IS NULL"), 1);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM sample_metric WHERE value IS NULL"),
                     1);
}

static void reading_stops_when_the_callback_says_so(void **state)
{
    fixture *f = *state;
    store *s = open_store(f->path);
    store_experiment e = sample_experiment("crc");
    int64_t id = open_experiment(s, &e, false);
    int64_t run = begin_run(s, id, NULL, 0);
    for (long i = 0; i < 5; i++) {
        store_sample x = full_sample(i, i);
        add_sample(s, run, &x);
    }
    collection *c = calloc(1, sizeof *c);
    assert_non_null(c);
    c->stop_after = 2;
    char err[ERR_SIZE] = "";
    /* the callback's value comes back, so a failure inside it is not taken for success */
    assert_int_equal(store_for_each_sample(s, id, collect_sample, c, err, sizeof err), 1);
    assert_int_equal(c->n, 2);
    assert_string_equal(err, ""); /* the callback knows why it stopped; the store does not */
    free(c);
    store_close(s);
}

/* ---- facts and runs ---- */

typedef struct {
    char keys[8][32], values[8][64];
    size_t n;
} fact_list;

static int collect_fact(void *context, const char *key, const char *value)
{
    fact_list *list = context;
    assert_true(list->n < 8);
    snprintf(list->keys[list->n], sizeof list->keys[0], "%s", key);
    snprintf(list->values[list->n], sizeof list->values[0], "%s", value != NULL ? value : "(null)");
    list->n++;
    return 0;
}

static int refuse_fact(void *context, const char *key, const char *value)
{
    (void)context;
    (void)key;
    (void)value;
    return -1;
}

static void facts_of_the_latest_run_come_back_in_order(void **state)
{
    fixture *f = *state;
    store *s = open_store(f->path);
    store_experiment e = sample_experiment("crc");
    int64_t id = open_experiment(s, &e, false);
    char err[ERR_SIZE] = "";

    fact_list none = {0};
    assert_int_equal(store_for_each_fact(s, id, collect_fact, &none, err, sizeof err), 0);
    assert_int_equal(none.n, 0);

    store_fact first[] = {{"governor", "performance"}, {"cpu_model", "EPYC"}};
    store_fact second[] = {{"zeta", "1"}, {"cpu_model", "Xeon"}, {"alpha", NULL}};
    static const char *const second_values[] = {"1", "Xeon", ""}; /* NULL comes back "" */
    begin_run(s, id, first, 2);
    begin_run(s, id, second, 3);
    fact_list got = {0};
    assert_int_equal(store_for_each_fact(s, id, collect_fact, &got, err, sizeof err), 0);
    assert_int_equal(got.n, 3);
    for (size_t i = 0; i < 3; i++) {
        assert_string_equal(got.keys[i], second[i].key);
        assert_string_equal(got.values[i], second_values[i]);
    }
    assert_int_equal(store_for_each_fact(s, id, refuse_fact, NULL, err, sizeof err), -1);

    store_fact twice[] = {{"governor", "a"}, {"governor", "b"}};
    int64_t run = 0;
    assert_int_equal(store_begin_run(s, id, twice, 2, &run, err, sizeof err), -1);
    assert_contains(err, "fact governor given twice");
    store_close(s);
    /* the refused run left nothing behind */
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM run"), 2);
}

static void facts_added_after_begin_follow_the_begin_facts(void **state)
{
    fixture *f = *state;
    store *s = open_store(f->path);
    store_experiment e = sample_experiment("crc");
    int64_t id = open_experiment(s, &e, false);
    store_fact at_begin[] = {{"governor", "performance"}, {"cpu_model", "EPYC"}};
    int64_t earlier = begin_run(s, id, at_begin, 2);
    int64_t run = begin_run(s, id, at_begin, 2);
    char err[ERR_SIZE] = "";
    /* learnt while the run went on, in two calls; "alpha" would sort first by key */
    store_fact calibration[] = {{"zeta_ns_per_op", "1.25"}, {"alpha", NULL}};
    store_fact warning[] = {{"warning", "turbo on"}};
    assert_int_equal(store_add_run_facts(s, run, calibration, 2, err, sizeof err), 0);
    assert_int_equal(store_add_run_facts(s, run, warning, 1, err, sizeof err), 0);
    assert_int_equal(store_add_run_facts(s, run, NULL, 0, err, sizeof err), 0);
    /* a fact for the earlier run stays with it */
    store_fact late[] = {{"late", "1"}};
    assert_int_equal(store_add_run_facts(s, earlier, late, 1, err, sizeof err), 0);

    static const char *const want_keys[] = {"governor", "cpu_model", "zeta_ns_per_op", "alpha",
                                            "warning"};
    static const char *const want_values[] = {"performance", "EPYC", "1.25", "", "turbo on"};
    fact_list got = {0};
    assert_int_equal(store_for_each_fact(s, id, collect_fact, &got, err, sizeof err), 0);
    assert_int_equal(got.n, 5);
    for (size_t i = 0; i < 5; i++) {
        assert_string_equal(got.keys[i], want_keys[i]);
        assert_string_equal(got.values[i], want_values[i]);
    }
    store_close(s);
    /* positions continue where the begin facts stopped: 0..4, no gap, no reuse */
    char *sql = sqlite3_mprintf("SELECT sum(position) * 100 + count(*) FROM run_fact"
                                " WHERE run_id = %lld",
                                (long long)run);
    assert_int_equal(raw_int(f->path, sql), (0 + 1 + 2 + 3 + 4) * 100 + 5);
    sqlite3_free(sql);
    sql = sqlite3_mprintf("SELECT count(*) FROM run_fact WHERE run_id = %lld AND key = 'late'"
                          " AND position = 2",
                          (long long)earlier);
    assert_int_equal(raw_int(f->path, sql), 1);
    sqlite3_free(sql);
}

static void a_fact_given_twice_is_refused_and_nothing_of_the_call_is_kept(void **state)
{
    fixture *f = *state;
    store *s = open_store(f->path);
    store_experiment e = sample_experiment("crc");
    int64_t id = open_experiment(s, &e, false);
    store_fact at_begin[] = {{"governor", "performance"}};
    int64_t run = begin_run(s, id, at_begin, 1);
    char err[ERR_SIZE] = "";

    /* a key the run already has: refused, not replaced, and the new key before it in the
     * same call is rolled back with it */
    store_fact again[] = {{"calibrated", "yes"}, {"governor", "powersave"}};
    assert_int_equal(store_add_run_facts(s, run, again, 2, err, sizeof err), -1);
    assert_contains(err, f->path);
    assert_contains(err, "fact governor given twice for one run");
    /* twice within one call */
    store_fact twice[] = {{"ns_per_op", "1"}, {"ns_per_op", "2"}};
    assert_int_equal(store_add_run_facts(s, run, twice, 2, err, sizeof err), -1);
    assert_contains(err, "fact ns_per_op given twice for one run");

    /* the store goes on: a new key is taken */
    store_fact fine[] = {{"ns_per_op", "3"}};
    assert_int_equal(store_add_run_facts(s, run, fine, 1, err, sizeof err), 0);
    fact_list got = {0};
    assert_int_equal(store_for_each_fact(s, id, collect_fact, &got, err, sizeof err), 0);
    assert_int_equal(got.n, 2);
    assert_string_equal(got.keys[0], "governor");
    assert_string_equal(got.values[0], "performance");
    assert_string_equal(got.keys[1], "ns_per_op");
    assert_string_equal(got.values[1], "3");
    store_close(s);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM run_fact"), 2);
    assert_int_equal(raw_int(f->path, "SELECT max(position) FROM run_fact"), 1);
}

static void facts_for_a_missing_run_are_refused(void **state)
{
    fixture *f = *state;
    store *s = open_store(f->path);
    store_experiment e = sample_experiment("crc");
    int64_t run = begin_run(s, open_experiment(s, &e, false), NULL, 0);
    store_fact fact[] = {{"governor", "performance"}};
    char err[ERR_SIZE] = "";
    int rc = store_add_run_facts(s, run + 5, fact, 1, err, sizeof err);
    store_close(s); /* first: a failed check below must not leak the store */
    assert_int_equal(rc, -1);
    assert_contains(err, f->path);
    char want[64];
    snprintf(want, sizeof want, "no run %lld", (long long)(run + 5));
    assert_contains(err, want); /* as store_add_sample and store_end_run say it */
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM run_fact"), 0);
}

static void runs_record_start_end_status_and_version(void **state)
{
    fixture *f = *state;
    store *s = open_store(f->path);
    store_experiment e = sample_experiment("crc");
    int64_t id = open_experiment(s, &e, false);
    int64_t run = begin_run(s, id, NULL, 0);
    char err[ERR_SIZE] = "";
    assert_int_equal(store_end_run(s, run, "finished", err, sizeof err), -1);
    assert_contains(err, "run status finished");
    assert_int_equal(store_end_run(s, run + 5, "done", err, sizeof err), -1);
    assert_contains(err, "no run");
    assert_int_equal(store_end_run(s, run, "interrupted", err, sizeof err), 0);

    store_sample x = full_sample(0, 0);
    assert_int_equal(store_add_sample(s, run + 5, &x, err, sizeof err), -1);
    assert_contains(err, "no run");
    int64_t no_run = 0;
    assert_int_equal(store_begin_run(s, id + 99, NULL, 0, &no_run, err, sizeof err), -1);
    assert_contains(err, "no experiment");
    store_close(s);

    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM run WHERE status = 'interrupted'"
                                      " AND ended >= started AND started LIKE '____-__-__T%Z'"
                                      " AND tool_version = '0.1.0'"),
                     1);
}

static void latest_experiment_is_the_one_run_last(void **state)
{
    fixture *f = *state;
    store *s = open_store(f->path);
    int64_t latest = 0;
    char err[ERR_SIZE] = "";
    assert_int_equal(store_latest_experiment(s, &latest, err, sizeof err), -1);
    assert_contains(err, "no experiment");
    assert_contains(err, f->path);

    store_experiment a = sample_experiment("a"), b = sample_experiment("b");
    int64_t id_a = open_experiment(s, &a, false);
    assert_int_equal(store_latest_experiment(s, &latest, err, sizeof err), 0);
    assert_int_equal(latest, id_a);
    int64_t id_b = open_experiment(s, &b, false);
    assert_int_equal(store_latest_experiment(s, &latest, err, sizeof err), 0);
    assert_int_equal(latest, id_b);
    begin_run(s, id_a, NULL, 0);
    assert_int_equal(store_latest_experiment(s, &latest, err, sizeof err), 0);
    assert_int_equal(latest, id_a);
    store_close(s);
}

/* ---- uniqueness and plans ---- */

static void a_block_is_never_stored_twice(void **state)
{
    fixture *f = *state;
    store *s = open_store(f->path);
    store_experiment e = sample_experiment("crc");
    int64_t id = open_experiment(s, &e, false);
    int64_t run = begin_run(s, id, NULL, 0);
    store_sample x = full_sample(3, 0);
    add_sample(s, run, &x);

    /* a second run of the same experiment (a resume) may not repeat the block either */
    int64_t resumed = begin_run(s, id, NULL, 0);
    x.seq = 1;
    char err[ERR_SIZE] = "";
    assert_int_equal(store_add_sample(s, resumed, &x, err, sizeof err), -1);
    assert_contains(err, f->path);
    assert_contains(err, "point clients=4, variant A");
    assert_contains(err, "layout 0");
    assert_contains(err, "block 3");
    assert_contains(err, "already stored");

    /* the store still works, and the same block of another variant or point is new */
    x.variant = "B";
    add_sample(s, resumed, &x);
    x.point = "clients=8";
    add_sample(s, resumed, &x);
    /* samples outside blocks (-1) are not unique */
    x.block = -1;
    add_sample(s, resumed, &x);
    add_sample(s, resumed, &x);
    /* another experiment has blocks of its own */
    store_experiment other = sample_experiment("other");
    int64_t other_run = begin_run(s, open_experiment(s, &other, false), NULL, 0);
    x = full_sample(3, 0);
    add_sample(s, other_run, &x);
    store_close(s);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM sample"), 6);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM sample_metric"), 18);
}

static void layout_and_machine_round_trip(void **state)
{
    fixture *f = *state;
    store *s = open_store(f->path);
    store_experiment e = sample_experiment("crc");
    int64_t id = open_experiment(s, &e, false);
    int64_t run = begin_run(s, id, NULL, 0);
    store_sample samples[4] = {full_sample(0, 0), full_sample(0, 1), full_sample(1, 2),
                               full_sample(-1, 3)};
    samples[0].layout = 0;
    samples[0].machine = ""; /* the local machine */
    samples[1].layout = 2;
    samples[1].machine = "db-2.example.org";
    samples[2].layout = 0x7fffffffL; /* an index as large as a long of 32 bits */
    samples[2].machine = "db-1";
    samples[3].layout = 1;
    samples[3].machine = NULL; /* NULL is the local machine too */
    for (int i = 0; i < 4; i++)
        add_sample(s, run, &samples[i]);
    collection *c = read_samples(s, id);
    assert_int_equal(c->n, 4);
    for (int i = 0; i < 4; i++)
        assert_same_sample(&c->items[i], &samples[i]);
    free(c);
    store_close(s);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM sample WHERE machine = ''"), 2);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM sample WHERE machine IS NULL"), 0);
    assert_int_equal(raw_int(f->path, "SELECT layout FROM sample WHERE machine = 'db-1'"),
                     0x7fffffffL);
}

static void a_block_is_one_per_layout_and_machine(void **state)
{
    fixture *f = *state;
    store *s = open_store(f->path);
    store_experiment e = sample_experiment("crc");
    int64_t id = open_experiment(s, &e, false);
    int64_t run = begin_run(s, id, NULL, 0);
    store_sample x = full_sample(3, 0);
    x.layout = 1;
    x.machine = "db-2";
    add_sample(s, run, &x);
    /* only the layout differs: another twin of the build, its own block 3 */
    store_sample other_layout = x;
    other_layout.layout = 0;
    other_layout.seq = 1;
    add_sample(s, run, &other_layout);
    /* only the machine differs: another machine's block 3 */
    store_sample other_machine = x;
    other_machine.machine = "db-3";
    other_machine.seq = 2;
    add_sample(s, run, &other_machine);
    store_sample local = x;
    local.machine = "";
    local.seq = 3;
    add_sample(s, run, &local);

    /* the same (point, variant, layout, machine, block) again, even from a resumed run */
    int64_t resumed = begin_run(s, id, NULL, 0);
    store_sample again = x;
    again.seq = 4;
    char refused[ERR_SIZE] = "", err[ERR_SIZE] = "";
    assert_int_equal(store_add_sample(s, resumed, &again, refused, sizeof refused), -1);
    /* NULL is the local machine "", so this is the sample `local` again */
    store_sample local_again = local;
    local_again.machine = NULL;
    local_again.seq = 5;
    assert_int_equal(store_add_sample(s, resumed, &local_again, err, sizeof err), -1);
    assert_contains(err, "already stored");

    collection *c = read_samples(s, id);
    assert_int_equal(c->n, 4);
    assert_same_sample(&c->items[0], &x);
    assert_same_sample(&c->items[1], &other_layout);
    assert_same_sample(&c->items[2], &other_machine);
    assert_same_sample(&c->items[3], &local);
    free(c);
    store_close(s);
    /* the refused samples left no metrics behind */
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM sample_metric"), 4 * 3);
    /* the message names every part of the block's key: which twin, which machine */
    assert_contains(refused, f->path);
    assert_contains(refused, "point clients=4, variant A");
    assert_contains(refused, "layout 1");
    assert_contains(refused, "machine db-2");
    assert_contains(refused, "block 3");
    assert_contains(refused, "already stored; a block is never measured twice");
}

static void same_plan_reopens_and_new_text_is_kept(void **state)
{
    fixture *f = *state;
    store *s = open_store(f->path);
    store_experiment e = sample_experiment("crc");
    int64_t id = open_experiment(s, &e, false);
    assert_int_equal(open_experiment(s, &e, true), id);

    static const char edited[] = "# a comment\nname: crc\n";
    store_experiment changed_text = e;
    changed_text.text = edited;
    changed_text.text_length = sizeof edited - 1;
    changed_text.text_hash = 42;
    assert_int_equal(open_experiment(s, &changed_text, true), id);
    store_experiment got;
    char err[ERR_SIZE] = "";
    assert_int_equal(store_get_experiment(s, id, &got, err, sizeof err), 0);
    assert_string_equal(got.text, edited);
    assert_true(got.text_hash == 42);
    store_close(s);
    /* the first text is in the history, exactly once */
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM experiment_text_history WHERE"
                                      " text = 'name: crc\nvariants:\n  - name: A\n  - name: "
                                      "B\n' AND text_hash = 'fedcba9876543210'"),
                     1);
}

static void a_changed_plan_is_refused_as_plan_changed(void **state)
{
    fixture *f = *state;
    store *s = open_store(f->path);
    store_experiment e = sample_experiment("crc");
    int64_t id = open_experiment(s, &e, false);
    int64_t run = begin_run(s, id, NULL, 0);
    store_sample x = full_sample(0, 0);
    add_sample(s, run, &x);

    /* another plan, and another text with it: neither is taken */
    static const char edited[] = "name: crc\nvariants:\n  - name: A\n";
    store_experiment changed_plan = e;
    changed_plan.plan_hash ^= 1;
    changed_plan.text = edited;
    changed_plan.text_length = sizeof edited - 1;
    changed_plan.text_hash = 42;
    int64_t refused_id = -7;
    bool existing = false;
    char err[ERR_SIZE] = "";
    assert_int_equal(store_open_experiment(s, &changed_plan, &refused_id, &existing, err,
                                           sizeof err),
                     STORE_PLAN_CHANGED);
    char want[ERR_SIZE];
    snprintf(want, sizeof want,
             "experiment crc in %s was run with a different plan (variants, parameters, seed "
             "or repetitions changed); use a new store or restore the file",
             f->path);
    assert_string_equal(err, want);

    /* the stored experiment is as it was, and the store is not left in a transaction */
    store_experiment got;
    assert_int_equal(store_get_experiment(s, id, &got, err, sizeof err), 0);
    assert_true(got.plan_hash == e.plan_hash);
    assert_true(got.text_hash == e.text_hash);
    assert_memory_equal(got.text, experiment_text, sizeof experiment_text - 1);
    assert_int_equal(open_experiment(s, &e, true), id);
    begin_run(s, id, NULL, 0);
    /* an unrelated failure is still -1, not STORE_PLAN_CHANGED */
    store_experiment unnamed = sample_experiment("");
    assert_int_equal(store_open_experiment(s, &unnamed, &refused_id, &existing, err,
                                           sizeof err),
                     -1);
    store_close(s);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM experiment"), 1);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM experiment_text_history"), 0);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM sample"), 1);
}

static void each_new_text_of_the_same_plan_keeps_the_one_before(void **state)
{
    fixture *f = *state;
    store *s = open_store(f->path);
    store_experiment e = sample_experiment("crc");
    int64_t id = open_experiment(s, &e, false);
    static const char second[] = "# second\nname: crc\n", third[] = "# third\nname: crc\n";
    store_experiment edit = e;
    edit.text = second;
    edit.text_length = sizeof second - 1;
    edit.text_hash = 2;
    assert_int_equal(open_experiment(s, &edit, true), id);
    /* the same text again is no edit: nothing more in the history */
    assert_int_equal(open_experiment(s, &edit, true), id);
    edit.text = third;
    edit.text_length = sizeof third - 1;
    edit.text_hash = 3;
    assert_int_equal(open_experiment(s, &edit, true), id);

    store_experiment got;
    char err[ERR_SIZE] = "";
    assert_int_equal(store_get_experiment(s, id, &got, err, sizeof err), 0);
    assert_string_equal(got.text, third);
    assert_true(got.text_hash == 3);
    assert_true(got.plan_hash == e.plan_hash);
    store_close(s);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM experiment_text_history"), 2);
    /* oldest first, each with the hash it had and the time it was replaced */
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM experiment_text_history"
                                      " WHERE rowid = 1 AND text_hash = 'fedcba9876543210'"
                                      " AND text LIKE 'name: crc%'"
                                      " AND replaced LIKE '____-__-__T%Z'"),
                     1);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM experiment_text_history"
                                      " WHERE rowid = 2 AND text_hash = '0000000000000002'"
                                      " AND text = '# second\nname: crc\n'"),
                     1);
}

/* ---- schema ---- */

static void an_empty_file_is_migrated_and_reopened(void **state)
{
    fixture *f = *state;
    FILE *empty = fopen(f->path, "w");
    assert_non_null(empty);
    fclose(empty);
    store *s = open_store(f->path);
    store_experiment e = sample_experiment("crc");
    int64_t id = open_experiment(s, &e, false);
    int64_t run = begin_run(s, id, NULL, 0);
    store_sample x = full_sample(0, 0);
    add_sample(s, run, &x);
    store_close(s);
    assert_int_equal(raw_int(f->path, "PRAGMA user_version"), STORE_SCHEMA_VERSION);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM pragma_journal_mode"
                                      " WHERE journal_mode = 'wal'"),
                     1);

    s = open_store(f->path);
    assert_int_equal(open_experiment(s, &e, true), id);
    collection *c = read_samples(s, id);
    assert_int_equal(c->n, 1);
    assert_same_sample(&c->items[0], &x);
    free(c);
    store_close(s);
    assert_int_equal(raw_int(f->path, "PRAGMA user_version"), STORE_SCHEMA_VERSION);
    assert_integrity(f->path);
}

static void a_newer_schema_is_refused(void **state)
{
    fixture *f = *state;
    store_close(open_store(f->path));
    raw_exec(f->path, "PRAGMA user_version = 7");
    store *s = (store *)&s; /* must be reset to NULL on failure */
    char err[ERR_SIZE] = "";
    assert_int_equal(store_open(f->path, &s, err, sizeof err), -1);
    assert_null(s);
    char want[ERR_SIZE];
    snprintf(want, sizeof want,
             "%s: written by a newer verdict (schema 7); this verdict reads up to schema %d",
             f->path, STORE_SCHEMA_VERSION);
    assert_string_equal(err, want);
    assert_int_equal(raw_int(f->path, "PRAGMA user_version"), 7);
}

static void a_file_that_is_not_a_database_is_refused(void **state)
{
    fixture *f = *state;
    static const char words[] = "clients,tps\n4,48145.7\n8,90211.3\n";
    FILE *file = fopen(f->path, "w");
    assert_non_null(file);
    for (int i = 0; i < 64; i++)
        fputs(words, file);
    fclose(file);
    store *s = NULL;
    char err[ERR_SIZE] = "";
    assert_int_equal(store_open(f->path, &s, err, sizeof err), -1);
    assert_null(s);
    assert_contains(err, f->path);
    assert_contains(err, "file is not a database");
    /* and it was left as it was */
    struct stat st;
    assert_int_equal(stat(f->path, &st), 0);
    assert_int_equal(st.st_size, 64 * (sizeof words - 1));
}

static void another_applications_database_is_refused(void **state)
{
    fixture *f = *state;
    raw_exec(f->path, "CREATE TABLE invoices (id INTEGER PRIMARY KEY)");
    store *s = NULL;
    char err[ERR_SIZE] = "";
    assert_int_equal(store_open(f->path, &s, err, sizeof err), -1);
    assert_contains(err, f->path);
    assert_contains(err, "not a verdict store");
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM sqlite_schema"), 1);
}

static void a_missing_directory_is_named(void **state)
{
    fixture *f = *state;
    char path[400];
    snprintf(path, sizeof path, "%s/no/such/dir/store.db", f->dir);
    store *s = NULL;
    char err[ERR_SIZE] = "";
    assert_int_equal(store_open(path, &s, err, sizeof err), -1);
    assert_contains(err, path);
    assert_contains(err, "cannot open or create the file");
}

/* Runs store_open in a child, as nobody when the tests run as root (root writes anywhere),
 * and returns its message through a pipe. */
static void open_as_unprivileged(const char *path, char *err, size_t errlen)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
            _exit(2);
        store *s = NULL;
        char message[ERR_SIZE] = "";
        int rc = store_open(path, &s, message, sizeof message);
        store_close(s);
        if (write(fds[1], message, strlen(message)) < 0)
            _exit(3);
        _exit(rc == -1 ? 0 : 1);
    }
    close(fds[1]);
    ssize_t n = read(fds[0], err, errlen - 1);
    close(fds[0]);
    err[n > 0 ? n : 0] = '\0';
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

static void an_unwritable_directory_is_named(void **state)
{
    fixture *f = *state;
    char dir[300], path[400];
    snprintf(dir, sizeof dir, "%s/readonly", f->dir);
    snprintf(path, sizeof path, "%s/store.db", dir);
    assert_int_equal(chmod(f->dir, 0755), 0);
    assert_int_equal(mkdir(dir, 0555), 0);
    char err[ERR_SIZE] = "";
    open_as_unprivileged(path, err, sizeof err);
    assert_contains(err, path);
    assert_contains(err, "cannot open or create the file");
    assert_int_equal(chmod(dir, 0700), 0);
}

/* ---- migrations from schema 1 ---- */

/* Schema 1 exactly as verdict wrote it before schema 2 (git show of store_schema.c before
 * the layout and machine columns), so that migration is tried on files of that shape. */
static const char schema_v1[] =
    "CREATE TABLE experiment (\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  name TEXT NOT NULL UNIQUE,\n"
    "  text TEXT NOT NULL,\n"
    "  text_hash TEXT NOT NULL CHECK (length(text_hash) = 16),\n"
    "  plan_hash TEXT NOT NULL CHECK (length(plan_hash) = 16),\n"
    "  seed TEXT NOT NULL,\n"
    "  tool_version TEXT NOT NULL,\n"
    "  created TEXT NOT NULL);\n"
    "CREATE TABLE experiment_text_history (\n"
    "  experiment_id INTEGER NOT NULL REFERENCES experiment(id),\n"
    "  text TEXT NOT NULL,\n"
    "  text_hash TEXT NOT NULL,\n"
    "  replaced TEXT NOT NULL);\n"
    "CREATE TABLE run (\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  experiment_id INTEGER NOT NULL REFERENCES experiment(id),\n"
    "  tool_version TEXT NOT NULL,\n"
    "  started TEXT NOT NULL,\n"
    "  ended TEXT,\n"
    "  status TEXT NOT NULL\n"
    "    CHECK (status IN ('running', 'done', 'interrupted', 'failed')));\n"
    "CREATE INDEX run_by_experiment ON run (experiment_id);\n"
    "CREATE TABLE run_fact (\n"
    "  run_id INTEGER NOT NULL REFERENCES run(id),\n"
    "  position INTEGER NOT NULL,\n"
    "  key TEXT NOT NULL,\n"
    "  value TEXT NOT NULL,\n"
    "  PRIMARY KEY (run_id, position),\n"
    "  UNIQUE (run_id, key)) WITHOUT ROWID;\n"
    "CREATE TABLE sample (\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  experiment_id INTEGER NOT NULL REFERENCES experiment(id),\n"
    "  run_id INTEGER NOT NULL REFERENCES run(id),\n"
    "  point TEXT NOT NULL,\n"
    "  variant TEXT NOT NULL,\n"
    "  block INTEGER NOT NULL,\n"
    "  seq INTEGER NOT NULL,\n"
    "  started REAL,\n"
    "  wall REAL,\n"
    "  user_seconds REAL,\n"
    "  sys_seconds REAL,\n"
    "  maxrss_kib REAL,\n"
    "  voluntary_switches INTEGER NOT NULL,\n"
    "  involuntary_switches INTEGER NOT NULL,\n"
    "  exit_code INTEGER NOT NULL,\n"
    "  timed_out INTEGER NOT NULL CHECK (timed_out IN (0, 1)),\n"
    "  tainted INTEGER NOT NULL CHECK (tainted IN (0, 1)),\n"
    "  taint_reason TEXT,\n"
    "  steal REAL,\n"
    "  other_busy REAL,\n"
    "  load1 REAL);\n"
    /* resume must never measure a block twice: the database refuses a second sample */
    "CREATE UNIQUE INDEX sample_one_per_block\n"
    "  ON sample (experiment_id, point, variant, block) WHERE block >= 0;\n"
    "CREATE INDEX sample_in_order ON sample (experiment_id, seq);\n"
    "CREATE INDEX sample_by_run ON sample (run_id);\n"
    "CREATE TABLE sample_metric (\n"
    "  sample_id INTEGER NOT NULL REFERENCES sample(id),\n"
    "  position INTEGER NOT NULL,\n"
    "  name TEXT NOT NULL,\n"
    "  value REAL,\n"
    "  PRIMARY KEY (sample_id, position),\n"
    "  UNIQUE (sample_id, name)) WITHOUT ROWID;\n";

static void exec_on(sqlite3 *db, const char *sql)
{
    char *message = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &message) != SQLITE_OK)
        fail_msg("%s: %s", sql, message != NULL ? message : "?");
    sqlite3_free(message);
}

static void step_done(sqlite3 *db, sqlite3_stmt *stmt)
{
    if (sqlite3_step(stmt) != SQLITE_DONE)
        fail_msg("writing the schema 1 store: %s", sqlite3_errmsg(db));
    sqlite3_reset(stmt);
    sqlite3_clear_bindings(stmt);
}

/* A store as a verdict of schema 1 left it: experiment "crc" (id 1, sample_experiment's
 * values), an interrupted run (id 1) with one fact, and samples full_sample(i, i) for i < n
 * with their metrics, written with bound values so every double is exact. */
static void write_v1_store(const char *path, long n)
{
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                                     NULL),
                     SQLITE_OK);
    exec_on(db, "BEGIN");
    exec_on(db, schema_v1);
    /* application_id 'vrdt' */
    exec_on(db, "PRAGMA application_id = 1987208308; PRAGMA user_version = 1");
    sqlite3_stmt *stmt = NULL;
    assert_int_equal(sqlite3_prepare_v2(db,
                                        "INSERT INTO experiment VALUES (1, 'crc', ?1,"
                                        " 'fedcba9876543210', '8000000000000001',"
                                        " '18446744073709551615', '0.1.0',"
                                        " '2024-05-01T12:00:00.000Z')",
                                        -1, &stmt, NULL),
                     SQLITE_OK);
    sqlite3_bind_text(stmt, 1, experiment_text, -1, SQLITE_STATIC);
    step_done(db, stmt);
    sqlite3_finalize(stmt);
    exec_on(db, "INSERT INTO run VALUES (1, 1, '0.1.0', '2024-05-01T12:00:00.000Z', NULL,"
                " 'interrupted');"
                "INSERT INTO run_fact VALUES (1, 0, 'governor', 'performance');");
    sqlite3_stmt *metric = NULL;
    assert_int_equal(sqlite3_prepare_v2(db,
                                        "INSERT INTO sample (id, experiment_id, run_id, point,"
                                        " variant, block, seq, started, wall, user_seconds,"
                                        " sys_seconds, maxrss_kib, voluntary_switches,"
                                        " involuntary_switches, exit_code, timed_out, tainted,"
                                        " taint_reason, steal, other_busy, load1) VALUES (?1,"
                                        " 1, 1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12,"
                                        " ?13, ?14, ?15, ?16, ?17, ?18, ?19)",
                                        -1, &stmt, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, "INSERT INTO sample_metric VALUES (?1, ?2, ?3, ?4)",
                                        -1, &metric, NULL),
                     SQLITE_OK);
    for (long i = 0; i < n; i++) {
        store_sample x = full_sample(i, i);
        sqlite3_bind_int64(stmt, 1, i + 1);
        sqlite3_bind_text(stmt, 2, x.point, -1, SQLITE_STATIC);
        sqlite3_bind_text(stmt, 3, x.variant, -1, SQLITE_STATIC);
        sqlite3_bind_int64(stmt, 4, x.block);
        sqlite3_bind_int64(stmt, 5, x.seq);
        const double reals[] = {x.started, x.wall, x.user, x.sys, x.maxrss_kib};
        for (int r = 0; r < 5; r++)
            sqlite3_bind_double(stmt, 6 + r, reals[r]);
        sqlite3_bind_int64(stmt, 11, x.voluntary_switches);
        sqlite3_bind_int64(stmt, 12, x.involuntary_switches);
        sqlite3_bind_int(stmt, 13, x.exit_code);
        sqlite3_bind_int(stmt, 14, x.timed_out);
        sqlite3_bind_int(stmt, 15, x.tainted);
        sqlite3_bind_text(stmt, 16, x.taint_reason, -1, SQLITE_STATIC);
        sqlite3_bind_double(stmt, 17, x.steal);
        sqlite3_bind_double(stmt, 18, x.other_busy);
        sqlite3_bind_double(stmt, 19, x.load1);
        step_done(db, stmt);
        for (size_t m = 0; m < x.n_metrics; m++) {
            sqlite3_bind_int64(metric, 1, i + 1);
            sqlite3_bind_int64(metric, 2, (sqlite3_int64)m);
            sqlite3_bind_text(metric, 3, x.metric_names[m], -1, SQLITE_STATIC);
            sqlite3_bind_double(metric, 4, x.metric_values[m]);
            step_done(db, metric);
        }
    }
    sqlite3_finalize(metric);
    sqlite3_finalize(stmt);
    exec_on(db, "COMMIT");
    sqlite3_close(db);
}

#define V1_SAMPLES 4

static void a_version_1_store_is_migrated_keeping_its_samples(void **state)
{
    fixture *f = *state;
    write_v1_store(f->path, V1_SAMPLES);
    assert_int_equal(raw_int(f->path, "PRAGMA user_version"), 1);

    store *s = open_store(f->path);
    assert_int_equal(raw_int(f->path, "PRAGMA user_version"), 2);
    assert_int_equal(raw_int(f->path, "PRAGMA application_id"), 0x76726474);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM pragma_journal_mode"
                                      " WHERE journal_mode = 'wal'"),
                     1);
    /* the old samples are at layout 0 on the local machine */
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM sample"
                                      " WHERE layout = 0 AND machine = ''"),
                     V1_SAMPLES);
    /* one block per (experiment, point, variant, layout, machine) now */
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM pragma_index_info"
                                      "('sample_one_per_block')"),
                     6);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM pragma_index_info"
                                      "('sample_one_per_block') WHERE name IN ('layout',"
                                      " 'machine')"),
                     2);

    /* the experiment resumes under its old id, with its text, plan and facts */
    store_experiment e = sample_experiment("crc");
    assert_int_equal(open_experiment(s, &e, true), 1);
    store_experiment got;
    char err[ERR_SIZE] = "";
    assert_int_equal(store_get_experiment(s, 1, &got, err, sizeof err), 0);
    assert_string_equal(got.text, experiment_text);
    assert_true(got.plan_hash == e.plan_hash);
    assert_true(got.seed == UINT64_MAX);
    fact_list facts = {0};
    assert_int_equal(store_for_each_fact(s, 1, collect_fact, &facts, err, sizeof err), 0);
    assert_int_equal(facts.n, 1);
    assert_string_equal(facts.keys[0], "governor");
    collection *c = read_samples(s, 1);
    assert_int_equal(c->n, V1_SAMPLES);
    for (long i = 0; i < V1_SAMPLES; i++) {
        store_sample want = full_sample(i, i); /* layout 0, machine NULL: read back "" */
        assert_same_sample(&c->items[i], &want);
    }
    free(c);

    /* resume: new blocks are added, an old block is refused, twins and machines are new */
    int64_t run = begin_run(s, 1, NULL, 0);
    assert_int_equal(run, 2);
    store_sample added[3] = {full_sample(V1_SAMPLES, V1_SAMPLES), full_sample(0, 0),
                             full_sample(1, 1)};
    added[1].seq = V1_SAMPLES + 1;
    added[1].layout = 1;
    added[2].seq = V1_SAMPLES + 2;
    added[2].machine = "db-2";
    store_sample old_block = full_sample(0, 0);
    old_block.seq = V1_SAMPLES + 3;
    assert_int_equal(store_add_sample(s, run, &old_block, err, sizeof err), -1);
    assert_contains(err, "already stored");
    for (int i = 0; i < 3; i++)
        add_sample(s, run, &added[i]);
    assert_int_equal(store_end_run(s, run, "done", err, sizeof err), 0);
    store_close(s);

    /* and once more: already at schema 2, nothing to migrate, everything there */
    s = open_store(f->path);
    assert_int_equal(open_experiment(s, &e, true), 1);
    c = read_samples(s, 1);
    assert_int_equal(c->n, V1_SAMPLES + 3);
    for (long i = 0; i < V1_SAMPLES; i++) {
        store_sample want = full_sample(i, i);
        assert_same_sample(&c->items[i], &want);
    }
    for (int i = 0; i < 3; i++)
        assert_same_sample(&c->items[V1_SAMPLES + i], &added[i]);
    free(c);
    store_close(s);
    assert_int_equal(raw_int(f->path, "PRAGMA user_version"), 2);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM sample_metric"),
                     3 * (V1_SAMPLES + 3));
    assert_integrity(f->path);
}

static void a_failed_migration_leaves_the_version_1_store_as_it_was(void **state)
{
    fixture *f = *state;
    write_v1_store(f->path, 2);
    /* a column added by hand is in the way of schema 2's first step */
    raw_exec(f->path, "ALTER TABLE sample ADD COLUMN layout INTEGER");
    store *s = (store *)&s; /* must be reset to NULL on failure */
    char err[ERR_SIZE] = "";
    assert_int_equal(store_open(f->path, &s, err, sizeof err), -1);
    assert_null(s);
    assert_contains(err, f->path);
    assert_contains(err, "creating schema 2");
    assert_contains(err, "duplicate column name: layout");
    /* one transaction: no step of schema 2 stayed */
    assert_int_equal(raw_int(f->path, "PRAGMA user_version"), 1);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM pragma_table_info('sample')"
                                      " WHERE name = 'machine'"),
                     0);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM pragma_index_info"
                                      "('sample_one_per_block')"),
                     4);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM sample"), 2);
    assert_integrity(f->path);
}

static void a_store_of_the_next_schema_is_refused_untouched(void **state)
{
    fixture *f = *state;
    store *s = open_store(f->path);
    store_experiment e = sample_experiment("crc");
    int64_t run = begin_run(s, open_experiment(s, &e, false), NULL, 0);
    store_sample x = full_sample(0, 0);
    add_sample(s, run, &x);
    store_close(s);
    char *bump = sqlite3_mprintf("PRAGMA user_version = %d", STORE_SCHEMA_VERSION + 1);
    raw_exec(f->path, bump);
    sqlite3_free(bump);

    s = (store *)&s;
    char err[ERR_SIZE] = "";
    assert_int_equal(store_open(f->path, &s, err, sizeof err), -1);
    assert_null(s);
    char want[ERR_SIZE];
    snprintf(want, sizeof want,
             "%s: written by a newer verdict (schema %d); this verdict reads up to schema %d",
             f->path, STORE_SCHEMA_VERSION + 1, STORE_SCHEMA_VERSION);
    assert_string_equal(err, want);
    assert_int_equal(raw_int(f->path, "PRAGMA user_version"), STORE_SCHEMA_VERSION + 1);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM sample"), 1);
}

/* ---- a store in memory ---- */

static void a_memory_store_works_end_to_end(void **state)
{
    fixture *f = *state;
    /* from inside the test's directory: a file named ":memory:" would show up there */
    char cwd[512];
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(f->dir), 0);
    store *s = open_store(":memory:");
    store *other = open_store(":memory:");
    sqlite3 *db = sqlite_store_connection(s);
    assert_int_equal(db_int(db, "PRAGMA user_version"), STORE_SCHEMA_VERSION);
    assert_int_equal(db_int(db, "SELECT count(*) FROM pragma_table_info('sample')"
                                " WHERE name IN ('layout', 'machine')"),
                     2);

    store_experiment e = sample_experiment("crc");
    int64_t id = open_experiment(s, &e, false);
    assert_int_equal(open_experiment(s, &e, true), id);
    store_fact facts[] = {{"governor", "performance"}};
    int64_t run = begin_run(s, id, facts, 1);
    char err[ERR_SIZE] = "";
    store_fact later[] = {{"ns_per_op", "1.5"}};
    assert_int_equal(store_add_run_facts(s, run, later, 1, err, sizeof err), 0);
    store_sample samples[3] = {full_sample(0, 0), full_sample(0, 1), full_sample(0, 2)};
    samples[2].variant = "A";
    samples[2].layout = 1;
    samples[2].machine = "db-2";
    for (int i = 0; i < 3; i++)
        add_sample(s, run, &samples[i]);
    store_sample again = samples[0];
    again.seq = 3;
    assert_int_equal(store_add_sample(s, run, &again, err, sizeof err), -1);
    assert_contains(err, ":memory:");
    assert_contains(err, "already stored");
    assert_int_equal(store_end_run(s, run, "done", err, sizeof err), 0);

    collection *c = read_samples(s, id);
    assert_int_equal(c->n, 3);
    for (int i = 0; i < 3; i++)
        assert_same_sample(&c->items[i], &samples[i]);
    free(c);
    fact_list got = {0};
    assert_int_equal(store_for_each_fact(s, id, collect_fact, &got, err, sizeof err), 0);
    assert_int_equal(got.n, 2);
    assert_string_equal(got.keys[1], "ns_per_op");
    int64_t latest = 0;
    assert_int_equal(store_latest_experiment(s, &latest, err, sizeof err), 0);
    assert_int_equal(latest, id);
    store_experiment stored;
    assert_int_equal(store_get_experiment(s, id, &stored, err, sizeof err), 0);
    assert_string_equal(stored.name, "crc");
    assert_int_equal(db_int(db, "SELECT count(*) FROM run WHERE status = 'done'"
                                " AND ended IS NOT NULL"),
                     1);

    /* each ":memory:" store is its own: the other one holds nothing */
    assert_int_equal(store_latest_experiment(other, &latest, err, sizeof err), -1);
    assert_contains(err, "no experiment");
    store_close(other);
    store_close(s);
    assert_int_equal(access(":memory:", F_OK), -1);
    assert_int_equal(chdir(cwd), 0);
}

/* ---- durability ---- */

static void committed_samples_are_visible_at_once(void **state)
{
    fixture *f = *state;
    store *s = open_store(f->path);
    store_experiment e = sample_experiment("crc");
    int64_t run = begin_run(s, open_experiment(s, &e, false), NULL, 0);
    store_sample x = full_sample(0, 0);
    add_sample(s, run, &x);
    /* another connection (another verdict) sees it while the writer still has it open */
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM sample_metric"), 3);
    store_close(s);
}

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Another process takes the write lock, says so on `ready`, and holds it for 300 ms. */
static pid_t hold_write_lock(const char *path)
{
    int ready[2];
    assert_int_equal(pipe(ready), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(ready[0]);
        sqlite3 *db = NULL;
        if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK ||
            sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK ||
            write(ready[1], "r", 1) != 1)
            _exit(2);
        usleep(300 * 1000);
        int rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
        sqlite3_close(db);
        _exit(rc == SQLITE_OK ? 0 : 3);
    }
    close(ready[1]);
    char word;
    assert_int_equal(read(ready[0], &word, 1), 1);
    close(ready[0]);
    return pid;
}

static void a_writer_waits_for_another_and_readers_never_block(void **state)
{
    fixture *f = *state;
    store *s = open_store(f->path);
    store_experiment e = sample_experiment("crc");
    int64_t run = begin_run(s, open_experiment(s, &e, false), NULL, 0);

    /* a reader in the middle of a read transaction (verdict report, say) */
    sqlite3 *reader = NULL;
    sqlite3_stmt *reading = NULL;
    assert_int_equal(sqlite3_open_v2(f->path, &reader, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(reader, "SELECT id FROM run", -1, &reading, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_step(reading), SQLITE_ROW);
    store_sample x = full_sample(0, 0);
    add_sample(s, run, &x);
    sqlite3_finalize(reading);
    sqlite3_close(reader);

    /* another writer: the store waits for it (busy timeout) instead of failing */
    pid_t holder = hold_write_lock(f->path);
    double before = now_seconds();
    x = full_sample(1, 1);
    add_sample(s, run, &x);
    assert_true(now_seconds() - before >= 0.1);
    int status = 0;
    assert_int_equal(waitpid(holder, &status, 0), holder);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    store_close(s);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM sample"), 2);
}

static void a_full_disk_keeps_what_was_stored(void **state)
{
    fixture *f = *state;
    store *s = open_store(f->path);
    store_experiment e = sample_experiment("crc");
    int64_t id = open_experiment(s, &e, false);
    int64_t run = begin_run(s, id, NULL, 0);
    /* a full disk, simulated: the file may not grow beyond its present pages */
    char *grow_limit = sqlite3_mprintf("PRAGMA max_page_count = %lld",
                                       raw_int(f->path, "PRAGMA page_count") + 2);
    assert_int_equal(sqlite3_exec(sqlite_store_connection(s), grow_limit, NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_free(grow_limit);
    static char reason[2000];
    memset(reason, 'x', sizeof reason - 1);
    char err[ERR_SIZE] = "";
    long stored = 0;
    for (;; stored++) {
        store_sample x = full_sample(stored, stored);
        x.taint_reason = reason;
        if (store_add_sample(s, run, &x, err, sizeof err) != 0)
            break;
        assert_true(stored < 1000);
    }
    assert_true(stored > 0);
    assert_contains(err, f->path);
    assert_contains(err, "disk full");
    assert_contains(err, "what was stored before is intact");
    store_close(s);

    assert_integrity(f->path);
    s = open_store(f->path);
    collection *c = read_samples(s, id);
    assert_int_equal(c->n, stored);
    for (long i = 0; i < stored; i++)
        assert_int_equal(c->items[i].x.n_metrics, 3);
    free(c);
    store_close(s);
}

#define DURABILITY_SAMPLES 200

/* The writer of the durability tests: reports each seq on `report` once store_add_sample
 * has returned; with `go` it then waits for the parent's word before the next sample. */
static void writer_child(const char *path, int report, int go)
{
    store *s = NULL;
    char err[ERR_SIZE];
    if (store_open(path, &s, err, sizeof err) != 0)
        _exit(2);
    store_experiment e = sample_experiment("crc");
    int64_t id = 0, run = 0;
    bool existing = false;
    if (store_open_experiment(s, &e, &id, &existing, err, sizeof err) != 0 ||
        store_begin_run(s, id, NULL, 0, &run, err, sizeof err) != 0)
        _exit(3);
    for (long seq = 0; seq < DURABILITY_SAMPLES; seq++) {
        store_sample x = full_sample(seq, seq);
        if (store_add_sample(s, run, &x, err, sizeof err) != 0)
            _exit(4);
        if (write(report, &seq, sizeof seq) != (ssize_t)sizeof seq)
            _exit(5);
        char word;
        if (go >= 0 && read(go, &word, 1) != 1)
            _exit(6);
    }
    _exit(0); /* not reached when the parent kills in time */
}

static pid_t start_writer(const char *path, int *report, int *go)
{
    int report_pipe[2], go_pipe[2];
    assert_int_equal(pipe(report_pipe), 0);
    if (go != NULL)
        assert_int_equal(pipe(go_pipe), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(report_pipe[0]);
        if (go != NULL)
            close(go_pipe[1]);
        writer_child(path, report_pipe[1], go != NULL ? go_pipe[0] : -1);
    }
    close(report_pipe[1]);
    *report = report_pipe[0];
    if (go != NULL) {
        close(go_pipe[0]);
        *go = go_pipe[1];
    }
    return pid;
}

static void kill_and_reap(pid_t pid)
{
    assert_int_equal(kill(pid, SIGKILL), 0);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGKILL);
}

/* Reopens after the kill: the samples are seq 0.. n-1, complete, and resume goes on. */
static void assert_store_holds(const char *path, long n)
{
    assert_integrity(path);
    store *s = open_store(path);
    store_experiment e = sample_experiment("crc");
    int64_t id = open_experiment(s, &e, true);
    collection *c = read_samples(s, id);
    assert_int_equal(c->n, n);
    for (long i = 0; i < n; i++) {
        store_sample want = full_sample(i, i);
        assert_same_sample(&c->items[i], &want);
    }
    free(c);
    int64_t run = begin_run(s, id, NULL, 0);
    store_sample next = full_sample(n, n);
    add_sample(s, run, &next);
    store_sample again = full_sample(0, 0); /* block 0 of variant A, measured again */
    again.seq = n + 1;
    char err[ERR_SIZE] = "";
    assert_int_equal(store_add_sample(s, run, &again, err, sizeof err), -1);
    assert_contains(err, "already stored");
    store_close(s);
}

static void killed_after_sample_k_keeps_exactly_k(void **state)
{
    fixture *f = *state;
    const long k = 37;
    int report = -1, go = -1;
    pid_t pid = start_writer(f->path, &report, &go);
    long seq = -1;
    for (;;) {
        assert_int_equal(read(report, &seq, sizeof seq), (ssize_t)sizeof seq);
        if (seq == k - 1)
            break;
        assert_int_equal(write(go, "g", 1), 1);
    }
    /* the child waits for its word after sample k: it dies with exactly k committed */
    kill_and_reap(pid);
    close(report);
    close(go);
    assert_store_holds(f->path, k);
}

static void killed_mid_stream_loses_nothing_committed(void **state)
{
    fixture *f = *state;
    int report = -1;
    pid_t pid = start_writer(f->path, &report, NULL);
    long seq = -1, last = -1;
    while (last < 40) {
        assert_int_equal(read(report, &seq, sizeof seq), (ssize_t)sizeof seq);
        last = seq;
    }
    kill_and_reap(pid);
    while (read(report, &seq, sizeof seq) == (ssize_t)sizeof seq)
        last = seq;
    close(report);
    /* samples 0..last were reported after their commit; one more may have committed and
     * not been reported before the kill, but never half of one */
    long n = raw_int(f->path, "SELECT count(*) FROM sample");
    assert_true(n == last + 1 || n == last + 2);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM sample_metric"), 3 * n);
    assert_store_holds(f->path, n);
}

/* ---- one writer, and readers that write nothing (issue 18, items 7 and 8) ---- */

/* A child opens the store for writing and holds it until told to go (or is killed). */
static pid_t hold_store_open(const char *path, int *go)
{
    int ready[2], go_pipe[2];
    assert_int_equal(pipe(ready), 0);
    assert_int_equal(pipe(go_pipe), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(ready[0]);
        close(go_pipe[1]);
        store *s = NULL;
        char err[ERR_SIZE];
        if (store_open(path, &s, err, sizeof err) != 0 || write(ready[1], "r", 1) != 1)
            _exit(2);
        char word;
        if (read(go_pipe[0], &word, 1) < 0)
            _exit(3);
        store_close(s);
        _exit(0);
    }
    close(ready[1]);
    close(go_pipe[0]);
    char word;
    assert_int_equal(read(ready[0], &word, 1), 1);
    close(ready[0]);
    *go = go_pipe[1];
    return pid;
}

/* Two `verdict run` on one store measured at once, and one died with "already stored". */
static void a_second_writer_is_refused_naming_the_first(void **state)
{
    fixture *f = *state;
    int go;
    pid_t holder = hold_store_open(f->path, &go);
    store *s = NULL;
    char err[ERR_SIZE] = "", expected[128];
    assert_int_equal(store_open(f->path, &s, err, sizeof err), STORE_LOCKED);
    assert_null(s);
    snprintf(expected, sizeof expected, "another verdict is running on this store (pid %d)",
             (int)holder);
    assert_contains(err, f->path);
    assert_contains(err, expected);
    /* a reader is not a writer: it reads while the writer holds the store */
    assert_int_equal(store_open_read_only(f->path, &s, err, sizeof err), 0);
    store_close(s);
    kill_and_reap(holder); /* the kernel releases the lock of a dead verdict */
    close(go);
    s = open_store(f->path);
    store_close(s);
}

static void the_same_process_cannot_open_two_writers(void **state)
{
    fixture *f = *state;
    store *first = open_store(f->path), *second = NULL;
    char err[ERR_SIZE] = "";
    assert_int_equal(store_open(f->path, &second, err, sizeof err), STORE_LOCKED);
    char expected[128];
    snprintf(expected, sizeof expected, "(pid %d)", (int)getpid());
    assert_contains(err, expected);
    store_close(first);
    second = open_store(f->path);
    store_close(second);
}

/* A store in memory is one process's own: there is no file to lock ("verdict A B" keeps
 * its samples in ":memory:", and the lock refused every such run). */
static void stores_in_memory_need_no_lock(void **state)
{
    (void)state;
    store *first = open_store(":memory:"), *second = open_store(":memory:");
    store_close(first);
    store_close(second);
}

/* A store with one experiment and two samples, closed: what `verdict report` reads. */
static int64_t make_small_store(const char *path)
{
    store *s = open_store(path);
    store_experiment e = sample_experiment("crc");
    int64_t id = open_experiment(s, &e, false);
    int64_t run = begin_run(s, id, NULL, 0);
    store_sample x = full_sample(0, 0), y = full_sample(1, 1);
    add_sample(s, run, &x);
    add_sample(s, run, &y);
    store_close(s);
    return id;
}

static int count_samples(const char *path, char *err, size_t errlen)
{
    store *s = NULL;
    if (store_open_read_only(path, &s, err, errlen) != 0)
        return -1;
    int64_t id = 0;
    if (store_latest_experiment(s, &id, err, errlen) != 0) {
        store_close(s);
        return -1;
    }
    collection *c = read_samples(s, id);
    int n = (int)c->n;
    free(c);
    store_close(s);
    return n;
}

/* A read-only file in a directory nobody may write (as nobody when root): the -shm file
 * cannot be created, and store_open failed ("attempt to write a readonly database"). */
static void a_read_only_file_is_read(void **state)
{
    fixture *f = *state;
    make_small_store(f->path);
    assert_int_equal(chmod(f->path, 0444), 0);
    assert_int_equal(chmod(f->dir, 0555), 0);
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
            _exit(2);
        char err[ERR_SIZE] = "";
        int n = count_samples(f->path, err, sizeof err);
        if (write(fds[1], err, strlen(err)) < 0)
            _exit(3);
        _exit(n == 2 ? 0 : 1);
    }
    close(fds[1]);
    char err[ERR_SIZE] = "";
    ssize_t got = read(fds[0], err, sizeof err - 1);
    close(fds[0]);
    err[got > 0 ? got : 0] = '\0';
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_int_equal(chmod(f->dir, 0700), 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fail_msg("read-only store not read: %s", err);
}

/* A read-only bind mount of the store's directory (root: CI runs the tests as root). */
static void a_store_on_a_read_only_file_system_is_read(void **state)
{
    fixture *f = *state;
    if (geteuid() != 0) {
        if (getenv("CI") != NULL)
            fail_msg("CI runs the store tests as root; this one needs it (mount)");
        skip();
    }
    make_small_store(f->path);
    char mounted[320], path[400], command[1400];
    snprintf(mounted, sizeof mounted, "%s-ro", f->dir);
    snprintf(path, sizeof path, "%s/store.db", mounted);
    assert_int_equal(mkdir(mounted, 0700), 0);
    snprintf(command, sizeof command, "mount --bind '%s' '%s' && mount -o remount,bind,ro '%s'",
             f->dir, mounted, mounted);
    if (system(command) != 0) {
        rmdir(mounted);
        fail_msg("cannot make a read-only bind mount at %s", mounted);
    }
    char err[ERR_SIZE] = "";
    int n = count_samples(path, err, sizeof err);
    store *s = NULL;
    char write_err[ERR_SIZE] = "";
    int writable = store_open(path, &s, write_err, sizeof write_err);
    store_close(s);
    snprintf(command, sizeof command, "umount '%s'", mounted);
    assert_int_equal(system(command), 0);
    assert_int_equal(rmdir(mounted), 0);
    if (n != 2)
        fail_msg("store on a read-only file system not read: %s", err);
    assert_int_not_equal(writable, 0); /* writing it is refused, with a message */
    assert_contains(write_err, path);
}

static void a_read_only_store_refuses_every_write(void **state)
{
    fixture *f = *state;
    int64_t id = make_small_store(f->path);
    store *s = NULL;
    char err[ERR_SIZE] = "";
    assert_int_equal(store_open_read_only(f->path, &s, err, sizeof err), 0);
    store_experiment e = sample_experiment("other");
    int64_t other = 0;
    bool existing = false;
    assert_int_equal(store_open_experiment(s, &e, &other, &existing, err, sizeof err), -1);
    assert_contains(err, "opened read-only");
    int64_t run = 0;
    assert_int_equal(store_begin_run(s, id, NULL, 0, &run, err, sizeof err), -1);
    assert_int_equal(store_end_run(s, 1, "done", err, sizeof err), -1);
    assert_contains(err, "opened read-only");
    store_close(s);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM experiment"), 1);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM run"), 1);
}

static void a_read_only_open_of_nothing_is_named(void **state)
{
    fixture *f = *state;
    store *s = NULL;
    char err[ERR_SIZE] = "";
    assert_int_equal(store_open_read_only(f->path, &s, err, sizeof err), -1);
    assert_contains(err, "no such store");
    assert_int_equal(access(f->path, F_OK), -1); /* not created */
    int fd = open(f->path, O_CREAT | O_WRONLY, 0644);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(store_open_read_only(f->path, &s, err, sizeof err), -1);
    assert_contains(err, "holds no experiment yet");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
#define WITH_DIR(test) cmocka_unit_test_setup_teardown(test, setup_dir, teardown_dir)
        WITH_DIR(experiment_round_trips_with_uint64_hashes),
        WITH_DIR(samples_round_trip_every_field),
        WITH_DIR(reading_stops_when_the_callback_says_so),
        WITH_DIR(facts_of_the_latest_run_come_back_in_order),
        WITH_DIR(facts_added_after_begin_follow_the_begin_facts),
        WITH_DIR(a_fact_given_twice_is_refused_and_nothing_of_the_call_is_kept),
        WITH_DIR(facts_for_a_missing_run_are_refused),
        WITH_DIR(runs_record_start_end_status_and_version),
        WITH_DIR(latest_experiment_is_the_one_run_last),
        WITH_DIR(a_block_is_never_stored_twice),
        WITH_DIR(layout_and_machine_round_trip),
        WITH_DIR(a_block_is_one_per_layout_and_machine),
        WITH_DIR(same_plan_reopens_and_new_text_is_kept),
        WITH_DIR(a_changed_plan_is_refused_as_plan_changed),
        WITH_DIR(each_new_text_of_the_same_plan_keeps_the_one_before),
        WITH_DIR(an_empty_file_is_migrated_and_reopened),
        WITH_DIR(a_newer_schema_is_refused),
        WITH_DIR(a_file_that_is_not_a_database_is_refused),
        WITH_DIR(another_applications_database_is_refused),
        WITH_DIR(a_missing_directory_is_named),
        WITH_DIR(an_unwritable_directory_is_named),
        WITH_DIR(a_version_1_store_is_migrated_keeping_its_samples),
        WITH_DIR(a_failed_migration_leaves_the_version_1_store_as_it_was),
        WITH_DIR(a_store_of_the_next_schema_is_refused_untouched),
        WITH_DIR(a_memory_store_works_end_to_end),
        WITH_DIR(committed_samples_are_visible_at_once),
        WITH_DIR(a_writer_waits_for_another_and_readers_never_block),
        WITH_DIR(a_full_disk_keeps_what_was_stored),
        WITH_DIR(killed_after_sample_k_keeps_exactly_k),
        WITH_DIR(killed_mid_stream_loses_nothing_committed),
        WITH_DIR(a_second_writer_is_refused_naming_the_first),
        WITH_DIR(the_same_process_cannot_open_two_writers),
        cmocka_unit_test(stores_in_memory_need_no_lock),
        WITH_DIR(a_read_only_file_is_read),
        WITH_DIR(a_store_on_a_read_only_file_system_is_read),
        WITH_DIR(a_read_only_store_refuses_every_write),
        WITH_DIR(a_read_only_open_of_nothing_is_named),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests of src/store's SQLite back end: the tests of both back ends on a file, then
 * what is SQLite's own (schema versions and migrations, bad files, one writer's lock, WAL
 * readers, read-only files, a full disk, stores in memory). */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "store/sqlite_store.h"
#include "common/error.h"
#include "store/store.h"
#include "store_test_support.h"

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
    verdict_error err = {0};
    assert_int_equal(store_open(f->path, &s, &err), -1);
    assert_null(s);
    char want[ERR_SIZE];
    snprintf(want, sizeof want,
             "%s: written by a newer verdict (schema 7); this verdict reads up to schema %d",
             f->path, STORE_SCHEMA_VERSION);
    assert_string_equal(err.message, want);
    assert_true(error_is(&err, ERROR_BAD_INPUT)); /* the file given cannot be used */
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
    verdict_error err = {0};
    assert_int_equal(store_open(f->path, &s, &err), -1);
    assert_null(s);
    assert_contains(err.message, f->path);
    assert_contains(err.message, "file is not a database");
    assert_true(error_is(&err, ERROR_BAD_INPUT)); /* the user's mistake, not a broken store */
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
    verdict_error err = {0};
    assert_int_equal(store_open(f->path, &s, &err), -1);
    assert_contains(err.message, f->path);
    assert_contains(err.message, "not a verdict store");
    assert_true(error_is(&err, ERROR_BAD_INPUT));
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM sqlite_schema"), 1);
}

static void a_missing_directory_is_named(void **state)
{
    fixture *f = *state;
    char path[400];
    snprintf(path, sizeof path, "%s/no/such/dir/store.db", f->dir);
    store *s = NULL;
    verdict_error err = {0};
    assert_int_equal(store_open(path, &s, &err), -1);
    assert_contains(err.message, path);
    assert_contains(err.message, "cannot open or create the file");
}

/* Runs store_open in a child, as nobody when the tests run as root (root writes anywhere),
 * and returns its message through a pipe. */
static void open_as_unprivileged(const char *path, verdict_error *err)
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
        verdict_error message = {0};
        int rc = store_open(path, &s, &message);
        store_close(s);
        if (write(fds[1], message.message, strlen(message.message)) < 0)
            _exit(3);
        _exit(rc == -1 ? 0 : 1);
    }
    close(fds[1]);
    ssize_t n = read(fds[0], err->message, sizeof err->message - 1);
    close(fds[0]);
    err->message[n > 0 ? n : 0] = '\0';
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
    verdict_error err = {0};
    open_as_unprivileged(path, &err);
    assert_contains(err.message, path);
    assert_contains(err.message, "cannot open or create the file");
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
    assert_int_equal(raw_int(f->path, "PRAGMA user_version"), STORE_SCHEMA_VERSION);
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
    verdict_error err = {0};
    assert_int_equal(store_get_experiment(s, 1, &got, &err), 0);
    assert_string_equal(got.text, experiment_text);
    assert_true(got.plan_hash == e.plan_hash);
    assert_true(got.seed == UINT64_MAX);
    fact_list facts = {0};
    assert_int_equal(store_for_each_fact(s, 1, collect_fact, &facts, &err), 0);
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
    assert_int_equal(store_add_sample(s, run, &old_block, &err), -1);
    assert_contains(err.message, "already stored");
    for (int i = 0; i < 3; i++)
        add_sample(s, run, &added[i]);
    assert_int_equal(store_end_run(s, run, "done", &err), 0);
    store_close(s);

    /* and once more: already at the latest schema, nothing to migrate, everything there */
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
    assert_int_equal(raw_int(f->path, "PRAGMA user_version"), STORE_SCHEMA_VERSION);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM sample_metric"),
                     3 * (V1_SAMPLES + 3));
    assert_integrity(f->path);
}

/* A store as a verdict of schema 2 left it: the schema 1 store above, migrated by schema 2's
 * step exactly as that verdict ran it, with a sample of a twin on another machine added. */
static void write_v2_store(const char *path, long n)
{
    write_v1_store(path, n);
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
    exec_on(db, "BEGIN;"
                "ALTER TABLE sample ADD COLUMN layout INTEGER NOT NULL DEFAULT 0;"
                "ALTER TABLE sample ADD COLUMN machine TEXT NOT NULL DEFAULT '';"
                "DROP INDEX sample_one_per_block;"
                "CREATE UNIQUE INDEX sample_one_per_block ON sample (experiment_id, point,"
                " variant, layout, machine, block) WHERE block >= 0;"
                "INSERT INTO sample (experiment_id, run_id, point, variant, block, seq, wall,"
                " voluntary_switches, involuntary_switches, exit_code, timed_out, tainted,"
                " layout, machine) VALUES (1, 1, 'clients=4', 'A', 0, 100, 0.5, 0, 0, 0, 0, 0,"
                " 1, 'db-2');"
                "PRAGMA user_version = 2;"
                "COMMIT");
    sqlite3_close(db);
}

static void a_version_2_store_is_migrated_keeping_its_samples(void **state)
{
    fixture *f = *state;
    write_v2_store(f->path, V1_SAMPLES);
    store *s = open_store(f->path);
    assert_int_equal(raw_int(f->path, "PRAGMA user_version"), STORE_SCHEMA_VERSION);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM sample"), V1_SAMPLES + 1);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM sample_metric"), 3 * V1_SAMPLES);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM sample WHERE layout = 1"
                                      " AND machine = 'db-2' AND seq = 100"),
                     1);
    /* the experiment of schema 2 has no build recorded: "" (unknown) */
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM experiment WHERE tool_build = ''"),
                     1);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM sqlite_schema WHERE name IN"
                                      " ('machine', 'machine_fact', 'block')"),
                     3);
    store_experiment e = sample_experiment("crc");
    assert_int_equal(open_experiment(s, &e, true), 1);
    store_experiment got;
    verdict_error err = {0};
    assert_int_equal(store_get_experiment(s, 1, &got, &err), 0);
    assert_string_equal(got.tool_build, "");
    collection *c = read_samples(s, 1);
    assert_int_equal(c->n, V1_SAMPLES + 1);
    for (long i = 0; i < V1_SAMPLES; i++) {
        store_sample want = full_sample(i, i);
        assert_same_sample(&c->items[i], &want);
    }
    assert_string_equal(c->items[V1_SAMPLES].machine, "db-2");
    free(c);
    /* the fleet's tables work on the migrated store */
    const store_block plan[] = {{"clients=4", 7}};
    assert_int_equal(store_plan_blocks(s, 1, plan, 1, &err), 0);
    store_fact facts[] = {{"cpu", "EPYC"}};
    assert_int_equal(store_record_machine(s, "db-2", facts, 1, &err), 0);
    store_close(s);
    assert_integrity(f->path);
}

static void a_failed_migration_leaves_the_version_1_store_as_it_was(void **state)
{
    fixture *f = *state;
    write_v1_store(f->path, 2);
    /* a column added by hand is in the way of schema 2's first step */
    raw_exec(f->path, "ALTER TABLE sample ADD COLUMN layout INTEGER");
    store *s = (store *)&s; /* must be reset to NULL on failure */
    verdict_error err = {0};
    assert_int_equal(store_open(f->path, &s, &err), -1);
    assert_null(s);
    assert_contains(err.message, f->path);
    assert_contains(err.message, "creating schema 2");
    assert_contains(err.message, "duplicate column name: layout");
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
    verdict_error err = {0};
    assert_int_equal(store_open(f->path, &s, &err), -1);
    assert_null(s);
    char want[ERR_SIZE];
    snprintf(want, sizeof want,
             "%s: written by a newer verdict (schema %d); this verdict reads up to schema %d",
             f->path, STORE_SCHEMA_VERSION + 1, STORE_SCHEMA_VERSION);
    assert_string_equal(err.message, want);
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
    verdict_error err = {0};
    store_fact later[] = {{"ns_per_op", "1.5"}};
    assert_int_equal(store_add_run_facts(s, run, later, 1, &err), 0);
    store_sample samples[3] = {full_sample(0, 0), full_sample(0, 1), full_sample(0, 2)};
    samples[2].variant = "A";
    samples[2].layout = 1;
    samples[2].machine = "db-2";
    for (int i = 0; i < 3; i++)
        add_sample(s, run, &samples[i]);
    store_sample again = samples[0];
    again.seq = 3;
    assert_int_equal(store_add_sample(s, run, &again, &err), -1);
    assert_contains(err.message, ":memory:");
    assert_contains(err.message, "already stored");
    assert_int_equal(store_end_run(s, run, "done", &err), 0);

    collection *c = read_samples(s, id);
    assert_int_equal(c->n, 3);
    for (int i = 0; i < 3; i++)
        assert_same_sample(&c->items[i], &samples[i]);
    free(c);
    fact_list got = {0};
    assert_int_equal(store_for_each_fact(s, id, collect_fact, &got, &err), 0);
    assert_int_equal(got.n, 2);
    assert_string_equal(got.keys[1], "ns_per_op");
    int64_t latest = 0;
    assert_int_equal(store_latest_experiment(s, &latest, &err), 0);
    assert_int_equal(latest, id);
    store_experiment stored;
    assert_int_equal(store_get_experiment(s, id, &stored, &err), 0);
    assert_string_equal(stored.name, "crc");
    assert_int_equal(db_int(db, "SELECT count(*) FROM run WHERE status = 'done'"
                                " AND ended IS NOT NULL"),
                     1);

    /* each ":memory:" store is its own: the other one holds nothing */
    assert_int_equal(store_latest_experiment(other, &latest, &err), -1);
    assert_contains(err.message, "no experiment");
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
    verdict_error err = {0};
    long stored = 0;
    for (;; stored++) {
        store_sample x = full_sample(stored, stored);
        x.taint_reason = reason;
        if (store_add_sample(s, run, &x, &err) != 0)
            break;
        assert_true(stored < 1000);
    }
    assert_true(stored > 0);
    assert_contains(err.message, f->path);
    assert_contains(err.message, "disk full");
    assert_true(error_is(&err, ERROR_STORE)); /* the store's own failure */
    assert_contains(err.message, "what was stored before is intact");
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

static void kill_and_reap(pid_t pid)
{
    assert_int_equal(kill(pid, SIGKILL), 0);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status));
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
        verdict_error err = {0};
        if (store_open(path, &s, &err) != 0 || write(ready[1], "r", 1) != 1)
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
    char expected[128];
    verdict_error err = {0};
    assert_int_equal(store_open(f->path, &s, &err), -1);
    assert_true(error_is(&err, ERROR_STORE_LOCKED));
    assert_null(s);
    snprintf(expected, sizeof expected, "another verdict is running on this store (pid %d)",
             (int)holder);
    assert_contains(err.message, f->path);
    assert_contains(err.message, expected);
    /* a reader is not a writer: it reads while the writer holds the store */
    assert_int_equal(store_open_read_only(f->path, &s, &err), 0);
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
    verdict_error err = {0};
    assert_int_equal(store_open(f->path, &second, &err), -1);
    assert_true(error_is(&err, ERROR_STORE_LOCKED));
    char expected[128];
    snprintf(expected, sizeof expected, "(pid %d)", (int)getpid());
    assert_contains(err.message, expected);
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

static int count_samples(const char *path, verdict_error *err)
{
    store *s = NULL;
    if (store_open_read_only(path, &s, err) != 0)
        return -1;
    int64_t id = 0;
    if (store_latest_experiment(s, &id, err) != 0) {
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
        verdict_error err = {0};
        int n = count_samples(f->path, &err);
        if (write(fds[1], err.message, strlen(err.message)) < 0)
            _exit(3);
        _exit(n == 2 ? 0 : 1);
    }
    close(fds[1]);
    verdict_error err = {0};
    ssize_t got = read(fds[0], err.message, sizeof err.message - 1);
    close(fds[0]);
    err.message[got > 0 ? got : 0] = '\0';
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_int_equal(chmod(f->dir, 0700), 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fail_msg("read-only store not read: %s", err.message);
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
    verdict_error err = {0};
    int n = count_samples(path, &err);
    store *s = NULL;
    verdict_error write_err = {0};
    int writable = store_open(path, &s, &write_err);
    store_close(s);
    snprintf(command, sizeof command, "umount '%s'", mounted);
    assert_int_equal(system(command), 0);
    assert_int_equal(rmdir(mounted), 0);
    if (n != 2)
        fail_msg("store on a read-only file system not read: %s", err.message);
    assert_int_not_equal(writable, 0); /* writing it is refused, with a message */
    assert_contains(write_err.message, path);
    assert_true(error_is(&write_err, ERROR_STORE)); /* the store's own failure, not a usage */
}

static void a_read_only_store_refuses_every_write(void **state)
{
    fixture *f = *state;
    int64_t id = make_small_store(f->path);
    store *s = NULL;
    verdict_error err = {0};
    assert_int_equal(store_open_read_only(f->path, &s, &err), 0);
    store_experiment e = sample_experiment("other");
    int64_t other = 0;
    bool existing = false;
    assert_int_equal(store_open_experiment(s, &e, &other, &existing, &err), -1);
    assert_contains(err.message, "opened read-only");
    int64_t run = 0;
    assert_int_equal(store_begin_run(s, id, NULL, 0, &run, &err), -1);
    assert_int_equal(store_end_run(s, 1, "done", &err), -1);
    assert_contains(err.message, "opened read-only");
    store_close(s);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM experiment"), 1);
    assert_int_equal(raw_int(f->path, "SELECT count(*) FROM run"), 1);
}

static void a_read_only_open_of_nothing_is_named(void **state)
{
    fixture *f = *state;
    store *s = NULL;
    verdict_error err = {0};
    assert_int_equal(store_open_read_only(f->path, &s, &err), -1);
    assert_contains(err.message, "no such store");
    assert_true(error_is(&err, ERROR_USAGE)); /* a name the user gave */
    assert_int_equal(access(f->path, F_OK), -1); /* not created */
    int fd = open(f->path, O_CREAT | O_WRONLY, 0644);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(store_open_read_only(f->path, &s, &err), -1);
    assert_contains(err.message, "holds no experiment yet");
}

/* Which back end a name picks: PostgreSQL's URIs and conninfo strings, every other name a
 * SQLite file (a file may be called "host.db" or hold an '=' after a slash). */
static void store_names_pick_the_back_end(void **state)
{
    (void)state;
    assert_true(store_is_postgres("postgresql:///verdict?host=/var/run/postgresql"));
    assert_true(store_is_postgres("postgres://db1:5432/verdict"));
    assert_true(store_is_postgres("host=db1 dbname=verdict"));
    assert_true(store_is_postgres("  dbname = verdict"));
    assert_false(store_is_postgres("results.db"));
    assert_false(store_is_postgres("host.db"));
    assert_false(store_is_postgres("./host=db1"));
    assert_false(store_is_postgres(":memory:"));
    assert_false(store_is_postgres(NULL));
}

int main(void)
{
#define WITH_DIR(test) cmocka_unit_test_setup_teardown(test, setup_sqlite, teardown_store)
    const struct CMUnitTest sqlite_tests[] = {
        WITH_DIR(an_empty_file_is_migrated_and_reopened),
        WITH_DIR(a_newer_schema_is_refused),
        WITH_DIR(a_file_that_is_not_a_database_is_refused),
        WITH_DIR(another_applications_database_is_refused),
        WITH_DIR(a_missing_directory_is_named),
        WITH_DIR(an_unwritable_directory_is_named),
        WITH_DIR(a_version_1_store_is_migrated_keeping_its_samples),
        WITH_DIR(a_version_2_store_is_migrated_keeping_its_samples),
        WITH_DIR(a_failed_migration_leaves_the_version_1_store_as_it_was),
        WITH_DIR(a_store_of_the_next_schema_is_refused_untouched),
        WITH_DIR(a_memory_store_works_end_to_end),
        WITH_DIR(committed_samples_are_visible_at_once),
        WITH_DIR(a_writer_waits_for_another_and_readers_never_block),
        WITH_DIR(a_full_disk_keeps_what_was_stored),
        WITH_DIR(a_second_writer_is_refused_naming_the_first),
        WITH_DIR(the_same_process_cannot_open_two_writers),
        cmocka_unit_test(stores_in_memory_need_no_lock),
        cmocka_unit_test(store_names_pick_the_back_end),
        WITH_DIR(a_read_only_file_is_read),
        WITH_DIR(a_store_on_a_read_only_file_system_is_read),
        WITH_DIR(a_read_only_store_refuses_every_write),
        WITH_DIR(a_read_only_open_of_nothing_is_named),
    };
#undef WITH_DIR
    struct CMUnitTest tests[128];
    size_t n = store_neutral_tests(tests, 128, setup_sqlite, teardown_store);
    for (size_t i = 0; i < sizeof sqlite_tests / sizeof sqlite_tests[0] && n < 128; i++)
        tests[n++] = sqlite_tests[i];
    return _cmocka_run_group_tests("store (SQLite)", tests, n, NULL, NULL);
}

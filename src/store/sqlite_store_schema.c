/* The SQLite store's schema and its migrations: numbered SQL steps applied in one
 * transaction, recorded in PRAGMA user_version; the checks that a file is a store we may use. */
#include <stdio.h>
#include <string.h>

#include "common/error.h"

#include "store/sqlite_store_internal.h"

/* 'vrdt': marks the file as a verdict store (PRAGMA application_id, in the file header). */
#define STORE_APPLICATION_ID 0x76726474

/* Schema 1. Tables are documented column by column in docs/store.md. Hashes are 16 hex
 * digits and the seed decimal text: SQLite integers are signed, these are uint64. */
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

/* Schema 2: the factors of the design beside point and variant — which code layout of the
 * variant's build took the sample, and which machine; a block is one per (unit, machine).
 * Stores of schema 1 keep every sample, at layout 0 on machine "". */
static const char schema_v2[] =
    "ALTER TABLE sample ADD COLUMN layout INTEGER NOT NULL DEFAULT 0;\n"
    "ALTER TABLE sample ADD COLUMN machine TEXT NOT NULL DEFAULT '';\n"
    "DROP INDEX sample_one_per_block;\n"
    "CREATE UNIQUE INDEX sample_one_per_block\n"
    "  ON sample (experiment_id, point, variant, layout, machine, block) WHERE block >= 0;\n";

/* Schema 3: fleets. The verdict build that created an experiment; the machines that ran it
 * with their facts (replaced as a whole when a machine is recorded again); and the blocks of
 * a shared plan, claimed by one worker at a time under a lease (julianday, SQLite's clock). */
static const char schema_v3[] =
    "ALTER TABLE experiment ADD COLUMN tool_build TEXT NOT NULL DEFAULT '';\n"
    "CREATE TABLE machine (\n"
    "  name TEXT PRIMARY KEY,\n"
    "  recorded TEXT NOT NULL) WITHOUT ROWID;\n"
    "CREATE TABLE machine_fact (\n"
    "  machine TEXT NOT NULL REFERENCES machine(name),\n"
    "  position INTEGER NOT NULL,\n"
    "  key TEXT NOT NULL,\n"
    "  value TEXT NOT NULL,\n"
    "  PRIMARY KEY (machine, position),\n"
    "  UNIQUE (machine, key)) WITHOUT ROWID;\n"
    "CREATE TABLE block (\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  experiment_id INTEGER NOT NULL REFERENCES experiment(id),\n"
    "  point TEXT NOT NULL,\n"
    "  block INTEGER NOT NULL,\n"
    "  position INTEGER NOT NULL,\n"
    "  state TEXT NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'claimed', 'done')),\n"
    "  machine TEXT NOT NULL DEFAULT '',\n"
    "  worker TEXT NOT NULL DEFAULT '',\n"
    "  lease_until REAL,\n"
    "  attempts INTEGER NOT NULL DEFAULT 0,\n"
    "  UNIQUE (experiment_id, point, block));\n"
    "CREATE INDEX block_in_order ON block (experiment_id, position);\n";

/* Schema 4: extensions (`verdict run --more N`), the blocks per point after each. */
static const char schema_v4[] =
    "CREATE TABLE extension (\n"
    "  experiment_id INTEGER NOT NULL REFERENCES experiment(id),\n"
    "  blocks INTEGER NOT NULL CHECK (blocks > 0),\n"
    "  recorded TEXT NOT NULL,\n"
    "  PRIMARY KEY (experiment_id, blocks)) WITHOUT ROWID;\n";

/* Schema 5: signatures of experiments (`verdict run --sign KEY`), one per signer's key,
 * with what the signer says it signed (issue 31). */
static const char schema_v5[] =
    "CREATE TABLE experiment_signature (\n"
    "  experiment_id INTEGER NOT NULL REFERENCES experiment(id),\n"
    "  public_key TEXT NOT NULL CHECK (length(public_key) = 64),\n"
    "  signature TEXT NOT NULL,\n"
    "  text_sha256 TEXT NOT NULL,\n"
    "  plan_hash TEXT NOT NULL,\n"
    "  tool_build TEXT NOT NULL,\n"
    "  extensions TEXT NOT NULL,\n"
    "  recorded TEXT NOT NULL,\n"
    "  PRIMARY KEY (experiment_id, public_key)) WITHOUT ROWID;\n";
/* Schema 6: profiles (`profile: true`), one row per profiled run, perf's resolution kept as
 * the text its tools read (store.h, docs/profiles.md). */
static const char schema_v6[] =
    "CREATE TABLE profile (\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  experiment_id INTEGER NOT NULL REFERENCES experiment(id),\n"
    "  run_id INTEGER NOT NULL REFERENCES run(id),\n"
    "  point TEXT NOT NULL,\n"
    "  variant TEXT NOT NULL,\n"
    "  layout INTEGER NOT NULL,\n"
    "  machine TEXT NOT NULL,\n"
    "  block INTEGER NOT NULL CHECK (block >= 0),\n"
    "  event TEXT NOT NULL,\n"
    "  wall REAL,\n"
    "  samples INTEGER NOT NULL,\n"
    "  symbols TEXT NOT NULL,\n"
    "  stacks TEXT NOT NULL,\n"
    "  UNIQUE (experiment_id, point, variant, layout, machine, block));\n";

typedef struct {
    int version; /* the schema this step brings the store to */
    const char *sql;
} store_migration;

/* Schema N+1 is one more entry here (and STORE_SCHEMA_VERSION raised in store.h). */
static const store_migration migrations[] = {
    {1, schema_v1},
    {2, schema_v2},
    {3, schema_v3},
    {4, schema_v4},
    {5, schema_v5},
    {6, schema_v6},
};

_Static_assert(sizeof migrations / sizeof migrations[0] == STORE_SCHEMA_VERSION,
               "one migration per schema version");

/* A single integer from a PRAGMA or a query without parameters. */
static int query_int(sqlite3 *db, const char *path, const char *sql, long long *out,
                     const char *doing, verdict_error *err)
{
    sqlite3_stmt *stmt = NULL;
    int rc = sqlite3_prepare_v2(db, sql, -1, &stmt, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(stmt);
    if (rc != SQLITE_ROW) {
        sqlite_store_fail_db(db, path, rc, doing, err);
        sqlite3_finalize(stmt);
        return -1;
    }
    *out = sqlite3_column_int64(stmt, 0);
    sqlite3_finalize(stmt);
    return 0;
}

static int exec_sql(sqlite3 *db, const char *path, const char *sql, const char *doing,
                    verdict_error *err)
{
    char *sqlite_text = NULL;
    int rc = sqlite3_exec(db, sql, NULL, NULL, &sqlite_text);
    sqlite3_free(sqlite_text);
    return rc == SQLITE_OK ? 0 : sqlite_store_fail_db(db, path, rc, doing, err);
}

/* Refuses files that are SQLite databases of something else, or of a newer verdict. */
static int check_identity(sqlite3 *db, const char *path, long long *version, verdict_error *err)
{
    const char *doing = "reading the schema version";
    long long application_id = 0, tables = 0;
    if (query_int(db, path, "PRAGMA user_version", version, doing, err) != 0 ||
        query_int(db, path, "PRAGMA application_id", &application_id, doing, err) != 0 ||
        query_int(db, path, "SELECT count(*) FROM sqlite_schema", &tables, doing, err) != 0)
        return -1;
    if (application_id != 0 && application_id != STORE_APPLICATION_ID)
        return error_set(err, ERROR_BAD_INPUT, "%s: a SQLite database of another application "
                         "(application_id %lld), not a verdict store", path, application_id);
    if (*version == 0 && tables > 0)
        return error_set(err, ERROR_BAD_INPUT, "%s: a SQLite database with tables but no verdict "
                         "schema, not a verdict store", path);
    if (*version > STORE_SCHEMA_VERSION)
        return error_set(err, ERROR_BAD_INPUT, "%s: written by a newer verdict (schema %lld); "
                         "this verdict reads up to schema %d", path, *version,
                         STORE_SCHEMA_VERSION);
    return 0;
}

/* WAL: a commit is one append to the log, readers never block the writer, and a killed
 * process loses nothing committed. NORMAL skips the fsync per commit (see docs/store.md). */
static int configure_connection(sqlite3 *db, const char *path, verdict_error *err)
{
    sqlite3_stmt *stmt = NULL;
    int rc = sqlite3_prepare_v2(db, "PRAGMA journal_mode = WAL", -1, &stmt, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(stmt);
    if (rc != SQLITE_ROW) {
        sqlite_store_fail_db(db, path, rc, "switching to WAL mode", err);
        sqlite3_finalize(stmt);
        return -1;
    }
    const unsigned char *mode = sqlite3_column_text(stmt, 0);
    /* a store in memory (":memory:", a run that keeps nothing) has no log to write */
    bool wal = mode != NULL && (strcmp((const char *)mode, "wal") == 0 ||
                                (strcmp(path, ":memory:") == 0 &&
                                 strcmp((const char *)mode, "memory") == 0));
    sqlite3_finalize(stmt);
    if (!wal)
        return error_set(err, ERROR_STORE, "%s: cannot switch the store to WAL mode", path);
    /* A store in memory dies with the process: a journal of its commits would only cost
     * (a third of verdict's own work per run). A failed statement is then not rolled back,
     * which only running out of memory can cause, and that ends the run. */
    const char *settings = strcmp(path, ":memory:") == 0
                               ? "PRAGMA journal_mode = OFF; PRAGMA foreign_keys = ON"
                               : "PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON";
    return exec_sql(db, path, settings, "configuring the connection", err);
}

/* Applies every step above `from`, then records the new version, all in this transaction. */
static int apply_migrations(sqlite3 *db, const char *path, long long from, verdict_error *err)
{
    for (size_t i = 0; i < sizeof migrations / sizeof migrations[0]; i++) {
        if (migrations[i].version <= from)
            continue;
        char doing[64];
        snprintf(doing, sizeof doing, "creating schema %d", migrations[i].version);
        if (exec_sql(db, path, migrations[i].sql, doing, err) != 0)
            return -1;
    }
    char stamp[128];
    snprintf(stamp, sizeof stamp, "PRAGMA application_id = %d; PRAGMA user_version = %d",
             STORE_APPLICATION_ID, STORE_SCHEMA_VERSION);
    return exec_sql(db, path, stamp, "recording the schema version", err);
}

/* Migrates under the write lock, re-reading the version there: another verdict may have
 * migrated the same file between our first look and the lock. */
static int migrate(sqlite3 *db, const char *path, verdict_error *err)
{
    if (exec_sql(db, path, "BEGIN IMMEDIATE", "locking the store to create its schema", err) != 0)
        return -1;
    long long version = 0;
    if (check_identity(db, path, &version, err) != 0 ||
        (version < STORE_SCHEMA_VERSION && apply_migrations(db, path, version, err) != 0) ||
        exec_sql(db, path, "COMMIT", "committing the schema", err) != 0) {
        if (!sqlite3_get_autocommit(db))
            sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
        return -1;
    }
    return 0;
}

int sqlite_store_schema_check_readable(sqlite3 *db, const char *path, verdict_error *err)
{
    long long version = 0;
    if (check_identity(db, path, &version, err) != 0)
        return -1;
    if (version == 0)
        return error_set(err, ERROR_STORE, "%s: the store holds no experiment yet (an empty file)",
                         path);
    if (version < STORE_SCHEMA_VERSION)
        return error_set(err, ERROR_BAD_INPUT, "%s: written by an older verdict (schema %lld); "
                          "this verdict upgrades it to schema %d when it opens it for writing, "
                          "which a read-only open does not do: run verdict on it once where it is "
                         "writable", path, version, STORE_SCHEMA_VERSION);
    return exec_sql(db, path, "PRAGMA foreign_keys = ON", "configuring the connection", err);
}

int sqlite_store_schema_prepare(sqlite3 *db, const char *path, verdict_error *err)
{
    long long version = 0;
    /* look before touching anything: a newer verdict's store or a stranger's file stays as
     * it is */
    if (check_identity(db, path, &version, err) != 0)
        return -1;
    if (configure_connection(db, path, err) != 0)
        return -1;
    if (version < STORE_SCHEMA_VERSION)
        return migrate(db, path, err);
    return 0;
}

/* The SQLite back end: opening (WAL, migrations, one writer's lock, or read-only), closing,
 * the statement cache and transactions; its table of operations. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "store/sqlite_store.h"
#include "common/error.h"
#include "store/sqlite_store_internal.h"

/* SQLite's clock, in UTC with milliseconds: one format for every time in the store. */
#define NOW_SQL "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"
/* Leases are kept in days (julianday), by the clock of the machine writing the store. */
#define LEASE_RUNNING "(state = 'claimed' AND lease_until >= julianday('now'))"
#define BLOCK_FREE "(state = 'open' OR (state = 'claimed' AND lease_until < julianday('now')))"

static const char *const statement_sql[STMT_COUNT] = {
    [STMT_BEGIN] = "BEGIN IMMEDIATE",
    [STMT_COMMIT] = "COMMIT",
    [STMT_ROLLBACK] = "ROLLBACK",
    [STMT_FIND_EXPERIMENT] = "SELECT id, plan_hash, text_hash FROM experiment WHERE name = ?1",
    [STMT_INSERT_EXPERIMENT] =
        "INSERT INTO experiment (name, text, text_hash, plan_hash, seed, tool_version, created,"
        " tool_build) VALUES (?1, ?2, ?3, ?4, ?5, ?6, " NOW_SQL ", ?7)",
    [STMT_ARCHIVE_TEXT] =
        "INSERT INTO experiment_text_history (experiment_id, text, text_hash, replaced)"
        " SELECT id, text, text_hash, " NOW_SQL " FROM experiment WHERE id = ?1",
    [STMT_UPDATE_TEXT] = "UPDATE experiment SET text = ?2, text_hash = ?3 WHERE id = ?1",
    [STMT_INSERT_RUN] = "INSERT INTO run (experiment_id, tool_version, started, status)"
                        " VALUES (?1, ?2, " NOW_SQL ", 'running')",
    [STMT_INSERT_FACT] =
        "INSERT INTO run_fact (run_id, position, key, value) VALUES (?1, ?2, ?3, ?4)",
    [STMT_END_RUN] = "UPDATE run SET status = ?2, ended = " NOW_SQL " WHERE id = ?1",
    [STMT_NEXT_FACT_POSITION] =
        "SELECT coalesce(max(position) + 1, 0) FROM run_fact WHERE run_id = ?1",
    /* the experiment comes from the run, so a sample cannot land in the wrong experiment */
    [STMT_INSERT_SAMPLE] =
        "INSERT INTO sample (experiment_id, run_id, point, variant, block, seq, started, wall,"
        " user_seconds, sys_seconds, maxrss_kib, voluntary_switches, involuntary_switches,"
        " exit_code, timed_out, tainted, taint_reason, steal, other_busy, load1, layout,"
        " machine)"
        " SELECT experiment_id, id, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14,"
        " ?15, ?16, ?17, ?18, ?19, ?20, ?21 FROM run WHERE id = ?1",
    [STMT_INSERT_METRIC] =
        "INSERT INTO sample_metric (sample_id, position, name, value) VALUES (?1, ?2, ?3, ?4)",
    /* several machines write one experiment, and seq counts per machine: seq, then the
     * machine, then the id order the samples (the PostgreSQL back end says the same) */
    [STMT_SELECT_SAMPLES] =
        "SELECT id, point, variant, block, seq, started, wall, user_seconds, sys_seconds,"
        " maxrss_kib, voluntary_switches, involuntary_switches, exit_code, timed_out, tainted,"
        " taint_reason, steal, other_busy, load1, layout, machine"
        " FROM sample WHERE experiment_id = ?1 ORDER BY seq, machine, id",
    [STMT_SELECT_METRICS] =
        "SELECT name, value FROM sample_metric WHERE sample_id = ?1 ORDER BY position",
    [STMT_GET_EXPERIMENT] = "SELECT name, text, text_hash, plan_hash, seed, tool_version,"
                            " tool_build FROM experiment WHERE id = ?1",
    /* the experiment run most recently; experiments never run follow, newest first */
    [STMT_LATEST_EXPERIMENT] =
        "SELECT e.id FROM experiment e ORDER BY"
        " (SELECT max(r.id) FROM run r WHERE r.experiment_id = e.id) DESC NULLS LAST,"
        " e.id DESC LIMIT 1",
    [STMT_SELECT_FACTS] =
        "SELECT key, value FROM run_fact WHERE run_id ="
        " (SELECT max(id) FROM run WHERE experiment_id = ?1) ORDER BY position",
    [STMT_SELECT_EXPERIMENTS] = "SELECT id, name, text, text_hash, plan_hash, seed,"
                                " tool_version, tool_build FROM experiment ORDER BY id",
    [STMT_UPSERT_MACHINE] =
        "INSERT INTO machine (name, recorded) VALUES (?1, " NOW_SQL ")"
        " ON CONFLICT (name) DO UPDATE SET recorded = excluded.recorded",
    [STMT_DELETE_MACHINE_FACTS] = "DELETE FROM machine_fact WHERE machine = ?1",
    [STMT_INSERT_MACHINE_FACT] =
        "INSERT INTO machine_fact (machine, position, key, value) VALUES (?1, ?2, ?3, ?4)",
    [STMT_SELECT_MACHINE_FACTS] =
        "SELECT machine, key, value FROM machine_fact ORDER BY machine, position",
    [STMT_INSERT_BLOCK] =
        "INSERT INTO block (experiment_id, point, block, position) VALUES (?1, ?2, ?3, ?4)"
        " ON CONFLICT (experiment_id, point, block) DO NOTHING",
    /* the writer's lock (BEGIN IMMEDIATE) serialises claims: no two take one block */
    [STMT_FREE_BLOCK] = "SELECT id, point, block FROM block WHERE experiment_id = ?1"
                        " AND (?2 IS NULL OR point = ?2) AND " BLOCK_FREE
                        " ORDER BY position, id LIMIT 1",
    [STMT_TAKE_BLOCK] =
        "UPDATE block SET state = 'claimed', machine = ?2, worker = ?3,"
        " lease_until = julianday('now') + ?4 / 86400.0, attempts = attempts + 1"
        " WHERE id = ?1 RETURNING attempts",
    [STMT_COUNT_BLOCKS] = "SELECT coalesce(sum(" BLOCK_FREE "), 0),"
                          " coalesce(sum(" LEASE_RUNNING "), 0),"
                          " coalesce(sum(state = 'done'), 0)"
                          " FROM block WHERE experiment_id = ?1",
    [STMT_RENEW_CLAIM] =
        "UPDATE block SET lease_until = julianday('now') + ?3 / 86400.0"
        " WHERE id = ?1 AND state = 'claimed' AND worker = ?2",
    [STMT_CHECK_CLAIM] = "SELECT state, worker FROM block WHERE id = ?1",
    [STMT_BLOCK_DONE] = "UPDATE block SET state = 'done', lease_until = NULL WHERE id = ?1",
    [STMT_RELEASE_BLOCK] =
        "UPDATE block SET state = 'open', machine = '', worker = '', lease_until = NULL"
        " WHERE id = ?1 AND state = 'claimed' AND worker = ?2",
    [STMT_SELECT_BLOCKS] = "SELECT point, block, state, machine, attempts FROM block"
                           " WHERE experiment_id = ?1 ORDER BY position, id",
    [STMT_INSERT_EXTENSION] =
        "INSERT INTO extension (experiment_id, blocks, recorded) SELECT ?1, ?2, " NOW_SQL
        " WHERE ?2 > (SELECT coalesce(max(blocks), 0) FROM extension WHERE experiment_id = ?1)",
    [STMT_SELECT_EXTENSIONS] =
        "SELECT blocks FROM extension WHERE experiment_id = ?1 ORDER BY blocks",
    [STMT_SIGN_EXPERIMENT] =
        "INSERT INTO experiment_signature (experiment_id, public_key, signature, text_sha256,"
        " plan_hash, tool_build, extensions, recorded)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, " NOW_SQL ")"
        " ON CONFLICT (experiment_id, public_key) DO UPDATE SET signature = excluded.signature,"
        " text_sha256 = excluded.text_sha256, plan_hash = excluded.plan_hash,"
        " tool_build = excluded.tool_build, extensions = excluded.extensions,"
        " recorded = excluded.recorded",
    [STMT_SELECT_SIGNATURES] =
        "SELECT public_key, signature, text_sha256, plan_hash, tool_build, extensions"
        " FROM experiment_signature WHERE experiment_id = ?1 ORDER BY public_key",
};

sqlite3_stmt *sqlite_store_statement(sqlite_store *s, sqlite_store_statement_id id,
                                     verdict_error *err)
{
    sqlite3_stmt *stmt = s->statements[id];
    if (stmt == NULL) {
        int rc = sqlite3_prepare_v3(s->db, statement_sql[id], -1, SQLITE_PREPARE_PERSISTENT,
                                    &stmt, NULL);
        if (rc != SQLITE_OK) {
            sqlite_store_fail(s, rc, "preparing a statement", err);
            return NULL;
        }
        s->statements[id] = stmt;
    }
    sqlite3_reset(stmt);
    sqlite3_clear_bindings(stmt);
    return stmt;
}

int sqlite_store_run(sqlite_store *s, sqlite3_stmt *stmt, const char *doing, verdict_error *err)
{
    int rc = sqlite3_step(stmt);
    if (rc != SQLITE_DONE)
        sqlite_store_fail(s, rc, doing, err);
    sqlite3_reset(stmt);
    return rc == SQLITE_DONE ? 0 : -1;
}

static int run_cached(sqlite_store *s, sqlite_store_statement_id id, const char *doing,
                      verdict_error *err)
{
    sqlite3_stmt *stmt = sqlite_store_statement(s, id, err);
    return stmt == NULL ? -1 : sqlite_store_run(s, stmt, doing, err);
}

int sqlite_store_begin(sqlite_store *s, const char *doing, verdict_error *err)
{
    /* the dispatcher refuses writes first; this guards what reaches the back end anyway */
    if (s->base.read_only)
        return error_set(err, ERROR_STORE, "%s: opened read-only; cannot be written while %s",
                         s->path, doing);
    return run_cached(s, STMT_BEGIN, doing, err);
}

/* Rolls back if a transaction is still open (SQLite ends some itself, e.g. on a full disk). */
static void rollback(sqlite_store *s)
{
    if (sqlite3_get_autocommit(s->db))
        return;
    sqlite3_stmt *stmt = sqlite_store_statement(s, STMT_ROLLBACK, NULL);
    if (stmt != NULL)
        sqlite_store_run(s, stmt, "rolling back", NULL);
    else
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
}

int sqlite_store_finish(sqlite_store *s, int status, const char *doing, verdict_error *err)
{
    if (status == 0 && run_cached(s, STMT_COMMIT, doing, err) == 0)
        return 0;
    rollback(s);
    return -1;
}

sqlite3 *sqlite_store_connection(store *s)
{
    return s != NULL && s->backend == &sqlite_store_backend ? sqlite_store_of(s)->db : NULL;
}

/* Which process holds the writer's lock: /proc/locks lists every flock with the pid that
 * took it ("1: FLOCK  ADVISORY  WRITE 4242 fe:01:1234 0 EOF"; "->" marks waiters). The
 * device is matched when it can be (overlay file systems report another one); 0 when no
 * entry is visible (another pid namespace). */
static pid_t lock_holder(int fd)
{
    struct stat st;
    FILE *locks = fstat(fd, &st) == 0 ? fopen("/proc/locks", "re") : NULL;
    if (locks == NULL)
        return 0;
    pid_t same_device = 0, same_inode = 0;
    char line[256];
    while (fgets(line, sizeof line, locks) != NULL) {
        char kind[16], access_mode[16];
        int pid = 0;
        unsigned int major_number = 0, minor_number = 0;
        unsigned long long inode = 0;
        if (strstr(line, "->") != NULL ||
            sscanf(line, "%*d: %15s %*s %15s %d %x:%x:%llu", kind, access_mode, &pid,
                   &major_number, &minor_number, &inode) != 6 ||
            strcmp(kind, "FLOCK") != 0 || strcmp(access_mode, "WRITE") != 0 || pid <= 0 ||
            inode != (unsigned long long)st.st_ino)
            continue;
        if (major_number == major(st.st_dev) && minor_number == minor(st.st_dev))
            same_device = (pid_t)pid;
        else
            same_inode = (pid_t)pid;
    }
    fclose(locks);
    return same_device != 0 ? same_device : same_inode;
}

/* One writer per store: an exclusive flock on the store file itself, held while the store
 * is open for writing and released by the kernel when its verdict dies, so two `verdict
 * run` never measure at once. flock and SQLite's own locks (fcntl, byte ranges) do not
 * interact; but closing any descriptor of the file drops this process's fcntl locks, so
 * lock_fd is closed only after SQLite's connection (close_store). */
static int lock_for_writing(sqlite_store *s, verdict_error *err)
{
    const char *file = sqlite3_db_filename(s->db, "main");
    if (file == NULL || file[0] == '\0')
        return 0; /* in memory (":memory:") or temporary: no other process can reach it */
    s->lock_fd = open(file, O_RDONLY | O_CLOEXEC);
    if (s->lock_fd < 0)
        return error_set(err, ERROR_STORE, "%s: cannot open the store to lock it: %s", s->path,
                         strerror(errno));
    if (flock(s->lock_fd, LOCK_EX | LOCK_NB) == 0)
        return 0;
    if (errno != EWOULDBLOCK)
        return error_set(err, ERROR_STORE, "%s: cannot lock the store: %s", s->path,
                         strerror(errno));
    pid_t holder = lock_holder(s->lock_fd);
    if (holder > 0)
        return error_set(err, ERROR_STORE_LOCKED, "%s: another verdict is running on this store "
                         "(pid %d); wait for it to end, or stop it", s->path, (int)holder);
    return error_set(err, ERROR_STORE_LOCKED, "%s: another verdict is running on this store (its "
                     "pid is not visible from here); wait for it to end, or stop it", s->path);
}

static sqlite_store *store_new(const char *path, bool read_only, verdict_error *err)
{
    sqlite_store *s = calloc(1, sizeof *s);
    if (s == NULL || (s->path = store_copy_string(path)) == NULL) {
        free(s);
        error_set(err, ERROR_NO_MEMORY, "%s: out of memory opening the store", path);
        return NULL;
    }
    s->base.backend = &sqlite_store_backend;
    s->base.label = s->path;
    s->base.read_only = read_only;
    s->lock_fd = -1;
    return s;
}

static int connect_database(sqlite_store *s, const char *filename, int flags, verdict_error *err)
{
    int rc = sqlite3_open_v2(filename, &s->db, flags | SQLITE_OPEN_EXRESCODE, NULL);
    if (rc != SQLITE_OK)
        return sqlite_store_fail(s, rc, s->base.read_only ? "opening the store for reading"
                                                          : "opening the store", err);
    sqlite3_busy_timeout(s->db, STORE_BUSY_TIMEOUT_SECONDS * 1000);
    return 0;
}

static int open_for_writing(sqlite_store *s, verdict_error *err)
{
    /* SQLite creates the file at once; the lock is taken before anything is written. */
    int rc = connect_database(s, s->path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, err);
    if (rc == 0)
        rc = lock_for_writing(s, err);
    if (rc == 0)
        rc = sqlite_store_schema_prepare(s->db, s->path, err);
    return rc;
}

/* "file:PATH?immutable=1" with PATH percent-encoded, as SQLite's URIs want it. */
static char *immutable_uri(const char *path)
{
    static const char hex[] = "0123456789ABCDEF";
    char *uri = malloc(3 * strlen(path) + sizeof "file:?immutable=1");
    if (uri == NULL)
        return NULL;
    size_t used = 0;
    memcpy(uri, "file:", 5);
    used = 5;
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        bool plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                     (*p >= '0' && *p <= '9') || strchr("/-._~", *p) != NULL;
        if (plain) {
            uri[used++] = (char)*p;
        } else {
            uri[used++] = '%';
            uri[used++] = hex[*p >> 4];
            uri[used++] = hex[*p & 15];
        }
    }
    memcpy(uri + used, "?immutable=1", sizeof "?immutable=1");
    return uri;
}

/* A store in WAL mode is read through its -shm file, which SQLite must create when it is
 * missing: impossible on a read-only file system or in a directory we cannot write. When
 * no -wal file holds commits, the store file alone is the whole store, and SQLite can read
 * it as immutable (no -shm, no locks). */
static bool readable_as_immutable(const sqlite_store *s, int probe_rc)
{
    int primary = probe_rc & 0xff;
    if (primary != SQLITE_CANTOPEN && primary != SQLITE_READONLY)
        return false;
    size_t length = strlen(s->path) + sizeof "-wal";
    char *wal = malloc(length);
    if (wal == NULL)
        return false;
    snprintf(wal, length, "%s-wal", s->path);
    struct stat st;
    bool empty_wal = stat(wal, &st) != 0 || st.st_size == 0;
    free(wal);
    return empty_wal;
}

static int probe(sqlite3 *db)
{
    return sqlite3_exec(db, "SELECT count(*) FROM sqlite_schema", NULL, NULL, NULL);
}

static int open_for_reading(sqlite_store *s, verdict_error *err)
{
    if (access(s->path, F_OK) != 0)
        return error_set(err, ERROR_USAGE, "%s: no such store: %s", s->path, strerror(errno));
    int rc = connect_database(s, s->path, SQLITE_OPEN_READONLY, err);
    int probed = rc == 0 ? probe(s->db) : SQLITE_OK;
    if (rc == 0 && probed != SQLITE_OK && readable_as_immutable(s, probed)) {
        char *uri = immutable_uri(s->path);
        sqlite3_close(s->db);
        s->db = NULL;
        rc = uri != NULL
                 ? connect_database(s, uri, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, err)
                 : error_set(err, ERROR_NO_MEMORY, "%s: out of memory", s->path);
        free(uri);
    }
    if (rc == 0)
        rc = sqlite_store_schema_check_readable(s->db, s->path, err);
    return rc;
}

static void close_store(store *base)
{
    sqlite_store *s = sqlite_store_of(base);
    for (int i = 0; i < STMT_COUNT; i++)
        sqlite3_finalize(s->statements[i]);
    sqlite3_close(s->db);
    if (s->lock_fd >= 0) /* after SQLite's connection: see lock_for_writing */
        close(s->lock_fd);
    free(s->path);
    free(s->tool_version);
    free(s->got_name);
    free(s->got_text);
    free(s->got_tool_version);
    free(s->got_tool_build);
    free(s->got_point);
    free(s);
}

int sqlite_store_open(const char *path, bool read_only, store **out, verdict_error *err)
{
    *out = NULL;
    sqlite_store *s = store_new(path, read_only, err);
    if (s == NULL)
        return -1;
    if ((read_only ? open_for_reading(s, err) : open_for_writing(s, err)) != 0) {
        close_store(&s->base);
        return -1;
    }
    *out = &s->base;
    return 0;
}

const store_backend sqlite_store_backend = {
    .close = close_store,
    .open_experiment = sqlite_store_open_experiment,
    .begin_run = sqlite_store_begin_run,
    .add_run_facts = sqlite_store_add_run_facts,
    .add_samples = sqlite_store_add_samples,
    .end_run = sqlite_store_end_run,
    .for_each_sample = sqlite_store_for_each_sample,
    .get_experiment = sqlite_store_get_experiment,
    .latest_experiment = sqlite_store_latest_experiment,
    .for_each_fact = sqlite_store_for_each_fact,
    .for_each_experiment = sqlite_store_for_each_experiment,
    .record_machine = sqlite_store_record_machine,
    .for_each_machine_fact = sqlite_store_for_each_machine_fact,
    .plan_blocks = sqlite_store_plan_blocks,
    .claim_block = sqlite_store_claim_block,
    .renew_claim = sqlite_store_renew_claim,
    .finish_block = sqlite_store_finish_block,
    .release_block = sqlite_store_release_block,
    .for_each_block = sqlite_store_for_each_block,
    .add_extension = sqlite_store_add_extension,
    .for_each_extension = sqlite_store_for_each_extension,
    .sign_experiment = sqlite_store_sign_experiment,
    .for_each_signature = sqlite_store_for_each_signature,
    .add_profile = sqlite_store_add_profile,
    .for_each_profile = sqlite_store_for_each_profile,
};

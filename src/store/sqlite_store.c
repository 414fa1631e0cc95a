/* The SQLite results store: opening (WAL, migrations, one writer's lock, or read-only),
 * the statement cache, and the writes, each sample in its own transaction. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "store/sqlite_store.h"
#include "store/store_internal.h"

/* SQLite's clock, in UTC with milliseconds: one format for every time in the store. */
#define NOW_SQL "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"

static const char *const statement_sql[STMT_COUNT] = {
    [STMT_BEGIN] = "BEGIN IMMEDIATE",
    [STMT_COMMIT] = "COMMIT",
    [STMT_ROLLBACK] = "ROLLBACK",
    [STMT_FIND_EXPERIMENT] = "SELECT id, plan_hash, text_hash FROM experiment WHERE name = ?1",
    [STMT_INSERT_EXPERIMENT] =
        "INSERT INTO experiment (name, text, text_hash, plan_hash, seed, tool_version, created)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?6, " NOW_SQL ")",
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
    [STMT_SELECT_SAMPLES] =
        "SELECT id, point, variant, block, seq, started, wall, user_seconds, sys_seconds,"
        " maxrss_kib, voluntary_switches, involuntary_switches, exit_code, timed_out, tainted,"
        " taint_reason, steal, other_busy, load1, layout, machine"
        " FROM sample WHERE experiment_id = ?1 ORDER BY seq, id",
    [STMT_SELECT_METRICS] =
        "SELECT name, value FROM sample_metric WHERE sample_id = ?1 ORDER BY position",
    [STMT_GET_EXPERIMENT] = "SELECT name, text, text_hash, plan_hash, seed, tool_version"
                            " FROM experiment WHERE id = ?1",
    /* the experiment run most recently; experiments never run follow, newest first */
    [STMT_LATEST_EXPERIMENT] =
        "SELECT e.id FROM experiment e ORDER BY"
        " (SELECT max(r.id) FROM run r WHERE r.experiment_id = e.id) DESC NULLS LAST,"
        " e.id DESC LIMIT 1",
    [STMT_SELECT_FACTS] =
        "SELECT key, value FROM run_fact WHERE run_id ="
        " (SELECT max(id) FROM run WHERE experiment_id = ?1) ORDER BY position",
};

sqlite3_stmt *store_statement(store *s, store_statement_id id, char *err, size_t errlen)
{
    sqlite3_stmt *stmt = s->statements[id];
    if (stmt == NULL) {
        int rc = sqlite3_prepare_v3(s->db, statement_sql[id], -1, SQLITE_PREPARE_PERSISTENT,
                                    &stmt, NULL);
        if (rc != SQLITE_OK) {
            store_fail(s, rc, "preparing a statement", err, errlen);
            return NULL;
        }
        s->statements[id] = stmt;
    }
    sqlite3_reset(stmt);
    sqlite3_clear_bindings(stmt);
    return stmt;
}

/* Runs a statement that returns no rows; resets it so it holds no lock afterwards. */
static int run_statement(store *s, sqlite3_stmt *stmt, const char *doing, char *err,
                         size_t errlen)
{
    int rc = sqlite3_step(stmt);
    if (rc != SQLITE_DONE)
        store_fail(s, rc, doing, err, errlen);
    sqlite3_reset(stmt);
    return rc == SQLITE_DONE ? 0 : -1;
}

static int run_cached(store *s, store_statement_id id, const char *doing, char *err,
                      size_t errlen)
{
    sqlite3_stmt *stmt = store_statement(s, id, err, errlen);
    return stmt == NULL ? -1 : run_statement(s, stmt, doing, err, errlen);
}

/* A store opened with store_open_read_only is never written. */
static int refuse_if_read_only(const store *s, const char *doing, char *err, size_t errlen)
{
    if (!s->read_only)
        return 0;
    return error_text(err, errlen, "%s: opened read-only; cannot be written while %s",
                      s->path, doing);
}

int store_begin(store *s, const char *doing, char *err, size_t errlen)
{
    if (refuse_if_read_only(s, doing, err, errlen) != 0)
        return -1;
    return run_cached(s, STMT_BEGIN, doing, err, errlen);
}

int store_commit(store *s, const char *doing, char *err, size_t errlen)
{
    return run_cached(s, STMT_COMMIT, doing, err, errlen);
}

void store_rollback(store *s)
{
    if (sqlite3_get_autocommit(s->db))
        return;
    sqlite3_stmt *stmt = store_statement(s, STMT_ROLLBACK, NULL, 0);
    if (stmt != NULL)
        run_statement(s, stmt, "rolling back", NULL, 0);
    else
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
}

/* Ends a write: commits after status 0; otherwise rolls back and passes status on
 * (STORE_PLAN_CHANGED), the message already in err before the rollback could replace it. */
static int finish_transaction(store *s, int status, const char *doing, char *err,
                              size_t errlen)
{
    if (status == 0 && store_commit(s, doing, err, errlen) == 0)
        return 0;
    store_rollback(s);
    return status < 0 ? status : -1;
}

sqlite3 *sqlite_store_connection(store *s)
{
    return s->db;
}

static char *copy_string(const char *text)
{
    if (text == NULL)
        return NULL;
    size_t n = strlen(text) + 1;
    char *copy = malloc(n);
    if (copy != NULL)
        memcpy(copy, text, n);
    return copy;
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
 * lock_fd is closed only after SQLite's connection (store_close). */
static int lock_for_writing(store *s, char *err, size_t errlen)
{
    const char *file = sqlite3_db_filename(s->db, "main");
    if (file == NULL || file[0] == '\0')
        return 0; /* in memory (":memory:") or temporary: no other process can reach it */
    s->lock_fd = open(file, O_RDONLY | O_CLOEXEC);
    if (s->lock_fd < 0)
        return error_text(err, errlen, "%s: cannot open the store to lock it: %s", s->path,
                          strerror(errno));
    if (flock(s->lock_fd, LOCK_EX | LOCK_NB) == 0)
        return 0;
    if (errno != EWOULDBLOCK)
        return error_text(err, errlen, "%s: cannot lock the store: %s", s->path,
                          strerror(errno));
    pid_t holder = lock_holder(s->lock_fd);
    if (holder > 0)
        error_text(err, errlen, "%s: another verdict is running on this store (pid %d); "
                   "wait for it to end, or stop it", s->path, (int)holder);
    else
        error_text(err, errlen, "%s: another verdict is running on this store (its pid is "
                   "not visible from here); wait for it to end, or stop it", s->path);
    return STORE_LOCKED;
}

static store *store_new(const char *path, bool read_only, char *err, size_t errlen)
{
    store *s = calloc(1, sizeof *s);
    if (s == NULL || (s->path = copy_string(path)) == NULL) {
        free(s);
        error_text(err, errlen, "%s: out of memory opening the store", path);
        return NULL;
    }
    s->read_only = read_only;
    s->lock_fd = -1;
    return s;
}

static int connect_database(store *s, const char *filename, int flags, char *err, size_t errlen)
{
    int rc = sqlite3_open_v2(filename, &s->db, flags | SQLITE_OPEN_EXRESCODE, NULL);
    if (rc != SQLITE_OK)
        return store_fail(s, rc, s->read_only ? "opening the store for reading"
                                              : "opening the store", err, errlen);
    sqlite3_busy_timeout(s->db, STORE_BUSY_TIMEOUT_SECONDS * 1000);
    return 0;
}

int store_open(const char *path, store **out, char *err, size_t errlen)
{
    *out = NULL;
    if (path == NULL || path[0] == '\0')
        return error_text(err, errlen, "store: no file name given");
    store *s = store_new(path, false, err, errlen);
    if (s == NULL)
        return -1;
    /* SQLite creates the file at once; the lock is taken before anything is written. */
    int rc = connect_database(s, path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, err, errlen);
    if (rc == 0)
        rc = lock_for_writing(s, err, errlen);
    if (rc == 0)
        rc = store_schema_prepare(s->db, path, err, errlen);
    if (rc != 0) {
        store_close(s);
        return rc == STORE_LOCKED ? STORE_LOCKED : -1;
    }
    *out = s;
    return 0;
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
static bool readable_as_immutable(const store *s, int probe_rc)
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

int store_open_read_only(const char *path, store **out, char *err, size_t errlen)
{
    *out = NULL;
    if (path == NULL || path[0] == '\0')
        return error_text(err, errlen, "store: no file name given");
    if (access(path, F_OK) != 0)
        return error_text(err, errlen, "%s: no such store: %s", path, strerror(errno));
    store *s = store_new(path, true, err, errlen);
    if (s == NULL)
        return -1;
    int rc = connect_database(s, path, SQLITE_OPEN_READONLY, err, errlen);
    int probed = rc == 0 ? probe(s->db) : SQLITE_OK;
    if (rc == 0 && probed != SQLITE_OK && readable_as_immutable(s, probed)) {
        char *uri = immutable_uri(path);
        sqlite3_close(s->db);
        s->db = NULL;
        rc = uri != NULL
                 ? connect_database(s, uri, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, err, errlen)
                 : error_text(err, errlen, "%s: out of memory", path);
        free(uri);
    }
    if (rc == 0)
        rc = store_schema_check_readable(s->db, path, err, errlen);
    if (rc != 0) {
        store_close(s);
        return -1;
    }
    *out = s;
    return 0;
}

void store_close(store *s)
{
    if (s == NULL)
        return;
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
    free(s);
}

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

static int insert_experiment(store *s, const store_experiment *e, int64_t *id, char *err,
                             size_t errlen)
{
    const char *doing = "recording the experiment";
    sqlite3_stmt *stmt = store_statement(s, STMT_INSERT_EXPERIMENT, err, errlen);
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
    if (rc != SQLITE_OK)
        return store_fail(s, rc, doing, err, errlen);
    if (run_statement(s, stmt, doing, err, errlen) != 0)
        return -1;
    *id = sqlite3_last_insert_rowid(s->db);
    return 0;
}

/* Same plan, new text (a comment edited, say): keep the old text in the history table. */
static int replace_text(store *s, int64_t id, const store_experiment *e, char *err,
                        size_t errlen)
{
    const char *doing = "recording the experiment's new text";
    sqlite3_stmt *archive = store_statement(s, STMT_ARCHIVE_TEXT, err, errlen);
    if (archive == NULL)
        return -1;
    sqlite3_bind_int64(archive, 1, id);
    if (run_statement(s, archive, doing, err, errlen) != 0)
        return -1;
    sqlite3_stmt *update = store_statement(s, STMT_UPDATE_TEXT, err, errlen);
    if (update == NULL)
        return -1;
    char text_hash[17];
    sqlite3_bind_int64(update, 1, id);
    int rc = bind_text_and_hash(update, e, text_hash);
    if (rc != SQLITE_OK)
        return store_fail(s, rc, doing, err, errlen);
    return run_statement(s, update, doing, err, errlen);
}

/* Looks the experiment up by name: found is 0/1, and its id and hashes when found. */
static int find_experiment(store *s, const char *name, bool *found, int64_t *id,
                           uint64_t *plan_hash, uint64_t *text_hash, char *err, size_t errlen)
{
    sqlite3_stmt *stmt = store_statement(s, STMT_FIND_EXPERIMENT, err, errlen);
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
        store_fail(s, rc, "looking the experiment up", err, errlen);
    sqlite3_reset(stmt);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return -1;
    if (!hashes_ok)
        return error_text(err, errlen, "%s: experiment %s has a damaged hash", s->path,
                          name);
    return 0;
}

static int open_experiment_locked(store *s, const store_experiment *e, int64_t *id,
                                  bool *existing, char *err, size_t errlen)
{
    uint64_t plan_hash = 0, text_hash = 0;
    if (find_experiment(s, e->name, existing, id, &plan_hash, &text_hash, err, errlen) != 0)
        return -1;
    if (!*existing)
        return insert_experiment(s, e, id, err, errlen);
    if (plan_hash != e->plan_hash) {
        error_text(err, errlen,
                   "experiment %s in %s was run with a different plan (variants, "
                   "parameters, seed or repetitions changed); use a new store or "
                   "restore the file",
                   e->name, s->path);
        return STORE_PLAN_CHANGED;
    }
    if (text_hash != e->text_hash)
        return replace_text(s, *id, e, err, errlen);
    return 0;
}

int store_open_experiment(store *s, const store_experiment *e, int64_t *experiment_id,
                          bool *existing, char *err, size_t errlen)
{
    if (e->name == NULL || e->name[0] == '\0')
        return error_text(err, errlen, "%s: an experiment needs a name", s->path);
    /* runs started through this handle record the verdict that ran them */
    char *version = copy_string(e->tool_version != NULL ? e->tool_version : "unknown");
    if (version == NULL)
        return error_text(err, errlen, "%s: out of memory", s->path);
    free(s->tool_version);
    s->tool_version = version;
    const char *doing = "opening the experiment";
    if (store_begin(s, doing, err, errlen) != 0)
        return -1;
    int status = open_experiment_locked(s, e, experiment_id, existing, err, errlen);
    return finish_transaction(s, status, doing, err, errlen);
}

/* Facts take positions first, first + 1, ... in the run. */
static int insert_facts(store *s, int64_t run_id, int64_t first, const store_fact *facts,
                        size_t n_facts, char *err, size_t errlen)
{
    const char *doing = "recording the run's facts";
    for (size_t i = 0; i < n_facts; i++) {
        sqlite3_stmt *stmt = store_statement(s, STMT_INSERT_FACT, err, errlen);
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
            return error_text(err, errlen, "%s: no run %" PRId64 " to add facts to",
                              s->path, run_id);
        if (rc == SQLITE_CONSTRAINT_UNIQUE || rc == SQLITE_CONSTRAINT_PRIMARYKEY)
            return error_text(err, errlen, "%s: fact %s given twice for one run", s->path,
                              facts[i].key != NULL ? facts[i].key : "");
        if (rc != SQLITE_DONE)
            return store_fail(s, rc, doing, err, errlen);
    }
    return 0;
}

static int begin_run_locked(store *s, int64_t experiment_id, const store_fact *facts,
                            size_t n_facts, int64_t *run_id, char *err, size_t errlen)
{
    sqlite3_stmt *stmt = store_statement(s, STMT_INSERT_RUN, err, errlen);
    if (stmt == NULL)
        return -1;
    sqlite3_bind_int64(stmt, 1, experiment_id);
    sqlite3_bind_text(stmt, 2, s->tool_version != NULL ? s->tool_version : "unknown", -1,
                      SQLITE_STATIC);
    int rc = sqlite3_step(stmt);
    sqlite3_reset(stmt);
    if (rc == SQLITE_CONSTRAINT_FOREIGNKEY)
        return error_text(err, errlen, "%s: no experiment %" PRId64, s->path,
                          experiment_id);
    if (rc != SQLITE_DONE)
        return store_fail(s, rc, "recording the run", err, errlen);
    *run_id = sqlite3_last_insert_rowid(s->db);
    return insert_facts(s, *run_id, 0, facts, n_facts, err, errlen);
}

int store_begin_run(store *s, int64_t experiment_id, const store_fact *facts, size_t n_facts,
                    int64_t *run_id, char *err, size_t errlen)
{
    const char *doing = "recording the run";
    if (store_begin(s, doing, err, errlen) != 0)
        return -1;
    int status = begin_run_locked(s, experiment_id, facts, n_facts, run_id, err, errlen);
    return finish_transaction(s, status, doing, err, errlen);
}

static int add_facts_locked(store *s, int64_t run_id, const store_fact *facts, size_t n_facts,
                            char *err, size_t errlen)
{
    sqlite3_stmt *stmt = store_statement(s, STMT_NEXT_FACT_POSITION, err, errlen);
    if (stmt == NULL)
        return -1;
    sqlite3_bind_int64(stmt, 1, run_id);
    int rc = sqlite3_step(stmt);
    int64_t first = rc == SQLITE_ROW ? sqlite3_column_int64(stmt, 0) : 0;
    sqlite3_reset(stmt);
    if (rc != SQLITE_ROW)
        return store_fail(s, rc, "recording the run's facts", err, errlen);
    return insert_facts(s, run_id, first, facts, n_facts, err, errlen);
}

int store_add_run_facts(store *s, int64_t run_id, const store_fact *facts, size_t n_facts,
                        char *err, size_t errlen)
{
    const char *doing = "recording the run's facts";
    if (store_begin(s, doing, err, errlen) != 0)
        return -1;
    int status = add_facts_locked(s, run_id, facts, n_facts, err, errlen);
    return finish_transaction(s, status, doing, err, errlen);
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

static int insert_sample(store *s, int64_t run_id, const store_sample *x, int64_t *sample_id,
                         char *err, size_t errlen)
{
    sqlite3_stmt *stmt = store_statement(s, STMT_INSERT_SAMPLE, err, errlen);
    if (stmt == NULL)
        return -1;
    bind_sample(stmt, run_id, x);
    int rc = sqlite3_step(stmt);
    int inserted = sqlite3_changes(s->db);
    if (rc != SQLITE_DONE && rc != SQLITE_CONSTRAINT_UNIQUE)
        store_fail(s, rc, "adding a sample", err, errlen);
    sqlite3_reset(stmt);
    if (rc == SQLITE_CONSTRAINT_UNIQUE)
        return error_text(err, errlen,
                          "%s: a sample for point %s, variant %s, layout %ld%s%s, block %ld "
                          "of this experiment is already stored; a block is never measured "
                          "twice", s->path, x->point, x->variant, x->layout,
                          x->machine != NULL && x->machine[0] != '\0' ? ", machine " : "",
                          x->machine != NULL ? x->machine : "", x->block);
    if (rc != SQLITE_DONE)
        return -1;
    if (inserted != 1)
        return error_text(err, errlen, "%s: no run %" PRId64 " to add a sample to", s->path,
                          run_id);
    *sample_id = sqlite3_last_insert_rowid(s->db);
    return 0;
}

static int insert_metrics(store *s, int64_t sample_id, const store_sample *x, char *err,
                          size_t errlen)
{
    for (size_t i = 0; i < x->n_metrics; i++) {
        sqlite3_stmt *stmt = store_statement(s, STMT_INSERT_METRIC, err, errlen);
        if (stmt == NULL)
            return -1;
        sqlite3_bind_int64(stmt, 1, sample_id);
        sqlite3_bind_int64(stmt, 2, (sqlite3_int64)i);
        sqlite3_bind_text(stmt, 3, x->metric_names[i], -1, SQLITE_STATIC);
        bind_reading(stmt, 4, x->metric_values[i]);
        int rc = sqlite3_step(stmt);
        if (rc != SQLITE_DONE && rc != SQLITE_CONSTRAINT_UNIQUE)
            store_fail(s, rc, "adding a sample's metrics", err, errlen);
        sqlite3_reset(stmt);
        if (rc == SQLITE_CONSTRAINT_UNIQUE)
            return error_text(err, errlen, "%s: metric %s given twice for one sample",
                              s->path, x->metric_names[i]);
        if (rc != SQLITE_DONE)
            return -1;
    }
    return 0;
}

static int check_sample(const store *s, const store_sample *x, char *err, size_t errlen)
{
    if (x->point == NULL || x->variant == NULL)
        return error_text(err, errlen, "%s: a sample needs a point and a variant", s->path);
    if (x->n_metrics > 0 && (x->metric_names == NULL || x->metric_values == NULL))
        return error_text(err, errlen, "%s: a sample's metrics need names and values",
                          s->path);
    for (size_t i = 0; i < x->n_metrics; i++)
        if (x->metric_names[i] == NULL)
            return error_text(err, errlen, "%s: a sample's metric has no name", s->path);
    return 0;
}

int store_add_sample(store *s, int64_t run_id, const store_sample *sample, char *err,
                     size_t errlen)
{
    if (check_sample(s, sample, err, errlen) != 0)
        return -1;
    const char *doing = "adding a sample";
    if (store_begin(s, doing, err, errlen) != 0)
        return -1;
    int64_t sample_id = 0;
    int status = insert_sample(s, run_id, sample, &sample_id, err, errlen);
    if (status == 0)
        status = insert_metrics(s, sample_id, sample, err, errlen);
    return finish_transaction(s, status, doing, err, errlen);
}

static bool is_run_status(const char *status)
{
    static const char *const known[] = {"running", "done", "interrupted", "failed"};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (status != NULL && strcmp(status, known[i]) == 0)
            return true;
    return false;
}

int store_end_run(store *s, int64_t run_id, const char *status, char *err, size_t errlen)
{
    if (!is_run_status(status))
        return error_text(err, errlen,
                          "%s: run status %s is none of done, interrupted, failed, running",
                          s->path, status != NULL ? status : "(none)");
    if (refuse_if_read_only(s, "finishing the run", err, errlen) != 0)
        return -1;
    sqlite3_stmt *stmt = store_statement(s, STMT_END_RUN, err, errlen);
    if (stmt == NULL)
        return -1;
    sqlite3_bind_int64(stmt, 1, run_id);
    sqlite3_bind_text(stmt, 2, status, -1, SQLITE_STATIC);
    /* one statement outside BEGIN is its own transaction, committed when it returns */
    if (run_statement(s, stmt, "finishing the run", err, errlen) != 0)
        return -1;
    if (sqlite3_changes(s->db) != 1)
        return error_text(err, errlen, "%s: no run %" PRId64 " to finish", s->path, run_id);
    return 0;
}

/* Unit tests of src/store's PostgreSQL back end, on the server in VERDICT_TEST_PG (a schema of
 * its own per test): both back ends' tests, then the server's own — concurrent claims and
 * schema creation, lost and unreachable servers, passwords, readers, newer schemas. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <poll.h>
#include <libpq-fe.h>
#include <time.h>
#include <unistd.h>

#include "common/error.h"

#include "store_test_support.h"

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void wait_for_children(const pid_t *pids, int n)
{
    for (int i = 0; i < n; i++) {
        int status = 0;
        assert_int_equal(waitpid(pids[i], &status, 0), pids[i]);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            fail_msg("child %d ended with status %d", i, status);
    }
}

/* ---- several workers at once ---- */

#define WORKERS 4
#define SHARED_BLOCKS 40

/* A worker: claims and finishes blocks until none is left; one sample per block on the same
 * machine, so a block given to two workers would be refused by the unique index. */
static void claiming_worker(const char *path, int64_t id, int64_t run, int number)
{
    store *s = NULL;
    char worker[32];
    verdict_error err = {0};
    snprintf(worker, sizeof worker, "w%d-%d", number, (int)getpid());
    if (store_open(path, &s, &err) != 0)
        _exit(2);
    for (long seq = 0;; seq++) {
        store_claim c;
        if (store_claim_block(s, id, NULL, "", worker, 60, &c, &err) != 0)
            _exit(3);
        if (!c.claimed)
            break;
        store_sample x = full_sample(c.block, seq);
        x.point = c.point;
        x.variant = "A";
        if (store_finish_block(s, c.claim, worker, run, &x, 1, &err) != 0) {
            fprintf(stderr, "%s\n", err.message);
            _exit(4);
        }
    }
    store_close(s);
    _exit(0);
}

static int check_block(void *context, const char *point, long block, const char *state,
                       const char *machine, long attempts)
{
    (void)point;
    (void)block;
    (void)machine;
    int *done = context;
    assert_string_equal(state, "done");
    assert_int_equal(attempts, 1);
    (*done)++;
    return 0;
}

static void workers_claim_every_block_exactly_once(void **state)
{
    fixture *f = *state;
    store *s = open_store(f->path);
    store_experiment e = sample_experiment("crc");
    int64_t id = open_experiment(s, &e, false);
    int64_t run = begin_run(s, id, NULL, 0);
    store_block plan[SHARED_BLOCKS];
    for (int i = 0; i < SHARED_BLOCKS; i++)
        plan[i] = (store_block){i % 2 == 0 ? "p1" : "p2", i / 2};
    verdict_error err = {0};
    assert_int_equal(store_plan_blocks(s, id, plan, SHARED_BLOCKS, &err), 0);
    store_close(s);
    pid_t pids[WORKERS];
    for (int i = 0; i < WORKERS; i++) {
        pids[i] = fork();
        assert_true(pids[i] >= 0);
        if (pids[i] == 0)
            claiming_worker(f->path, id, run, i);
    }
    wait_for_children(pids, WORKERS);
    s = open_store(f->path);
    int done = 0;
    assert_int_equal(store_for_each_block(s, id, check_block, &done, &err), 0);
    assert_int_equal(done, SHARED_BLOCKS);
    store_close(s);
    assert_int_equal(fixture_int(f, "SELECT count(*) FROM sample"), SHARED_BLOCKS);
}

/* Workers started at once on a schema that does not exist yet all open it; one creates it. */
static void workers_opening_a_new_store_at_once_agree(void **state)
{
    fixture *f = *state;
    int go[2];
    assert_int_equal(pipe(go), 0);
    pid_t pids[6];
    for (int i = 0; i < 6; i++) {
        pids[i] = fork();
        assert_true(pids[i] >= 0);
        if (pids[i] == 0) {
            close(go[1]);
            char word;
            verdict_error err = {0};
            store *s = NULL;
            if (read(go[0], &word, 1) != 0) /* all start when the pipe closes */
                _exit(2);
            if (store_open(f->path, &s, &err) != 0) {
                fprintf(stderr, "%s\n", err.message);
                _exit(3);
            }
            store_experiment e = sample_experiment("crc");
            int64_t id = 0;
            bool existing = false;
            int rc = store_open_experiment(s, &e, &id, &existing, &err);
            store_close(s);
            _exit(rc == 0 ? 0 : 4);
        }
    }
    close(go[0]);
    close(go[1]);
    wait_for_children(pids, 6);
    assert_int_equal(fixture_int(f, "SELECT count(*) FROM schema_version"), 1);
    assert_int_equal(fixture_int(f, "SELECT max(version) FROM schema_version"),
                     STORE_SCHEMA_VERSION);
    assert_int_equal(fixture_int(f, "SELECT count(*) FROM experiment"), 1);
}

/* ---- lost connections ---- */

static void a_terminated_connection_is_taken_up_again(void **state)
{
    fixture *f = *state;
    char name[1000], parameter[96];
    snprintf(parameter, sizeof parameter, "application_name=verdict_%s", f->schema);
    with_parameter(name, sizeof name, f->path, parameter);
    store *s = open_store(name);
    store_experiment e = sample_experiment("crc");
    int64_t id = open_experiment(s, &e, false);
    int64_t run = begin_run(s, id, NULL, 0);
    store_sample x = full_sample(0, 0), y = full_sample(1, 1);
    add_sample(s, run, &x);
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
             " WHERE application_name = 'verdict_%s'", f->schema);
    assert_int_equal(fixture_int(f, sql), 1);
    usleep(100 * 1000);
    add_sample(s, run, &y); /* finds the connection gone, reconnects, and stores it once */
    collection *c = read_samples(s, id);
    assert_int_equal(c->n, 2);
    assert_same_sample(&c->items[0], &x);
    assert_same_sample(&c->items[1], &y);
    free(c);
    assert_int_equal(fixture_int(f, sql), 1); /* and again, on a read */
    c = read_samples(s, id);
    assert_int_equal(c->n, 2);
    free(c);
    store_close(s);
    assert_int_equal(fixture_int(f, "SELECT count(*) FROM sample_metric"), 6);
}

/* A stand-in for the server: a Unix socket in dir that relays every connection to the
 * server's own socket (peer authentication sees this process, root as the tests). Killing
 * its process group is the server going away; starting it again, the server coming back. */
static pid_t start_relay(const char *dir, const char *server_socket, double delay)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid != 0)
        return pid;
    setpgid(0, 0);
    if (delay > 0)
        usleep((useconds_t)(delay * 1e6));
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    snprintf(address.sun_path, sizeof address.sun_path, "%s/.s.PGSQL.5432", dir);
    unlink(address.sun_path);
    int listener = socket(AF_UNIX, SOCK_STREAM, 0);
    if (bind(listener, (struct sockaddr *)&address, sizeof address) != 0 ||
        listen(listener, 16) != 0)
        _exit(2);
    for (;;) {
        int client = accept(listener, NULL, NULL);
        if (client < 0 || fork() != 0) {
            close(client);
            continue;
        }
        struct sockaddr_un upstream = {.sun_family = AF_UNIX};
        snprintf(upstream.sun_path, sizeof upstream.sun_path, "%s", server_socket);
        int server = socket(AF_UNIX, SOCK_STREAM, 0);
        if (connect(server, (struct sockaddr *)&upstream, sizeof upstream) != 0)
            _exit(3);
        struct pollfd ends[2] = {{client, POLLIN, 0}, {server, POLLIN, 0}};
        char buffer[8192];
        while (poll(ends, 2, -1) > 0) {
            for (int i = 0; i < 2; i++) {
                if (ends[i].revents == 0)
                    continue;
                ssize_t n = read(ends[i].fd, buffer, sizeof buffer);
                if (n <= 0 || write(ends[1 - i].fd, buffer, (size_t)n) != n)
                    _exit(0);
            }
        }
        _exit(0);
    }
}

static void stop_relay(pid_t pid)
{
    kill(-pid, SIGKILL);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
}

/* The server's socket directory, from the test URI's host=...; NULL when it has none. */
static bool server_socket(const fixture *f, char *out, size_t size)
{
    const char *host = strstr(f->server, "host=/");
    if (host == NULL)
        return false;
    host += 5;
    snprintf(out, size, "%.*s/.s.PGSQL.5432", (int)strcspn(host, "&# "), host);
    return true;
}

/* A store reached through the relay in f's directory. */
static void relay_name(const fixture *f, const char *dir, char *out, size_t size)
{
    snprintf(out, size, "postgresql:///verdict_test?host=%s&verdict_schema=%s", dir,
             f->schema);
}

static void make_relay_dir(char *dir, size_t size)
{
    snprintf(dir, size, "/tmp/verdict-relay-XXXXXX");
    assert_non_null(mkdtemp(dir));
}

static void remove_relay_dir(const char *dir)
{
    char socket_path[200];
    snprintf(socket_path, sizeof socket_path, "%s/.s.PGSQL.5432", dir);
    unlink(socket_path);
    rmdir(dir);
}

static void a_server_that_comes_back_in_time_loses_nothing(void **state)
{
    fixture *f = *state;
    char upstream[200], dir[64], name[300];
    if (!server_socket(f, upstream, sizeof upstream))
        skip();
    make_relay_dir(dir, sizeof dir);
    relay_name(f, dir, name, sizeof name);
    pid_t relay = start_relay(dir, upstream, 0);
    usleep(200 * 1000);
    setenv("VERDICT_STORE_RETRY_SECONDS", "20", 1);
    store *s = open_store(name);
    store_experiment e = sample_experiment("crc");
    int64_t run = begin_run(s, open_experiment(s, &e, false), NULL, 0);
    store_sample x = full_sample(0, 0), y = full_sample(1, 1);
    add_sample(s, run, &x);
    stop_relay(relay); /* the server goes away, and is back a second later */
    relay = start_relay(dir, upstream, 1.0);
    double before = now_seconds();
    add_sample(s, run, &y);
    assert_true(now_seconds() - before >= 0.5);
    store_close(s);
    stop_relay(relay);
    unsetenv("VERDICT_STORE_RETRY_SECONDS");
    remove_relay_dir(dir);
    assert_int_equal(fixture_int(f, "SELECT count(*) FROM sample"), 2);
    assert_int_equal(fixture_int(f, "SELECT count(*) FROM sample_metric"), 6);
}

static void a_server_gone_for_good_fails_within_the_budget(void **state)
{
    fixture *f = *state;
    char upstream[200], dir[64], name[300];
    if (!server_socket(f, upstream, sizeof upstream))
        skip();
    make_relay_dir(dir, sizeof dir);
    relay_name(f, dir, name, sizeof name);
    pid_t relay = start_relay(dir, upstream, 0);
    usleep(200 * 1000);
    setenv("VERDICT_STORE_RETRY_SECONDS", "1", 1);
    store *s = open_store(name);
    store_experiment e = sample_experiment("crc");
    int64_t run = begin_run(s, open_experiment(s, &e, false), NULL, 0);
    stop_relay(relay);
    store_sample x = full_sample(0, 0);
    verdict_error err = {0};
    double before = now_seconds();
    int rc = store_add_sample(s, run, &x, &err);
    double took = now_seconds() - before;
    store_close(s);
    unsetenv("VERDICT_STORE_RETRY_SECONDS");
    remove_relay_dir(dir);
    assert_int_equal(rc, -1);
    assert_true(took < 4);
    assert_contains(err.message, name);
    assert_contains(err.message, "the server went away and did not come back within 1 s (libpq: ");
}

static void an_unreachable_server_is_named_with_the_budget(void **state)
{
    (void)state;
    setenv("VERDICT_STORE_RETRY_SECONDS", "1", 1);
    static const char name[] = "postgresql://localhost:1/verdict_test?verdict_schema=x";
    store *s = NULL;
    verdict_error err = {0};
    double before = now_seconds();
    int rc = store_open(name, &s, &err);
    double took = now_seconds() - before;
    unsetenv("VERDICT_STORE_RETRY_SECONDS");
    assert_int_equal(rc, -1);
    assert_null(s);
    assert_true(took < 4);
    assert_contains(err.message, name);
    assert_contains(err.message, "within 1 s");
}

/* ---- names and passwords ---- */

static void a_password_never_appears_in_messages(void **state)
{
    fixture *f = *state;
    setenv("VERDICT_STORE_RETRY_SECONDS", "0", 1);
    static const char *const names[] = {
        "postgresql://root:s3cret@localhost:1/verdict_test",
        "postgres://root:s3cret@localhost:1/verdict_test?sslmode=disable",
        "host=localhost port=1 password=s3cret dbname=verdict_test",
        "host=localhost port=1 password='s3 cret' dbname=verdict_test",
        "postgresql://localhost:1/verdict_test?password=s3cret&verdict_schema=x",
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        store *s = NULL;
        verdict_error err = {0};
        assert_int_equal(store_open(names[i], &s, &err), -1);
        assert_not_contains(err.message, "s3");
        assert_contains(err.message, "***");
    }
    unsetenv("VERDICT_STORE_RETRY_SECONDS");
    /* on the real server (peer authentication ignores it), in a message of the store */
    char name[1000];
    with_parameter(name, sizeof name, f->path, "password=s3cret");
    store *s = open_store(name);
    store_experiment e = sample_experiment("crc");
    open_experiment(s, &e, false);
    e.plan_hash ^= 1;
    int64_t id = 0;
    bool existing = false;
    verdict_error err = {0};
    assert_int_equal(store_open_experiment(s, &e, &id, &existing, &err), -1);
    assert_true(error_is(&err, ERROR_PLAN_CHANGED));
    assert_not_contains(err.message, "s3cret");
    assert_contains(err.message, "password=***");
    store_close(s);
}

static void a_schema_name_that_is_not_an_identifier_is_refused(void **state)
{
    fixture *f = *state;
    char name[1000];
    with_parameter(name, sizeof name, f->server, "verdict_schema=x;DROP");
    store *s = NULL;
    verdict_error err = {0};
    assert_int_equal(store_open(name, &s, &err), -1);
    assert_contains(err.message, "is not a schema name");
}

/* ---- readers and newer schemas ---- */

static void a_read_only_store_refuses_every_write(void **state)
{
    fixture *f = *state;
    store *s = NULL;
    verdict_error err = {0};
    assert_int_equal(store_open_read_only(f->path, &s, &err), -1);
    assert_contains(err.message, "the store holds no experiment yet");
    char sql[160];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM pg_namespace WHERE nspname = '%s'",
             f->schema);
    assert_int_equal(fixture_int(f, sql), 0); /* nothing created */
    s = open_store(f->path);
    store_experiment e = sample_experiment("crc");
    int64_t id = open_experiment(s, &e, false);
    int64_t run = begin_run(s, id, NULL, 0);
    store_sample x = full_sample(0, 0);
    add_sample(s, run, &x);
    store_close(s);

    assert_int_equal(store_open_read_only(f->path, &s, &err), 0);
    int64_t other = 0;
    bool existing = false;
    store_experiment e2 = sample_experiment("other");
    assert_int_equal(store_open_experiment(s, &e2, &other, &existing, &err), -1);
    assert_contains(err.message, "opened read-only");
    assert_int_equal(store_add_sample(s, run, &x, &err), -1);
    assert_contains(err.message, "opened read-only");
    assert_int_equal(store_end_run(s, run, "done", &err), -1);
    store_fact fact[] = {{"cpu", "x"}};
    assert_int_equal(store_record_machine(s, "m", fact, 1, &err), -1);
    assert_contains(err.message, "opened read-only");
    collection *c = read_samples(s, id);
    assert_int_equal(c->n, 1);
    free(c);
    store_close(s);
    assert_int_equal(fixture_int(f, "SELECT count(*) FROM run WHERE ended IS NULL"), 1);
}

static void a_newer_schema_is_refused_untouched(void **state)
{
    fixture *f = *state;
    store_close(open_store(f->path));
    char sql[128];
    snprintf(sql, sizeof sql, "UPDATE schema_version SET version = %d",
             STORE_SCHEMA_VERSION + 1);
    fixture_exec(f, sql);
    char want[ERR_SIZE];
    verdict_error err = {0};
    snprintf(want, sizeof want,
             "%s: written by a newer verdict (schema %d); this verdict reads up to schema %d",
             f->path, STORE_SCHEMA_VERSION + 1, STORE_SCHEMA_VERSION);
    store *s = (store *)&s;
    assert_int_equal(store_open(f->path, &s, &err), -1);
    assert_null(s);
    assert_string_equal(err.message, want);
    assert_int_equal(store_open_read_only(f->path, &s, &err), -1);
    assert_string_equal(err.message, want);
    assert_int_equal(fixture_int(f, "SELECT max(version) FROM schema_version"),
                     STORE_SCHEMA_VERSION + 1);
}

/* The server scripts/setup.sh --tests starts, when VERDICT_TEST_PG names none. */
#define DEFAULT_TEST_SERVER "postgresql:///verdict_test?host=/var/run/postgresql"

/* A server to test on: VERDICT_TEST_PG, else the default one if it answers. A missing
 * server is a skip on a developer's machine and a failure in CI. 0, or an exit code. */
static int choose_server(void)
{
    const char *server = getenv("VERDICT_TEST_PG");
    if (server == NULL || server[0] == '\0') {
        server = DEFAULT_TEST_SERVER;
        setenv("VERDICT_TEST_PG", server, 1);
    }
    if (PQping(server) == PQPING_OK)
        return 0;
    const char *ci = getenv("VERDICT_CI");
    if (ci != NULL && strcmp(ci, "1") == 0) {
        fprintf(stderr, "test_pg_store: no PostgreSQL server answers at %s, and VERDICT_CI=1: "
                "CI must run the PostgreSQL store's tests on a server (scripts/setup.sh "
                "--tests starts one)\n", server);
        return 1;
    }
    printf("test_pg_store: skipped: no PostgreSQL server at %s (set VERDICT_TEST_PG, or run "
           "scripts/start-test-postgres.sh)\n", server);
    return 77;
}

int main(void)
{
    int chosen = choose_server();
    if (chosen != 0)
        return chosen;
#define WITH_PG(test) cmocka_unit_test_setup_teardown(test, setup_pg, teardown_store)
    const struct CMUnitTest pg_tests[] = {
        WITH_PG(workers_claim_every_block_exactly_once),
        WITH_PG(workers_opening_a_new_store_at_once_agree),
        WITH_PG(a_terminated_connection_is_taken_up_again),
        WITH_PG(a_server_that_comes_back_in_time_loses_nothing),
        WITH_PG(a_server_gone_for_good_fails_within_the_budget),
        cmocka_unit_test(an_unreachable_server_is_named_with_the_budget),
        WITH_PG(a_password_never_appears_in_messages),
        WITH_PG(a_schema_name_that_is_not_an_identifier_is_refused),
        WITH_PG(a_read_only_store_refuses_every_write),
        WITH_PG(a_newer_schema_is_refused_untouched),
    };
#undef WITH_PG
    struct CMUnitTest tests[128];
    size_t n = store_neutral_tests(tests, 128, setup_pg, teardown_store);
    for (size_t i = 0; i < sizeof pg_tests / sizeof pg_tests[0] && n < 128; i++)
        tests[n++] = pg_tests[i];
    return _cmocka_run_group_tests("store (PostgreSQL)", tests, n, NULL, NULL);
}

/* Tests of src/pg/cluster with real PostgreSQL servers: templates and their reuse, start,
 * connect, checkpoint, stop, ports, settings, leftovers of killed owners, errors, and the
 * cache's security model against a second, unprivileged user the tests create. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/error.h"

#include "pg/cluster.h"

#define ERR_SIZE 2048
#define OUTPUT_SIZE 4096
#define TEST_SCALE 1

/* One cache directory and one template for the whole file: building a template is the
 * slow part, and its reuse is itself under test. */
typedef struct {
    char bindir[CLUSTER_PATH_MAX];
    char cache_dir[128];
    char template_dir[CLUSTER_PATH_MAX];
    const char *settings[3];
    cluster_template_spec spec;
    double first_prepare_seconds;
    /* The other user of the security tests, made with useradd when the tests run as root
     * (CI runs them as root) and removed with userdel at the end. */
    bool have_other;
    char other_name[32];
    uid_t other_uid;
    gid_t other_gid;
    uid_t server_uid;
    gid_t server_gid;
} suite_state;

static double monotonic_seconds(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

/* Runs argv (absolute argv[0]), stdout captured (trailing newline dropped); returns the
 * exit status, or -1 when it could not run. */
static int run_capture(char *const *argv, char *out, size_t outlen)
{
    int pipe_fds[2];
    if (pipe(pipe_fds) != 0)
        return -1;
    pid_t child = fork();
    if (child < 0)
        return -1;
    if (child == 0) {
        dup2(pipe_fds[1], 1);
        int null_fd = open("/dev/null", O_WRONLY);
        dup2(null_fd, 2);
        close(pipe_fds[0]);
        execv(argv[0], argv);
        _exit(127);
    }
    close(pipe_fds[1]);
    size_t used = 0;
    ssize_t got;
    while ((got = read(pipe_fds[0], out + used, outlen - 1 - used)) > 0)
        used += (size_t)got;
    close(pipe_fds[0]);
    out[used] = '\0';
    while (used > 0 && out[used - 1] == '\n')
        out[--used] = '\0';
    int status;
    waitpid(child, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* psql -Atc SQL against the instance; returns psql's exit status. */
static int psql(const suite_state *s, const cluster_instance *c, const char *sql, char *out,
                size_t outlen)
{
    char psql_path[CLUSTER_PATH_MAX + 8], conninfo[CLUSTER_PATH_MAX * 2];
    snprintf(psql_path, sizeof psql_path, "%s/psql", s->bindir);
    cluster_conninfo(c, conninfo, sizeof conninfo);
    char *const argv[] = {psql_path, "-X", "-A", "-t", "-c", (char *)sql, "-d", conninfo, NULL};
    return run_capture(argv, out, outlen);
}

/* Processes whose working directory lies in dir: PostgreSQL's processes all chdir to
 * their data directory, so this finds every process of an instance. */
static int processes_under(const char *dir)
{
    DIR *proc = opendir("/proc");
    assert_non_null(proc);
    int found = 0;
    struct dirent *entry;
    size_t length = strlen(dir);
    while ((entry = readdir(proc)) != NULL) {
        if (entry->d_name[0] < '0' || entry->d_name[0] > '9')
            continue;
        char link[300], target[CLUSTER_PATH_MAX];
        snprintf(link, sizeof link, "/proc/%s/cwd", entry->d_name);
        ssize_t n = readlink(link, target, sizeof target - 1);
        if (n < 0)
            continue;
        target[n] = '\0';
        if (strncmp(target, dir, length) == 0)
            found++;
    }
    closedir(proc);
    return found;
}

static bool path_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* Gone, or a zombie its new parent (init) has not collected yet: it holds nothing. */
static bool process_gone(pid_t pid)
{
    if (kill(pid, 0) != 0)
        return errno == ESRCH;
    char path[64], text[512] = "";
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return true;
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    const char *end = strrchr(text, ')');
    return end != NULL && end[1] == ' ' && end[2] == 'Z';
}

static int count_entries(const char *dir)
{
    DIR *listing = opendir(dir);
    if (listing == NULL)
        return 0;
    int n = 0;
    struct dirent *entry;
    while ((entry = readdir(listing)) != NULL)
        if (entry->d_name[0] != '.')
            n++;
    closedir(listing);
    return n;
}

static void remove_tree_with_rm(const char *path)
{
    char out[64];
    char *const argv[] = {"/bin/rm", "-rf", (char *)path, NULL};
    run_capture(argv, out, sizeof out);
}

/* useradd of a user no one will ever log in as; false when not root. */
static bool make_other_user(suite_state *s)
{
    if (geteuid() != 0)
        return false;
    snprintf(s->other_name, sizeof s->other_name, "vrdt-other-%d", (int)getpid());
    char command[256];
    snprintf(command, sizeof command,
             "useradd --no-create-home --shell /usr/sbin/nologin --home-dir /nonexistent %s",
             s->other_name);
    struct passwd *entry;
    if (system(command) != 0 || (entry = getpwnam(s->other_name)) == NULL)
        return false;
    s->other_uid = entry->pw_uid;
    s->other_gid = entry->pw_gid;
    return true;
}

static int suite_setup(void **state)
{
    suite_state *s = calloc(1, sizeof *s);
    if (s == NULL || cluster_find_bindir(s->bindir, sizeof s->bindir) != 0)
        return -1;
    /* Under /tmp and searchable: a root test runs servers as postgres, who must reach it. */
    snprintf(s->cache_dir, sizeof s->cache_dir, "/tmp/verdict-cluster-test-XXXXXX");
    if (mkdtemp(s->cache_dir) == NULL || chmod(s->cache_dir, 0755) != 0)
        return -1;
    s->settings[0] = "shared_buffers=24MB";
    s->settings[1] = "fsync=off";
    s->settings[2] = "log_line_prefix=%m [%p] verdict's: "; /* quotes and spaces survive */
    s->spec = (cluster_template_spec){.bindir = s->bindir, .cache_dir = s->cache_dir,
                                      .settings = s->settings, .n_settings = 3,
                                      .pgbench_scale = TEST_SCALE};
    struct passwd *server = geteuid() == 0 ? getpwnam("postgres") : getpwuid(geteuid());
    if (server == NULL)
        return -1;
    s->server_uid = server->pw_uid;
    s->server_gid = server->pw_gid;
    s->have_other = make_other_user(s);
    *state = s;
    return 0;
}

static int suite_teardown(void **state)
{
    suite_state *s = *state;
    int reaped = 0;
    verdict_error err = {0};
    cluster_reap_leftovers(s->cache_dir, &reaped, &err);
    remove_tree_with_rm(s->cache_dir);
    if (s->have_other) {
        char command[128];
        snprintf(command, sizeof command, "userdel %s", s->other_name);
        if (system(command) != 0)
            fprintf(stderr, "could not remove the test user %s\n", s->other_name);
    }
    free(s);
    return 0;
}

static void test_template_is_built_then_reused(void **state)
{
    suite_state *s = *state;
    verdict_error err = {0};
    double started = monotonic_seconds();
    int rc = cluster_template_prepare(&s->spec, s->template_dir, sizeof s->template_dir, &err);
    s->first_prepare_seconds = monotonic_seconds() - started;
    if (rc != 0)
        fail_msg("prepare: %s", err.message);
    char path[CLUSTER_PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/PG_VERSION", s->template_dir);
    assert_true(path_exists(path));
    snprintf(path, sizeof path, "%s/postmaster.pid", s->template_dir);
    assert_false(path_exists(path)); /* cleanly stopped */
    snprintf(path, sizeof path, "%s.txt", s->template_dir);
    assert_true(path_exists(path)); /* what it was built from */

    char again[CLUSTER_PATH_MAX];
    started = monotonic_seconds();
    rc = cluster_template_prepare(&s->spec, again, sizeof again, &err);
    double second = monotonic_seconds() - started;
    assert_int_equal(rc, 0);
    assert_string_equal(again, s->template_dir);
    print_message("template: built in %.3f s, reused in %.3f s\n", s->first_prepare_seconds,
                  second);
    assert_true(second < s->first_prepare_seconds / 3.0);

    char instances[256];
    snprintf(instances, sizeof instances, "%s/instances", s->cache_dir);
    assert_int_equal(count_entries(instances), 0); /* the build directory is gone */

    /* Another scale is another template. */
    cluster_template_spec other = s->spec;
    other.pgbench_scale = 0;
    char other_dir[CLUSTER_PATH_MAX];
    rc = cluster_template_prepare(&other, other_dir, sizeof other_dir, &err);
    if (rc != 0)
        fail_msg("prepare scale 0: %s", err.message);
    assert_string_not_equal(other_dir, s->template_dir);
}

static void start_or_fail(suite_state *s, cluster_instance *c)
{
    verdict_error err = {0};
    if (s->template_dir[0] == '\0')
        skip();
    if (cluster_start(s->template_dir, &s->spec, c, &err) != 0)
        fail_msg("start: %s", err.message);
}

static void test_start_connect_checkpoint_stop(void **state)
{
    suite_state *s = *state;
    cluster_instance c;
    double started = monotonic_seconds();
    start_or_fail(s, &c);
    print_message("start: %.3f s\n", monotonic_seconds() - started);
    assert_true(c.port > 0);
    assert_true(c.postmaster_pid > 0);
    assert_int_equal(kill(c.postmaster_pid, 0), 0);

    char out[OUTPUT_SIZE];
    assert_int_equal(psql(s, &c, "select 1", out, sizeof out), 0);
    assert_string_equal(out, "1");
    /* The pgbench tables came with the template. */
    assert_int_equal(psql(s, &c, "select count(*) from pgbench_branches", out, sizeof out), 0);
    assert_string_equal(out, "1");

    /* Its own session: Ctrl-C at verdict's terminal does not reach it. */
    assert_int_equal(getsid(c.postmaster_pid), c.postmaster_pid);
    assert_int_not_equal(getsid(c.postmaster_pid), getsid(0));

    verdict_error err = {0};
    if (cluster_checkpoint(&c, &err) != 0)
        fail_msg("checkpoint: %s", err.message);

    char instance_dir[CLUSTER_PATH_MAX];
    snprintf(instance_dir, sizeof instance_dir, "%s", c.instance_dir);
    pid_t postmaster = c.postmaster_pid;
    assert_true(processes_under(c.data_dir) >= 2); /* postmaster and its helpers */
    started = monotonic_seconds();
    if (cluster_stop(&c, &err) != 0)
        fail_msg("stop: %s", err.message);
    print_message("stop: %.3f s\n", monotonic_seconds() - started);
    assert_false(path_exists(instance_dir));
    assert_int_equal(processes_under(instance_dir), 0);
    assert_int_equal(kill(postmaster, 0), -1);
    assert_int_equal(errno, ESRCH);
    assert_int_equal(cluster_stop(&c, &err), 0); /* twice is harmless */
}

static void test_two_instances_get_different_ports(void **state)
{
    suite_state *s = *state;
    cluster_instance a, b;
    start_or_fail(s, &a);
    start_or_fail(s, &b);
    assert_int_not_equal(a.port, b.port);
    assert_string_not_equal(a.data_dir, b.data_dir);
    char out[OUTPUT_SIZE];
    assert_int_equal(psql(s, &a, "select 1", out, sizeof out), 0);
    assert_int_equal(psql(s, &b, "select 1", out, sizeof out), 0);
    /* A write in one copy is not seen in the other, nor in the template. */
    assert_int_equal(psql(s, &a, "create table only_in_a(x int)", out, sizeof out), 0);
    assert_int_not_equal(psql(s, &b, "select * from only_in_a", out, sizeof out), 0);
    verdict_error err = {0};
    assert_int_equal(cluster_stop(&a, &err), 0);
    assert_int_equal(cluster_stop(&b, &err), 0);
    cluster_instance again;
    start_or_fail(s, &again);
    assert_int_not_equal(psql(s, &again, "select * from only_in_a", out, sizeof out), 0);
    assert_int_equal(cluster_stop(&again, &err), 0);
}

static void test_settings_land_in_the_instance(void **state)
{
    suite_state *s = *state;
    cluster_instance c;
    start_or_fail(s, &c);
    char out[OUTPUT_SIZE];
    assert_int_equal(psql(s, &c, "show shared_buffers", out, sizeof out), 0);
    assert_string_equal(out, "24MB");
    assert_int_equal(psql(s, &c, "show fsync", out, sizeof out), 0);
    assert_string_equal(out, "off");
    assert_int_equal(psql(s, &c, "show log_line_prefix", out, sizeof out), 0);
    assert_string_equal(out, "%m [%p] verdict's:");
    assert_int_equal(psql(s, &c, "show listen_addresses", out, sizeof out), 0);
    assert_string_equal(out, "");
    char expected[32];
    snprintf(expected, sizeof expected, "%d", c.port);
    assert_int_equal(psql(s, &c, "show port", out, sizeof out), 0);
    assert_string_equal(out, expected);
    verdict_error err = {0};
    assert_int_equal(cluster_stop(&c, &err), 0);
}

/* A child starts an instance, reports it and is SIGKILLed: no cluster_stop ever runs. */
static void test_sigkilled_owner_is_reaped(void **state)
{
    suite_state *s = *state;
    if (s->template_dir[0] == '\0')
        skip();
    int report[2];
    assert_int_equal(pipe(report), 0);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        close(report[0]);
        cluster_instance c;
        verdict_error err = {0};
        int rc = cluster_start(s->template_dir, &s->spec, &c, &err);
        if (rc != 0)
            fprintf(stderr, "child start: %s\n", err.message);
        ssize_t put = write(report[1], &c, rc == 0 ? sizeof c : 1);
        (void)put;
        for (;;)
            pause();
    }
    close(report[1]);
    cluster_instance c;
    ssize_t got = read(report[0], &c, sizeof c);
    close(report[0]);
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    assert_int_equal(got, (ssize_t)sizeof c);
    assert_true(path_exists(c.instance_dir));

    int reaped = 0;
    verdict_error err = {0};
    if (cluster_reap_leftovers(s->cache_dir, &reaped, &err) != 0)
        fail_msg("reap: %s", err.message);
    assert_int_equal(reaped, 1);
    assert_false(path_exists(c.instance_dir));
    assert_int_equal(processes_under(c.instance_dir), 0);
    assert_true(process_gone(c.postmaster_pid));
    /* Nothing more to find. */
    assert_int_equal(cluster_reap_leftovers(s->cache_dir, &reaped, &err), 0);
    assert_int_equal(reaped, 0);
}

/* A leftover whose server still runs (the server outlived its owner): laid out by hand as
 * a dead owner's instance, started directly, then found and stopped by the reaper. */
static void test_running_leftover_server_is_stopped(void **state)
{
    suite_state *s = *state;
    if (s->template_dir[0] == '\0')
        skip();
    pid_t dead = fork();
    if (dead == 0)
        _exit(0);
    waitpid(dead, NULL, 0);
    char instance_dir[CLUSTER_PATH_MAX], data_dir[CLUSTER_PATH_MAX + 8],
        socket_dir[CLUSTER_PATH_MAX + 8];
    snprintf(instance_dir, sizeof instance_dir, "%s/instances/%d-1-zzzzzz", s->cache_dir,
             (int)dead);
    snprintf(data_dir, sizeof data_dir, "%s/data", instance_dir);
    snprintf(socket_dir, sizeof socket_dir, "%s/socket", instance_dir);
    char out[256];
    char *const cp_argv[] = {"/bin/cp", "-a", s->template_dir, data_dir, NULL};
    assert_int_equal(mkdir(instance_dir, 0755), 0);
    assert_int_equal(run_capture(cp_argv, out, sizeof out), 0);
    assert_int_equal(mkdir(socket_dir, 0700), 0);
    struct passwd *server_user = geteuid() == 0 ? getpwnam("postgres") : NULL;
    if (server_user != NULL)
        assert_int_equal(chown(socket_dir, server_user->pw_uid, server_user->pw_gid), 0);
    /* What verdict writes first into every instance: its lock and its record. */
    char record[CLUSTER_PATH_MAX + 32];
    snprintf(record, sizeof record, "%s/owner.lock", instance_dir);
    int lock_fd = open(record, O_CREAT | O_WRONLY, 0600);
    assert_true(lock_fd >= 0);
    close(lock_fd);
    snprintf(record, sizeof record, "%s/instance.txt", instance_dir);
    FILE *f = fopen(record, "w");
    assert_non_null(f);
    fprintf(f, "owner_pid=%d\nowner_start=1\nserver_uid=%u\n", (int)dead,
            server_user != NULL ? (unsigned)server_user->pw_uid : (unsigned)geteuid());
    fclose(f);

    char postgres[CLUSTER_PATH_MAX + 16];
    snprintf(postgres, sizeof postgres, "%s/postgres", s->bindir);
    pid_t server = fork();
    assert_true(server >= 0);
    if (server == 0) {
        setsid();
        int null_fd = open("/dev/null", O_WRONLY);
        dup2(null_fd, 1);
        dup2(null_fd, 2);
        if (server_user != NULL &&
            (setgid(server_user->pw_gid) != 0 || setuid(server_user->pw_uid) != 0))
            _exit(126);
        execl(postgres, postgres, "-D", data_dir, "-k", socket_dir, "-p", "15999", "-c",
              "listen_addresses=", (char *)NULL);
        _exit(127);
    }
    /* Ready when it answers. */
    char isready[CLUSTER_PATH_MAX + 16];
    snprintf(isready, sizeof isready, "%s/pg_isready", s->bindir);
    char *const ready_argv[] = {isready, "-q", "-h", socket_dir, "-p", "15999", NULL};
    bool ready = false;
    for (int i = 0; i < 3000 && !ready; i++) {
        ready = run_capture(ready_argv, out, sizeof out) == 0;
        if (!ready)
            usleep(10000);
    }
    assert_true(ready);
    assert_true(processes_under(data_dir) >= 2);

    int reaped = 0;
    verdict_error err = {0};
    if (cluster_reap_leftovers(s->cache_dir, &reaped, &err) != 0)
        fail_msg("reap: %s", err.message);
    assert_int_equal(reaped, 1);
    assert_false(path_exists(instance_dir));
    assert_int_equal(processes_under(instance_dir), 0);
    /* The reaper has also collected the exit status of our child. */
    assert_int_equal(waitpid(server, NULL, WNOHANG), -1);
}

/* An instance of a live owner (this process) is never reaped. */
static void test_live_owner_is_left_alone(void **state)
{
    suite_state *s = *state;
    cluster_instance c;
    start_or_fail(s, &c);
    int reaped = -1;
    verdict_error err = {0};
    assert_int_equal(cluster_reap_leftovers(s->cache_dir, &reaped, &err), 0);
    assert_int_equal(reaped, 0);
    assert_true(path_exists(c.instance_dir));
    char out[OUTPUT_SIZE];
    assert_int_equal(psql(s, &c, "select 1", out, sizeof out), 0);
    assert_int_equal(cluster_stop(&c, &err), 0);
}

static void test_bad_bindir_is_reported(void **state)
{
    suite_state *s = *state;
    cluster_template_spec spec = s->spec;
    char dir[CLUSTER_PATH_MAX];
    verdict_error err = {0};
    spec.bindir = "/nonexistent/postgresql/bin";
    assert_int_equal(cluster_template_prepare(&spec, dir, sizeof dir, &err), -1);
    assert_non_null(strstr(err.message, "/nonexistent/postgresql/bin"));
    spec.bindir = "/etc";
    error_clear(&err);
    assert_int_equal(cluster_template_prepare(&spec, dir, sizeof dir, &err), -1);
    assert_non_null(strstr(err.message, "not a PostgreSQL bindir"));
    cluster_instance c;
    error_clear(&err);
    assert_int_equal(cluster_start("/etc", &s->spec, &c, &err), -1);
    assert_non_null(strstr(err.message, "not a template"));
}

static void test_unknown_setting_reports_server_log(void **state)
{
    suite_state *s = *state;
    const char *settings[] = {"shared_buffers=16MB", "no_such_setting_xyz=1"};
    cluster_template_spec spec = s->spec;
    spec.settings = settings;
    spec.n_settings = 2;
    spec.pgbench_scale = 0;
    char dir[CLUSTER_PATH_MAX];
    verdict_error err = {0};
    char templates[256], instances[256];
    snprintf(templates, sizeof templates, "%s/templates", s->cache_dir);
    snprintf(instances, sizeof instances, "%s/instances", s->cache_dir);
    int templates_before = count_entries(templates);
    assert_int_equal(cluster_template_prepare(&spec, dir, sizeof dir, &err), -1);
    print_message("error: %s\n", err.message);
    assert_non_null(strstr(err.message, "refused to start"));
    assert_non_null(strstr(err.message, "no_such_setting_xyz"));
    assert_non_null(strstr(err.message, "unrecognized configuration parameter"));
    /* Nothing cached, nothing left: only the lock file may have appeared. */
    assert_true(count_entries(templates) <= templates_before + 1);
    assert_int_equal(count_entries(instances), 0);

    const char *reserved[] = {"port=5432"};
    spec.settings = reserved;
    spec.n_settings = 1;
    assert_int_equal(cluster_template_prepare(&spec, dir, sizeof dir, &err), -1);
    assert_non_null(strstr(err.message, "verdict sets port itself"));
    const char *malformed[] = {"shared_buffers"};
    spec.settings = malformed;
    assert_int_equal(cluster_template_prepare(&spec, dir, sizeof dir, &err), -1);
    assert_non_null(strstr(err.message, "not name=value"));
}

/* ---- the cache's security model (issue 18, item 1) ---- */

/* The security tests need the other user, so root: CI runs them as root, and there not
 * being root is a failure; elsewhere they are skipped, saying why. */
static void need_other_user(const suite_state *s)
{
    if (s->have_other)
        return;
    if (getenv("CI") != NULL)
        fail_msg("CI runs these tests as root; without root there is no second user");
    print_message("not root: no second user to test against, skipped\n");
    skip();
}

static void make_temp_dir(char *dir, size_t size, const char *name, mode_t mode)
{
    snprintf(dir, size, "/tmp/verdict-%s-XXXXXX", name);
    assert_non_null(mkdtemp(dir));
    assert_int_equal(chmod(dir, mode), 0);
}

static int prepare_in(const suite_state *s, const char *cache_dir, verdict_error *err)
{
    cluster_template_spec spec = s->spec;
    spec.cache_dir = cache_dir;
    spec.pgbench_scale = 0;
    char dir[CLUSTER_PATH_MAX];
    return cluster_template_prepare(&spec, dir, sizeof dir, err);
}

/* The issue: /var/tmp/verdict-pg made first by another user (0777) was used by root. */
static void test_a_cache_of_another_user_is_refused(void **state)
{
    suite_state *s = *state;
    need_other_user(s);
    char dir[128], below[160];
    verdict_error err = {0};
    make_temp_dir(dir, sizeof dir, "foreign", 0777);
    assert_int_equal(chown(dir, s->other_uid, s->other_gid), 0);
    assert_int_equal(prepare_in(s, dir, &err), -1);
    assert_non_null(strstr(err.message, "is owned by"));
    assert_non_null(strstr(err.message, s->other_name));
    assert_int_equal(count_entries(dir), 0); /* nothing created in it */
    /* Nor below it: the other user could swap what verdict makes there. */
    snprintf(below, sizeof below, "%s/cache", dir);
    assert_int_equal(prepare_in(s, below, &err), -1);
    assert_non_null(strstr(err.message, s->other_name));
    assert_false(path_exists(below));
    remove_tree_with_rm(dir);
}

/* The issue: /var/tmp/verdict-pg a symbolic link to another directory. */
static void test_a_link_of_another_user_is_not_followed(void **state)
{
    suite_state *s = *state;
    need_other_user(s);
    char target[128], link_path[160];
    verdict_error err = {0};
    make_temp_dir(target, sizeof target, "target", 0755);
    snprintf(link_path, sizeof link_path, "%s-link", target);
    assert_int_equal(symlink(target, link_path), 0);
    assert_int_equal(lchown(link_path, s->other_uid, s->other_gid), 0);
    assert_int_equal(prepare_in(s, link_path, &err), -1);
    assert_non_null(strstr(err.message, "is a symbolic link owned by"));
    assert_int_equal(count_entries(target), 0);
    struct stat st;
    assert_int_equal(stat(target, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0755); /* its mode untouched */
    unlink(link_path);
    remove_tree_with_rm(target);
}

/* What a caller checks before building PostgreSQL into the cache: the same rules. */
static void test_cluster_cache_prepare_checks_and_creates(void **state)
{
    (void)state;
    char dir[128], cache[160];
    verdict_error err = {0};
    make_temp_dir(dir, sizeof dir, "prepare", 0755);
    snprintf(cache, sizeof cache, "%s/a/cache", dir);
    assert_int_equal(cluster_cache_prepare(cache, &err), 0);
    struct stat st;
    assert_int_equal(stat(cache, &st), 0);
    assert_int_equal(st.st_mode & 07777, geteuid() == 0 ? 0711 : 0700);
    assert_int_equal(st.st_uid, geteuid());
    assert_int_equal(chmod(cache, 0775), 0);
    assert_int_equal(cluster_cache_prepare(cache, &err), -1);
    assert_non_null(strstr(err.message, "is writable by other users (mode 0775)"));
    remove_tree_with_rm(dir);
}

static void test_a_cache_others_may_write_is_refused(void **state)
{
    suite_state *s = *state;
    char dir[128];
    verdict_error err = {0};
    make_temp_dir(dir, sizeof dir, "open", 0777);
    assert_int_equal(prepare_in(s, dir, &err), -1);
    assert_non_null(strstr(err.message, "is writable by other users (mode 0777)"));
    assert_int_equal(count_entries(dir), 0);
    remove_tree_with_rm(dir);
}

/* The issue: instances/1-1-abcdef/important.txt of another user deleted as a leftover.
 * Only directories verdict can prove it made (its user's, with its owner.lock) go. */
static void test_leftovers_verdict_did_not_make_are_left_alone(void **state)
{
    suite_state *s = *state;
    need_other_user(s);
    char foreign[CLUSTER_PATH_MAX], unproven[CLUSTER_PATH_MAX], file[CLUSTER_PATH_MAX + 32];
    snprintf(foreign, sizeof foreign, "%s/instances/1-1-abcdef", s->cache_dir);
    snprintf(unproven, sizeof unproven, "%s/instances/1-1-ghijkl", s->cache_dir);
    assert_int_equal(mkdir(foreign, 0755), 0);
    assert_int_equal(mkdir(unproven, 0755), 0); /* ours, but no owner.lock */
    snprintf(file, sizeof file, "%s/important.txt", foreign);
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fputs("keep me\n", f);
    fclose(f);
    assert_int_equal(chown(file, s->other_uid, s->other_gid), 0);
    assert_int_equal(chown(foreign, s->other_uid, s->other_gid), 0);
    int reaped = -1;
    verdict_error err = {0};
    assert_int_equal(cluster_reap_leftovers(s->cache_dir, &reaped, &err), 0);
    assert_int_equal(reaped, 0);
    assert_true(path_exists(file));
    assert_true(path_exists(unproven));
    remove_tree_with_rm(foreign);
    remove_tree_with_rm(unproven);
}

/* A leftover as verdict lays it out, of a dead owner; postmaster.pid may say anything. */
static void lay_out_leftover(const suite_state *s, const char *name, pid_t recorded_postmaster,
                             const char *postmaster_pid_text, char *dir, size_t size)
{
    pid_t dead = fork();
    if (dead == 0)
        _exit(0);
    waitpid(dead, NULL, 0);
    snprintf(dir, size, "%s/instances/%d-1-%s", s->cache_dir, (int)dead, name);
    char path[CLUSTER_PATH_MAX + 32];
    assert_int_equal(mkdir(dir, 0711), 0);
    snprintf(path, sizeof path, "%s/data", dir);
    assert_int_equal(mkdir(path, 0700), 0);
    snprintf(path, sizeof path, "%s/owner.lock", dir);
    int fd = open(path, O_CREAT | O_WRONLY, 0600);
    assert_true(fd >= 0);
    close(fd);
    snprintf(path, sizeof path, "%s/instance.txt", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "owner_pid=%d\nowner_start=1\npostmaster_pid=%d\nserver_uid=%u\n", (int)dead,
            (int)recorded_postmaster, (unsigned)s->server_uid);
    fclose(f);
    snprintf(path, sizeof path, "%s/data/postmaster.pid", dir);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs(postmaster_pid_text, f);
    fclose(f);
}

/* The issue: a forged postmaster.pid made the cleanup remove a root-owned segment the other
 * user could not remove. The segment here is this process's, as the forger would pick. */
static void test_a_forged_postmaster_pid_spares_other_segments(void **state)
{
    suite_state *s = *state;
    key_t key = (key_t)(0x76720000 | (getpid() & 0xffff));
    int id = shmget(key, 4096, IPC_CREAT | IPC_EXCL | 0600);
    assert_true(id >= 0);
    char text[512], dir[CLUSTER_PATH_MAX];
    snprintf(text, sizeof text, "%d\n/x\n1\n5432\n/tmp\n\n%10lu %10d\nready\n", (int)getpid(),
             (unsigned long)key, id);
    lay_out_leftover(s, "forged", 1, text, dir, sizeof dir);
    int reaped = -1;
    verdict_error err = {0};
    assert_int_equal(cluster_reap_leftovers(s->cache_dir, &reaped, &err), 0);
    struct shmid_ds info;
    bool still_there = shmctl(id, IPC_STAT, &info) == 0;
    shmctl(id, IPC_RMID, NULL);
    assert_int_equal(reaped, 1); /* the leftover itself is verdict's and goes */
    assert_false(path_exists(dir));
    assert_true(still_there);
}

/* The issue: a template planted at templates/KEY was accepted and copied. */
static void test_a_template_not_made_by_verdict_is_refused(void **state)
{
    suite_state *s = *state;
    need_other_user(s);
    if (s->template_dir[0] == '\0')
        skip();
    char command[3 * CLUSTER_PATH_MAX + 128], dir[CLUSTER_PATH_MAX];
    verdict_error err = {0};
    snprintf(command, sizeof command, "chown -R %s '%s'", s->other_name, s->template_dir);
    assert_int_equal(system(command), 0);
    cluster_instance c;
    int started = cluster_start(s->template_dir, &s->spec, &c, &err);
    if (started == 0)
        cluster_stop(&c, &err);
    int prepared = cluster_template_prepare(&s->spec, dir, sizeof dir, &err);
    snprintf(command, sizeof command, "chown -R %u:%u '%s'", (unsigned)s->server_uid,
             (unsigned)s->server_gid, s->template_dir);
    assert_int_equal(system(command), 0);
    assert_int_equal(started, -1);
    assert_int_equal(prepared, -1);
    assert_non_null(strstr(err.message, "is not a template data directory verdict made"));
    assert_non_null(strstr(err.message, "not owned by the server user"));
    /* Its description changed: not the template these settings build. */
    char text_path[CLUSTER_PATH_MAX / 2];
    assert_true(strlen(s->template_dir) < sizeof text_path - 8);
    snprintf(text_path, sizeof text_path, "%.*s.txt", (int)(sizeof text_path - 8),
             s->template_dir);
    snprintf(command, sizeof command, "cp '%s' '%s.saved' && echo planted >> '%s'", text_path,
             text_path, text_path);
    assert_int_equal(system(command), 0);
    prepared = cluster_template_prepare(&s->spec, dir, sizeof dir, &err);
    snprintf(command, sizeof command, "mv '%s.saved' '%s'", text_path, text_path);
    assert_int_equal(system(command), 0);
    assert_int_equal(prepared, -1);
    assert_non_null(strstr(err.message, "not a template verdict built for these settings"));
    assert_int_equal(cluster_template_prepare(&s->spec, dir, sizeof dir, &err), 0);
}

/* The issue: 123 port lock files in one cache. They go with their instance, and the
 * reaper removes those of dead verdicts. */
static void test_port_lock_files_do_not_pile_up(void **state)
{
    suite_state *s = *state;
    char ports[256], stale[300];
    snprintf(ports, sizeof ports, "%s/ports", s->cache_dir);
    cluster_instance a, b;
    start_or_fail(s, &a);
    start_or_fail(s, &b);
    assert_int_equal(count_entries(ports), 2);
    verdict_error err = {0};
    assert_int_equal(cluster_stop(&a, &err), 0);
    assert_int_equal(cluster_stop(&b, &err), 0);
    assert_int_equal(count_entries(ports), 0);
    snprintf(stale, sizeof stale, "%s/17001.lock", ports); /* a dead verdict's, say */
    int fd = open(stale, O_CREAT | O_WRONLY, 0600);
    assert_true(fd >= 0);
    close(fd);
    int reaped;
    assert_int_equal(cluster_reap_leftovers(s->cache_dir, &reaped, &err), 0);
    assert_int_equal(count_entries(ports), 0);
}

/* The issue: ports/NNNNN.lock -> /anywhere/file made root create files there. */
static void test_lock_file_links_are_never_followed(void **state)
{
    suite_state *s = *state;
    if (s->template_dir[0] == '\0')
        skip();
    char victim[128], link_path[300], target[200];
    make_temp_dir(victim, sizeof victim, "victim", 0755);
    for (int port = 16000; port < 32000; port++) {
        snprintf(link_path, sizeof link_path, "%s/ports/%d.lock", s->cache_dir, port);
        snprintf(target, sizeof target, "%s/%d", victim, port);
        assert_int_equal(symlink(target, link_path), 0);
    }
    cluster_instance c;
    verdict_error err = {0};
    int rc = cluster_start(s->template_dir, &s->spec, &c, &err);
    int created = count_entries(victim);
    for (int port = 16000; port < 32000; port++) {
        snprintf(link_path, sizeof link_path, "%s/ports/%d.lock", s->cache_dir, port);
        unlink(link_path);
    }
    remove_tree_with_rm(victim);
    assert_int_equal(created, 0);
    assert_int_equal(rc, -1);
    assert_non_null(strstr(err.message, "no free port"));
}

/* In a child that became the other user, with HOME set: its default cache, created and
 * used by a template build; the child reports the cache's mode and owner. */
static void build_as_other_user(const suite_state *s, const char *home, mode_t *mode,
                                uid_t *owner, char *path, size_t pathlen)
{
    int report[2];
    assert_int_equal(pipe(report), 0);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        close(report[0]);
        char cache[CLUSTER_PATH_MAX] = "", dir[CLUSTER_PATH_MAX];
        verdict_error err = {0};
        struct stat st = {0};
        if (setgroups(0, NULL) != 0 || setgid(s->other_gid) != 0 || setuid(s->other_uid) != 0)
            _exit(2);
        setenv("HOME", home, 1);
        unsetenv("XDG_CACHE_HOME");
        cluster_template_spec spec = s->spec;
        spec.cache_dir = cache;
        spec.pgbench_scale = 0;
        if (cluster_default_cache_dir(cache, sizeof cache, &err) != 0 ||
            cluster_template_prepare(&spec, dir, sizeof dir, &err) != 0 ||
            stat(cache, &st) != 0) {
            fprintf(stderr, "as the other user: %s\n", err.message);
            _exit(3);
        }
        if (write(report[1], &st, sizeof st) != (ssize_t)sizeof st ||
            write(report[1], cache, sizeof cache) != (ssize_t)sizeof cache)
            _exit(4);
        _exit(0);
    }
    close(report[1]);
    struct stat st;
    char cache[CLUSTER_PATH_MAX];
    bool got = read(report[0], &st, sizeof st) == (ssize_t)sizeof st &&
               read(report[0], cache, sizeof cache) == (ssize_t)sizeof cache;
    close(report[0]);
    int status = 0;
    waitpid(child, &status, 0);
    assert_true(got && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    *mode = st.st_mode & 07777;
    *owner = st.st_uid;
    snprintf(path, pathlen, "%s", cache);
}

static void test_the_default_cache_is_per_user_and_private(void **state)
{
    suite_state *s = *state;
    need_other_user(s);
    char dir[CLUSTER_PATH_MAX];
    verdict_error err = {0};
    assert_int_equal(cluster_default_cache_dir(dir, sizeof dir, &err), 0);
    assert_string_equal(dir, "/var/cache/verdict-pg"); /* root's own */
    char home[128], cache[CLUSTER_PATH_MAX], expected[200];
    make_temp_dir(home, sizeof home, "home", 0755);
    assert_int_equal(chown(home, s->other_uid, s->other_gid), 0);
    mode_t mode;
    uid_t owner;
    build_as_other_user(s, home, &mode, &owner, cache, sizeof cache);
    snprintf(expected, sizeof expected, "%s/.cache/verdict-pg", home);
    assert_string_equal(cache, expected);
    assert_int_equal(mode, 0700);
    assert_int_equal(owner, s->other_uid);
    /* Root does not use it: it is the other user's. */
    assert_int_equal(prepare_in(s, cache, &err), -1);
    assert_non_null(strstr(err.message, "is owned by"));
    remove_tree_with_rm(home);
}

int main(void)
{
    char bindir[CLUSTER_PATH_MAX];
    if (cluster_find_bindir(bindir, sizeof bindir) != 0) {
        fprintf(stderr, "no PostgreSQL bindir found: skipping\n");
        return 77;
    }
    if (geteuid() == 0 && getpwnam("postgres") == NULL) {
        fprintf(stderr, "running as root without a postgres user: skipping\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_template_is_built_then_reused),
        cmocka_unit_test(test_start_connect_checkpoint_stop),
        cmocka_unit_test(test_two_instances_get_different_ports),
        cmocka_unit_test(test_settings_land_in_the_instance),
        cmocka_unit_test(test_sigkilled_owner_is_reaped),
        cmocka_unit_test(test_running_leftover_server_is_stopped),
        cmocka_unit_test(test_live_owner_is_left_alone),
        cmocka_unit_test(test_bad_bindir_is_reported),
        cmocka_unit_test(test_unknown_setting_reports_server_log),
        cmocka_unit_test(test_a_cache_of_another_user_is_refused),
        cmocka_unit_test(test_a_link_of_another_user_is_not_followed),
        cmocka_unit_test(test_a_cache_others_may_write_is_refused),
        cmocka_unit_test(test_cluster_cache_prepare_checks_and_creates),
        cmocka_unit_test(test_leftovers_verdict_did_not_make_are_left_alone),
        cmocka_unit_test(test_a_forged_postmaster_pid_spares_other_segments),
        cmocka_unit_test(test_a_template_not_made_by_verdict_is_refused),
        cmocka_unit_test(test_port_lock_files_do_not_pile_up),
        cmocka_unit_test(test_lock_file_links_are_never_followed),
        cmocka_unit_test(test_the_default_cache_is_per_user_and_private),
    };
    return cmocka_run_group_tests(tests, suite_setup, suite_teardown);
}

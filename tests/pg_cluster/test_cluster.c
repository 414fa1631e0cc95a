/* Tests of src/pg/cluster with real PostgreSQL servers: templates and their reuse, start,
 * connect, checkpoint, stop, ports, settings, leftovers of killed owners, and errors. */
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
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

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
    *state = s;
    return 0;
}

static int suite_teardown(void **state)
{
    suite_state *s = *state;
    int reaped = 0;
    char err[ERR_SIZE];
    cluster_reap_leftovers(s->cache_dir, &reaped, err, sizeof err);
    remove_tree_with_rm(s->cache_dir);
    free(s);
    return 0;
}

static void test_template_is_built_then_reused(void **state)
{
    suite_state *s = *state;
    char err[ERR_SIZE] = "";
    double started = monotonic_seconds();
    int rc = cluster_template_prepare(&s->spec, s->template_dir, sizeof s->template_dir, err,
                                      sizeof err);
    s->first_prepare_seconds = monotonic_seconds() - started;
    if (rc != 0)
        fail_msg("prepare: %s", err);
    char path[CLUSTER_PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/PG_VERSION", s->template_dir);
    assert_true(path_exists(path));
    snprintf(path, sizeof path, "%s/postmaster.pid", s->template_dir);
    assert_false(path_exists(path)); /* cleanly stopped */
    snprintf(path, sizeof path, "%s.txt", s->template_dir);
    assert_true(path_exists(path)); /* what it was built from */

    char again[CLUSTER_PATH_MAX];
    started = monotonic_seconds();
    rc = cluster_template_prepare(&s->spec, again, sizeof again, err, sizeof err);
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
    rc = cluster_template_prepare(&other, other_dir, sizeof other_dir, err, sizeof err);
    if (rc != 0)
        fail_msg("prepare scale 0: %s", err);
    assert_string_not_equal(other_dir, s->template_dir);
}

static void start_or_fail(suite_state *s, cluster_instance *c)
{
    char err[ERR_SIZE] = "";
    if (s->template_dir[0] == '\0')
        skip();
    if (cluster_start(s->template_dir, &s->spec, c, err, sizeof err) != 0)
        fail_msg("start: %s", err);
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

    char err[ERR_SIZE] = "";
    if (cluster_checkpoint(&c, err, sizeof err) != 0)
        fail_msg("checkpoint: %s", err);

    char instance_dir[CLUSTER_PATH_MAX];
    snprintf(instance_dir, sizeof instance_dir, "%s", c.instance_dir);
    pid_t postmaster = c.postmaster_pid;
    assert_true(processes_under(c.data_dir) >= 2); /* postmaster and its helpers */
    started = monotonic_seconds();
    if (cluster_stop(&c, err, sizeof err) != 0)
        fail_msg("stop: %s", err);
    print_message("stop: %.3f s\n", monotonic_seconds() - started);
    assert_false(path_exists(instance_dir));
    assert_int_equal(processes_under(instance_dir), 0);
    assert_int_equal(kill(postmaster, 0), -1);
    assert_int_equal(errno, ESRCH);
    assert_int_equal(cluster_stop(&c, err, sizeof err), 0); /* twice is harmless */
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
    char err[ERR_SIZE];
    assert_int_equal(cluster_stop(&a, err, sizeof err), 0);
    assert_int_equal(cluster_stop(&b, err, sizeof err), 0);
    cluster_instance again;
    start_or_fail(s, &again);
    assert_int_not_equal(psql(s, &again, "select * from only_in_a", out, sizeof out), 0);
    assert_int_equal(cluster_stop(&again, err, sizeof err), 0);
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
    char err[ERR_SIZE];
    assert_int_equal(cluster_stop(&c, err, sizeof err), 0);
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
        char err[ERR_SIZE];
        int rc = cluster_start(s->template_dir, &s->spec, &c, err, sizeof err);
        if (rc != 0)
            fprintf(stderr, "child start: %s\n", err);
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
    char err[ERR_SIZE] = "";
    if (cluster_reap_leftovers(s->cache_dir, &reaped, err, sizeof err) != 0)
        fail_msg("reap: %s", err);
    assert_int_equal(reaped, 1);
    assert_false(path_exists(c.instance_dir));
    assert_int_equal(processes_under(c.instance_dir), 0);
    assert_true(process_gone(c.postmaster_pid));
    /* Nothing more to find. */
    assert_int_equal(cluster_reap_leftovers(s->cache_dir, &reaped, err, sizeof err), 0);
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
    char err[ERR_SIZE] = "";
    if (cluster_reap_leftovers(s->cache_dir, &reaped, err, sizeof err) != 0)
        fail_msg("reap: %s", err);
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
    char err[ERR_SIZE];
    assert_int_equal(cluster_reap_leftovers(s->cache_dir, &reaped, err, sizeof err), 0);
    assert_int_equal(reaped, 0);
    assert_true(path_exists(c.instance_dir));
    char out[OUTPUT_SIZE];
    assert_int_equal(psql(s, &c, "select 1", out, sizeof out), 0);
    assert_int_equal(cluster_stop(&c, err, sizeof err), 0);
}

static void test_bad_bindir_is_reported(void **state)
{
    suite_state *s = *state;
    cluster_template_spec spec = s->spec;
    char dir[CLUSTER_PATH_MAX], err[ERR_SIZE] = "";
    spec.bindir = "/nonexistent/postgresql/bin";
    assert_int_equal(cluster_template_prepare(&spec, dir, sizeof dir, err, sizeof err), -1);
    assert_non_null(strstr(err, "/nonexistent/postgresql/bin"));
    spec.bindir = "/etc";
    err[0] = '\0';
    assert_int_equal(cluster_template_prepare(&spec, dir, sizeof dir, err, sizeof err), -1);
    assert_non_null(strstr(err, "not a PostgreSQL bindir"));
    cluster_instance c;
    err[0] = '\0';
    assert_int_equal(cluster_start("/etc", &s->spec, &c, err, sizeof err), -1);
    assert_non_null(strstr(err, "not a template"));
}

static void test_unknown_setting_reports_server_log(void **state)
{
    suite_state *s = *state;
    const char *settings[] = {"shared_buffers=16MB", "no_such_setting_xyz=1"};
    cluster_template_spec spec = s->spec;
    spec.settings = settings;
    spec.n_settings = 2;
    spec.pgbench_scale = 0;
    char dir[CLUSTER_PATH_MAX], err[ERR_SIZE] = "";
    char templates[256], instances[256];
    snprintf(templates, sizeof templates, "%s/templates", s->cache_dir);
    snprintf(instances, sizeof instances, "%s/instances", s->cache_dir);
    int templates_before = count_entries(templates);
    assert_int_equal(cluster_template_prepare(&spec, dir, sizeof dir, err, sizeof err), -1);
    print_message("error: %s\n", err);
    assert_non_null(strstr(err, "refused to start"));
    assert_non_null(strstr(err, "no_such_setting_xyz"));
    assert_non_null(strstr(err, "unrecognized configuration parameter"));
    /* Nothing cached, nothing left: only the lock file may have appeared. */
    assert_true(count_entries(templates) <= templates_before + 1);
    assert_int_equal(count_entries(instances), 0);

    const char *reserved[] = {"port=5432"};
    spec.settings = reserved;
    spec.n_settings = 1;
    assert_int_equal(cluster_template_prepare(&spec, dir, sizeof dir, err, sizeof err), -1);
    assert_non_null(strstr(err, "verdict sets port itself"));
    const char *malformed[] = {"shared_buffers"};
    spec.settings = malformed;
    assert_int_equal(cluster_template_prepare(&spec, dir, sizeof dir, err, sizeof err), -1);
    assert_non_null(strstr(err, "not name=value"));
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
    };
    return cmocka_run_group_tests(tests, suite_setup, suite_teardown);
}

/* Benchmark of throwaway clusters: a fresh copy of a template (cluster_start + cluster_stop)
 * against building one from scratch (initdb + pg_ctl start + pgbench -i), interleaved. */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pg/cluster.h"
#include "common/error.h"
#include "pg/cluster_internal.h"

#define MAX_ROUNDS 100
#define ERR_SIZE 2048

typedef struct {
    int scale, rounds;
    char bindir[CLUSTER_PATH_MAX];
    char cache_dir[CLUSTER_PATH_MAX];
    char scratch_dir[64]; /* world-writable, so initdb as postgres can create in it */
    bool keep_cache;
} bench_options;

static double monotonic_seconds(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(const double *values, int n)
{
    double sorted[MAX_ROUNDS];
    memcpy(sorted, values, (size_t)n * sizeof *values);
    qsort(sorted, (size_t)n, sizeof *sorted, compare_doubles);
    return n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0;
}

/* Runs a command, as the postgres user (through runuser) when we are root, as a person
 * would; output to /dev/null. Returns its exit status. */
static int run_as_server_user(char *const *argv)
{
    pid_t child = fork();
    if (child < 0)
        return -1;
    if (child == 0) {
        int null_fd = open("/dev/null", O_RDWR);
        dup2(null_fd, 0);
        dup2(null_fd, 1);
        dup2(null_fd, 2);
        if (chdir("/") != 0)
            _exit(126);
        if (geteuid() == 0) {
            char *wrapped[32] = {"/usr/sbin/runuser", "-u", "postgres", "--"};
            int n = 4;
            for (int i = 0; argv[i] != NULL && n < 31; i++)
                wrapped[n++] = argv[i];
            wrapped[n] = NULL;
            execv(wrapped[0], wrapped);
        } else {
            execv(argv[0], argv);
        }
        _exit(127);
    }
    int status;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The way without templates; returns seconds, or -1 on failure. Stopping and removing it
 * is not timed. */
static double time_from_scratch(const bench_options *o, int round)
{
    char data_dir[CLUSTER_PATH_MAX + 32], socket_dir[CLUSTER_PATH_MAX + 32];
    char log_path[CLUSTER_PATH_MAX + 32];
    char initdb[CLUSTER_PATH_MAX + 16], pg_ctl[CLUSTER_PATH_MAX + 16], pgbench[CLUSTER_PATH_MAX + 16];
    char scale[16], port[16], options[CLUSTER_PATH_MAX + 128];
    (void)path_format(data_dir, sizeof data_dir, "%s/scratch-%d", o->scratch_dir, round);
    (void)path_format(socket_dir, sizeof socket_dir, "%s/sock-%d", o->scratch_dir, round);
    (void)path_format(log_path, sizeof log_path, "%s/scratch-%d.log", o->scratch_dir, round);
    (void)path_format(initdb, sizeof initdb, "%s/initdb", o->bindir);
    (void)path_format(pg_ctl, sizeof pg_ctl, "%s/pg_ctl", o->bindir);
    (void)path_format(pgbench, sizeof pgbench, "%s/pgbench", o->bindir);
    snprintf(scale, sizeof scale, "%d", o->scale);
    snprintf(port, sizeof port, "%d", 15900 + round % 50);
    (void)path_format(options, sizeof options, "-k %s -p %s -c listen_addresses=''", socket_dir,
                      port);
    if (mkdir(socket_dir, 0777) != 0 || chmod(socket_dir, 0777) != 0)
        return -1;
    double started = monotonic_seconds();
    char *const initdb_argv[] = {initdb, "-D", data_dir, "-A", "trust", "--no-sync", "-E",
                                 "UTF8", "--locale=C", NULL};
    char *const start_argv[] = {pg_ctl, "start", "-w", "-D", data_dir, "-l", log_path, "-o",
                                options, NULL};
    char *const init_argv[] = {pgbench, "-i", "-q", "-s", scale, "-h", socket_dir, "-p", port,
                               "postgres", NULL};
    int failed = run_as_server_user(initdb_argv) != 0 || run_as_server_user(start_argv) != 0 ||
                 run_as_server_user(init_argv) != 0;
    double seconds = monotonic_seconds() - started;
    char *const stop_argv[] = {pg_ctl, "stop", "-m", "immediate", "-w", "-D", data_dir, NULL};
    run_as_server_user(stop_argv);
    remove_tree(data_dir, NULL);
    remove_tree(socket_dir, NULL);
    unlink(log_path);
    return failed ? -1.0 : seconds;
}

static int parse_options(int argc, char **argv, bench_options *o)
{
    o->scale = 10;
    o->rounds = 5;
    if (cluster_find_bindir(o->bindir, sizeof o->bindir) != 0)
        o->bindir[0] = '\0';
    for (int i = 1; i < argc; i++) {
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(argv[i], "--scale") == 0 && value != NULL) {
            o->scale = atoi(value);
            i++;
        } else if (strcmp(argv[i], "--rounds") == 0 && value != NULL) {
            o->rounds = atoi(value);
            i++;
        } else if (strcmp(argv[i], "--bindir") == 0 && value != NULL) {
            snprintf(o->bindir, sizeof o->bindir, "%s", value);
            i++;
        } else if (strcmp(argv[i], "--cache") == 0 && value != NULL) {
            snprintf(o->cache_dir, sizeof o->cache_dir, "%s", value);
            o->keep_cache = true;
            i++;
        } else {
            fprintf(stderr,
                    "usage: bench_cluster [--scale N] [--rounds R] [--bindir DIR] [--cache DIR]\n");
            return -1;
        }
    }
    if (o->rounds < 1 || o->rounds > MAX_ROUNDS || o->scale < 1 || o->bindir[0] == '\0') {
        fprintf(stderr, "need 1..%d rounds, scale >= 1 and a PostgreSQL bindir\n", MAX_ROUNDS);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    bench_options o = {0};
    if (parse_options(argc, argv, &o) != 0)
        return 2;
    if (o.cache_dir[0] == '\0') {
        snprintf(o.cache_dir, sizeof o.cache_dir, "/var/tmp/verdict-bench-XXXXXX");
        if (mkdtemp(o.cache_dir) == NULL || chmod(o.cache_dir, 0755) != 0) {
            perror("cache directory");
            return 1;
        }
    }
    snprintf(o.scratch_dir, sizeof o.scratch_dir, "/var/tmp/verdict-bench-scratch-XXXXXX");
    if (mkdtemp(o.scratch_dir) == NULL || chmod(o.scratch_dir, 0777) != 0) {
        perror("scratch directory");
        return 1;
    }
    const char *settings[] = {"shared_buffers=128MB"};
    cluster_template_spec spec = {.bindir = o.bindir, .cache_dir = o.cache_dir,
                                  .settings = settings, .n_settings = 1,
                                  .pgbench_scale = o.scale};
    char template_dir[CLUSTER_PATH_MAX];
    verdict_error err = {0};
    double started = monotonic_seconds();
    if (cluster_template_prepare(&spec, template_dir, sizeof template_dir, &err) != 0) {
        fprintf(stderr, "prepare: %s\n", err.message);
        return 1;
    }
    double build_seconds = monotonic_seconds() - started;
    started = monotonic_seconds();
    cluster_template_prepare(&spec, template_dir, sizeof template_dir, &err);
    double hit_seconds = monotonic_seconds() - started;
    printf("PostgreSQL %s, scale %d, %d rounds, cache %s\n", o.bindir, o.scale, o.rounds,
           o.cache_dir);
    printf("template: first prepare %.3f s (build, or reuse with --cache), cache hit %.3f s\n",
           build_seconds, hit_seconds);

    double start_s[MAX_ROUNDS], stop_s[MAX_ROUNDS], copy_s[MAX_ROUNDS], cp_s[MAX_ROUNDS],
        scratch_s[MAX_ROUNDS];
    for (int round = 0; round < o.rounds; round++) {
        /* Interleaved, order alternating, so drifts in machine speed hit both alike. */
        for (int step = 0; step < 2; step++) {
            if ((step == 0) == (round % 2 == 0)) {
                cluster_instance c;
                started = monotonic_seconds();
                if (cluster_start(template_dir, &spec, &c, &err) != 0) {
                    fprintf(stderr, "start: %s\n", err.message);
                    return 1;
                }
                double ready = monotonic_seconds();
                if (cluster_stop(&c, &err) != 0) {
                    fprintf(stderr, "stop: %s\n", err.message);
                    return 1;
                }
                start_s[round] = ready - started;
                stop_s[round] = monotonic_seconds() - ready;
            } else {
                scratch_s[round] = time_from_scratch(&o, round);
                if (scratch_s[round] < 0) {
                    fprintf(stderr, "initdb + pg_ctl start + pgbench -i failed\n");
                    return 1;
                }
            }
        }
        /* The copy alone, by this module and by cp -a. */
        char copy_dir[CLUSTER_PATH_MAX + 16];
        (void)path_format(copy_dir, sizeof copy_dir, "%s/copy", o.cache_dir);
        started = monotonic_seconds();
        if (copy_tree(template_dir, copy_dir, &err) != 0) {
            fprintf(stderr, "copy: %s\n", err.message);
            return 1;
        }
        copy_s[round] = monotonic_seconds() - started;
        remove_tree(copy_dir, NULL);
        char *const cp_argv[] = {"/bin/cp", "-a", template_dir, copy_dir, NULL};
        started = monotonic_seconds();
        pid_t child = fork();
        if (child == 0) {
            execv(cp_argv[0], cp_argv);
            _exit(127);
        }
        waitpid(child, NULL, 0);
        cp_s[round] = monotonic_seconds() - started;
        remove_tree(copy_dir, NULL);
        printf("round %d: start %.3f s + stop %.3f s | scratch %.3f s | copy %.3f s, cp -a "
               "%.3f s\n", round + 1, start_s[round], stop_s[round], scratch_s[round],
               copy_s[round], cp_s[round]);
    }
    double start_m = median(start_s, o.rounds), stop_m = median(stop_s, o.rounds);
    double scratch_m = median(scratch_s, o.rounds);
    printf("median cluster_start:                        %.3f s\n", start_m);
    printf("median cluster_stop:                         %.3f s\n", stop_m);
    printf("median cluster_start + cluster_stop:         %.3f s\n", start_m + stop_m);
    printf("median initdb + pg_ctl start + pgbench -i:   %.3f s (%.1fx slower than start)\n",
           scratch_m, scratch_m / start_m);
    printf("median copy of the template: copy_tree %.3f s, cp -a %.3f s\n",
           median(copy_s, o.rounds), median(cp_s, o.rounds));
    if (!o.keep_cache)
        remove_tree(o.cache_dir, NULL);
    remove_tree(o.scratch_dir, NULL);
    return 0;
}

/* Throwaway PostgreSQL clusters: a cached template data directory per (build, settings,
 * scale), fresh copies of it started on a private Unix socket, stopped and removed. */
#ifndef VERDICT_PG_CLUSTER_H
#define VERDICT_PG_CLUSTER_H

#include <limits.h>
#include <sched.h>
#include <stddef.h>
#include <sys/types.h>

#include "common/error.h"

#define CLUSTER_PATH_MAX PATH_MAX
#define CLUSTER_USER_MAX 64

typedef struct {
    const char *bindir;          /* holds postgres, initdb, pgbench, e.g. /usr/lib/postgresql/15/bin */
    const char *cache_dir;       /* templates/, instances/ and ports/ live here: a directory
                                    of verdict's user that no one else may write (see
                                    cluster_default_cache_dir and docs/security.md) */
    const char *run_as;          /* server user when verdict runs as root; NULL: "postgres" */
    const char *const *settings; /* "name=value" lines for postgresql.conf, later ones win */
    size_t n_settings;
    int pgbench_scale;           /* 0: no pgbench tables */
    const char *init_sql_path;   /* SQL that psql runs in database postgres after pgbench's
                                    tables (stopping at the first error); NULL: none. Its
                                    content is part of the template's key. */
    const char *const *init_variables; /* "name=value", psql -v name=value, in order */
    size_t n_init_variables;
    const cpu_set_t *server_cpus; /* CPUs the started servers may use; NULL: verdict's own */
    const char *const *launcher; /* cluster_start only (never the template's key): words run
                                    before postgres, the postmaster's program (valgrind and
                                    its options), NULL-terminated; NULL: postgres itself.
                                    CLUSTER_TOOL_DIR in a word becomes the instance's
                                    tool_dir, where the launcher may write its files. */
} cluster_template_spec;

/* The placeholder of a launcher's words for its output directory (an environment
 * variable would not do: the postmaster moves its environment for its process titles). */
#define CLUSTER_TOOL_DIR "{tool_dir}"

/* A started copy of a template. Everything it needs to stop is in here; nothing global. */
typedef struct {
    char instance_dir[CLUSTER_PATH_MAX]; /* cache_dir/instances/OWNERPID-STARTTIME-XXXXXX */
    char data_dir[CLUSTER_PATH_MAX];     /* instance_dir/data */
    char socket_dir[CLUSTER_PATH_MAX];   /* instance_dir/socket, or /tmp/verdict-pg-XXXXXX */
    char log_path[CLUSTER_PATH_MAX];     /* the server's stderr: instance_dir/server.log */
    char tool_dir[CLUSTER_PATH_MAX];     /* with a launcher: instance_dir/tool, the server
                                            user's, for the launcher's files; else "" */
    char user[CLUSTER_USER_MAX];         /* database superuser (the server's OS user) */
    int port;
    pid_t postmaster_pid;                /* 0 once stopped */
    int owner_lock_fd;                   /* held while the instance lives: proves the owner alive */
    int port_lock_fd;                    /* held while the instance lives: reserves the port */
    int ports_fd;                        /* cache_dir/ports, where the port's lock file is */
    int instance_fd;                     /* instance_dir itself */
    uid_t server_uid;                    /* the server's OS user */
} cluster_instance;

/* The cache directory to use when the experiment names none, one per user: for root
 * /var/cache/verdict-pg (root's, which the server user can pass through but not list or
 * write), for anyone else $XDG_CACHE_HOME/verdict-pg (an absolute XDG_CACHE_HOME) or
 * ~/.cache/verdict-pg. It is created (mode 0711 for root, 0700 otherwise) when first used.
 * Returns 0, or -1 with a message (no home directory). */
int cluster_default_cache_dir(char *out, size_t outlen, verdict_error *err);

/* Checks (and creates, as above, when missing) cache_dir by the rules of docs/security.md:
 * verdict's user's, writable by no one else, reached only through directories and links of
 * root or that user. Every cluster_* call does this itself; call it before using the cache
 * for anything else (building PostgreSQL into cache_dir/builds, say). Returns 0, or -1
 * with a message naming the offending path and its owner or mode. */
int cluster_cache_prepare(const char *cache_dir, verdict_error *err);

/* Finds a PostgreSQL bindir (the newest /usr/lib/postgresql/N/bin, then pg_config's
 * usual places); returns 0, or -1 when none holds an executable postgres. */
int cluster_find_bindir(char *bindir_out, size_t outlen);

/* Creates, or reuses when one exists, the template data directory for this spec, keyed by
 * bindir, the server's version and binary, the settings, the scale and the init SQL's
 * content and variables: initdb (-A trust, --no-sync, -E UTF8, --locale=C), the settings
 * appended to postgresql.conf, one start to validate them, load `pgbench -i -s SCALE` and
 * run the init SQL, CHECKPOINT, clean stop, fsync, rename into place. Concurrent verdicts preparing the same template wait for each other. Returns 0
 * with the template's path, or -1 with a message (the server log's tail when it refused). */
int cluster_template_prepare(const cluster_template_spec *spec, char *template_dir_out,
                             size_t outlen, verdict_error *err);

/* Reaps leftovers, copies the template into a new instance directory, reserves a free
 * port, starts the server in its own session on a private socket directory, waits until it
 * accepts connections and checkpoints. Uses spec's bindir, cache_dir and run_as (the
 * settings are already in the template). Returns 0, or -1 with a message; on failure
 * nothing is left running or on disk. */
int cluster_start(const char *template_dir, const cluster_template_spec *spec,
                  cluster_instance *out, verdict_error *err);

/* libpq keyword/value connection string: host (the socket dir), port, user, dbname. Usable
 * as pgbench's or psql's dbname argument. */
void cluster_conninfo(const cluster_instance *c, char *buf, size_t len);

/* The processes of the running instance (the postmaster and every process it started that
 * still runs: PostgreSQL's processes all work in the data directory), at most max of them;
 * returns how many were found. */
size_t cluster_processes(const cluster_instance *c, pid_t *pids, size_t max);

/* Runs CHECKPOINT in the instance; 0, or -1 with a message. */
int cluster_checkpoint(cluster_instance *c, verdict_error *err);

/* Fast shutdown (SIGINT, as `pg_ctl stop -m fast`), then immediate (SIGQUIT), then SIGKILL
 * of every process of the instance; removes the copy and releases the port. Safe to call
 * twice. Returns 0 when no process of it remains and its directories are gone. */
int cluster_stop(cluster_instance *c, verdict_error *err);

/* Finds instances in cache_dir whose owning process is gone (crash, SIGKILL), stops any
 * server still running in them and removes their directories; *reaped counts them. Only
 * what verdict can prove it made is touched: a directory of verdict's user holding its
 * owner.lock; the server's shared memory only when the postmaster verdict recorded created
 * it. Instances of live owners are left alone; port lock files nobody holds are removed.
 * Returns 0, or -1 with a message (also when cache_dir fails the checks of cluster.h's
 * cache_dir). */
int cluster_reap_leftovers(const char *cache_dir, int *reaped, verdict_error *err);

#endif

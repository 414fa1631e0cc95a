/* Internal helpers shared by the cluster_*.c files: the server's OS user, running
 * PostgreSQL programs as that user, watching processes, and file-tree chores. */
#ifndef VERDICT_PG_CLUSTER_INTERNAL_H
#define VERDICT_PG_CLUSTER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "pg/cluster.h"

#define CLUSTER_MAX_GROUPS 64

/* Whom PostgreSQL programs run as. initdb and postgres refuse root, so a root verdict
 * drops to this user in the child between fork and exec. */
typedef struct {
    bool switch_user; /* verdict is root: setgroups/setgid/setuid before exec */
    uid_t uid;
    gid_t gid;
    gid_t groups[CLUSTER_MAX_GROUPS];
    int n_groups;
    char name[CLUSTER_USER_MAX];
} server_user;

/* What to run and how. argv[0] is an absolute path: nothing is searched in PATH. */
typedef struct {
    const server_user *user;
    char *const *argv;
    int output_fd;        /* becomes stdout and stderr; -1: /dev/null */
    bool new_session;     /* setsid: Ctrl-C at verdict's terminal does not reach it */
    bool die_with_parent; /* SIGQUIT (immediate shutdown) when verdict's thread dies */
    const cpu_set_t *cpus; /* the child and all it starts may run only here; NULL: any */
} spawn_request;

/* cluster_process.c */
void cluster_error(char *err, size_t errlen, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
/* snprintf for paths: 0, or -1 when the result did not fit (out is then truncated). */
int path_format(char *out, size_t outlen, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
int server_user_resolve(const char *run_as, server_user *user, char *err, size_t errlen);
/* 0 when the user can search and write dir (checked in a child that became the user). */
int server_user_check_access(const server_user *user, const char *dir, char *err, size_t errlen);
int spawn_program(const spawn_request *request, pid_t *pid_out, char *err, size_t errlen);
/* 1 when pid ended within timeout (reaped if it is our child; *status -1 when not ours),
 * 0 on timeout. */
int wait_for_exit(pid_t pid, double timeout_seconds, int *status);
/* Runs argv as user, output appended to log_path, and waits; 0 on exit status 0,
 * otherwise -1 with a message ending in the log's tail. */
int run_program(const server_user *user, char *const *argv, const char *log_path,
                double timeout_seconds, char *err, size_t errlen);
/* Runs argv as user and captures its first bytes of output into out. */
int capture_program_output(const server_user *user, char *const *argv, char *out, size_t outlen,
                           char *err, size_t errlen);
/* Processes whose working directory is dir (PostgreSQL's processes all chdir to their data
 * directory), at most max of them; returns how many were found. */
size_t processes_in_dir(const char *dir, pid_t *pids, size_t max);
/* The process's start time in clock ticks since boot, or 0 when it does not exist. */
unsigned long long process_start_time(pid_t pid);
/* Signals the postmaster, escalating fast -> immediate -> SIGKILL of every process in
 * data_dir; returns 0 once none remains. */
int stop_server_processes(pid_t postmaster_pid, const char *data_dir, double fast_timeout,
                          char *err, size_t errlen);

/* cluster_files.c */
int make_directory_path(const char *path, mode_t mode, char *err, size_t errlen);
/* Copies a tree keeping modes (and owners when root); regular files by copy_file_range,
 * several at a time. */
int copy_tree(const char *from, const char *to, char *err, size_t errlen);
int remove_tree(const char *path, char *err, size_t errlen);
int fsync_tree(const char *path, char *err, size_t errlen);
/* The last lines of a file (at most outlen - 1 bytes), or "" when unreadable. */
void read_file_tail(const char *path, char *out, size_t outlen);
/* Appends text to a file; 0 or -1 with a message. */
int append_to_file(const char *path, const char *text, char *err, size_t errlen);
int write_whole_file(const char *path, const char *text, char *err, size_t errlen);

/* cluster_leftovers.c */
/* Creates cache_dir/instances/OWNER-STARTTIME-XXXXXX owned by user and locks it for this
 * process (*lock_fd stays open while the instance lives). Leaves at least
 * INSTANCE_SUBPATH_ROOM bytes of dir_out free for names inside it. */
#define INSTANCE_SUBPATH_ROOM 64
int instance_dir_create(const char *cache_dir, const server_user *user, char *dir_out,
                        size_t outlen, int *lock_fd, char *err, size_t errlen);
/* Releases an instance directory: removes it (and an external socket directory). */
int instance_dir_remove(const char *instance_dir, const char *socket_dir, char *err,
                        size_t errlen);
/* The SysV shared memory segment a killed postmaster leaves behind, if unattached. */
void remove_orphaned_shared_memory(const char *data_dir);

#endif

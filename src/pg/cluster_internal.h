/* Internal helpers shared by the cluster_*.c files: the server's OS user, running
 * PostgreSQL programs as that user, watching processes, the cache, file-tree chores. */
#ifndef VERDICT_PG_CLUSTER_INTERNAL_H
#define VERDICT_PG_CLUSTER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "common/error.h"
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
    const char *input_path; /* becomes stdin, opened before the user changes (so the
                               server user need not be able to read it); NULL: /dev/null */
    bool new_session;     /* setsid: Ctrl-C at verdict's terminal does not reach it */
    bool die_with_parent; /* SIGQUIT (immediate shutdown) when verdict's thread dies */
    const cpu_set_t *cpus; /* the child and all it starts may run only here; NULL: any */
} spawn_request;

/* cluster_process.c */
/* snprintf for paths: 0, or -1 when the result did not fit (out is then truncated). */
int path_format(char *out, size_t outlen, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
int server_user_resolve(const char *run_as, server_user *user, verdict_error *err);
/* 0 when the user can pass through dir (search it; checked in a child that became the
 * user): the server reaches its data and socket directories below it. */
int server_user_check_access(const server_user *user, const char *dir, verdict_error *err);
int spawn_program(const spawn_request *request, pid_t *pid_out, verdict_error *err);
/* 1 when pid ended within timeout (reaped if it is our child; *status -1 when not ours),
 * 0 on timeout. */
int wait_for_exit(pid_t pid, double timeout_seconds, int *status);
/* Runs argv as user, output appended to log_path, and waits; 0 on exit status 0,
 * otherwise -1 with a message ending in the log's tail. */
int run_program(const server_user *user, char *const *argv, const char *input_path,
                const char *log_path,
                double timeout_seconds, verdict_error *err);
/* Runs argv as user and captures its first bytes of output into out. */
int capture_program_output(const server_user *user, char *const *argv, char *out, size_t outlen,
                           verdict_error *err);
/* Processes whose working directory is dir (PostgreSQL's processes all chdir to their data
 * directory), at most max of them; returns how many were found. */
size_t processes_in_dir(const char *dir, pid_t *pids, size_t max);
/* The process's start time in clock ticks since boot, or 0 when it does not exist. */
unsigned long long process_start_time(pid_t pid);
/* Signals the postmaster, escalating fast -> immediate -> SIGKILL of every process in
 * data_dir; after a SIGKILL removes the interlock segment created by creator as owner (see
 * remove_orphaned_shared_memory). Returns 0 once none remains. */
int stop_server_processes(pid_t postmaster_pid, const char *data_dir, double fast_timeout,
                          pid_t creator, uid_t owner, verdict_error *err);

/* cluster_files.c */
/* Copies a tree keeping modes (and owners when root); regular files by copy_file_range,
 * several at a time. */
int copy_tree(const char *from, const char *to, verdict_error *err);
/* The same from an open directory (a template checked through this descriptor). */
int copy_tree_from(int from_fd, const char *from, const char *to, verdict_error *err);
int remove_tree(const char *path, verdict_error *err);
int fsync_tree(const char *path, verdict_error *err);
/* The last lines of a file (at most outlen - 1 bytes), or "" when unreadable. */
void read_file_tail(const char *path, char *out, size_t outlen);
/* Appends text to a file; 0 or -1 with a message. */
int append_to_file(const char *path, const char *text, verdict_error *err);

/* cluster_cache.c */
/* The cache directory, opened by cache_open and held: every path below it is opened from
 * root_fd (openat, O_NOFOLLOW), never looked up by its name again. */
typedef struct {
    int root_fd;
    char path[CLUSTER_PATH_MAX]; /* with symbolic links resolved: for messages and programs */
} cluster_cache;

/* Modes of the directories cache_open creates when they are missing. */
typedef struct {
    mode_t parent_mode, final_mode;
} cache_create;

/* Walks path from /, opening each component without following links and following only a
 * link owned by root or verdict's user; every directory on the way must be owned by root
 * or that user and not writable by others unless sticky; the cache itself must be owned by
 * that user and writable by no one else. Missing directories are made when create is not
 * NULL. 0, or -1 with a message naming the component and its owner or mode. */
int cache_open(const char *path, const cache_create *create, cluster_cache *out,
               verdict_error *err);
void cache_close(cluster_cache *cache);
/* 0 when st is a directory verdict's user owns and no one else may write. */
int cache_check_own_directory(const struct stat *st, const char *shown, verdict_error *err);
/* Opens the subdirectory name of dir_fd (made with mode when create), never a link; it
 * must pass cache_check_own_directory. 0; 1 when it is missing and not created; -1. */
int cache_subdir(int dir_fd, const char *dir_path, const char *name, mode_t mode, bool create,
                 int *fd_out, verdict_error *err);
/* A lock file name in dir_fd, created when missing, never through a link: 0 with *fd_out
 * locked; 1 when another process holds it (or it is a link, or not a file of ours); -1 with
 * errno. wait blocks until the holder lets go. Release with lock_file_release, which
 * removes the file while it is still locked: no lock file outlives its use. */
int lock_file_acquire(int dir_fd, const char *name, bool wait, int *fd_out);
void lock_file_release(int dir_fd, const char *name, int fd);
/* mkdirat of prefix + 6 random letters with exactly mode; name_out receives the name.
 * 0, or -1 with errno. */
int cache_make_unique_dir(int dir_fd, const char *prefix, mode_t mode, char *name_out,
                          size_t namelen);

/* cluster_leftovers.c */
/* What verdict writes into instance.txt, and a reaper reads back. */
typedef struct {
    pid_t owner_pid;
    unsigned long long owner_start;
    pid_t postmaster_pid;          /* 0 before the server starts */
    uid_t server_uid;
    int port;
    char socket_dir[CLUSTER_PATH_MAX];
} instance_record;

/* 0711 when the server user is another user (it must pass to its data/ and socket/), 0700
 * otherwise. */
mode_t instance_dir_mode(const server_user *user);
/* Creates CACHE/instances/OWNER-STARTTIME-XXXXXX (verdict's user's, instance_dir_mode),
 * with owner.lock locked by this process (*lock_fd, open while the instance lives) and
 * instance.txt naming its owner; *dir_fd is the new directory. Leaves at least
 * INSTANCE_SUBPATH_ROOM bytes of dir_out free for names inside it. */
#define INSTANCE_SUBPATH_ROOM 64
int instance_dir_create(const cluster_cache *cache, int instances_fd, const server_user *user,
                        char *dir_out, size_t outlen, int *dir_fd, int *lock_fd,
                            verdict_error *err);
/* Replaces instance.txt in dir_fd with r, atomically. */
int instance_record_write(int dir_fd, const instance_record *r, verdict_error *err);
/* Releases an instance directory: removes it (and an external socket directory). */
int instance_dir_remove(const char *instance_dir, const char *socket_dir, verdict_error *err);
/* The SysV segment a killed postmaster leaves behind: removed only if unattached and
 * created by creator (the postmaster verdict started) as owner (the server user). */
void remove_orphaned_shared_memory(const char *data_dir, pid_t creator, uid_t owner);
/* cluster_reap_leftovers on an open cache; also removes port lock files nobody holds. */
int reap_in_cache(const cluster_cache *cache, int *reaped, verdict_error *err);

#endif

/* Process execution for benchmarks: posix_spawn into a fresh process group, a poll loop
 * over the output pipes and a pidfd, and wait4 for the child's resource usage. */
#include "core/runner.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define POLL_SLICE_MS 50            /* how often a stop request is noticed at worst */
#define STDOUT_LIMIT (64u << 20)    /* captured output beyond this is dropped */
#define TERM_GRACE_MS 200           /* SIGTERM before SIGKILL on interruption */

typedef struct {
    int stdout_fd, stderr_fd;       /* read ends, -1 when closed */
    int pidfd;
    pid_t pid;
} child_handles;

double runner_monotonic_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static bool is_executable_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

int runner_find_executable(const char *cwd, const char *name, char *path, size_t pathlen,
                           char *err, size_t errlen)
{
    if (strchr(name, '/')) {
        int n = name[0] != '/' && cwd ? snprintf(path, pathlen, "%s/%s", cwd, name)
                                      : snprintf(path, pathlen, "%s", name);
        if (n >= 0 && (size_t)n < pathlen && is_executable_file(path))
            return 0;
        snprintf(err, errlen, "'%s': %s%s%s", name,
                 n >= 0 && (size_t)n < pathlen && access(path, F_OK) == 0
                     ? "not an executable file" : "no such file",
                 cwd && name[0] != '/' ? " in " : "", cwd && name[0] != '/' ? cwd : "");
        return -1;
    }
    const char *search = getenv("PATH");
    if (search == NULL)
        search = "/usr/local/bin:/usr/bin:/bin";
    for (const char *dir = search; *dir;) {
        const char *end = strchr(dir, ':');
        size_t length = end ? (size_t)(end - dir) : strlen(dir);
        int n = snprintf(path, pathlen, "%.*s/%s", (int)length, length ? dir : ".", name);
        if (n >= 0 && (size_t)n < pathlen && is_executable_file(path))
            return 0;
        dir += length + (end != NULL);
    }
    snprintf(err, errlen, "'%s': command not found (not in PATH)", name);
    return -1;
}

int runner_check_executable(const char *cwd, const char *name, char *err, size_t errlen)
{
    char path[4096];
    return runner_find_executable(cwd, name, path, sizeof path, err, errlen);
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* File actions: stdin from /dev/null, stdout to a pipe or /dev/null, stderr to a pipe. */
static int prepare_actions(posix_spawn_file_actions_t *actions, const run_request *request,
                           int stdout_pipe[2], int stderr_pipe[2])
{
    int rc = posix_spawn_file_actions_init(actions);
    rc |= posix_spawn_file_actions_addopen(actions, 0, "/dev/null", O_RDONLY, 0);
    if (request->capture_stdout)
        rc |= posix_spawn_file_actions_adddup2(actions, stdout_pipe[1], 1);
    else
        rc |= posix_spawn_file_actions_addopen(actions, 1, "/dev/null", O_WRONLY, 0);
    rc |= posix_spawn_file_actions_adddup2(actions, stderr_pipe[1], 2);
    if (request->cwd)
        rc |= posix_spawn_file_actions_addchdir_np(actions, request->cwd);
    return rc;
}

/* Own process group (so the whole tree can be killed), default signal dispositions and
 * an empty mask whatever verdict itself blocks or catches. */
static int prepare_attributes(posix_spawnattr_t *attr)
{
    sigset_t defaults, empty;
    sigemptyset(&empty);
    sigemptyset(&defaults);
    int signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGCHLD, SIGALRM, SIGUSR1, SIGUSR2};
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++)
        sigaddset(&defaults, signals[i]);
    int rc = posix_spawnattr_init(attr);
    rc |= posix_spawnattr_setflags(attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                             POSIX_SPAWN_SETSIGDEF);
    rc |= posix_spawnattr_setpgroup(attr, 0);
    rc |= posix_spawnattr_setsigmask(attr, &empty);
    rc |= posix_spawnattr_setsigdefault(attr, &defaults);
    return rc;
}

/* The child inherits the spawning thread's CPU affinity: borrow it for the spawn. */
static int spawn_pinned(pid_t *pid, const run_request *request,
                        const posix_spawn_file_actions_t *actions, const posix_spawnattr_t *attr)
{
    cpu_set_t saved;
    bool pinned = request->pin != NULL;
    if (pinned && (sched_getaffinity(0, sizeof saved, &saved) != 0 ||
                   sched_setaffinity(0, sizeof *request->pin, request->pin) != 0))
        return errno;
    int rc = posix_spawnp(pid, request->argv[0], actions, attr, request->argv, request->envp);
    if (pinned)
        sched_setaffinity(0, sizeof saved, &saved);
    return rc;
}

static int start_child(const run_request *request, child_handles *h, char *err, size_t errlen)
{
    int stdout_pipe[2] = {-1, -1}, stderr_pipe[2] = {-1, -1};
    if ((request->capture_stdout && pipe2(stdout_pipe, O_CLOEXEC) != 0) ||
        pipe2(stderr_pipe, O_CLOEXEC) != 0) {
        snprintf(err, errlen, "cannot create a pipe: %s", strerror(errno));
        close_fd(&stdout_pipe[0]);
        close_fd(&stdout_pipe[1]);
        return -1;
    }
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    int rc = prepare_actions(&actions, request, stdout_pipe, stderr_pipe);
    rc = rc ? rc : prepare_attributes(&attr);
    if (rc == 0)
        rc = spawn_pinned(&h->pid, request, &actions, &attr);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    close_fd(&stdout_pipe[1]);
    close_fd(&stderr_pipe[1]);
    h->stdout_fd = stdout_pipe[0];
    h->stderr_fd = stderr_pipe[0];
    if (rc != 0) {
        snprintf(err, errlen, "cannot run '%s': %s", request->argv[0], strerror(rc));
        close_fd(&h->stdout_fd);
        close_fd(&h->stderr_fd);
        return -1;
    }
    h->pidfd = (int)syscall(SYS_pidfd_open, h->pid, 0);
    return 0;
}

typedef struct {
    char *data;
    size_t length, capacity;
} byte_buffer;

static void keep_stdout(byte_buffer *b, const char *chunk, size_t n)
{
    if (b->length + n + 1 > b->capacity) {
        if (b->length + n + 1 > STDOUT_LIMIT)
            return;
        size_t grown = b->capacity ? b->capacity : 4096;
        while (grown < b->length + n + 1)
            grown *= 2;
        char *data = realloc(b->data, grown);
        if (data == NULL)
            return;
        b->data = data;
        b->capacity = grown;
    }
    memcpy(b->data + b->length, chunk, n);
    b->length += n;
    b->data[b->length] = '\0';
}

static void keep_stderr_tail(char *tail, const char *chunk, size_t n)
{
    size_t have = strlen(tail), room = RUNNER_STDERR_TAIL - 1;
    if (n >= room) {
        memcpy(tail, chunk + n - room, room);
        tail[room] = '\0';
        return;
    }
    if (have + n > room) {
        memmove(tail, tail + (have + n - room), room - n);
        have = room - n;
    }
    memcpy(tail + have, chunk, n);
    tail[have + n] = '\0';
}

/* Reads what is available from one pipe; closes it at end of file. */
static void drain_pipe(int *fd, byte_buffer *out, char *tail)
{
    char chunk[16384];
    ssize_t n = read(*fd, chunk, sizeof chunk);
    if (n > 0) {
        if (out)
            keep_stdout(out, chunk, (size_t)n);
        else
            keep_stderr_tail(tail, chunk, (size_t)n);
    } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
        close_fd(fd);
    }
}

static void kill_group(pid_t pid, int sig)
{
    if (kill(-pid, sig) != 0 && errno == ESRCH)
        kill(pid, sig);
}

static bool child_exited(const child_handles *h)
{
    if (h->pidfd >= 0)
        return false; /* the poll loop learns it from the pidfd */
    siginfo_t info;
    memset(&info, 0, sizeof info);
    return waitid(P_PID, (id_t)h->pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid != 0;
}

/* Waits for the child while reading its output; returns when it exits or must be stopped. */
static void supervise(child_handles *h, const run_request *request, volatile sig_atomic_t *stop,
                      double start, byte_buffer *captured, run_result *out)
{
    for (;;) {
        struct pollfd fds[3] = {{h->stdout_fd, POLLIN, 0}, {h->stderr_fd, POLLIN, 0},
                                {h->pidfd, POLLIN, 0}};
        int wait_ms = POLL_SLICE_MS;
        if (request->timeout > 0) {
            double left = start + request->timeout - runner_monotonic_seconds();
            if (left <= 0) {
                out->timed_out = true;
                kill_group(h->pid, SIGKILL);
                return;
            }
            if (left * 1000 < wait_ms)
                wait_ms = (int)(left * 1000) + 1;
        }
        if (stop && *stop) {
            out->interrupted = true;
            kill_group(h->pid, SIGTERM);
            usleep(TERM_GRACE_MS * 1000);
            kill_group(h->pid, SIGKILL);
            return;
        }
        int ready = poll(fds, 3, wait_ms);
        if (ready < 0 && errno != EINTR)
            return;
        if (fds[0].revents)
            drain_pipe(&h->stdout_fd, captured, NULL);
        if (fds[1].revents)
            drain_pipe(&h->stderr_fd, NULL, out->stderr_tail);
        if (fds[2].revents || child_exited(h))
            return;
    }
}

static void record_usage(int status, const struct rusage *ru, run_result *out)
{
    out->user = (double)ru->ru_utime.tv_sec + (double)ru->ru_utime.tv_usec * 1e-6;
    out->sys = (double)ru->ru_stime.tv_sec + (double)ru->ru_stime.tv_usec * 1e-6;
    out->maxrss_kib = (double)ru->ru_maxrss;
    out->voluntary_switches = ru->ru_nvcsw;
    out->involuntary_switches = ru->ru_nivcsw;
    if (WIFEXITED(status)) {
        out->exit_code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
        out->term_signal = WTERMSIG(status);
        out->exit_code = 128 + out->term_signal;
    }
}

/* After the child is gone: read what its pipes still hold without waiting for
 * descendants that may keep them open, then kill whatever is left of its group. */
static void finish_child(child_handles *h, byte_buffer *captured, run_result *out)
{
    for (int *fd = &h->stdout_fd; fd <= &h->stderr_fd; fd++) {
        if (*fd < 0)
            continue;
        fcntl(*fd, F_SETFL, fcntl(*fd, F_GETFL) | O_NONBLOCK);
        for (int rounds = 0; *fd >= 0 && rounds < 1024; rounds++)
            drain_pipe(fd, fd == &h->stdout_fd ? captured : NULL, out->stderr_tail);
        close_fd(fd);
    }
    kill_group(h->pid, SIGKILL);
    if (h->pidfd >= 0)
        close(h->pidfd);
}

int runner_execute(const run_request *request, volatile sig_atomic_t *stop, run_result *out,
                   char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    child_handles h = {-1, -1, -1, 0};
    byte_buffer captured = {NULL, 0, 0};
    double start = runner_monotonic_seconds();
    if (start_child(request, &h, err, errlen) != 0)
        return -1;
    supervise(&h, request, stop, start, request->capture_stdout ? &captured : NULL, out);
    int status = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    pid_t waited;
    while ((waited = wait4(h.pid, &status, 0, &ru)) < 0 && errno == EINTR)
        ;
    out->wall = runner_monotonic_seconds() - start;
    record_usage(status, &ru, out);
    finish_child(&h, request->capture_stdout ? &captured : NULL, out);
    out->stdout_text = captured.data;
    out->stdout_length = captured.length;
    if (waited < 0) {
        snprintf(err, errlen, "waiting for '%s' failed: %s", request->argv[0], strerror(errno));
        run_result_free(out);
        return -1;
    }
    return 0;
}

void run_result_free(run_result *result)
{
    free(result->stdout_text);
    result->stdout_text = NULL;
    result->stdout_length = 0;
}

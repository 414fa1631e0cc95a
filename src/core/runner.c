/* Process execution for benchmarks: a vfork-style clone into a fresh process group that
 * dies with verdict, a poll loop over its output pipes and pidfd, wait4 for its usage. */
#include "core/runner.h"

#include "common/array.h"
#include "common/error.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define POLL_SLICE_MS 50            /* how often a stop request is noticed at worst */
#define TERM_GRACE_MS 200           /* SIGTERM before SIGKILL on interruption */
#define CHILD_STACK (64u << 10)     /* the child's own stack until exec, plus argv's room */

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
                           verdict_error *err)
{
    if (strchr(name, '/')) {
        int n = name[0] != '/' && cwd ? snprintf(path, pathlen, "%s/%s", cwd, name)
                                      : snprintf(path, pathlen, "%s", name);
        if (n >= 0 && (size_t)n < pathlen && is_executable_file(path))
            return 0;
        error_set(err, ERROR_USAGE, "'%s': %s%s%s", name,
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
    error_set(err, ERROR_USAGE, "'%s': command not found (not in PATH)", name);
    return -1;
}

int runner_check_executable(const char *cwd, const char *name, verdict_error *err)
{
    char path[4096];
    return runner_find_executable(cwd, name, path, sizeof path, err);
}

int runner_check_directory(const char *dir, verdict_error *err)
{
    struct stat st;
    const char *why = stat(dir, &st) != 0 ? strerror(errno)
                      : !S_ISDIR(st.st_mode) ? "not a directory"
                      : access(dir, X_OK) != 0 ? strerror(errno) : NULL;
    if (why == NULL)
        return 0;
    error_set(err, ERROR_USAGE, "cwd %s: %s", dir, why);
    return -1;
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* What the child needs between clone and exec. It shares verdict's memory (CLONE_VM) while
 * verdict waits (CLONE_VFORK), so it reports a failure by writing step and error here. */
typedef struct {
    const run_request *request;
    int stdin_read;                 /* -1: stdin from /dev/null */
    int stdout_write, stderr_write; /* stdout_write -1: stdout goes to /dev/null */
    pid_t parent;
    const char *failed_step;        /* NULL: exec succeeded */
    int error;
} child_setup;

static const int default_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE,
                                      SIGCHLD, SIGALRM, SIGUSR1, SIGUSR2};

/* The child's side, from clone to exec: own process group (so the whole tree can be
 * killed), stdin from /dev/null or the input file, the output pipes or files, default signal dispositions and an
 * empty mask, the CPUs, the directory, and the parent-death signal, so that a SIGKILLed
 * verdict does not leave its command running under pid 1. Only calls that are safe after
 * fork (async-signal-safe) and no sanitizer instrumentation: this runs on a borrowed stack
 * while verdict is suspended. */
__attribute__((no_sanitize("address", "undefined")))
static int child_main(void *arg)
{
    child_setup *s = arg;
    const run_request *r = s->request;
    struct sigaction default_action;
    memset(&default_action, 0, sizeof default_action);
    default_action.sa_handler = SIG_DFL;
    for (size_t i = 0; i < sizeof default_signals / sizeof default_signals[0]; i++)
        sigaction(default_signals[i], &default_action, NULL);
    int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
    s->failed_step = "creating its process group";
    if (setpgid(0, 0) != 0)
        goto failed;
    s->failed_step = "redirecting its input and output";
    if (null_fd < 0 || dup2(s->stdin_read >= 0 ? s->stdin_read : null_fd, 0) < 0 ||
        dup2(s->stdout_write >= 0 ? s->stdout_write : null_fd, 1) < 0 ||
        dup2(s->stderr_write, 2) < 0)
        goto failed;
    s->failed_step = "pinning it to its CPUs";
    if (r->pin != NULL && sched_setaffinity(0, sizeof *r->pin, r->pin) != 0)
        goto failed;
    s->failed_step = "changing to its directory";
    if (r->cwd != NULL && chdir(r->cwd) != 0)
        goto failed;
    /* SIGKILL when the thread that started it (verdict's main thread) ends. If verdict
     * died before this line, the signal will never come: then give up now. */
    s->failed_step = "tying it to verdict's life";
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0)
        goto failed;
    if (getppid() != s->parent) {
        errno = ESRCH;
        goto failed;
    }
    sigset_t empty;
    sigemptyset(&empty);
    sigprocmask(SIG_SETMASK, &empty, NULL);
    s->failed_step = "exec";
    execvpe(r->argv[0], r->argv, r->envp);
failed:
    s->error = errno;
    _exit(127);
}

/* Room for the child's stack: execvpe needs a copy of argv for scripts without #! and a
 * path buffer the size of PATH. */
static size_t child_stack_size(const run_request *request)
{
    size_t argc = 0;
    while (request->argv[argc] != NULL)
        argc++;
    const char *path = getenv("PATH");
    size_t size = CHILD_STACK + (argc + 2) * sizeof(char *) + (path ? strlen(path) : 0);
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    return (size + page - 1) / page * page;
}

/* clone(CLONE_VM | CLONE_VFORK), as glibc's posix_spawn does, but with the child's own
 * code between clone and exec (posix_spawn cannot set the parent-death signal). Every
 * signal is blocked around the clone, so no handler of verdict's runs in the child. */
static int spawn_child(child_setup *setup, pid_t *pid)
{
    /* The usual stack is borrowed from verdict's own, which is suspended until the exec:
     * a mapping per run cost a mmap, its page faults and a munmap (a TLB flush) each time. */
    _Alignas(64) unsigned char borrowed[CHILD_STACK + 8192];
    size_t needed = child_stack_size(setup->request);
    size_t size = needed <= sizeof borrowed ? sizeof borrowed : needed;
    void *stack = size == sizeof borrowed
                      ? borrowed
                      : mmap(NULL, size, PROT_READ | PROT_WRITE,
                             MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (stack == MAP_FAILED)
        return errno;
    sigset_t all, saved;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &saved);
    setup->parent = getpid();
    *pid = clone(child_main, (char *)stack + size, CLONE_VM | CLONE_VFORK | SIGCHLD, setup);
    int error = *pid < 0 ? errno : 0;
    pthread_sigmask(SIG_SETMASK, &saved, NULL);
    if (stack != borrowed)
        munmap(stack, size);
    return error;
}

/* Why the child did not start, for "cannot run 'CMD': ..." */
static void describe_failure(const run_request *request, const child_setup *setup, int error,
                             verdict_error *err)
{
    if (setup->failed_step == NULL || strcmp(setup->failed_step, "exec") == 0)
        error_set(err, ERROR_COMMAND_FAILED, "cannot run '%s': %s", request->argv[0],
                  strerror(error));
    else if (strcmp(setup->failed_step, "changing to its directory") == 0)
        error_set(err, ERROR_COMMAND_FAILED, "cannot run '%s': its directory %s: %s",
                  request->argv[0], request->cwd, strerror(error));
    else
        error_set(err, ERROR_COMMAND_FAILED, "cannot run '%s': %s failed: %s", request->argv[0],
                  setup->failed_step, strerror(error));
}

/* The files of a run, opened before its clock starts: its input, its output file, and
 * where captured output is copied on to (the terminal, that file, or nowhere: -1). */
typedef struct {
    int input_fd, output_fd;
    int copy_fd;                    /* borrowed: output_fd, 1 or -1 */
    bool pipe_stdout;               /* stdout goes through a pipe verdict reads */
    bool inherit;                   /* the run writes to verdict's own stdout and stderr */
} run_files;

static void close_run_files(run_files *f)
{
    close_fd(&f->input_fd);
    close_fd(&f->output_fd);
}

static int open_run_files(const run_request *r, run_files *f, verdict_error *err)
{
    *f = (run_files){.input_fd = -1, .output_fd = -1, .copy_fd = -1,
                     .pipe_stdout = r->capture_stdout || r->output == RUN_OUTPUT_PIPE,
                     .inherit = r->output == RUN_OUTPUT_INHERIT};
    if (r->input && (f->input_fd = open(r->input, O_RDONLY | O_CLOEXEC)) < 0) {
        error_set(err, ERROR_COMMAND_FAILED, "cannot run '%s': its input %s: %s", r->argv[0],
                  r->input, strerror(errno));
        return -1;
    }
    if (r->output == RUN_OUTPUT_FILE &&
        (f->output_fd = open(r->output_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666)) < 0) {
        error_set(err, ERROR_COMMAND_FAILED, "cannot run '%s': its output %s: %s", r->argv[0],
                  r->output_path, strerror(errno));
        close_run_files(f);
        return -1;
    }
    if (f->pipe_stdout)
        f->copy_fd = f->inherit ? STDOUT_FILENO : f->output_fd;
    return 0;
}

/* Where the child's stdout goes when it is not piped: the file, verdict's own, or -1 for
 * /dev/null. */
static int direct_stdout(const run_files *f)
{
    return f->output_fd >= 0 ? f->output_fd : f->inherit ? STDOUT_FILENO : -1;
}

static int start_child(const run_request *request, const run_files *files, child_handles *h,
                       verdict_error *err)
{
    int stdout_pipe[2] = {-1, -1}, stderr_pipe[2] = {-1, -1};
    if ((files->pipe_stdout && pipe2(stdout_pipe, O_CLOEXEC) != 0) ||
        (!files->inherit && pipe2(stderr_pipe, O_CLOEXEC) != 0)) {
        error_set(err, ERROR_INTERNAL, "cannot create a pipe: %s", strerror(errno));
        close_fd(&stdout_pipe[0]);
        close_fd(&stdout_pipe[1]);
        return -1;
    }
    child_setup setup = {.request = request, .stdin_read = files->input_fd,
                         .stdout_write = files->pipe_stdout ? stdout_pipe[1] : direct_stdout(files),
                         .stderr_write = files->inherit ? STDERR_FILENO : stderr_pipe[1]};
    int rc = spawn_child(&setup, &h->pid);
    if (rc == 0 && setup.error != 0) {
        /* It exited (127) before exec: reap it, it is no command's run. */
        while (waitpid(h->pid, NULL, 0) < 0 && errno == EINTR)
            ;
        rc = setup.error;
    }
    close_fd(&stdout_pipe[1]);
    close_fd(&stderr_pipe[1]);
    h->stdout_fd = stdout_pipe[0];
    h->stderr_fd = stderr_pipe[0];
    if (rc != 0) {
        describe_failure(request, &setup, rc, err);
        close_fd(&h->stdout_fd);
        close_fd(&h->stderr_fd);
        return -1;
    }
    h->pidfd = (int)syscall(SYS_pidfd_open, h->pid, 0);
    return 0;
}

/* Captured stdout: a contiguous head of at most RUNNER_STDOUT_LIMIT - 1 bytes. Once it
 * is full (or memory runs out), everything after is read and counted, never kept: a later
 * small chunk appended after a dropped large one joined "x=1" and "23" into "x=123". */
typedef struct {
    char *data;
    size_t length, capacity;
    bool full;                      /* from the start: output piped only to be discarded */
    size_t dropped;
    int copy_fd;                    /* every chunk is also written here; -1: nowhere */
} byte_buffer;

/* The copy is best effort: a terminal or file that stops taking output must not stop the
 * run, whose own output was read in full. */
static void copy_out(int fd, const char *chunk, size_t n)
{
    while (fd >= 0 && n > 0) {
        ssize_t put = write(fd, chunk, n);
        if (put < 0 && errno == EINTR)
            continue;
        if (put <= 0)
            return;
        chunk += put;
        n -= (size_t)put;
    }
}

/* The head ends at its last newline, so that no cut line (a number cut in two) is left
 * for a metric to read; a single line longer than the limit is kept as it is. */
static void close_capture(byte_buffer *b, size_t dropped)
{
    b->full = true;
    b->dropped += dropped;
    char *last_newline = b->length > 0 ? memrchr(b->data, '\n', b->length) : NULL;
    if (last_newline != NULL) {
        size_t keep = (size_t)(last_newline - b->data) + 1;
        b->dropped += b->length - keep;
        b->length = keep;
        b->data[keep] = '\0';
    }
}

static void keep_stdout(byte_buffer *b, const char *chunk, size_t n)
{
    copy_out(b->copy_fd, chunk, n);
    if (b->full) {
        b->dropped += n;
        return;
    }
    size_t room = RUNNER_STDOUT_LIMIT - 1 - b->length;
    size_t take = n < room ? n : room;
    /* Capacities are powers of two, so the buffer never outgrows the limit (one too). */
    if (array_reserve((void **)&b->data, &b->capacity, b->length + take + 1, 1) != 0) {
        close_capture(b, n); /* out of memory: cut here, and say so */
        return;
    }
    memcpy(b->data + b->length, chunk, take);
    b->length += take;
    b->data[b->length] = '\0';
    if (take < n)
        close_capture(b, n - take);
}

/* The last bytes of stderr for messages; a NUL byte would end the text early, so it is
 * shown as '?'. */
static void keep_stderr_tail(char *tail, const char *chunk, size_t n)
{
    size_t have = strlen(tail), room = RUNNER_STDERR_TAIL - 1;
    if (n >= room) {
        memcpy(tail, chunk + n - room, room);
        have = 0;
        n = room;
    } else {
        if (have + n > room) {
            memmove(tail, tail + (have + n - room), room - n);
            have = room - n;
        }
        memcpy(tail + have, chunk, n);
    }
    for (size_t i = have; i < have + n; i++)
        if (tail[i] == '\0')
            tail[i] = '?';
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
    /* The group only: its leader was reaped, so its pid may already be another process's
     * (kill_group's fallback to the pid is for a leader still alive). */
    kill(-h->pid, SIGKILL);
    if (h->pidfd >= 0)
        close(h->pidfd);
}

/* From a started child to its result: output read while it runs, then its usage. */
static int wait_child(const run_request *request, const run_files *files, child_handles *h,
                      volatile sig_atomic_t *stop, double start, run_result *out,
                          verdict_error *err)
{
    byte_buffer captured = {NULL, 0, 0, !request->capture_stdout, 0, files->copy_fd};
    byte_buffer *piped = files->pipe_stdout ? &captured : NULL;
    supervise(h, request, stop, start, piped, out);
    int status = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    pid_t waited;
    while ((waited = wait4(h->pid, &status, 0, &ru)) < 0 && errno == EINTR)
        ;
    out->wall = runner_monotonic_seconds() - start;
    record_usage(status, &ru, out);
    finish_child(h, piped, out);
    if (request->capture_stdout) {
        out->stdout_text = captured.data;
        out->stdout_length = captured.length;
        out->stdout_cut = captured.full;
        out->stdout_dropped = captured.dropped;
    }
    if (waited < 0) {
        error_set(err, ERROR_INTERNAL, "waiting for '%s' failed: %s", request->argv[0],
                  strerror(errno));
        run_result_free(out);
        return -1;
    }
    return 0;
}

int runner_execute(const run_request *request, volatile sig_atomic_t *stop, run_result *out,
                   verdict_error *err)
{
    memset(out, 0, sizeof *out);
    child_handles h = {-1, -1, -1, 0};
    run_files files;
    if (open_run_files(request, &files, err) != 0)
        return -1;
    double start = runner_monotonic_seconds();
    int rc = start_child(request, &files, &h, err) == 0
                 ? wait_child(request, &files, &h, stop, start, out, err)
                 : -1;
    close_run_files(&files);
    return rc;
}

void run_result_free(run_result *result)
{
    free(result->stdout_text);
    result->stdout_text = NULL;
    result->stdout_length = 0;
}

int runner_make_temp_dir(const char *prefix, const char *what, char *dir, size_t len,
                         verdict_error *err)
{
    const char *tmp = getenv("TMPDIR");
    char made[PATH_MAX];
    snprintf(made, sizeof made, "%s/%s.XXXXXX", tmp && *tmp ? tmp : "/tmp", prefix);
    if (mkdtemp(made) == NULL)
        return error_set(err, ERROR_INTERNAL, "cannot make a directory for %s (%s): %s", what,
                         made, strerror(errno));
    char absolute[PATH_MAX];
    bool resolved = realpath(made, absolute) != NULL;
    if (!resolved || strlen(absolute) >= len) {
        int errnum = resolved ? ENAMETOOLONG : errno;
        rmdir(made);
        return error_set(err, ERROR_INTERNAL, "cannot resolve the directory %s: %s", made,
                         strerror(errnum));
    }
    snprintf(dir, len, "%s", absolute);
    return 0;
}

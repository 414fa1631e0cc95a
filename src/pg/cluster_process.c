/* Running PostgreSQL programs for the cluster layer: as the server user when verdict is
 * root, in their own session, tied to verdict's life, and stopping them with escalation. */
#include "pg/cluster_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/error.h"

#define DEFAULT_SERVER_USER "postgres"
#define IMMEDIATE_TIMEOUT 10.0
#define KILL_TIMEOUT 5.0
#define MAX_INSTANCE_PROCESSES 1024

int path_format(char *out, size_t outlen, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    int n = vsnprintf(out, outlen, format, args);
    va_end(args);
    return n >= 0 && (size_t)n < outlen ? 0 : -1;
}

static double monotonic_seconds(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

static void sleep_seconds(double seconds)
{
    struct timespec pause = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    while (nanosleep(&pause, &pause) != 0 && errno == EINTR) {
    }
}

int server_user_resolve(const char *run_as, server_user *user, verdict_error *err)
{
    memset(user, 0, sizeof *user);
    char buffer[16384];
    struct passwd entry, *found = NULL;
    if (geteuid() != 0) {
        /* Not root: PostgreSQL runs as we do; naming someone else cannot work. */
        int rc = getpwuid_r(geteuid(), &entry, buffer, sizeof buffer, &found);
        if (rc != 0 || found == NULL) {
            error_set(err, ERROR_COMMAND_FAILED, "cannot find the name of user id %u",
                      (unsigned)geteuid());
            return -1;
        }
        if (run_as != NULL && strcmp(run_as, found->pw_name) != 0) {
            error_set(err, ERROR_COMMAND_FAILED, "running servers as '%s' needs root; verdict "
                      "runs as '%s'", run_as, found->pw_name);
            return -1;
        }
        user->uid = geteuid();
        user->gid = getegid();
        snprintf(user->name, sizeof user->name, "%s", found->pw_name);
        return 0;
    }
    const char *name = run_as != NULL ? run_as : DEFAULT_SERVER_USER;
    int rc = getpwnam_r(name, &entry, buffer, sizeof buffer, &found);
    if (rc != 0 || found == NULL) {
        error_set(err, ERROR_COMMAND_FAILED, "verdict runs as root and PostgreSQL refuses root, "
                  "but there is no user '%s' to run servers as (create it or name another)", name);
        return -1;
    }
    if (found->pw_uid == 0) {
        error_set(err, ERROR_COMMAND_FAILED, "user '%s' is root; PostgreSQL refuses to run as root",
                  name);
        return -1;
    }
    user->switch_user = true;
    user->uid = found->pw_uid;
    user->gid = found->pw_gid;
    snprintf(user->name, sizeof user->name, "%s", found->pw_name);
    /* Supplementary groups are looked up here, not in the child: after fork only
     * async-signal-safe calls are allowed, and getgrouplist reads /etc/group. */
    user->n_groups = CLUSTER_MAX_GROUPS;
    if (getgrouplist(found->pw_name, found->pw_gid, user->groups, &user->n_groups) < 0)
        user->n_groups = 0;
    if (user->n_groups == 0) {
        user->groups[0] = found->pw_gid;
        user->n_groups = 1;
    }
    return 0;
}

/* In a forked child: become the server user. Returns 0, or an errno. */
static int become_user(const server_user *user)
{
    if (!user->switch_user)
        return 0;
    if (setgroups((size_t)user->n_groups, user->groups) != 0)
        return errno;
    if (setgid(user->gid) != 0)
        return errno;
    if (setuid(user->uid) != 0)
        return errno;
    return 0;
}

int server_user_check_access(const server_user *user, const char *dir, verdict_error *err)
{
    if (!user->switch_user)
        return 0;
    pid_t child = fork();
    if (child < 0) {
        error_set(err, ERROR_COMMAND_FAILED, "fork: %s", strerror(errno));
        return -1;
    }
    if (child == 0) {
        if (become_user(user) != 0)
            _exit(2);
        _exit(access(dir, X_OK) == 0 ? 0 : 1);
    }
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    error_set(err, ERROR_COMMAND_FAILED, "the server user '%s' cannot reach %s: every directory "
               "above it must be searchable by it (a cache directory under /root is not; root's "
              "default, /var/cache/verdict-pg, is)", user->name, dir);
    return -1;
}

/* Everything at or above 3 closes at exec: the postmaster must not inherit verdict's
 * files (a store, a lock that proves verdict alive) and keep them open for its life. */
static void mark_descriptors_close_on_exec(void)
{
#ifdef SYS_close_range
    if (syscall(SYS_close_range, 3U, ~0U, 4U /* CLOSE_RANGE_CLOEXEC */) == 0)
        return;
#endif
    long max = sysconf(_SC_OPEN_MAX);
    if (max < 0 || max > 65536)
        max = 65536;
    for (int fd = 3; fd < max; fd++) {
        int flags = fcntl(fd, F_GETFD);
        if (flags >= 0)
            fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
    }
}

typedef struct {
    int stage; /* 1 session, 2 output, 3 user, 4 parent gone, 5 exec, 6 CPU affinity, 7 input */
    int error;
} child_failure;

static const char *const child_stage_names[] = {"", "setsid", "redirecting output",
                                                "switching user", "parent gone", "exec",
                                                "setting the CPU affinity", "opening its input"};

static void report_and_exit(int report_fd, int stage, int error)
{
    child_failure failure = {stage, error};
    ssize_t ignored = write(report_fd, &failure, sizeof failure);
    (void)ignored;
    _exit(127);
}

static void run_child(const spawn_request *request, char *const *envp, pid_t parent,
                      int report_fd)
{
    if (request->new_session && setsid() < 0)
        report_and_exit(report_fd, 1, errno);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    /* Ignored signals stay ignored across exec; the server expects defaults. */
    for (int sig = 1; sig < NSIG; sig++)
        if (sig != SIGKILL && sig != SIGSTOP)
            signal(sig, SIG_DFL);
    int null_fd = open("/dev/null", O_RDWR);
    if (null_fd < 0)
        report_and_exit(report_fd, 2, errno);
    int out = request->output_fd >= 0 ? request->output_fd : null_fd;
    int in = request->input_path ? open(request->input_path, O_RDONLY | O_CLOEXEC) : null_fd;
    if (in < 0)
        report_and_exit(report_fd, 7, errno);
    if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0)
        report_and_exit(report_fd, 2, errno);
    int rc = become_user(request->user);
    if (rc != 0)
        report_and_exit(report_fd, 3, rc);
    if (request->die_with_parent) {
        /* Set after setuid, which clears it. SIGQUIT is PostgreSQL's immediate shutdown. */
        prctl(PR_SET_PDEATHSIG, SIGQUIT);
        if (getppid() != parent)
            report_and_exit(report_fd, 4, ESRCH);
    }
    if (request->cpus != NULL && sched_setaffinity(0, sizeof *request->cpus, request->cpus) != 0)
        report_and_exit(report_fd, 6, errno);
    if (chdir("/") != 0)
        report_and_exit(report_fd, 5, errno);
    mark_descriptors_close_on_exec();
    execve(request->argv[0], request->argv, envp);
    report_and_exit(report_fd, 5, errno);
}

int spawn_program(const spawn_request *request, pid_t *pid_out, verdict_error *err)
{
    /* A small fixed environment: a user's PGOPTIONS, PGHOST or LANG must not change what
     * is measured. */
    char *const envp[] = {"PATH=/usr/local/bin:/usr/bin:/bin", "LC_ALL=C", NULL};
    int report[2];
    if (pipe2(report, O_CLOEXEC) != 0) {
        error_set(err, ERROR_COMMAND_FAILED, "pipe: %s", strerror(errno));
        return -1;
    }
    pid_t parent = getpid();
    pid_t child = fork();
    if (child < 0) {
        error_set(err, ERROR_COMMAND_FAILED, "fork: %s", strerror(errno));
        close(report[0]);
        close(report[1]);
        return -1;
    }
    if (child == 0) {
        close(report[0]);
        run_child(request, envp, parent, report[1]);
    }
    close(report[1]);
    child_failure failure;
    ssize_t got;
    do {
        got = read(report[0], &failure, sizeof failure);
    } while (got < 0 && errno == EINTR);
    close(report[0]);
    if (got == (ssize_t)sizeof failure) {
        int status;
        while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
        }
        int stage = failure.stage >= 1 && failure.stage <= 7 ? failure.stage : 5;
        error_set(err, ERROR_COMMAND_FAILED, "could not run %s (%s%s%s): %s", request->argv[0],
                  child_stage_names[stage], request->user->switch_user ? " as " : "",
                  request->user->switch_user ? request->user->name : "", strerror(failure.error));
        return -1;
    }
    *pid_out = child;
    return 0;
}

static int pidfd_open_or_fail(pid_t pid)
{
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0U);
#else
    (void)pid;
    errno = ENOSYS;
    return -1;
#endif
}

/* Reaps pid if it is our child and has ended: 1 ended (status set, -1 when not ours),
 * 0 still running. */
static int check_ended(pid_t pid, int *status)
{
    int child_status;
    pid_t got = waitpid(pid, &child_status, WNOHANG);
    if (got == pid) {
        *status = child_status;
        return 1;
    }
    if (got == 0)
        return 0;
    /* Not our child: alive while kill() finds it (a zombie of someone else counts as
     * ended: it holds nothing but its pid). */
    *status = -1;
    if (kill(pid, 0) != 0)
        return errno == ESRCH ? 1 : 0;
    char path[64], state_line[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return 1;
    size_t n = fread(state_line, 1, sizeof state_line - 1, f);
    fclose(f);
    state_line[n] = '\0';
    const char *close_paren = strrchr(state_line, ')');
    return close_paren != NULL && close_paren[1] == ' ' && close_paren[2] == 'Z';
}

int wait_for_exit(pid_t pid, double timeout_seconds, int *status)
{
    int ignored_status;
    if (status == NULL)
        status = &ignored_status;
    if (check_ended(pid, status))
        return 1;
    double deadline = monotonic_seconds() + timeout_seconds;
    int pidfd = pidfd_open_or_fail(pid);
    for (;;) {
        double left = deadline - monotonic_seconds();
        if (pidfd >= 0) {
            /* pidfd becomes readable when the process ends: no polling latency. */
            struct pollfd watch = {.fd = pidfd, .events = POLLIN};
            int ms = left > 0 ? (int)(left * 1000.0) + 1 : 0;
            int rc = poll(&watch, 1, ms > 100 ? 100 : ms);
            (void)rc;
        } else {
            sleep_seconds(0.002);
        }
        if (check_ended(pid, status)) {
            if (pidfd >= 0)
                close(pidfd);
            return 1;
        }
        if (monotonic_seconds() >= deadline) {
            if (pidfd >= 0)
                close(pidfd);
            return 0;
        }
    }
}

int run_program(const server_user *user, char *const *argv, const char *input_path,
                const char *log_path, double timeout_seconds, verdict_error *err)
{
    int log_fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (log_fd < 0) {
        error_set(err, ERROR_COMMAND_FAILED, "cannot open %s: %s", log_path, strerror(errno));
        return -1;
    }
    spawn_request request = {.user = user, .argv = argv, .output_fd = log_fd,
                             .input_path = input_path, .new_session = true,
                             .die_with_parent = true};
    pid_t pid;
    int rc = spawn_program(&request, &pid, err);
    close(log_fd);
    if (rc != 0)
        return -1;
    int status = 0;
    if (!wait_for_exit(pid, timeout_seconds, &status)) {
        kill(pid, SIGKILL);
        wait_for_exit(pid, KILL_TIMEOUT, &status);
        error_set(err, ERROR_COMMAND_FAILED, "%s did not finish within %.0f s (log: %s)", argv[0],
                  timeout_seconds, log_path);
        return -1;
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    char tail[1024];
    read_file_tail(log_path, tail, sizeof tail);
    if (WIFSIGNALED(status))
        error_set(err, ERROR_COMMAND_FAILED, "%s was killed by signal %d; %s ends with:\n%s",
                  argv[0], WTERMSIG(status), log_path, tail);
    else
        error_set(err, ERROR_COMMAND_FAILED, "%s failed (exit status %d); %s ends with:\n%s",
                  argv[0], WEXITSTATUS(status), log_path, tail);
    return -1;
}

int capture_program_output(const server_user *user, char *const *argv, char *out, size_t outlen,
                           verdict_error *err)
{
    int pipe_fds[2];
    if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
        error_set(err, ERROR_COMMAND_FAILED, "pipe: %s", strerror(errno));
        return -1;
    }
    spawn_request request = {.user = user, .argv = argv, .output_fd = pipe_fds[1],
                             .new_session = true, .die_with_parent = true};
    pid_t pid;
    int rc = spawn_program(&request, &pid, err);
    close(pipe_fds[1]);
    if (rc != 0) {
        close(pipe_fds[0]);
        return -1;
    }
    size_t used = 0;
    char discard[512];
    for (;;) {
        /* Read to the end even past outlen so the child never blocks on a full pipe. */
        char *into = used + 1 < outlen ? out + used : discard;
        size_t room = used + 1 < outlen ? outlen - 1 - used : sizeof discard;
        ssize_t got = read(pipe_fds[0], into, room);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        if (into != discard)
            used += (size_t)got;
    }
    close(pipe_fds[0]);
    if (outlen > 0)
        out[used < outlen ? used : outlen - 1] = '\0';
    int status = 0;
    wait_for_exit(pid, 30.0, &status);
    if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
        error_set(err, ERROR_COMMAND_FAILED, "%s %s failed: %s", argv[0], argv[1] ? argv[1] : "",
                  out);
        return -1;
    }
    return 0;
}

size_t processes_in_dir(const char *dir, pid_t *pids, size_t max)
{
    DIR *proc = opendir("/proc");
    if (proc == NULL)
        return 0;
    size_t found = 0, dir_length = strlen(dir);
    struct dirent *entry;
    while ((entry = readdir(proc)) != NULL && found < max) {
        char *end;
        long pid = strtol(entry->d_name, &end, 10);
        if (*end != '\0' || pid <= 0)
            continue;
        char link[64], target[CLUSTER_PATH_MAX];
        snprintf(link, sizeof link, "/proc/%ld/cwd", pid);
        ssize_t n = readlink(link, target, sizeof target - 1);
        if (n < 0)
            continue;
        target[n] = '\0';
        /* A removed directory reads as "PATH (deleted)". */
        if (strncmp(target, dir, dir_length) == 0 &&
            (target[dir_length] == '\0' || strcmp(target + dir_length, " (deleted)") == 0))
            pids[found++] = (pid_t)pid;
    }
    closedir(proc);
    return found;
}

unsigned long long process_start_time(pid_t pid)
{
    char path[64], line[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return 0;
    size_t n = fread(line, 1, sizeof line - 1, f);
    fclose(f);
    line[n] = '\0';
    /* The command name may hold spaces and parentheses: fields start after the last ')'.
     * starttime is field 22; after ')' come fields 3.. so skip 19 more. */
    char *cursor = strrchr(line, ')');
    if (cursor == NULL)
        return 0;
    cursor++;
    for (int field = 3; field < 22; field++) {
        cursor = strchr(cursor + 1, ' ');
        if (cursor == NULL)
            return 0;
    }
    return strtoull(cursor + 1, NULL, 10);
}

/* Sends sig to every process still in data_dir; returns how many there were. */
static size_t signal_processes_in_dir(const char *data_dir, int sig)
{
    pid_t pids[MAX_INSTANCE_PROCESSES];
    size_t n = processes_in_dir(data_dir, pids, MAX_INSTANCE_PROCESSES);
    for (size_t i = 0; i < n; i++)
        kill(pids[i], sig);
    for (size_t i = 0; i < n; i++)
        wait_for_exit(pids[i], KILL_TIMEOUT, NULL);
    return n;
}

int stop_server_processes(pid_t postmaster_pid, const char *data_dir, double fast_timeout,
                          pid_t creator, uid_t owner, verdict_error *err)
{
    bool killed = false;
    if (postmaster_pid > 0) {
        /* SIGINT is what `pg_ctl stop -m fast` sends; waiting on a pidfd beats pg_ctl's
         * 100 ms polling. */
        int ended = kill(postmaster_pid, SIGINT) != 0 && errno == ESRCH;
        if (!ended)
            ended = wait_for_exit(postmaster_pid, fast_timeout, NULL);
        if (!ended) {
            kill(postmaster_pid, SIGQUIT); /* immediate shutdown */
            ended = wait_for_exit(postmaster_pid, IMMEDIATE_TIMEOUT, NULL);
        }
        if (!ended) {
            kill(postmaster_pid, SIGKILL);
            wait_for_exit(postmaster_pid, KILL_TIMEOUT, NULL);
            killed = true;
        }
    }
    /* Backends are their own process groups (PostgreSQL calls setsid in each child), so
     * killpg of the postmaster's group would miss them; their working directory finds
     * them all. Normally none is left once the postmaster has exited. */
    if (signal_processes_in_dir(data_dir, SIGKILL) > 0)
        killed = true;
    if (killed)
        remove_orphaned_shared_memory(data_dir, creator, owner);
    pid_t left[8];
    size_t n_left = processes_in_dir(data_dir, left, 8);
    if (n_left > 0) {
        error_set(err, ERROR_COMMAND_FAILED, "%zu process(es) of %s survive SIGKILL (first: %d)",
                  n_left, data_dir, (int)left[0]);
        return -1;
    }
    return 0;
}

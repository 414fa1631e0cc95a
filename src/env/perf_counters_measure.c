/* One command counted from its exec to its end, as `perf stat CMD` does it: the child waits
 * on a pipe until its counters are open, then execs; verdict's own work is never counted. */
#include "env/perf_counters.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* In the child, between fork and exec: only async-signal-safe calls. It waits for the
 * parent's go byte (end of file without it: the counters could not be opened, so no exec),
 * and reports a failed exec's errno on the second pipe, which closes at a successful exec. */
static void run_child(char *const argv[], int go_fd, int report_fd, pid_t parent)
{
    char go = 0;
    int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null_fd < 0 || dup2(null_fd, STDIN_FILENO) < 0 || dup2(null_fd, STDOUT_FILENO) < 0 ||
        dup2(null_fd, STDERR_FILENO) < 0)
        _exit(127);
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
        _exit(127);
    ssize_t got;
    do
        got = read(go_fd, &go, 1);
    while (got < 0 && errno == EINTR);
    if (got != 1)
        _exit(127);
    execvp(argv[0], argv);
    int errnum = errno;
    ssize_t written = write(report_fd, &errnum, sizeof errnum);
    (void)written;
    _exit(127);
}

/* The errno of a failed exec, or 0 when the report pipe closed empty (the exec worked). */
static int exec_errno(int report_fd)
{
    int errnum = 0;
    ssize_t got;
    do
        got = read(report_fd, &errnum, sizeof errnum);
    while (got < 0 && errno == EINTR);
    return got == (ssize_t)sizeof errnum ? errnum : 0;
}

static int wait_child(const char *name, pid_t pid, perf_counters_measurement *out,
                      verdict_error *err)
{
    pid_t got;
    do
        got = wait4(pid, &out->status, 0, &out->usage);
    while (got < 0 && errno == EINTR);
    if (got != pid)
        return error_set(err, ERROR_INTERNAL, "cannot wait for '%s': %s", name,
                         strerror(errno));
    return 0;
}

/* With the child waiting: opens its counters, releases it, waits for its end and reads. */
static int count_child(char *const argv[], pid_t pid, int go_fd, int report_fd,
                       const perf_counters_spec *specs, size_t n,
                       perf_counters_measurement *out, verdict_error *err)
{
    perf_counters_session *session = NULL;
    int rc = perf_counters_open(pid, specs, n, &session, err);
    ssize_t written = rc == 0 ? write(go_fd, "g", 1) : 0;
    close(go_fd); /* without the go byte the child exits at once */
    if (rc == 0 && written != 1)
        rc = error_set(err, ERROR_INTERNAL, "cannot release '%s': %s", argv[0], strerror(errno));
    int errnum = exec_errno(report_fd);
    if (wait_child(argv[0], pid, out, err) != 0)
        rc = -1;
    if (rc == 0 && errnum != 0)
        rc = error_set(err, ERROR_COMMAND_FAILED, "cannot run '%s': %s", argv[0],
                       strerror(errnum));
    if (rc == 0) {
        out->grouped = perf_counters_grouped(session);
        rc = perf_counters_read(session, out->values, err);
    }
    perf_counters_close(session);
    return rc;
}

int perf_counters_measure_command(char *const argv[], const perf_counters_spec *specs,
                                  size_t n, perf_counters_measurement *out, verdict_error *err)
{
    assert(argv != NULL && argv[0] != NULL && out->values != NULL);
    int go[2], report[2];
    if (pipe2(go, O_CLOEXEC) != 0)
        return error_set(err, ERROR_INTERNAL, "cannot make a pipe: %s", strerror(errno));
    if (pipe2(report, O_CLOEXEC) != 0) {
        close(go[0]);
        close(go[1]);
        return error_set(err, ERROR_INTERNAL, "cannot make a pipe: %s", strerror(errno));
    }
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0)
        run_child(argv, go[0], report[1], parent);
    int fork_errno = errno;
    close(go[0]);
    close(report[1]);
    int rc;
    if (pid < 0) {
        close(go[1]);
        rc = error_set(err, ERROR_INTERNAL, "cannot fork to run '%s': %s", argv[0],
                       strerror(fork_errno));
    } else {
        rc = count_child(argv, pid, go[1], report[0], specs, n, out, err);
    }
    close(report[0]);
    return rc;
}

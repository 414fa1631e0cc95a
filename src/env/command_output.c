/* Captures the first output line of a short command run with fork, exec and a pipe; a
 * deadline bounds the wait so a hung compiler cannot hang `verdict env`, and the child
 * dies with verdict (parent-death signal) so a killed verdict leaves no compiler behind. */
#include "env/command_output.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "env/proc_text.h"


static long long now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* In the child: stdin and stderr from and to /dev/null, stdout to the pipe, SIGKILL if
 * verdict goes (checked against the race of verdict dying before prctl), then exec. Only
 * async-signal-safe calls: verdict may have threads. */
static void run_child(char *const argv[], int write_fd, pid_t parent)
{
    int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null_fd < 0 || dup2(null_fd, STDIN_FILENO) < 0 || dup2(write_fd, STDOUT_FILENO) < 0 ||
        dup2(null_fd, STDERR_FILENO) < 0)
        _exit(127);
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
        _exit(127);
    execvp(argv[0], argv);
    _exit(127);
}

static int spawn_with_pipe(char *const argv[], int write_fd, pid_t *pid)
{
    pid_t parent = getpid();
    *pid = fork();
    if (*pid < 0)
        return -1;
    if (*pid == 0)
        run_child(argv, write_fd, parent);
    return 0;
}

/* Reads the child's output until end of file or the deadline, keeping the start of it
 * in buf (*len bytes, NUL-terminated; it may hold NULs). Returns true at end of file,
 * false on timeout or error. */
static bool read_until_eof(int fd, char *buf, size_t cap, long long deadline, size_t *kept)
{
    size_t len = 0;
    *kept = 0;
    char discard[512];
    for (;;) {
        long long left = deadline - now_ms();
        if (left <= 0)
            return false;
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        int ready = poll(&pfd, 1, (int)left);
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready <= 0)
            return false;
        bool room = len + 1 < cap;
        ssize_t got = room ? read(fd, buf + len, cap - 1 - len) : read(fd, discard, sizeof discard);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return false;
        if (got == 0)
            break;
        if (room)
            len += (size_t)got;
    }
    buf[len] = '\0';
    *kept = len;
    return true;
}

/* The first line of what was read: up to the first newline, with NUL bytes shown as '?'
 * (a NUL used to end the line silently, where the fact's text went on). */
static void keep_first_line(char *line, size_t length)
{
    char *newline = memchr(line, '\n', length);
    size_t end = newline != NULL ? (size_t)(newline - line) : length;
    for (size_t i = 0; i < end; i++)
        if (line[i] == '\0')
            line[i] = '?';
    line[end] = '\0';
}

static int wait_exit_status(pid_t pid, bool kill_first)
{
    int status;
    if (kill_first)
        kill(pid, SIGKILL);
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int command_first_line(char *const argv[], int timeout_ms, char *line, size_t linecap)
{
    if (linecap == 0)
        return -1;
    line[0] = '\0';
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
        return -1;
    pid_t pid;
    int spawned = spawn_with_pipe(argv, fds[1], &pid);
    close(fds[1]);
    if (spawned != 0) {
        close(fds[0]);
        return -1;
    }
    size_t length = 0;
    bool finished = read_until_eof(fds[0], line, linecap, now_ms() + timeout_ms, &length);
    close(fds[0]);
    int status = wait_exit_status(pid, !finished);
    keep_first_line(line, length);
    trim_blanks(line);
    return finished && status == 0 && line[0] != '\0' ? 0 : -1;
}

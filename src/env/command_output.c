/* Captures the first output line of a short command run with posix_spawnp and a pipe;
 * a deadline bounds the wait so a hung compiler cannot hang `verdict env`. */
#include "env/command_output.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "env/proc_text.h"

extern char **environ;

static long long now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static int spawn_with_pipe(char *const argv[], int write_fd, pid_t *pid)
{
    posix_spawn_file_actions_t actions;
    if (posix_spawn_file_actions_init(&actions) != 0)
        return -1;
    int rc = posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    if (rc == 0)
        rc = posix_spawn_file_actions_adddup2(&actions, write_fd, STDOUT_FILENO);
    if (rc == 0)
        rc = posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    if (rc == 0)
        rc = posix_spawnp(pid, argv[0], &actions, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    return rc == 0 ? 0 : -1;
}

/* Reads the child's output until end of file or the deadline, keeping the start of it
 * in buf. Returns true at end of file, false on timeout or error. */
static bool read_until_eof(int fd, char *buf, size_t cap, long long deadline)
{
    size_t len = 0;
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
    return true;
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
    bool finished = read_until_eof(fds[0], line, linecap, now_ms() + timeout_ms);
    close(fds[0]);
    int status = wait_exit_status(pid, !finished);
    char *newline = strchr(line, '\n');
    if (newline != NULL)
        *newline = '\0';
    trim_blanks(line);
    return finished && status == 0 && line[0] != '\0' ? 0 : -1;
}

/* Describes how a child process ended, from a wait status or from its exit code and
 * terminating signal, with the signal's name from strsignal. */
#include "common/wait_status.h"

#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

void exit_text(int exit_code, int term_signal, char *buf, size_t len)
{
    if (term_signal > 0)
        snprintf(buf, len, "was killed by signal %d (%s)", term_signal, strsignal(term_signal));
    else
        snprintf(buf, len, "exited with status %d", exit_code);
}

void wait_status_text(int status, char *buf, size_t len)
{
    if (WIFEXITED(status))
        exit_text(WEXITSTATUS(status), 0, buf, len);
    else if (WIFSIGNALED(status))
        exit_text(0, WTERMSIG(status), buf, len);
    else
        snprintf(buf, len, "ended with wait status %#x", (unsigned)status);
}

/* Runs a short command (such as `cc --version`) without a shell and captures the first
 * line of its standard output, with a timeout, for the machine facts. */
#ifndef VERDICT_ENV_COMMAND_OUTPUT_H
#define VERDICT_ENV_COMMAND_OUTPUT_H

#include <stddef.h>

/* Runs argv (argv[0] looked up in PATH) with stdin from /dev/null and stderr discarded,
 * waits at most timeout_ms, and stores the first line of its output in line (trimmed).
 * Returns 0 when it exited 0 and printed a line; -1 otherwise (absent program, failure,
 * timeout: the child is then killed and reaped). */
int command_first_line(char *const argv[], int timeout_ms, char *line, size_t linecap);

#endif

/* A child's end in words: "exited with status 3", "was killed by signal 9 (Killed)",
 * the one way every layer describes how a process finished. */
#ifndef VERDICT_COMMON_WAIT_STATUS_H
#define VERDICT_COMMON_WAIT_STATUS_H

#include <stddef.h>

/* From a waitpid() status. */
void wait_status_text(int status, char *buf, size_t len);
/* From the parts runner.c keeps: an exit code, or the signal that ended the process. */
void exit_text(int exit_code, int term_signal, char *buf, size_t len);

#endif

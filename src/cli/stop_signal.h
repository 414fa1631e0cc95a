/* Ctrl-C, SIGTERM and SIGHUP during long runs: one flag the runners poll, so that the
 * current run is stopped in order and what was measured is kept and reported. */
#ifndef VERDICT_CLI_STOP_SIGNAL_H
#define VERDICT_CLI_STOP_SIGNAL_H

#include <signal.h>

/* Installs the handlers (without SA_RESTART: a blocking poll must wake up). */
void stop_signal_install(void);
/* The flag the handlers set; non-zero once a stop was asked for. */
volatile sig_atomic_t *stop_signal_flag(void);

#endif

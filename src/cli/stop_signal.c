/* The stop flag and its handlers. The flag is the program's only mutable global, as
 * the project's rules allow for signal flags: a handler can reach nothing else safely. */
#include "cli/stop_signal.h"

#include <string.h>

static volatile sig_atomic_t stop_requested;

static void on_stop_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

void stop_signal_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

volatile sig_atomic_t *stop_signal_flag(void)
{
    return &stop_requested;
}

/* Timing SQL statements one by one over libpq: each sent, its results read and thrown
 * away, with a stop flag and a deadline that cancel the statement in flight. */
#ifndef VERDICT_PG_QUERY_TIMER_H
#define VERDICT_PG_QUERY_TIMER_H

#include <signal.h>
#include <stddef.h>

#include "common/error.h"

typedef enum {
    QUERY_TIMER_DONE = 0,
    QUERY_TIMER_INTERRUPTED = 1, /* *stop became non-zero: the statement was cancelled */
    QUERY_TIMER_TIMED_OUT = 2,   /* the deadline passed: cancelled */
    QUERY_TIMER_FAILED = 3       /* a statement failed (*failed is its index) or no connection
                                    (*failed is n) */
} query_timer_status;

/* Connects with conninfo (connection time not counted), runs texts[0..n) in order and
 * stores each one's time from sending to its last result in latencies_ms. timeout_s <= 0:
 * none. On failure err holds the server's message. */
query_timer_status query_timer_run(const char *conninfo, const char *const *texts, size_t n,
                                   double timeout_s, volatile sig_atomic_t *stop,
                                   double *latencies_ms, size_t *failed, verdict_error *err);

#endif

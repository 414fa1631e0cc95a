/* Timing SQL statements one by one over libpq (query_timer.h): asynchronous sends so that a
 * stop request or the deadline can cancel a long statement instead of waiting it out. */
#include "pg/query_timer.h"

#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <libpq-fe.h>

#include "common/error.h"

#define POLL_MS 100

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void cancel_statement(PGconn *connection)
{
    char ignored[256];
    PGcancel *cancel = PQgetCancel(connection);
    if (cancel) {
        PQcancel(cancel, ignored, sizeof ignored);
        PQfreeCancel(cancel);
    }
}

static void copy_message(const char *message, verdict_error *err)
{
    const char *text = message && message[0] ? message : "no message";
    size_t n = strlen(text);
    while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == ' '))
        n--;
    error_set(err, ERROR_COMMAND_FAILED, "%.*s", (int)n, text);
}

/* Waits until the statement's results can be read without blocking; DONE, or why not. */
static query_timer_status wait_ready(PGconn *connection, double deadline,
                                     volatile sig_atomic_t *stop, verdict_error *err)
{
    while (PQisBusy(connection)) {
        if (stop && *stop) {
            cancel_statement(connection);
            return QUERY_TIMER_INTERRUPTED;
        }
        if (deadline > 0 && now_seconds() > deadline) {
            cancel_statement(connection);
            return QUERY_TIMER_TIMED_OUT;
        }
        struct pollfd fd = {.fd = PQsocket(connection), .events = POLLIN};
        if (poll(&fd, 1, POLL_MS) < 0)
            continue; /* a signal: the loop looks at the flag */
        if (!PQconsumeInput(connection)) {
            copy_message(PQerrorMessage(connection), err);
            return QUERY_TIMER_FAILED;
        }
    }
    return QUERY_TIMER_DONE;
}

/* Sends one statement and reads all of its results; the first error is the statement's. */
static query_timer_status run_one(PGconn *connection, const char *text, double deadline,
                                  volatile sig_atomic_t *stop, verdict_error *err)
{
    if (!PQsendQuery(connection, text)) {
        copy_message(PQerrorMessage(connection), err);
        return QUERY_TIMER_FAILED;
    }
    query_timer_status status = QUERY_TIMER_DONE;
    for (;;) {
        query_timer_status waited = wait_ready(connection, deadline, stop, err);
        if (waited != QUERY_TIMER_DONE && status == QUERY_TIMER_DONE)
            status = waited;
        if (waited == QUERY_TIMER_FAILED)
            return status;
        PGresult *result = PQgetResult(connection);
        if (result == NULL)
            return status;
        ExecStatusType kind = PQresultStatus(result);
        if (status == QUERY_TIMER_DONE && kind != PGRES_TUPLES_OK && kind != PGRES_COMMAND_OK &&
            kind != PGRES_EMPTY_QUERY) {
            copy_message(PQresultErrorMessage(result), err);
            status = QUERY_TIMER_FAILED;
        }
        PQclear(result);
    }
}

query_timer_status query_timer_run(const char *conninfo, const char *const *texts, size_t n,
                                   double timeout_s, volatile sig_atomic_t *stop,
                                   double *latencies_ms, size_t *failed, verdict_error *err)
{
    *failed = n;
    PGconn *connection = PQconnectdb(conninfo);
    if (PQstatus(connection) != CONNECTION_OK) {
        copy_message(PQerrorMessage(connection), err);
        PQfinish(connection);
        return QUERY_TIMER_FAILED;
    }
    double deadline = timeout_s > 0 ? now_seconds() + timeout_s : 0;
    query_timer_status status = QUERY_TIMER_DONE;
    for (size_t i = 0; i < n && status == QUERY_TIMER_DONE; i++) {
        double started = now_seconds();
        status = run_one(connection, texts[i], deadline, stop, err);
        latencies_ms[i] = (now_seconds() - started) * 1000.0;
        if (status != QUERY_TIMER_DONE)
            *failed = i;
    }
    PQfinish(connection);
    return status;
}

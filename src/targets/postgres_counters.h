/* Counters of a PostgreSQL run: the server's processes during the workload (perf on the
 * postmaster, or callgrind running the server), and pgbench's own on request, apart. */
#ifndef VERDICT_TARGETS_POSTGRES_COUNTERS_H
#define VERDICT_TARGETS_POSTGRES_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/error.h"
#include "core/cachegrind.h"
#include "core/experiment.h"
#include "core/metrics.h"
#include "core/run_counters.h"
#include "env/perf_counters.h"
#include "pg/cluster.h"

#define PG_COUNTING_MAX 16
#define PG_COUNTING_PIDS 512

/* What a counter metric divides its count by. */
typedef enum { PG_PER_RUN, PG_PER_TX, PG_PER_QUERY } pg_counter_per;

/* "instructions/tx" into its event's perf name ("instructions") and divisor; false when the
 * name is no counter metric. */
bool postgres_counter_metric(const char *metric, char *event, size_t len, pg_counter_per *per);

/* One experiment run's counting. */
typedef struct {
    int mode;                                  /* pg_counters_mode */
    size_t n;                                  /* distinct events */
    const perf_counters_event *events[PG_COUNTING_MAX];
    perf_counters_spec specs[PG_COUNTING_MAX]; /* perf */
    const cachegrind_count *counts[PG_COUNTING_MAX]; /* valgrind */
    char **launcher;                           /* valgrind: the words before postgres */
    perf_counters_session *session;            /* perf, between begin and end */
    pid_t before[PG_COUNTING_PIDS];            /* the server's processes at begin */
    size_t n_before;
    uint64_t totals[PG_COUNTING_MAX];          /* the last run's, per event */
    bool partial;                              /* a perf counter did not run all along */
} pg_counting;

/* Prepares the counting the experiment's metrics ask for (none: inactive). Perf: every event
 * probed, a refused one named with the reason (ERROR_USAGE); valgrind: found, its words
 * made. 0, or -1. */
int pg_counting_open(pg_counting *c, const experiment *e, verdict_error *err);
void pg_counting_close(pg_counting *c);
bool pg_counting_active(const pg_counting *c);
/* The words cluster_start puts before postgres (valgrind's), or NULL. */
const char *const *pg_counting_launcher(const pg_counting *c);

/* Just before the workload: the server's processes noted (they are not counted), perf's
 * counters attached to the postmaster, valgrind's files of earlier processes removed. */
int pg_counting_begin(pg_counting *c, const cluster_instance *server, verdict_error *err);
/* After it: waits until every process the server started meanwhile has ended (the backends
 * of the workload's connections), then reads the totals. 0, or -1 with the reason. */
int pg_counting_end(pg_counting *c, const cluster_instance *server, verdict_error *err);
/* Ends a counting begun and not ended (a failed run): nothing is read. */
void pg_counting_abandon(pg_counting *c);

/* A counter metric's value from the last run's totals: divided by transactions (pgbench's
 * count, /tx) or queries (/query). NaN when not a counter metric. */
double pg_counting_value(const pg_counting *c, const char *metric, long transactions,
                         size_t queries);

/* ---- pgbench's own counts, on request ---- */

/* Metrics of pgbench's own work carry this before the counter's name. */
#define PG_CLIENT_PREFIX "pgbench."

/* "pgbench.instructions/tx" into its event's perf name and divisor (a run's total or per
 * transaction); false when the name is no such metric. */
bool postgres_client_metric(const char *metric, char *event, size_t len, pg_counter_per *per);

/* The counting of pgbench, apart from the server's: perf's events opened on the thread that
 * starts pgbench just before it (inherited, enabled at its exec: core/run_counters.h). */
typedef struct {
    size_t n;                    /* the experiment's pgbench.* metrics */
    metric_def *defs;            /* theirs, as counters of the events they name */
    size_t *metric;              /* each one's index in the experiment's metrics */
    pg_counter_per *per;
    double *values;              /* the last run's counts (NaN: a counter ran part of it) */
    run_counters *counters;      /* NULL when none is asked for */
} pg_client_counting;

/* Prepares the counting of the experiment's pgbench.* metrics (none: inactive): each event
 * probed, a refused one named with the reason (ERROR_USAGE). 0, or -1. */
int pg_client_open(pg_client_counting *c, const experiment *e, verdict_error *err);
void pg_client_close(pg_client_counting *c);
bool pg_client_active(const pg_client_counting *c);
/* Just before pgbench starts, on the thread that starts it; 0, or -1 with err. */
int pg_client_begin(pg_client_counting *c, char *const *argv, verdict_error *err);
/* Just after it ended: a run_counters_outcome (note names a counter that ran part of the
 * run), or -1 with err. */
int pg_client_end(pg_client_counting *c, char *note, size_t note_len, verdict_error *err);
/* The value of the experiment's metric [metric], a pgbench.* one, from the last run: per
 * transaction for /tx. NaN when it is no such metric, or its counter did not count the whole
 * run (or pgbench counted no transaction). */
double pg_client_value(const pg_client_counting *c, size_t metric, long transactions);

#endif

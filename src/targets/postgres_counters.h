/* Counters of the PostgreSQL server's own processes during one measured workload: perf's on
 * the postmaster and the backends it forks, or Valgrind's callgrind running the server. */
#ifndef VERDICT_TARGETS_POSTGRES_COUNTERS_H
#define VERDICT_TARGETS_POSTGRES_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/error.h"
#include "core/cachegrind.h"
#include "core/experiment.h"
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

#endif

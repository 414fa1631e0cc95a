/* Parsers for pgbench's text: the end-of-run summary (PostgreSQL 9.6 to 17) and the
 * per-transaction log written with --log, turned into plain numbers for verdict's metrics. */
#ifndef VERDICT_PG_PGBENCH_OUTPUT_H
#define VERDICT_PG_PGBENCH_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"

/* pgbench itself accepts at most 128 scripts (its MAX_SCRIPTS). */
#define PGBENCH_MAX_SCRIPTS 128

/* Which summary line the run's tps came from. Values of different kinds measure different
 * things (connection time included or not) and must not be compared with each other. */
typedef enum {
    PGBENCH_TPS_WITHOUT_INITIAL_CONNECTION, /* PG 14+: "(without initial connection time)" */
    PGBENCH_TPS_EXCLUDING_CONNECTIONS,      /* PG <= 13: "(excluding connections establishing)" */
    PGBENCH_TPS_INCLUDING_RECONNECTIONS,    /* PG 14+ with -C: "(including reconnection times)" */
    PGBENCH_TPS_INCLUDING_CONNECTIONS,      /* PG <= 13, when it is the only tps line */
    PGBENCH_TPS_UNQUALIFIED                 /* a bare "tps = X" (e.g. grep'd output) */
} pgbench_tps_kind;

/* One "SQL script N: ..." section (printed with several scripts, or with -r). */
typedef struct {
    char name[64];              /* "<builtin: select only>" or the file name (truncated) */
    long weight;                /* " - weight: 9 (targets 90.0% of total)"; -1 when absent */
    double weight_percent;      /* the "targets" share; NaN when absent */
    long transactions;          /* processed transactions of this script; -1 when absent */
    double tps;                 /* NaN when absent */
    long transactions_failed;   /* PG 15+; 0 when not printed */
    double latency_average_ms;  /* NaN when absent */
    double latency_stddev_ms;   /* NaN when absent */
} pgbench_script_result;

/* Everything the summary states. Counts are -1 and measurements NaN when not printed,
 * except the failure/retry/skip counts, which pgbench omits when they are zero or
 * impossible (before PG 15) and are therefore 0. */
typedef struct {
    char pgbench_version[32];        /* "15.20" from the PG 14+ banner "pgbench (15.20 ...)"; "" */
    char transaction_type[64];       /* "<builtin: TPC-B (sort of)>", "multiple scripts", a file */
    long scaling_factor;
    char mode[16];                   /* "query mode: simple|extended|prepared"; "" when absent */
    long clients, threads;
    long max_tries;                  /* PG 15+ "maximum number of tries"; 0 when absent */
    long transactions_per_client;    /* -t runs */
    double duration_s;               /* -T runs: "duration: N s" */
    long transactions_processed;     /* "number of transactions actually processed: N[/M]" */
    long transactions_expected;      /* the M of -t runs */
    long transactions_failed;        /* PG 15+ "number of failed transactions: N (x%)" */
    long transactions_retried;       /* PG 15+ with --max-tries > 1 */
    long transactions_skipped;       /* --rate with --latency-limit */
    double latency_average_ms;
    double latency_stddev_ms;        /* printed only with --progress, --rate or --latency-limit */
    bool latency_includes_failures;  /* PG 15+: "latency average = X ms (including failures)" */
    double schedule_lag_ms;          /* --rate: "rate limit schedule lag: avg X (max Y) ms" */
    double initial_connection_ms;    /* PG 14+: "initial connection time = X ms" */
    double average_connection_ms;    /* PG 14+ with -C: "average connection time = X ms" */
    double tps;                      /* the run's tps; see tps_kind */
    pgbench_tps_kind tps_kind;
    double tps_including_connections; /* PG <= 13 "(including connections establishing)", or
                                         PG 14+ -C "(including reconnection times)"; NaN */
    size_t n_scripts;
    pgbench_script_result scripts[PGBENCH_MAX_SCRIPTS];
    bool partial;                    /* exit code != 0, "Run was aborted", aborted clients */
    char partial_reason[128];        /* why it is partial; "" otherwise */
} pgbench_result;

/* Parses pgbench's output (stdout, or stdout and stderr merged in any order; progress
 * lines are ignored). exit_code is pgbench's exit status: non-zero marks the run partial.
 * Returns 0, or -1 with a message in err when there is no usable tps line or a recognised
 * line is malformed. Never reads past text + length; text need not be NUL-terminated. */
int pgbench_parse(const char *text, size_t length, int exit_code, pgbench_result *out,
                  verdict_error *err);

const char *pgbench_tps_kind_name(pgbench_tps_kind kind);

/* What a per-transaction log (--log; all pgbench_log.PID[.N] files concatenated) says. */
typedef struct {
    size_t transactions;   /* completed transactions: the ones the percentiles are taken over */
    size_t failed;         /* "failed" lines (PG 15+) */
    size_t skipped;        /* "skipped" lines (--rate with --latency-limit) */
    double p50_ms, p95_ms, p99_ms; /* R type-7 quantiles of the completed transactions' latency */
} pgbench_log_summary;

/* Reads lines "client_id transaction_no time script_no time_epoch time_us [lag] [retries]"
 * (time in microseconds, or "failed"/"skipped"). Returns 0, or -1 with a message (no
 * completed transaction, a malformed line, an aggregated --aggregate-interval log). */
int pgbench_log_summarize(const char *log_text, size_t length, pgbench_log_summary *out,
                          verdict_error *err);

/* The three percentiles of pgbench_log_summarize, in milliseconds. */
int pgbench_latency_percentiles(const char *log_text, size_t length, double *p50_ms,
                                double *p95_ms, double *p99_ms, verdict_error *err);

#endif

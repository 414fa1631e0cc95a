/* The PostgreSQL target of `verdict run`: a template cluster per variant, a fresh copy
 * started before each run (or each point), pgbench as the measured command, its metrics. */
#ifndef VERDICT_CLI_PG_TARGET_H
#define VERDICT_CLI_PG_TARGET_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/command_words.h"
#include "core/experiment.h"
#include "core/metrics.h"
#include "core/runner.h"
#include "env/machine.h"
#include "pg/cluster.h"

#define PG_TARGET_MAX_VARIANTS 64

typedef struct {
    const experiment *e;
    char cache_dir[1024];
    char template_dir[PG_TARGET_MAX_VARIANTS][CLUSTER_PATH_MAX];
    cluster_template_spec spec[PG_TARGET_MAX_VARIANTS];
    char **settings[PG_TARGET_MAX_VARIANTS];      /* "name=value" lines, owned */
    char pgbench[PG_TARGET_MAX_VARIANTS][1024];
    cluster_instance instance[PG_TARGET_MAX_VARIANTS];
    bool running[PG_TARGET_MAX_VARIANTS];
    bool unwarmed[PG_TARGET_MAX_VARIANTS];        /* started, warm_runs not yet made */
    command_words workload;                       /* this point's pgbench arguments */
    command_words run_argv[PG_TARGET_MAX_VARIANTS];
    char log_dir[256];                            /* pgbench --log files of the current run */
    bool want_log;                                /* a latency percentile is measured */
    cpu_set_t client_cpus, server_cpus;
    bool pin_client, pin_server;
    char client_cpu_list[64], server_cpu_list[64];
} pg_target;

/* Prepares (or reuses) every variant's template: initdb, settings, pgbench -i. */
int pg_target_prepare(pg_target *t, const experiment *e, char *err, size_t errlen);
/* The pin policy's CPUs and the cluster settings, recorded with the results. */
int pg_target_facts(const pg_target *t, machine_facts *facts);
/* Substitutes this point's workload; starts the servers when fresh: point. */
int pg_target_begin_point(pg_target *t, size_t point, char *err, size_t errlen);
void pg_target_end_point(pg_target *t);
/* session_config hooks (context: the pg_target). */
int pg_target_before_run(void *context, size_t variant, const run_request *request,
                         volatile sig_atomic_t *stop, char *const **argv, char *err,
                         size_t errlen);
void pg_target_after_run(void *context, size_t variant);
/* metric_extract_fn for tps, latency_avg, p50, p95, p99 (context: the pg_target). */
int pg_target_metric(void *context, const char *name, const run_result *run, double *value,
                     char *err, size_t errlen);
bool pg_target_is_metric(const char *name);
const cpu_set_t *pg_target_client_pin(const pg_target *t);
void pg_target_free(pg_target *t);

#endif

/* The PostgreSQL target's part of an experiment: the servers' settings and placement, the
 * pgbench workload, and per variant an installed build, a source tree, or a running server. */
#ifndef VERDICT_TARGETS_POSTGRES_OPTIONS_H
#define VERDICT_TARGETS_POSTGRES_OPTIONS_H

#include <libfyaml.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "common/strbuf.h"
#include "core/command_words.h"
#include "core/experiment.h"
#include "core/experiment_loader.h"
#include "core/target.h"

/* Where pgbench (the client) and the server run (docs/postgres.md). */
typedef enum { PG_PIN_NONE, PG_PIN_SAME, PG_PIN_SPLIT } pg_pin_policy;
/* A fresh cluster for every run, or one per variant and point. */
typedef enum { PG_FRESH_RUN, PG_FRESH_POINT } pg_fresh_policy;
/* How the server's counters are read (postgres_counters.c): none asked for, perf_event_open
 * on the postmaster, or the server under Valgrind's callgrind. */
typedef enum { PG_COUNTERS_NONE, PG_COUNTERS_PERF, PG_COUNTERS_VALGRIND } pg_counters_mode;

/* One analytic query of the workload: an SQL file, timed as a whole (postgres_analytic.c).
 * Its name, the file's name without .sql, is its metric's. */
typedef struct {
    char *name;
    char *path;
    char *text;                 /* its SQL, trimmed, ending in ';' */
} postgres_query;

typedef struct {
    int scale;                  /* pgbench -i -s SCALE; default 10, 0 (none) with init */
    bool scale_given;
    char *init_sql;             /* SQL file run once in each template after pgbench -i; NULL */
    experiment_env *init_variables; /* psql -v NAME=VALUE for it */
    size_t n_init_variables;
    experiment_env *settings;   /* postgresql.conf settings shared by all variants */
    size_t n_settings;
    pg_fresh_policy fresh;      /* default PG_FRESH_RUN */
    pg_pin_policy pin;          /* default PG_PIN_NONE */
    size_t warm_runs;           /* unmeasured pgbench runs on each newly started server */
    char *run_as;               /* server user when verdict is root; NULL: "postgres" */
    char *cache_dir;            /* templates and instances; NULL: the user's own cache
                                   (cluster_default_cache_dir, docs/security.md) */
    char **workload;            /* pgbench's arguments (placeholders allowed), without
                                   connection options; NULL-terminated */
    size_t n_workload;
    char *workload_line;        /* the workload as a string: substituted, then split, at
                                   each point (workload holds its words as written, for
                                   the plan's hash); NULL for a list */
    bool has_workload;
    postgres_query *queries;    /* workload queries: run in order by one pgbench -r script */
    size_t n_queries;
    pg_counters_mode counters;  /* the top-level 'counters: perf|valgrind' when a counter
                                   metric is measured (perf by default); NONE otherwise */
} postgres_options;

/* Exactly one of bindir (an installed build), a 'source' (the variant's generic key: built
 * by verdict with configure or meson, then bindir is the install's bin directory), or
 * conninfo (a server the user runs). */
typedef struct {
    char *bindir;
    char *configure;            /* extra ./configure options, or NULL */
    char *meson;                /* extra `meson setup` options, or NULL */
    char *cflags;               /* CFLAGS, or NULL */
    char *conninfo;
    experiment_env *settings;   /* this variant's postgresql.conf overrides */
    size_t n_settings;
    /* while the file is read */
    command_words configure_words, meson_words;
    struct fy_node *source_only; /* key of configure, meson or cflags, if given */
    char source_only_key[16];
} postgres_variant;

static inline postgres_options *postgres_options_of(const experiment *e)
{
    return e->target_options;
}

static inline postgres_variant *postgres_variant_of(const experiment_variant *v)
{
    return v->options;
}

/* postgres_build.c: the recipe of a variant built from its source, ./configure or meson
 * installed into $PREFIX, and the options that go into its build key (target_kind). */
int postgres_build_recipe(const experiment *e, const experiment_variant *v, strbuf *recipe,
                          command_words *options, verdict_error *err);
int postgres_measured_binary(const experiment *e, const experiment_variant *v, size_t layout,
                             strbuf *path);

/* postgres_analytic.c: a workload's own data (init SQL) and queries, timed one by one */
#define POSTGRES_GEOMEAN_METRIC "geomean"
int postgres_read_init(experiment_loader *l, const yaml_field *f, void *target);
int postgres_read_init_variables(experiment_loader *l, const yaml_field *f, void *target);
int postgres_read_queries(experiment_loader *l, const yaml_field *f, void *target);
int postgres_finish_analytic(experiment_loader *l);
void postgres_hash_analytic(uint64_t *state, const postgres_options *pg);
void postgres_free_analytic(postgres_options *pg);
#define POSTGRES_MAX_QUERIES 64
/* Runs every query once over a new connection to conninfo, each timed (milliseconds, in
 * latencies_ms); TARGET_MEASURED, TARGET_RUN_INTERRUPTED, or TARGET_RUN_FAILED with
 * out->failure naming the query and the server's message. */
int postgres_run_queries(const postgres_options *pg, const char *conninfo, double timeout_s,
                         volatile sig_atomic_t *stop, double *latencies_ms,
                         target_measurement *out);
/* A query's latency or the geometric mean of all (POSTGRES_GEOMEAN_METRIC); NaN for any
 * other name. */
double postgres_query_value(const postgres_options *pg, const char *name,
                            const double *latencies_ms);

/* postgres_counters.c: the server's counters during the measured workload (docs/postgres.md,
 * "Counters of the server") */
/* The counter metrics: every perf name plain (the run's total), per transaction ("/tx") and
 * per query ("/query") of the server; and pgbench's own, on request ("pgbench." before the
 * name: a run's total or per transaction). */
#define POSTGRES_COUNTER_METRIC(name) {name, false}, {name "/tx", false}, {name "/query", false}, \
    {"pgbench." name, false}, {"pgbench." name "/tx", false}
/* At the file's end: the counting mode chosen, and the metrics, workload and variants
 * checked against it. */
int postgres_finish_counters(experiment_loader *l);
/* --dry-run's line on how the server is counted (target_kind's describe_plan). */
void postgres_describe_plan(const experiment *e, strbuf *out);

/* postgres_keys.c: the target's keys (its part of target_kind) */
#define POSTGRES_N_TOP_KEYS 2
#define POSTGRES_N_VARIANT_KEYS 6
extern const experiment_key postgres_top_keys[POSTGRES_N_TOP_KEYS];
extern const experiment_key postgres_variant_keys[POSTGRES_N_VARIANT_KEYS];
int postgres_begin_file(experiment_loader *l);
int postgres_finish_file(experiment_loader *l);
int postgres_variant_scalar(experiment_loader *l, const yaml_field *f, experiment_variant *v);
int postgres_finish_variant(experiment_loader *l, const yaml_field *f, experiment_variant *v);
void postgres_hash_variant(uint64_t *state, const experiment *e, const experiment_variant *v);
void postgres_hash_plan(uint64_t *state, const experiment *e);
void postgres_free_variant(experiment_variant *v);
void postgres_free_options(experiment *e);

#endif

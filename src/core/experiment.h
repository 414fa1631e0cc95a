/* The experiment model: what an experiment file (YAML) describes — variants, parameters
 * to sweep, metrics, repetitions or adaptive budget — before any placeholder is filled. */
#ifndef VERDICT_CORE_EXPERIMENT_H
#define VERDICT_CORE_EXPERIMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    char *name;
    char **values;          /* as text, in the file's order */
    size_t n_values;
} experiment_parameter;

typedef struct {
    char *name;             /* NAME=value pairs below may hold {placeholders} */
    char *value;
} experiment_env;

typedef struct {
    char *name;
    char **command;         /* words; {placeholders} unsubstituted; NULL-terminated */
    size_t n_command;
    bool shell;             /* run the single word command[0] through /bin/sh -c */
    char *build;            /* shell line run once before any sample, or NULL */
    char *cwd;              /* or NULL */
    experiment_env *env;
    size_t n_env;
    int line;               /* where the variant is defined, for messages */
    /* target postgres: exactly one of bindir (an installed build), source (built by
     * verdict: then bindir is set to the install's bin directory and build to the shell
     * line that configures, builds and installs it, keyed by source, patches, configure
     * options and cflags), or conninfo (a server the user runs) */
    char *bindir;
    char *source;
    char *configure;        /* extra ./configure options, or NULL */
    char *cflags;           /* CFLAGS, or NULL */
    char **patches;         /* patch files applied with patch -p1, in order */
    size_t n_patches;
    char *conninfo;
    experiment_env *pg_settings; /* per-variant postgresql.conf overrides */
    size_t n_pg_settings;
} experiment_variant;

/* What a run measures: a command, or pgbench against throwaway PostgreSQL servers. */
typedef enum { TARGET_COMMAND, TARGET_POSTGRES } experiment_target;
/* Where pgbench (the client) and the server run (docs/postgres.md). */
typedef enum { PG_PIN_NONE, PG_PIN_SAME, PG_PIN_SPLIT } pg_pin_policy;
/* A fresh cluster for every run, or one per variant and point. */
typedef enum { PG_FRESH_RUN, PG_FRESH_POINT } pg_fresh_policy;

typedef struct {
    int scale;                  /* pgbench -i -s SCALE; default 10 */
    experiment_env *settings;   /* postgresql.conf settings shared by all variants */
    size_t n_settings;
    pg_fresh_policy fresh;      /* default PG_FRESH_RUN */
    pg_pin_policy pin;          /* default PG_PIN_NONE */
    size_t warm_runs;           /* unmeasured pgbench runs on each newly started server */
    char *run_as;               /* server user when verdict is root; NULL: "postgres" */
    char *cache_dir;            /* templates and builds; NULL: /var/tmp/verdict-pg */
} experiment_postgres;

typedef struct {
    char *name;             /* wall, user, sys, cpu, maxrss, or a named extraction;
                               with target postgres also tps, latency_avg, p50, p95, p99 */
    char *regex;            /* NULL for builtins */
    bool higher_is_better;
} experiment_metric;

typedef enum { FAILURE_ABORT, FAILURE_RETRY, FAILURE_RECORD } failure_policy;

typedef struct {
    char *path;             /* the file, for messages */
    char *directory;        /* the file's absolute directory, which relative cwds were
                             * resolved against and where setup, teardown and prepare
                             * run (experiment_load); NULL from experiment_parse */
    char *text;             /* the file's bytes, stored with the results */
    size_t text_length;
    char *name;
    uint64_t seed;
    bool has_seed;
    size_t repetitions;     /* blocks per point; 0 when adaptive */
    bool adaptive;
    size_t min_blocks, max_blocks;
    double max_seconds;     /* adaptive time budget per point; 0 for none */
    size_t warmup;
    double timeout;         /* per run; 0 for none */
    double confidence, margin;
    failure_policy on_failure;
    int retries;            /* FAILURE_RETRY */
    experiment_parameter *parameters;
    size_t n_parameters;
    experiment_variant *variants;
    size_t n_variants;
    experiment_metric *metrics;
    size_t n_metrics;
    char *setup, *teardown; /* shell lines run before / after each point, or NULL */
    char *prepare;          /* shell line run before every measured run, or NULL */
    experiment_target target;
    experiment_postgres postgres;
    char **workload;        /* target postgres: pgbench's arguments (placeholders allowed),
                               without connection options; NULL-terminated */
    size_t n_workload;
} experiment;

/* Reads and validates an experiment file. Errors name FILE:LINE:COLUMN and the key or
 * value at fault; returns 0, or -1 with the message in err. */
int experiment_load(const char *path, experiment *out, char *err, size_t errlen);
/* The same from text in memory (name is used in messages); for tests and fuzzing. */
int experiment_parse(const char *name, const char *text, size_t length, experiment *out,
                     char *err, size_t errlen);
void experiment_free(experiment *e);

/* Number of points: the product of the parameters' value counts (1 without parameters). */
size_t experiment_point_count(const experiment *e);
/* The value index of every parameter at point p (mixed-radix, the last parameter fastest). */
void experiment_point_values(const experiment *e, size_t point, size_t *value_index);
/* "clients=4,scale=10" for point p ("default" without parameters); caller frees. */
char *experiment_point_id(const experiment *e, size_t point);
/* Replaces {name} by the parameter's value at point p ("{{" and "}}" are literal braces).
 * Returns a malloc'ed string, or NULL with a message (unknown placeholder). */
char *experiment_substitute(const experiment *e, size_t point, const char *text, char *err,
                            size_t errlen);
/* The same for a shell line (a `shell: true` command, build, setup, teardown, prepare):
 * each value is inserted single-quoted, so it is exactly one shell word and is never
 * interpreted by the shell, whatever characters it holds. */
char *experiment_substitute_shell(const experiment *e, size_t point, const char *text,
                                  char *err, size_t errlen);
/* A hash of everything that determines the plan (variants, commands, parameters, seed,
 * repetitions or budget, metrics): resuming with a different plan hash is refused. */
uint64_t experiment_plan_hash(const experiment *e);
/* A hash of the file's bytes. */
uint64_t experiment_text_hash(const experiment *e);

#endif

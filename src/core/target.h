/* The target interface: what one run of an experiment is — a command, pgbench against a
 * throwaway server, a function called in-process — behind one table of operations. */
#ifndef VERDICT_CORE_TARGET_H
#define VERDICT_CORE_TARGET_H

#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "common/strbuf.h"
#include "core/experiment.h"
#include "core/experiment_loader.h"
#include "core/profile.h"
#include "env/machine.h"

typedef struct target target; /* a target opened for one experiment run */

typedef struct {
    const char *name;
    bool higher_is_better;
} target_metric;

/* How runs are to be made, beyond the experiment itself (--pin, --no-randomize-env). */
typedef struct {
    const cpu_set_t *pin;        /* NULL: wherever the scheduler puts them */
    bool randomize_env;          /* a new environment size before every run */
} target_settings;

/* One run of one unit (a variant in one code layout) at one point. */
typedef struct {
    size_t point, variant, layout;
    long block;                  /* -1: a warm-up run, not kept */
    long seq;                    /* order of measurement within the experiment */
} target_unit;

/* What a run measured: the experiment's metrics and the readings stored beside them. */
typedef struct {
    double *values;              /* one per experiment metric (NaN: could not be read) */
    double wall, user, sys, maxrss_kib;
    long voluntary_switches, involuntary_switches;
    int exit_code;
    bool timed_out, tainted;
    char taint_reason[96];
    double steal, other_busy, load1; /* NaN when unknown */
    char failure[4096];          /* TARGET_RUN_FAILED: what failed, with its stderr's end */
} target_measurement;

typedef enum {
    TARGET_MEASURED = 0,
    TARGET_RUN_INTERRUPTED = 1,  /* a stop was requested during the run */
    TARGET_RUN_FAILED = 2        /* exit status, timeout, a metric that could not be read */
} target_run_status;

struct target_kind {
    const char *name;            /* as written after "target:" */

    /* ---- experiment files ---- */
    const experiment_key *top_keys;     /* top-level keys of its own ("postgres", ...) */
    size_t n_top_keys;
    const experiment_key *variant_keys; /* a variant's keys of its own ("bindir", ...) */
    size_t n_variant_keys;
    const char *no_command;      /* why 'command' and 'shell' are refused; NULL: allowed */
    const char *no_build;        /* why 'build' is refused; NULL: allowed */
    const char *no_source;       /* why 'source' and 'patches' are refused; NULL: allowed */
    const char *no_helpers;      /* why setup, teardown and prepare are refused; NULL: allowed */
    const char *no_process;      /* why env, cwd and timeout are refused; NULL: allowed */
    int (*begin_file)(experiment_loader *l);  /* sets up e->target_options */
    /* "A: text" for a variant: NULL means text is the variant's command */
    int (*variant_scalar)(experiment_loader *l, const yaml_field *f, experiment_variant *v);
    int (*finish_variant)(experiment_loader *l, const yaml_field *f, experiment_variant *v);
    int (*finish_file)(experiment_loader *l);
    void (*hash_variant)(uint64_t *state, const experiment *e, const experiment_variant *v);
    void (*hash_plan)(uint64_t *state, const experiment *e);
    void (*free_variant)(experiment_variant *v);
    void (*free_options)(experiment *e);
    /* the target's keys written back as YAML (experiment_writer.c), for experiments built
     * on the command line; NULL for targets only files use */
    void (*write_keys)(strbuf *b, const experiment *e);
    void (*write_variant_keys)(strbuf *b, const experiment_variant *v, const char *separator);
    /* the recipe that builds a variant's source (PostgreSQL: configure or meson, installed
     * into $PREFIX) and the options that go into its key and its "$@"; NULL: the variant's
     * own 'build' line, or nothing to build */
    int (*build_recipe)(const experiment *e, const experiment_variant *v, strbuf *recipe,
                        command_words *options, verdict_error *err);
    /* the executable a variant's runs in one of its layouts measure, whose SHA-256 the
     * store keeps; NULL: the first word of the variant's command */
    int (*measured_binary)(const experiment *e, const experiment_variant *v, size_t layout,
                           strbuf *path);
    /* lines `verdict run --dry-run` adds to the plan, each ending in a newline: how the runs
     * will be made when that changes their cost (a server under valgrind); NULL: none */
    void (*describe_plan)(const experiment *e, strbuf *out);
    const target_metric *metrics;       /* builtin metrics; the first is the default */
    size_t n_metrics;
    bool regex_metrics;          /* NAME=/REGEX/ extractions from a run's output allowed */
    bool measures_processes;     /* a run is a process (rusage kept; under 5 ms: a warning) */
    bool counters;               /* counters may be metrics (instructions, page-faults, ipc),
                                    and `counters: valgrind` chosen (docs/metrics.md) */
    const char *no_valgrind;     /* with counters: why `counters: valgrind` is refused (the
                                    run cannot be put under valgrind); NULL: allowed */
    bool counters_key;           /* the top-level `counters:` key chooses how its own counter
                                    metrics are read, although `counters` is false (PostgreSQL
                                    counts its server's processes, not the run) */

    /* ---- running: open, then per point begin, measure every unit, end; close ---- */
    int (*open)(const experiment *e, const target_settings *s, target **out, verdict_error *err);
    /* facts recorded with the run (server placement, calibration) */
    int (*facts)(target *t, machine_facts *facts);
    int (*begin_point)(target *t, size_t point, volatile sig_atomic_t *stop, verdict_error *err);
    /* one run: a target_run_status, or -1 with err when nothing could be run at all */
    int (*measure)(target *t, const target_unit *unit, volatile sig_atomic_t *stop,
                   target_measurement *out, verdict_error *err);
    void (*end_point)(target *t);
    void (*close)(target *t);
    /* One profiled run of the unit (docs/profiles.md): run as measure runs it but under
     * `perf record -e event` (profile_record_argv), its samples resolved into out (which the
     * caller frees) and its own wall time (perf's cost included) into *wall. 0, or -1 with
     * err (a failed run is an error: a profile is not recorded as a failure). NULL: the
     * target's runs cannot be profiled (`profile: true` is refused). */
    int (*profile)(target *t, const target_unit *unit, const char *event,
                   volatile sig_atomic_t *stop, profile_data *out, double *wall,
                   verdict_error *err);
};

/* The builtin metric of the experiment's target called name, or NULL. */
const target_metric *target_find_metric(const target_kind *kind, const char *name);

#endif

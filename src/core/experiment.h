/* The experiment model: what an experiment file (YAML) or a command line describes — the
 * variants, the parameters to sweep, the metrics, the budget — before any value is filled in.
 * What is particular to one target (PostgreSQL's servers, a kernel module) is the target's. */
#ifndef VERDICT_CORE_EXPERIMENT_H
#define VERDICT_CORE_EXPERIMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "core/stopping.h"
#include "stats/comparison.h"

typedef struct target_kind target_kind; /* core/target.h */

typedef struct {
    char *name;
    char **values;          /* as text, in the file's order */
    size_t n_values;
} experiment_parameter;

typedef struct {
    char *name;             /* NAME=value pairs below may hold {placeholders} */
    char *value;
} experiment_env;

/* Where a variant's build comes from: a directory as it is on disk (a git work tree's
 * uncommitted edits included), or a commit of a git repository; plus patches. */
typedef struct {
    char *path;             /* absolute; a directory, or the repository of ref; NULL: none */
    char *ref;              /* a commit, branch or tag; NULL: path as it is on disk */
    char **patches;         /* absolute paths, applied in order */
    size_t n_patches, patches_capacity;
} experiment_source;

/* The placeholder of a variant's built tree: {tree} in its command, cwd, env and build. */
#define EXPERIMENT_TREE_PLACEHOLDER "tree"
/* Layout twins per variant: more cost more links and more runs per block, not more
 * statistical power than the runs themselves could give. */
#define EXPERIMENT_MAX_LAYOUTS 64

/* One layout twin of a built variant: the same objects linked in another function order. */
typedef struct {
    uint64_t seed;          /* the link's shuffle seed (experiment_layout_seed) */
    char *tree, *install;   /* the layout's copy of the build, set with build_key */
} experiment_layout;

typedef struct {
    char *name;
    char **command;         /* what runs (target command): words with {placeholders}
                               unsubstituted, NULL-terminated; NULL for other targets */
    size_t n_command;
    bool shell;             /* run the single word command[0] through /bin/sh -c */
    char *build;            /* shell line: with a source, the recipe run in the build's copy
                               of it; without, run once in place before any sample; or NULL */
    experiment_source source;
    char *build_key;        /* the content key of the build (hex), set before the plan is
                               hashed (lab/lab_builds.c); NULL without a source */
    char *tree, *install;   /* the build's tree and install prefix, set with build_key */
    size_t n_layouts;       /* layout twins measured (`layouts:`); 1: the build as it is */
    experiment_layout *layouts; /* n_layouts of them when n_layouts > 1, set with build_key */
    char *cwd;              /* or NULL */
    experiment_env *env;
    size_t n_env;
    int line;               /* where the variant is defined, for messages */
    void *options;          /* the target's own keys of this variant, or NULL */
} experiment_variant;

typedef struct {
    char *name;             /* one of the target's builtin metrics, or a named extraction */
    char *regex;            /* NULL for builtins */
    bool higher_is_better;
} experiment_metric;

typedef enum { FAILURE_ABORT, FAILURE_RETRY, FAILURE_RECORD } failure_policy;

/* How the machines of a fleet share the plan (docs/fleet.md): one machine (the default);
 * every machine runs the whole plan (the machine a factor); or each block by one machine. */
typedef enum { MACHINES_ONE, MACHINES_SURVEY, MACHINES_SHARE } machines_mode;

/* How counter metrics (instructions, page-faults) are counted (docs/metrics.md): by the
 * kernel's perf_event_open (the default), or by running each measured run under Valgrind's
 * cachegrind, exact and slow, where the machine has no hardware counters. */
typedef enum { EXPERIMENT_COUNTERS_PERF, EXPERIMENT_COUNTERS_VALGRIND } experiment_counters;

/* A command run around the measurements (setup, teardown, prepare): a shell line in
 * experiment files; on the command line words split like a shell unless --shell. */
typedef struct {
    char *line;             /* NULL: none */
    bool shell;             /* /bin/sh -c line, else the line's words executed directly */
} experiment_helper;

typedef struct experiment {
    char *path;             /* the file, for messages (the command line: "command line") */
    char *directory;        /* the file's absolute directory, which relative cwds were
                             * resolved against and where setup, teardown and prepare
                             * run (experiment_load); NULL from experiment_parse */
    char *text;             /* the file's bytes (or the command line), stored with results */
    size_t text_length;
    char *name;
    uint64_t seed;
    bool has_seed;
    size_t repetitions;     /* blocks per point; 0 when adaptive */
    bool adaptive;
    size_t min_blocks, max_blocks;
    size_t *looks;          /* adaptive: the planned looks' block counts (`looks:`), the
                             * first min_blocks and the last max_blocks; NULL: the growth
                             * series from min_blocks (core/stopping.h) */
    size_t n_looks;
    spending_kind spending; /* adaptive: how the looks spend alpha */
    double max_seconds;     /* adaptive time budget per point; 0 for none */
    size_t warmup;
    double timeout;         /* per run; 0 for none */
    double confidence, margin;
    comparison_method method; /* `method:`; METHOD_WILCOXON unless given */
    double quantile;          /* `quantile:` of METHOD_QUANTILE; 0: the default (0.1) */
    bool method_given;        /* `method:` or `quantile:` said so: kept for exact counts too,
                                 which otherwise get the t test (analysis_method_for) */
    double reserve_for_more;  /* share of alpha kept for `verdict run --more` (0: none, and
                               * no extension; adaptive experiments keep none unless told) */
    size_t more_blocks;       /* blocks per point added by extensions (read from the store) */
    size_t extended_to[STOPPING_MAX_LOOKS]; /* adaptive: blocks per point after each
                                               extension, in order (lab_looks_apply) */
    size_t n_extended;
    failure_policy on_failure;
    int retries;            /* FAILURE_RETRY */
    experiment_parameter *parameters;
    size_t n_parameters;
    experiment_variant *variants;
    size_t n_variants;
    experiment_metric *metrics;
    size_t n_metrics;
    experiment_helper setup, teardown; /* before / after each point */
    experiment_helper prepare;         /* before every measured run */
    size_t layouts;                    /* the top-level `layouts:` (default of built variants) */
    machines_mode machines;            /* `machines: survey | share` */
    experiment_counters counters;      /* `counters: perf | valgrind` */
    bool counters_given;               /* the file said which */
    bool profile;                      /* `profile: true`: profiled runs in every block */
    char *profile_event;               /* `profile_event:` perf's event; NULL: cpu-clock */
    const target_kind *target;         /* what a run is: a command, a server, a function */
    void *target_options;              /* the target's own top-level keys, or NULL */
} experiment;

/* The targets an experiment file may name ("target: postgres"); the first is the default. */
typedef struct {
    const target_kind *const *kinds;
    size_t n;
} target_table;

/* Reads and validates an experiment file. Errors name FILE:LINE:COLUMN and the key or
 * value at fault; returns 0, or -1 with the message in err. */
int experiment_load(const char *path, const target_table *targets, experiment *out,
                    verdict_error *err);
/* The same from text in memory (name is used in messages); for tests and fuzzing. */
int experiment_parse(const char *name, const char *text, size_t length,
                     const target_table *targets, experiment *out, verdict_error *err);
/* The same with relative paths resolved against directory, as experiment_load does: an
 * experiment read back from a store by a worker, with its files in that directory. */
int experiment_parse_in(const char *name, const char *text, size_t length, const char *directory,
                        const target_table *targets, experiment *out, verdict_error *err);
/* "survey", "share" or "one". */
const char *experiment_machines_name(machines_mode mode);
/* The event profiled runs sample: profile_event, or PROFILE_DEFAULT_EVENT. */
const char *experiment_profile_event(const experiment *e);
/* "perf" or "valgrind". */
const char *experiment_counters_name(experiment_counters counters);
/* An experiment built by hand (the command line): defaults set, nothing else. */
void experiment_init(experiment *e);
/* An experiment file keeps this share of alpha for extensions unless it says otherwise. */
#define EXPERIMENT_DEFAULT_RESERVE 0.2
/* The looks of an adaptive plan (borrows e->looks). */
stopping_rule experiment_stopping_rule(const experiment *e);
/* True when the experiment keeps another share of alpha for `--more` than its kind's
 * default (EXPERIMENT_DEFAULT_RESERVE with repetitions, none when adaptive): the plan's hash
 * and its written file say it then. */
bool experiment_reserve_given(const experiment *e);
/* Sets an adaptive plan's looks from the command line's --looks "10,20,30" (NULL: the growth
 * series kept), which name the first and last block counts, and its --spending NAME (NULL:
 * the default). 0, or -1 with ERROR_USAGE naming the option, or out of memory. */
int experiment_set_looks(experiment *e, const char *looks, const char *spending,
                         verdict_error *err);
/* Blocks per point the plan has now: its repetitions (or adaptive budget) and extensions. */
size_t experiment_blocks(const experiment *e);
void experiment_free(experiment *e);

/* Number of points: the product of the parameters' value counts (1 without parameters). */
size_t experiment_point_count(const experiment *e);
/* The value index of every parameter at point p (mixed-radix, the last parameter fastest). */
void experiment_point_values(const experiment *e, size_t point, size_t *value_index);
/* "clients=4,scale=10" for point p ("default" without parameters); caller frees. */
char *experiment_point_id(const experiment *e, size_t point);
/* Replaces {name} by the parameter's value at point p ("{{" and "}}" are literal braces).
 * Returns a malloc'ed string, or NULL with a message (unknown placeholder). */
char *experiment_substitute(const experiment *e, size_t point, const char *text,
                            verdict_error *err);
/* The same for a shell line (a `shell: true` command, build, setup, teardown, prepare):
 * each value is inserted single-quoted, so it is exactly one shell word and is never
 * interpreted by the shell, whatever characters it holds. */
char *experiment_substitute_shell(const experiment *e, size_t point, const char *text,
                                  verdict_error *err);
/* Both for a variant's own texts in one of its layouts, in which {tree} is that layout's
 * built tree (an error until the build is prepared). */
char *experiment_substitute_variant(const experiment *e, const experiment_variant *v,
                                    size_t layout, size_t point, const char *text,
                                        verdict_error *err);
char *experiment_substitute_variant_shell(const experiment *e, const experiment_variant *v,
                                          size_t layout, size_t point, const char *text,
                                          verdict_error *err);
/* A variant's layouts: n_layouts, and 1 for a variant made without the loader (0 there). */
size_t experiment_variant_layouts(const experiment_variant *v);
/* A variant's built tree and install prefix in one of its layouts (NULL: not built). */
const char *experiment_variant_tree(const experiment_variant *v, size_t layout);
const char *experiment_variant_install(const experiment_variant *v, size_t layout);
/* The shuffle seed of layout k, from the experiment's seed: the same for every variant, so
 * a rerun links the same layouts (and reuses them from the cache). */
uint64_t experiment_layout_seed(const experiment *e, size_t k);
/* The units of a block: every layout of every variant, variant-major. Unit u is layout
 * *layout of variant experiment_unit_variant(e, u, &layout). */
size_t experiment_unit_count(const experiment *e);
size_t experiment_unit_variant(const experiment *e, size_t unit, size_t *layout);
/* The unit index of a variant's layout. */
size_t experiment_unit_index(const experiment *e, size_t variant, size_t layout);
/* Releases a variant's layouts (their trees and installs), keeping n_layouts. */
void experiment_free_layouts(experiment_variant *v);
/* A hash of everything that determines the plan (variants, commands, parameters, seed,
 * repetitions or budget, metrics, the target's keys): resuming with a different plan hash
 * is refused. */
uint64_t experiment_plan_hash(const experiment *e);
/* A hash of the file's bytes. */
uint64_t experiment_text_hash(const experiment *e);
/* True when some variant is built from a source. */
bool experiment_has_sources(const experiment *e);
/* Frees variant v of e, the variants after it moving up one place. */
void experiment_remove_variant(experiment *e, size_t v);
/* Moves variant v of from to the end of into's variants (from loses it), so that one file
 * loaded several times gives one experiment the same variant several times (verdict
 * bisect's commits): both experiments must be of the same target. 0, or -1 with err. */
int experiment_move_variant(experiment *into, experiment *from, size_t v, verdict_error *err);
/* The index of the variant called name, or -1. */
long experiment_variant_index(const experiment *e, const char *name);
/* The index of the metric called name, or -1. */
long experiment_metric_index(const experiment *e, const char *name);

#endif

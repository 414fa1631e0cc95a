/* The command target: every variant is a command line, run as its own process, measured by
 * its rusage (wall, user, sys, cpu, maxrss) or by numbers its output prints. */
#ifndef VERDICT_TARGETS_COMMAND_TARGET_H
#define VERDICT_TARGETS_COMMAND_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "core/experiment.h"
#include "core/target.h"

extern const target_kind command_target;

/* `verdict [OPTIONS] COMMAND COMMAND...` as an experiment of the command target. */
typedef struct {
    const char *const *commands;   /* as typed; the first is the baseline */
    size_t n_commands;
    const char *const *names;      /* report names, or NULL: the command lines */
    size_t n_names;
    /* How commands and helpers run: commands directly and helpers through /bin/sh -c
     * (neither set); both through /bin/sh -c (shell); both through shell_program -c, a
     * shell and its options ("bash --norc"); both directly (no_shell, hyperfine's -N). */
    bool shell;
    const char *shell_program;
    bool no_shell;
    const char *const *metrics;    /* "wall", "user", ..., "NAME=/REGEX/" or a counter
                                      ("instructions"), each with an optional ":higher" or
                                      ":lower"; none: wall (instructions under valgrind) */
    size_t n_metrics;
    bool higher_is_better;         /* for extracted metrics given no direction */
    const char *prepare, *setup, *cleanup;  /* or NULL; prepare: before every run */
    const char *const *prepares;   /* or one prepare per command (n_commands of them) */
    size_t n_prepares;
    const char *const *concludes;  /* after every run: one for all or one per command */
    size_t n_concludes;
    const char *input;             /* every run's stdin; NULL: /dev/null */
    const char *output;            /* null, pipe, inherit or a file; NULL: null */
    const experiment_parameter *parameters; /* swept: {NAME} in commands and helpers */
    size_t n_parameters;
    size_t runs;                   /* fixed blocks; 0: adaptive */
    size_t min_runs, max_runs;
    const char *looks;             /* adaptive: --looks "10,20,30", or NULL (min, max) */
    const char *spending;          /* adaptive: --spending NAME, or NULL (the default) */
    double max_seconds, timeout;
    size_t warmup;
    uint64_t seed;
    bool has_seed;                 /* false: the caller settles one before running */
    double confidence, margin;
    comparison_method method;      /* --method (and --quantile), kept for `verdict report` */
    double quantile;
    bool method_given;             /* --method or --quantile: kept for exact counts too */
    bool ignore_failure;
    experiment_counters counters;  /* --counters perf (default) or valgrind */
    bool profile;                  /* --profile */
    const char *profile_event;     /* --profile-event, or NULL: cpu-clock */
} command_line_spec;

/* Builds the experiment; its text is the experiment file that says the same, which the
 * store keeps for `verdict report`. Words are literal except {NAME} of a parameter. 0, or
 * -1 with err (kind usage) naming the command or metric at fault; experiment_free either way. */
int command_experiment(const command_line_spec *spec, experiment *out, verdict_error *err);

#endif

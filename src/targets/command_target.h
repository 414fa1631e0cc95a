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
    bool shell;                    /* run commands (and helpers) through /bin/sh -c */
    const char *const *metrics;    /* "wall", "user", ... or "NAME=/REGEX/"; none: wall */
    size_t n_metrics;
    bool higher_is_better;         /* for every metric given */
    const char *prepare, *setup, *cleanup;  /* or NULL */
    size_t runs;                   /* fixed blocks; 0: adaptive */
    size_t min_runs, max_runs;
    double max_seconds, timeout;
    size_t warmup;
    uint64_t seed;
    bool has_seed;                 /* false: the caller settles one before running */
    double confidence, margin;
    bool ignore_failure;
} command_line_spec;

/* Builds the experiment; its text is the experiment file that says the same, which the
 * store keeps for `verdict report`. Words are literal: braces are no placeholders. 0, or
 * -1 with err (kind usage) naming the command or metric at fault; experiment_free either way. */
int command_experiment(const command_line_spec *spec, experiment *out, verdict_error *err);

#endif

/* The kernel target: functions of a shared object (include/verdict/kernel.h) timed in-process,
 * one calibrated batch per sample, as ns_per_call, (with bytes) gbps, or counters per call. */
#ifndef VERDICT_TARGETS_KERNEL_TARGET_H
#define VERDICT_TARGETS_KERNEL_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "core/experiment.h"
#include "core/target.h"

extern const target_kind kernel_target;

#define KERNEL_DEFAULT_SAMPLE_SECONDS 0.010

/* Why a kernel's counters are perf's only (target_kind's no_valgrind). */
#define KERNEL_NO_VALGRIND "a kernel runs inside verdict's own process, which verdict does not " \
    "put under valgrind; its counters are perf's: task-clock and page-faults anywhere, " \
    "instructions where the machine has a PMU"

/* The target's keys: `kernel: {module, sample_time, iterations, arg}`. */
typedef struct {
    char *module;                /* the shared object */
    double sample_seconds;       /* calibration target */
    uint64_t iterations;         /* > 0: calls per sample, no calibration */
    char *arg;                   /* passed to setup; may hold {placeholders}; or NULL */
} kernel_options;

/* `verdict kernel MODULE K1 K2...` as an experiment of the kernel target. */
typedef struct {
    const char *module;
    const char *const *kernels;  /* the first is the baseline; a name may repeat (A/A) */
    size_t n_kernels;
    const char *arg;             /* or NULL */
    const char *sweep;           /* "NAME=V1,V2": a point per value, or NULL */
    size_t runs;                 /* fixed blocks per point; 0: adaptive */
    size_t min_runs, max_runs;
    const char *looks;           /* adaptive: --looks "10,20,30", or NULL (min, max) */
    const char *spending;        /* adaptive: --spending NAME, or NULL (the default) */
    double sample_seconds;
    uint64_t iterations;
    size_t warmup;
    uint64_t seed;
    bool has_seed;               /* false: the caller settles one before running */
    double confidence, margin;
    const char *const *metrics;  /* --metric: builtins or counters, per call; NULL: the builtins */
    size_t n_metrics;
    experiment_counters counters; /* --counters: perf only (KERNEL_NO_VALGRIND) */
} kernel_line_spec;

/* The bounds of `sample_time` (above 0, at most KERNEL_MAX_SAMPLE_SECONDS) and of
 * `iterations` (1 to KERNEL_MAX_ITERATIONS): 0, or -1 with why ("VALUE: the bound"). */
int kernel_check_sample_time(double seconds, verdict_error *why);
int kernel_check_iterations(uint64_t iterations, verdict_error *why);

/* Builds the experiment, its text the experiment file that says the same (as the store
 * keeps it). 0, or -1 with err; experiment_free either way. */
int kernel_experiment(const kernel_line_spec *spec, experiment *out, verdict_error *err);

/* Facts the target records: how many calls made a sample of each kernel at each point. */
#define KERNEL_CALLS_FACT "kernel.calls"

#endif

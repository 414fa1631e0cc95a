/* In-process benchmarks: loads a module of kernels (include/verdict/kernel.h), calibrates
 * a batch size per kernel, then times samples in seeded shuffled complete blocks. */
#ifndef VERDICT_CORE_KERNEL_RUNNER_H
#define VERDICT_CORE_KERNEL_RUNNER_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/analysis.h"
#include "core/stopping.h"
#include "verdict/kernel.h"

/* ---- loading ---------------------------------------------------------------------- */

typedef struct kernel_module kernel_module;

/* dlopens path and checks its ABI version. Returns 0, or -1 with a message naming the
 * path and the fault (missing file, not a shared object, symbol missing, ABI mismatch). */
int kernel_module_open(const char *path, kernel_module **out, char *err, size_t errlen);
/* Runs nothing; dlcloses the module. Accepts NULL. */
void kernel_module_close(kernel_module *module);
size_t kernel_module_count(const kernel_module *module);
const verdict_kernel *kernel_module_at(const kernel_module *module, size_t index);
/* The kernel called name, or NULL with a message listing the module's kernels. */
const verdict_kernel *kernel_module_find(const kernel_module *module, const char *name, char *err,
                                         size_t errlen);

/* ---- calibration ------------------------------------------------------------------ */

typedef struct {
    uint64_t iterations;   /* batch size: calls per sample */
    double seconds;        /* duration of the last trial at that batch size */
    size_t trials;         /* timed trials calibration took */
    bool single_call_too_long; /* one call already exceeds the target */
} kernel_calibration;

/* Finds the batch size whose sample takes about target_seconds (see kernel_runner.c for
 * the method). The kernel's state must be set up. */
void kernel_calibrate(const verdict_kernel *kernel, void *state, double target_seconds,
                      kernel_calibration *out);
/* Seconds (CLOCK_MONOTONIC) that kernel->run(state, iterations) takes. */
double kernel_time_batch(const verdict_kernel *kernel, void *state, uint64_t iterations);

/* One timed batch with the thread's CPU time beside the wall time: their difference is
 * time the thread spent off the CPU (preempted by another process or the hypervisor). */
typedef struct {
    double seconds;        /* wall, CLOCK_MONOTONIC */
    double cpu_seconds;    /* CLOCK_THREAD_CPUTIME_ID */
} kernel_timing;

void kernel_time_batch_cpu(const verdict_kernel *kernel, void *state, uint64_t iterations,
                           kernel_timing *out);
/* True when the batch lost more than KERNEL_MAX_OFF_CPU of its wall time off the CPU. */
bool kernel_timing_preempted(const kernel_timing *timing);
#define KERNEL_MAX_OFF_CPU 0.02
/* A preempted sample is taken again at once, at most this often; then it is kept, tainted. */
#define KERNEL_MAX_RETAKES 3

/* ---- sessions --------------------------------------------------------------------- */

typedef enum { KERNEL_NS_PER_CALL, KERNEL_GBPS, KERNEL_N_METRICS } kernel_metric;

const char *kernel_metric_name(kernel_metric metric);

typedef struct {
    size_t points_done, n_points, blocks_done, blocks_planned;
    double elapsed;
} kernel_progress;

typedef struct {
    const verdict_kernel *const *kernels; /* the first is the baseline */
    const char *const *kernel_names;      /* how reports call them (unique) */
    size_t n_kernels;
    const char *const *point_args;        /* passed to setup; an entry may be NULL */
    const char *const *point_ids;         /* "size=64", or "default" */
    size_t n_points;
    double sample_seconds;                /* calibration target */
    uint64_t fixed_iterations;            /* > 0: this batch size, no calibration */
    size_t warmup;                        /* unmeasured samples of each kernel per point */
    bool adaptive;
    size_t blocks;                        /* fixed: blocks per point */
    stopping_rule stopping;               /* adaptive: looks and budget per point */
    uint64_t seed;
    analysis_options analysis;            /* adaptive looks */
    void (*progress)(void *context, const kernel_progress *progress);
    void *progress_context;
} kernel_config;

typedef struct {
    size_t point, kernel;
    long block, seq;
    uint64_t iterations;
    double seconds;        /* of the whole batch */
    double cpu_seconds;    /* the thread's CPU time during it */
    double started;        /* seconds since the session began */
    unsigned retakes;      /* preempted takes discarded before this one */
    bool tainted;          /* still preempted after KERNEL_MAX_RETAKES retakes */
} kernel_sample;

/* What setup and calibration decided for one kernel at one point. */
typedef struct {
    uint64_t iterations, bytes_per_call;
    kernel_calibration calibration;
} kernel_setting;

typedef enum { KERNEL_DONE, KERNEL_INTERRUPTED } kernel_status;

typedef struct {
    kernel_status status;
    kernel_sample *samples;          /* in the order taken */
    size_t n_samples, capacity;
    size_t *complete_blocks;         /* per point */
    bool *decided;                   /* adaptive, per point */
    kernel_setting *settings;        /* [point * n_kernels + kernel] */
    size_t points_started;
    size_t looks_taken;
    size_t retakes;                  /* preempted samples taken again, in all */
    bool budget_spent;               /* adaptive: some point undecided at its last look */
    double look_confidence;          /* confidence each interval must use */
    double elapsed;
} kernel_outcome;

/* Runs every point: setup, calibration, warmup, blocks, teardown. Returns 0 (status says
 * whether *stop cut it short; the analysis should use complete blocks only), or -1 with
 * a message when a setup failed or memory ran out. The outcome must be freed either way. */
int kernel_run(const kernel_config *config, volatile sig_atomic_t *stop, kernel_outcome *out,
               char *err, size_t errlen);
void kernel_outcome_free(kernel_outcome *outcome);

/* The metric's value for one sample (NaN for gbps without bytes per call). */
double kernel_sample_value(const kernel_config *config, const kernel_outcome *outcome,
                           const kernel_sample *sample, kernel_metric metric);
/* True when every kernel at the point processes bytes, so gbps is compared there. */
bool kernel_point_has_gbps(const kernel_config *config, const kernel_outcome *outcome,
                           size_t point);
/* Series of one point for analysis: ns_per_call of every kernel, then gbps when the point
 * has it, each over the complete blocks in block order. values must hold
 * KERNEL_N_METRICS * n_kernels * complete_blocks doubles and series
 * KERNEL_N_METRICS * n_kernels entries. Returns the number of series written. */
size_t kernel_point_series(const kernel_config *config, const kernel_outcome *outcome,
                           size_t point, double *values, analysis_series *series);

#endif

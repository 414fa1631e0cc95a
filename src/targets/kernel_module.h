/* Kernel modules (include/verdict/kernel.h): loading a shared object with dlopen and its
 * ABI check, and calibrating a batch size so that one sample lasts about a target time. */
#ifndef VERDICT_TARGETS_KERNEL_MODULE_H
#define VERDICT_TARGETS_KERNEL_MODULE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "verdict/kernel.h"
#include "common/error.h"

/* ---- loading ---------------------------------------------------------------------- */

typedef struct kernel_module kernel_module;

/* dlopens path and checks its ABI version. Returns 0, or -1 with a message naming the
 * path and the fault (missing file, not a shared object, symbol missing, ABI mismatch). */
int kernel_module_open(const char *path, kernel_module **out, verdict_error *err);
/* Runs nothing; dlcloses the module. Accepts NULL. */
void kernel_module_close(kernel_module *module);
size_t kernel_module_count(const kernel_module *module);
const verdict_kernel *kernel_module_at(const kernel_module *module, size_t index);
/* The kernel called name, or NULL with a message listing the module's kernels. */
const verdict_kernel *kernel_module_find(const kernel_module *module, const char *name,
                                         verdict_error *err);

/* ---- calibration ------------------------------------------------------------------ */

typedef struct {
    uint64_t iterations;   /* batch size: calls per sample */
    double seconds;        /* duration of the last trial at that batch size */
    size_t trials;         /* timed trials calibration took */
    bool single_call_too_long; /* one call already exceeds the target */
} kernel_calibration;

/* The most calls one sample makes (`iterations`, --iterations, calibration's largest). */
#define KERNEL_MAX_ITERATIONS (UINT64_C(1) << 42)
/* The longest sample calibration aims at (`sample_time`, --sample-time): calibration's
 * trials are not cut short, so this bounds how long a stop request waits for one. */
#define KERNEL_MAX_SAMPLE_SECONDS 1.0
/* A batch longer than this is run in pieces, so that a stop request is honoured soon. */
#define KERNEL_PIECE_SECONDS 0.25

/* Finds the batch size whose sample takes about target_seconds (see kernel_module.c for
 * the method), stopping between trials once *stop is set (stop may be NULL). The
 * kernel's state must be set up. */
void kernel_calibrate(const verdict_kernel *kernel, void *state, double target_seconds,
                      volatile sig_atomic_t *stop, kernel_calibration *out);
/* How many calls last about `seconds`, from batches of a few milliseconds: the size of the
 * pieces of a batch given by `iterations` (no calibration). At least 1. */
uint64_t kernel_calls_lasting(const verdict_kernel *kernel, void *state, double seconds);
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
/* The same batch as calls of at most `piece` iterations each (one call when iterations <=
 * piece), *stop read between them: false when a stop came before the batch ended. */
bool kernel_time_batch_pieces(const verdict_kernel *kernel, void *state, uint64_t iterations,
                              uint64_t piece, volatile sig_atomic_t *stop, kernel_timing *out);
/* True when the batch lost more than KERNEL_MAX_OFF_CPU of its wall time off the CPU. */
bool kernel_timing_preempted(const kernel_timing *timing);
#define KERNEL_MAX_OFF_CPU 0.02
/* A preempted sample is taken again at once, at most this often; then it is kept, tainted. */
#define KERNEL_MAX_RETAKES 3

#endif

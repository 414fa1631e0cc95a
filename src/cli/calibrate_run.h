/* Running verdict calibrate's A/A experiments: one command (the built-in spin or the user's)
 * as both variants of a command experiment, run N times through the engine into one store. */
#ifndef VERDICT_CLI_CALIBRATE_RUN_H
#define VERDICT_CLI_CALIBRATE_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

/* The built-in workload, a dependency chain of integer mixing as examples/spin does: its
 * time is proportional to rounds. Returns the checksum (printed, so nothing is optimised away). */
uint64_t calibrate_spin(uint64_t rounds);
/* Rounds of calibrate_spin that take about `seconds` on this machine now, measured in-process
 * (the fastest of a few trials: the undisturbed speed), rounded to 100000, at least 100000. */
uint64_t calibrate_spin_rounds_for(double seconds);

typedef struct {
    const char *command;        /* the command line both variants run (split like a shell) */
    const char *store_path;     /* ":memory:": nothing kept */
    size_t experiments, runs;   /* N experiments of R blocks */
    uint64_t seed;              /* experiment i (from 0) has seed + i */
    bool progress;              /* draw the progress line on stderr when it is a terminal */
} calibrate_plan;

typedef struct {
    double *a, *b;              /* wall seconds, runs per experiment, experiment-major */
    bool *a_first;              /* a ran before b in the block */
    size_t runs;
    size_t done;                /* experiments complete (every block measured) */
    double elapsed;             /* seconds in the engine */
} calibrate_runs;

/* Runs (or resumes, in a store that has them) the experiments named calibrate-SEED-I. 0 when
 * all are done; -1 with err otherwise (interrupted: out holds the experiments complete;
 * command failed, store, usage). out is filled either way; calibrate_runs_free. */
int calibrate_run(const calibrate_plan *plan, calibrate_runs *out, verdict_error *err);
void calibrate_runs_free(calibrate_runs *runs);

#endif

/* How long an experiment's plan will take, before anything runs (`verdict run --dry-run`):
 * the runs to go times the mean run its store has measured, or a bound from its timeout. */
#ifndef VERDICT_LAB_LAB_ESTIMATE_H
#define VERDICT_LAB_LAB_ESTIMATE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/experiment.h"
#include "lab/lab_looks.h"

typedef struct {
    size_t blocks;           /* blocks per point, extensions included */
    size_t extensions;       /* `--more`s the store holds */
    size_t runs_planned;     /* measured runs of the whole plan (extensions included) */
    size_t runs_stored;      /* of those, already in the store */
    size_t warmup_runs;      /* unmeasured runs before each point's first block */
    double mean_run_seconds; /* of the stored runs that kept their time; NaN when none */
    double seconds_left;     /* the runs (and warmups) to go at that mean; NaN: unknown */
    double seconds_bound;    /* at most this with every run at its timeout; NaN: no bound */
    lab_looks looks;         /* the extensions the store holds (lab_looks_apply gives the
                                plan its looks: the dry run shows an extended plan's) */
} lab_estimate;

/* Reads what the store at store_path holds of the experiment, when the store exists (it is
 * never created nor changed); a store that cannot be read gives no stored runs. */
void lab_estimate_duration(const char *store_path, const experiment *e, lab_estimate *out);

#endif

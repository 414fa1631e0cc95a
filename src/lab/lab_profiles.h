/* An experiment's profiled runs read back from its store, each paired with the time its
 * unit measured in the same block, and compared for every comparison of the analysis. */
#ifndef VERDICT_LAB_LAB_PROFILES_H
#define VERDICT_LAB_LAB_PROFILES_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "core/analysis.h"
#include "core/profile_compare.h"
#include "store/store.h"

typedef struct {
    profile_run *runs;
    size_t n_runs, runs_capacity;
    profile_comparison *comparisons; /* one per analysis comparison (n_blocks 0: none) */
    size_t n_comparisons;
} lab_profiles;

/* Reads the profiles (none: every comparison without blocks) and compares, for each of the
 * analysis's comparisons, the candidate's profiles with the baseline's at its point and on
 * its machine, at the confidence given. 0, or -1 with err. */
int lab_profiles_load(store *db, int64_t experiment_id, const analysis_series *series,
                      const analysis_result *a, double confidence, lab_profiles *out,
                      verdict_error *err);
void lab_profiles_free(lab_profiles *p);

#endif

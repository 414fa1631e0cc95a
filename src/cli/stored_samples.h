/* Samples read back from a results store into memory, with owned strings, and lookups by
 * point, variant, block and metric — the shared input of `verdict run` and `verdict report`. */
#ifndef VERDICT_CLI_STORED_SAMPLES_H
#define VERDICT_CLI_STORED_SAMPLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

typedef struct {
    char *point, *variant, *taint_reason;
    long block, seq;
    double started, wall, user, sys, maxrss_kib, steal, other_busy, load1;
    long voluntary_switches, involuntary_switches;
    int exit_code;
    bool timed_out, tainted;
    char **metric_names;
    double *metric_values;
    size_t n_metrics;
} stored_sample;

typedef struct {
    stored_sample *items;
    size_t n, capacity;
} stored_samples;

int stored_samples_load(store *s, int64_t experiment_id, stored_samples *out, char *err,
                        size_t errlen);
void stored_samples_free(stored_samples *samples);
/* The value of a metric: an extracted/compared one by name, else the builtin columns
 * (wall, user, sys, cpu, maxrss). False when the sample has no such metric. */
bool stored_metric(const stored_sample *sample, const char *name, double *value);
/* The sample of (point, variant, block), or NULL. */
const stored_sample *stored_find(const stored_samples *samples, const char *point,
                                 const char *variant, long block);

#endif

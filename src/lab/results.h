/* An experiment's results read back from its store, in the shapes the reports and the
 * analysis take: points with their parameters, variants, every sample, the series per
 * (point, metric, variant) over the blocks complete for that metric, facts and warnings. */
#ifndef VERDICT_LAB_RESULTS_H
#define VERDICT_LAB_RESULTS_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "common/strbuf.h"
#include "core/analysis.h"
#include "core/experiment.h"
#include "lab/lab_store.h"
#include "report/report.h"
#include "store/store.h"

typedef struct {
    report_point *points;
    size_t n_points;
    report_variant *variants;
    size_t n_variants;
    report_sample *samples;          /* in measurement order */
    size_t n_samples;
    analysis_series *series;         /* (point, metric, variant), metrics with values only */
    size_t n_series;
    report_fact *facts;              /* the latest run's facts, warnings left out */
    size_t n_facts;
    lab_warning *warnings;           /* left by the engine and the target */
    size_t n_warnings;
    report_build *builds;            /* what each variant ran (LAB_BUILDS_FACT) */
    size_t n_builds, builds_capacity;
    report_machine *machines;        /* by name; one ("") on a local store */
    size_t n_machines;
    size_t *complete_blocks;         /* per point, of the first metric (all machines) */
    size_t *runs, *disturbed;        /* per (point, variant): runs in blocks, tainted ones */
    const char **disturbance;        /* per (point, variant): one taint reason, or NULL */
    /* storage */
    const char **variant_words;      /* the variants' command words, as shown */
    char **point_ids;
    const char ***param_values;
    const char **param_names;
    char **strings;                  /* copies of the samples' and facts' texts */
    size_t n_strings, strings_capacity;
    const char **sample_metric_names;
    size_t n_sample_metrics;
    double *sample_values;
    double *series_values;
    size_t samples_capacity, warnings_capacity, facts_capacity;
} lab_results;

int lab_results_load(store *db, int64_t experiment_id, const experiment *e, lab_results *out,
                     verdict_error *err);
void lab_results_free(lab_results *r);

#endif

/* Analysis of measured series: per-series summaries and diagnostics, every candidate
 * compared with its point's baseline, and family-wise error control across them all. */
#ifndef VERDICT_CORE_ANALYSIS_H
#define VERDICT_CORE_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stats/comparison.h"
#include "stats/descriptive.h"

typedef enum {
    ADJUST_HOLM, /* family-wise error: Holm p-values, Bonferroni intervals (default) */
    ADJUST_BH,   /* false discovery rate: BH p-values, Benjamini–Yekutieli FCR intervals */
    ADJUST_NONE
} adjust_method;

typedef struct {
    const char *point;    /* point id ("default" without a sweep) */
    const char *metric;   /* series of one (point, metric) are contiguous; the first is the baseline */
    const char *variant;
    const double *values; /* in measurement order (block order when paired) */
    size_t n;
    bool higher_is_better; /* the metric's direction */
} analysis_series;

/* True when two series belong to the same comparison group (same point and metric). */
bool analysis_same_group(const analysis_series *a, const analysis_series *b);

typedef struct {
    comparison_method method;
    bool paired;
    double confidence;    /* family level requested by the user */
    double margin;
    adjust_method adjust;
    uint64_t seed;
} analysis_options;

typedef struct {
    char *code, *point, *variant, *message;
} analysis_warning;

typedef struct {
    size_t baseline, candidate; /* indices into the series */
    bool ok;                    /* false: the comparison could not be computed */
    char *error;                /* why, when !ok */
    comparison result;
    double p_adjusted;
} analysis_comparison;

/* A candidate's effect across all points of a sweep (geometric mean of the ratios). */
typedef struct {
    const char *baseline, *candidate, *metric; /* borrowed from the series */
    size_t n_points;
    double ratio, ci_low, ci_high, confidence;
    verdict_decision decision;
} analysis_overall;

typedef struct {
    stats_summary *summaries;   /* one per series */
    analysis_comparison *comparisons;
    size_t n_comparisons;
    double interval_confidence; /* level each interval was computed at after adjustment */
    analysis_warning *warnings;
    size_t n_warnings, warnings_capacity;
    analysis_overall *overall;  /* only when comparisons span several points */
    size_t n_overall;
} analysis_result;

int analysis_run(const analysis_series *series, size_t n_series, const analysis_options *options,
                 analysis_result *out, char *err, size_t errlen);
void analysis_result_free(analysis_result *result);
/* Adds a warning found outside the analysis (the runner's); copies the strings. */
int analysis_add_warning(analysis_result *result, const char *code, const char *point,
                         const char *variant, const char *message);
const char *adjust_method_name(adjust_method method);
/* How a comparison's values are rounded, for messages: "to 2 significant digits" or
 * "to multiples of 0.01". */
void analysis_describe_rounding(const comparison *c, char *buf, size_t len);

#endif

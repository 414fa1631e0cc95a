/* Analysis of measured series: per-series summaries and diagnostics, every candidate
 * compared with its point's baseline, and family-wise error control across them all. */
#ifndef VERDICT_CORE_ANALYSIS_H
#define VERDICT_CORE_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stats/comparison.h"
#include "common/error.h"
#include "stats/descriptive.h"

typedef enum {
    ADJUST_HOLM, /* family-wise error: Holm p-values, Bonferroni intervals (default) */
    ADJUST_BH,   /* false discovery rate: BH p-values, Benjamini–Yekutieli FCR intervals */
    ADJUST_NONE
} adjust_method;

/* One unit's values at one point of one metric. A variant with layout twins has one
 * series per layout, contiguous, layout 0 first; its comparisons are made across them. */
typedef struct {
    const char *point;    /* point id ("default" without a sweep) */
    const char *metric;   /* series of one (point, metric) are contiguous; the first is the baseline */
    const char *variant;
    size_t layout;        /* which layout twin of the variant (0 without twins) */
    size_t n_layouts;     /* the variant's layout twins (0 or 1: none) */
    bool built;           /* a build verdict made from a source (the layout warning) */
    const double *values; /* in measurement order (block order when paired) */
    size_t n;
    bool higher_is_better; /* the metric's direction */
    const char *machine;   /* the machine that took the values; NULL or "": the one machine */
    bool exact_counts;     /* the metric is a count, exact as taken (a counter, Go's allocs/op):
                              no rounding allowance, and the t test on logs by default
                              (docs/statistics.md, "Exact and near-exact data") */
} analysis_series;

/* True when two series belong to the same comparison group (same point, metric, machine). */
bool analysis_same_group(const analysis_series *a, const analysis_series *b);

typedef struct {
    comparison_method method;
    bool paired;
    double confidence;    /* family level requested by the user */
    double margin;
    adjust_method adjust;
    uint64_t seed;
    bool method_given;    /* method was asked for: kept for exact counts too */
    double quantile;      /* METHOD_QUANTILE: the quantile compared; 0 = 0.1 */
} analysis_options;

typedef struct {
    char *code, *point, *variant, *message;
} analysis_warning;

/* What a comparison across layout twins adds (docs/statistics.md, "Layout twins"). */
typedef struct {
    size_t n_baseline, n_candidate; /* K of each variant */
    double spread;              /* sd of layout effects, relative (exp(σ) - 1: 0.031 = 3.1%) */
    long needed_layouts;        /* inconclusive: layouts per variant likely to decide; or -1 */
    double binary_estimate;     /* the ratio of the two first layouts' binaries alone (NaN:
                                   not computed), and what comparing them alone would say: */
    double binary_low, binary_high, binary_p;
    verdict_kind binary_kind;
    bool binary_within_noise;   /* layout and run noise alone explain the binary-level ratio */
    double binary_noise_band;   /* ±this (relative) is what they give a no-op change */
    double *baseline_locations;  /* per layout, log scale, block-adjusted; one allocation */
    double *candidate_locations; /* holds both: candidate's follow the baseline's */
} analysis_layouts;

/* One decile of the shift function (Doksum; Wilcox): each variant's Harrell-Davis estimate
 * of quantile q and their ratio, to show where two distributions differ. */
#define ANALYSIS_DECILES 9
typedef struct {
    double q, baseline, candidate, ratio;
} analysis_decile;

typedef struct {
    size_t baseline, candidate; /* indices into the series (layout 0 of each variant) */
    bool ok;                    /* false: the comparison could not be computed */
    char *error;                /* why, when !ok */
    comparison result;
    double p_adjusted;
    bool across_layouts;        /* result is the layout-aware comparison; layouts is set */
    analysis_layouts layouts;
    bool has_shift_function;    /* METHOD_QUANTILE: the deciles 0.1 .. 0.9 below are set */
    analysis_decile shift_function[ANALYSIS_DECILES];
} analysis_comparison;

/* A candidate's effect across all points of a sweep (geometric mean of the ratios). */
typedef struct {
    const char *baseline, *candidate, *metric; /* borrowed from the series */
    size_t n_points;
    double ratio, ci_low, ci_high, confidence;
    verdict_decision decision;
} analysis_overall;

/* One candidate against its baseline at one point, pooled over the machines of a fleet: a
 * random-effects meta-analysis of the per-machine log ratios (docs/statistics.md, "Across
 * machines"). The per-machine comparisons are the ones of the same point, metric and
 * variants on each machine. */
typedef struct {
    const char *point, *metric, *baseline, *candidate; /* borrowed from the series */
    bool higher_is_better;
    size_t *members;            /* the per-machine comparisons pooled (indices) */
    size_t n_machines;
    bool ok;                    /* false: fewer than two machines, or the pooling failed */
    char *error;                /* why, when !ok */
    double ratio, ci_low, ci_high;  /* pooled, at `confidence` (Hartung-Knapp) */
    double confidence;
    double p_value, p_adjusted;
    double predict_low, predict_high; /* where a machine not in the fleet is expected */
    double tau;                 /* between-machine sd of the log ratios */
    double i2;                  /* share of the spread that is between machines (0..1) */
    size_t n_better, n_worse;   /* machines whose own verdict says so */
    verdict_decision decision;
} analysis_fleet;

typedef struct {
    stats_summary *summaries;   /* one per series */
    analysis_comparison *comparisons;
    size_t n_comparisons;
    double interval_confidence; /* level each interval was computed at after adjustment */
    analysis_warning *warnings;
    size_t n_warnings, warnings_capacity;
    analysis_overall *overall;  /* only when comparisons span several points */
    size_t n_overall;
    analysis_fleet *fleet;      /* only when comparisons span several machines */
    size_t n_fleet;
    double fleet_confidence;    /* level of the pooled intervals after adjustment */
} analysis_result;

/* Pools the comparisons of several machines (analysis_fleet.c); called by analysis_run. */
int analysis_pool_machines(const analysis_series *series, const analysis_options *options,
                           analysis_result *r);
void analysis_fleet_free(analysis_result *r);
/* The machine of a comparison ("" on one machine). */
const char *analysis_comparison_machine(const analysis_series *series,
                                        const analysis_comparison *c);

int analysis_run(const analysis_series *series, size_t n_series, const analysis_options *options,
                 analysis_result *out, verdict_error *err);
void analysis_result_free(analysis_result *result);
/* Adds a warning found outside the analysis (the runner's); copies the strings. */
int analysis_add_warning(analysis_result *result, const char *code, const char *point,
                         const char *variant, const char *message);
const char *adjust_method_name(adjust_method method);
/* How a comparison's values are rounded, for messages: "to 2 significant digits" or
 * "to multiples of 0.01". */
void analysis_describe_rounding(const comparison *c, char *buf, size_t len);
/* The method a comparison of these series uses: the options', or for exact counts, unless a
 * method was asked for, the t test on logs (a rank test cannot decide in 5 blocks). */
comparison_method analysis_method_for(const analysis_options *o, const analysis_series *baseline,
                                      const analysis_series *candidate);

#endif

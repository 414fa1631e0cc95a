/* The analysis of A/A experiments (`verdict calibrate`): how often each method calls two
 * runs of one program different, the exact interval of that rate, and the noise's profile. */
#ifndef VERDICT_STATS_CALIBRATION_H
#define VERDICT_STATS_CALIBRATION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "shift.h"

/* The methods an A/A self-test compares: the three of comparison.h and the paired
 * comparison of a low quantile (quantile_compare.h), called directly. */
typedef enum {
    CALIBRATION_WILCOXON,
    CALIBRATION_WELCH,
    CALIBRATION_BOOTSTRAP,
    CALIBRATION_QUANTILE,
    CALIBRATION_METHODS /* not a method: how many there are */
} calibration_method;

/* "wilcoxon", "welch", "bootstrap", "quantile": the names --method takes. */
const char *calibration_method_name(calibration_method method);
/* The method of that name: 0, or -1 with a usage error naming the text and the choices. */
int calibration_method_parse(const char *text, calibration_method *out, verdict_error *err);

/* One A/A experiment: the same program as two variants, a and b, run once each per block in
 * a shuffled order; a[i], b[i] are block i's runs (positive), a_first[i] says a ran first.
 * The blocks are in the order they ran. */
typedef struct {
    const double *a, *b;
    const bool *a_first;
    size_t blocks;
} calibration_experiment;

/* A run is slow when it takes more than this times its variant's 10th percentile in its
 * experiment: on these VMs the fast mode spans a few percent and interference adds 15-35%. */
#define CALIBRATION_SLOW_FACTOR 1.1
#define CALIBRATION_SLOW_QUANTILE 0.1

typedef struct {
    double confidence;          /* each comparison's level, in (0, 1) */
    double margin;              /* the equivalence margin the verdict rules use */
    calibration_method method;  /* the method whose calls give the rate */
    uint64_t seed;              /* the bootstrap's resamples and the quantile's flips */
} calibration_options;

typedef struct {
    size_t compared;            /* experiments the method could analyse */
    size_t false_positives;     /* experiments it called better or worse */
    double median_half_width;   /* of the ratio's interval, relative (0.02: +-2%); INFINITY
                                   when most of its intervals are unbounded or below their
                                   level (too few blocks for it), NAN: none compared */
} calibration_method_result;

typedef struct {
    size_t experiments;         /* analysed */
    size_t false_positives;     /* of the chosen method */
    double rate, rate_low, rate_high; /* false_positives / experiments, Clopper-Pearson */
    double cv;                  /* median over (experiment, variant) of sd / mean of its runs */
    double slow_share;          /* runs above CALIBRATION_SLOW_FACTOR x their variant's P10 */
    double lag1;                /* lag-1 autocorrelation of every run in the order run */
    shift_result order;         /* the mean of log(second run / first run) over the blocks,
                                   paired t; on the log scale */
    calibration_method_result methods[CALIBRATION_METHODS];
    bool has_fastest;
    calibration_method fastest; /* the narrowest finite median half-width among the methods
                                   whose rate's exact interval reaches down to alpha */
} calibration_result;

/* Analyses n >= 1 A/A experiments of at least 2 blocks each. 0, or -1 with err: bad input
 * (a value not positive and finite, too few blocks, options out of range), no memory. */
int calibration_analyse(const calibration_experiment *x, size_t n, const calibration_options *o,
                        calibration_result *out, verdict_error *err);

/* The exact (Clopper-Pearson) interval of a binomial proportion, as R's binom.test:
 * successes of trials (trials >= 1), at confidence in (0, 1). */
void calibration_clopper_pearson(size_t successes, size_t trials, double confidence,
                                 double *low, double *high);

/* The lag-1 autocorrelation as R's acf(x)$acf[2]: sum (x_t - m)(x_t+1 - m) / sum (x_t - m)^2.
 * NAN for fewer than 3 values or constant ones. */
double calibration_lag1(const double *x, size_t n);

/* Share of x above factor times x's q-th quantile (R type 7); n >= 1. */
double calibration_share_above(const double *x, size_t n, double q, double factor);

#endif

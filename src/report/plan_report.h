/* The planner's output (`verdict plan`): the variance components and costs it read, the
 * allocation it recommends, its expected duration and the experiment file's lines. */
#ifndef VERDICT_REPORT_PLAN_REPORT_H
#define VERDICT_REPORT_PLAN_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "common/error.h"
#include "stats/plan_design.h"

/* One comparison (point, metric, machine, candidate against baseline); strings borrowed. */
typedef struct {
    const char *point, *metric, *machine, *baseline, *candidate;
    size_t blocks_measured;       /* complete blocks its estimates come from */
    size_t layouts_measured;      /* layout pairs (1 without twins) */
    plan_components components;
    plan_allocation alone;        /* the cheapest plan for this comparison alone */
} plan_report_row;

/* A fleet's candidate against its baseline at one point, pooled over its machines: the
 * between-machine sd τ of the log ratios (core/analysis.h's analysis_fleet). */
typedef struct {
    const char *point, *metric, *baseline, *candidate;
    size_t machines;
    double tau;
} plan_report_fleet;

typedef struct {
    const char *experiment, *store;
    bool pilot;                   /* the rows come from a pilot the planner ran */
    plan_target target;           /* alpha: one comparison's */
    double confidence;            /* the family's */
    double reserve_for_more;      /* share of alpha kept for `verdict run --more` */
    size_t comparisons;           /* the family alpha is shared by */
    double run_seconds;           /* the cost of one run */
    bool run_from_starts;         /* from the runs' starts (else their mean wall) */
    double relink_seconds;        /* the cost of one layout of one variant */
    bool relink_assumed;          /* the default, not --relink */
    bool twins;                   /* the experiment measures layout twins */
    size_t points, variants;
    const plan_report_row *rows;
    size_t n_rows;
    const plan_report_fleet *fleet; /* a fleet's store: the machines' spread; else none */
    size_t n_fleet;
    plan_allocation allocation;   /* for the whole experiment */
    double expected_seconds;
} plan_report;

/* Components, allocation, duration and the file's lines, as a short text. */
void plan_report_write_text(const plan_report *p, FILE *out);
/* The same as JSON (docs/json-schema.md, "verdict plan"), to path ("-": standard output),
 * written atomically. 0, or -1 with a message in err. */
int plan_report_write_json(const plan_report *p, const char *path, verdict_error *err);

#endif

/* The planner's reading of an experiment's stored runs (`verdict plan`): per comparison the
 * variance components and per run the cost, then the cheapest allocation for a target. */
#ifndef VERDICT_LAB_LAB_PLAN_H
#define VERDICT_LAB_LAB_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "core/experiment.h"
#include "lab/results.h"
#include "report/plan_report.h"
#include "store/store.h"

/* A layout's relink when none is given: between the 0.06 s of a tiny program and the 12 s
 * of PostgreSQL 15 measured on the development VM (docs/experiments.md). */
#define LAB_PLAN_DEFAULT_RELINK_SECONDS 10.0

typedef struct {
    plan_target target;       /* change, half_width, power; alpha is the experiment's */
    double relink_seconds;    /* NaN: LAB_PLAN_DEFAULT_RELINK_SECONDS */
    const char *store_name;   /* as shown */
    bool pilot;               /* the store holds the planner's own pilot */
} lab_plan_options;

typedef struct {
    plan_report report;       /* what the writers take; borrows from below */
    plan_report_row *rows;
    plan_components *components;
    plan_report_fleet *fleet;
    lab_results results;
} lab_plan;

/* Reads the experiment's complete blocks from the store and plans; on a fleet's store also
 * the spread between machines of each pooled comparison. 0, or -1 with err: bad
 * input when nothing is stored or a comparison has fewer than 2 complete blocks or values
 * that are not positive, or a target out of reach. Free *out with lab_plan_free either way. */
int lab_plan_compute(store *db, int64_t experiment_id, const experiment *e,
                     const lab_plan_options *o, lab_plan *out, verdict_error *err);
void lab_plan_free(lab_plan *p);

#endif

/* The plan of an experiment as JSON (`verdict run --dry-run --json FILE`): what it will run
 * and the looks it will take, each with its boundary, before anything runs. */
#ifndef VERDICT_REPORT_PLAN_JSON_H
#define VERDICT_REPORT_PLAN_JSON_H

#include "common/error.h"
#include "core/analysis.h"
#include "core/experiment.h"
#include "core/plan_looks.h"

/* Writes the plan to path ("-": standard output); docs/json-schema.md, "The plan". */
int report_write_plan_json(const experiment *e, const analysis_options *o,
                           const plan_looks *looks, const char *path, verdict_error *err);

#endif

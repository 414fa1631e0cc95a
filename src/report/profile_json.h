/* A comparison's profile in the JSON report (docs/json-schema.md, docs/profiles.md). */
#ifndef VERDICT_REPORT_PROFILE_JSON_H
#define VERDICT_REPORT_PROFILE_JSON_H

#include <jansson.h>

#include "report/report.h"

/* Sets item's profile, profile_stacks, profile_blocks, profile_event and profile_summary
 * for comparison c of in's analysis, when in holds profiles (nothing otherwise). 0, or -1
 * when out of memory. */
int profile_json_add(json_t *item, const report_input *in, const analysis_comparison *c);

#endif

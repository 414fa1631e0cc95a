/* The differential flame graph's input and its SVG renderer: stacks with their time in
 * the baseline and the candidate, drawn as the project's own SVG (report layer). */
#ifndef VERDICT_REPORT_FLAME_GRAPH_H
#define VERDICT_REPORT_FLAME_GRAPH_H

#include <stddef.h>

#include "common/error.h"
#include "common/strbuf.h"

/* One call stack of a comparison's profile. Times are per measured run (mean over the
 * profiled runs), in seconds; a stack seen in only one variant has 0 in the other. */
typedef struct {
    const char *stack;          /* frames root first, separated by ';': "main;run;slow_part" */
    double baseline_seconds;    /* this stack's self time in the baseline */
    double candidate_seconds;   /* its self time in the candidate */
    double change_low;          /* interval of candidate - baseline self time, seconds; */
    double change_high;         /* NAN, NAN when no interval could be computed */
} flame_stack;

/* Appends to OUT one <svg> element: frames merged by prefix, width = the baseline's time
 * (stacks only in the candidate get a width of their candidate time, drawn hatched or
 * outlined and said so in the legend), colour = the change of the frame's total time
 * (red slower, blue faster, grey within its interval), a <title> on every frame with its
 * name, both times, the change and its interval. TITLE names the comparison. */
int flame_graph_svg(strbuf *out, const flame_stack *stacks, size_t n, const char *title,
                    verdict_error *err);

#endif

/* hyperfine's headline per command at the top of a point's terminal report: mean ± σ,
 * median, min … max and the runs, with user and system time when they were recorded. */
#ifndef VERDICT_REPORT_TEXT_HEADLINES_H
#define VERDICT_REPORT_TEXT_HEADLINES_H

#include <stdio.h>

#include "report/report.h"

/* "Benchmark 1: NAME" and its lines for every variant with wall times at the point, from
 * its successful runs in blocks, in the order in->text_style.sort asks; nothing when no
 * variant has a wall time there. */
void text_headlines_write(const report_input *in, const char *point, FILE *out);

#endif

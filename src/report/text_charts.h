/* Compact text charts for the terminal: per point, the change of a candidate with its
 * interval drawn as [----*----] against the ±margin band and the line of no change. */
#ifndef VERDICT_REPORT_TEXT_CHARTS_H
#define VERDICT_REPORT_TEXT_CHARTS_H

#include <stdio.h>

#include "report/report.h"

/* One chart per (candidate, metric) when the experiment has several points. */
void text_change_charts(const report_input *in, FILE *out);

#endif

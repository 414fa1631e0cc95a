/* The tables and lists of the HTML report: verdicts, overall effects, per-point
 * summaries, warnings, environment and variants. Internal to html_report.c. */
#ifndef VERDICT_REPORT_HTML_TABLES_H
#define VERDICT_REPORT_HTML_TABLES_H

#include <stddef.h>
#include <stdio.h>

#include "report/report.h"
#include "report/report_query.h"

/* Writes <tag>escaped text</tag>. */
void html_element(FILE *out, const char *tag, const char *text);
void html_settings(FILE *out, const report_input *in);
/* Rows of the points that were run; the unrun ones are counted in one note. */
void html_verdict_table(FILE *out, const report_input *in, const query_point_set *unrun);
/* "<p>912 of 1,000,000 points were not run ...</p>", or nothing. */
void html_unrun_note(FILE *out, const report_input *in, const query_point_set *unrun);
void html_overall_table(FILE *out, const report_input *in);
/* Summary of series first..end-1 (one point and metric). */
void html_summary_table(FILE *out, const report_input *in, size_t first, size_t end);
void html_warnings(FILE *out, const report_input *in, const query_point_set *unrun);
void html_environment(FILE *out, const report_input *in);
void html_variants(FILE *out, const report_input *in);
/* The quantile method's shift functions (analysis_comparison.shift_function), one table per
 * comparison; html_has_shift_function says whether there is any. */
bool html_has_shift_function(const report_input *in);
void html_shift_functions(FILE *out, const report_input *in);

#endif

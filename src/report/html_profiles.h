/* The HTML report's profile sections: one differential flame graph per profiled comparison.
 * Internal to html_report.c. */
#ifndef VERDICT_REPORT_HTML_PROFILES_H
#define VERDICT_REPORT_HTML_PROFILES_H

#include <stdbool.h>
#include <stdio.h>

#include "report/report.h"

/* True when some comparison of IN has profiled stacks to draw. */
bool html_has_profiles(const report_input *in);
/* Writes the heading and each profiled comparison's flame graph; 0, or -1 out of memory. */
int html_profiles(FILE *out, const report_input *in);

#endif

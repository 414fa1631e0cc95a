/* The terminal report's options, shared by every command with a text report: --time-unit,
 * --style and --sort (hyperfine's), and the style they give the report on one stream. */
#ifndef VERDICT_CLI_TEXT_OPTIONS_H
#define VERDICT_CLI_TEXT_OPTIONS_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "report/text_style.h"
#include "common/error.h"

typedef struct {
    units_time time_unit;   /* --time-unit; UNITS_AUTO: adaptive */
    text_style_mode style;  /* --style */
    text_sort sort;         /* --sort */
    bool headlines;         /* no option: the default command's report opens with them */
} text_choices;

enum { TEXT_OPT_TIME_UNIT = 0x1100, TEXT_OPT_STYLE, TEXT_OPT_SORT };
/* The group's entries of a getopt_long table. */
#define TEXT_LONG_OPTIONS                                                                    \
    {"time-unit", required_argument, NULL, TEXT_OPT_TIME_UNIT},                              \
    {"style", required_argument, NULL, TEXT_OPT_STYLE},                                      \
    {"sort", required_argument, NULL, TEXT_OPT_SORT}

/* Applies one option of the group: 0, -1 with a message naming the value, or 1 when opt
 * is not one of it. */
int text_choice_apply(text_choices *c, int opt, const char *arg, verdict_error *err);

/* The report's style for text written to out: colour from --style, whether out is a
 * terminal and NO_COLOR. */
report_text_style text_choices_style(const text_choices *c, FILE *out);

#endif

/* How the terminal report looks: its time unit, colour or none, the order of its rows and
 * whether it opens with hyperfine's headlines. Decided once by the caller, read here. */
#ifndef VERDICT_REPORT_TEXT_STYLE_H
#define VERDICT_REPORT_TEXT_STYLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "report/units.h"
#include "common/error.h"
#include "stats/verdict_rules.h"

/* --style, with hyperfine's values. */
typedef enum {
    TEXT_STYLE_AUTO = 0, /* colour on a terminal unless NO_COLOR; progress on a terminal */
    TEXT_STYLE_BASIC,    /* no colour, no progress line */
    TEXT_STYLE_FULL,     /* colour even when not a terminal, progress line */
    TEXT_STYLE_NOCOLOR,  /* no colour, progress line */
    TEXT_STYLE_COLOR,    /* colour even when not a terminal, no progress line */
    TEXT_STYLE_NONE      /* plain: no colour, no progress line */
} text_style_mode;

/* --sort, with hyperfine's values: the order of the headlines and of a table's rows. The
 * comparisons always list the baseline first. */
typedef enum {
    TEXT_SORT_AUTO = 0,  /* as the commands were given (hyperfine's default for its summary) */
    TEXT_SORT_COMMAND,   /* as the commands were given */
    TEXT_SORT_MEAN       /* best mean first: the fastest, or the highest of a higher-is-better metric */
} text_sort;

/* What report_input carries for the terminal report; all zero: adaptive units, no colour,
 * rows as given, no headlines. */
typedef struct {
    units_time time_unit;       /* UNITS_AUTO, or --time-unit */
    bool color;                 /* write ANSI colours (already decided: text_style_wants_color) */
    text_sort sort;
    bool headlines;             /* hyperfine's "Benchmark 1: ..." block per command */
    /* metrics whose values are seconds besides wall, user, sys and cpu (a peer's "time") */
    const char *const *time_metrics;
    size_t n_time_metrics;
} report_text_style;

/* --style and --sort values; 0, or -1 with a message naming the value and the allowed ones. */
int text_style_parse_mode(const char *text, text_style_mode *out, verdict_error *err);
int text_style_parse_sort(const char *text, text_sort *out, verdict_error *err);

/* Colour or not: forced on by full and color, off by basic, nocolor and none; auto colours
 * a terminal unless NO_COLOR is set to a non-empty value (no-color.org). no_color is the
 * variable's value, or NULL when it is not set. */
bool text_style_wants_color(text_style_mode mode, bool is_terminal, const char *no_color);
/* True when the mode allows the progress line (hyperfine's "interactive elements"). */
bool text_style_wants_progress(text_style_mode mode);

/* True when the metric's values are seconds. */
bool text_style_is_time(const report_text_style *style, const char *metric);

typedef enum { TEXT_PAINT_BOLD, TEXT_PAINT_GREEN, TEXT_PAINT_RED, TEXT_PAINT_YELLOW } text_paint;

/* Start and end a painted stretch; nothing is written without colour. */
void text_style_on(FILE *out, const report_text_style *style, text_paint paint);
void text_style_off(FILE *out, const report_text_style *style);
/* A verdict's name ("better", "worse", ...) in its colour: better green, worse red,
 * inconclusive yellow, equivalent plain. */
void text_style_verdict(FILE *out, const report_text_style *style, verdict_kind kind);

#endif

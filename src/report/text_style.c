/* The terminal report's look: --style and --sort read, the colour decision (terminal,
 * NO_COLOR, forced), and the few ANSI sequences the report writes when colour is on. */
#include "report/text_style.h"

#include <string.h>

#include "common/error.h"
#include "report/report_query.h"

typedef struct {
    const char *name;
    int value;
} style_name;

static const style_name modes[] = {
    {"auto", TEXT_STYLE_AUTO}, {"basic", TEXT_STYLE_BASIC}, {"full", TEXT_STYLE_FULL},
    {"nocolor", TEXT_STYLE_NOCOLOR}, {"color", TEXT_STYLE_COLOR}, {"none", TEXT_STYLE_NONE},
};

static const style_name sorts[] = {
    {"auto", TEXT_SORT_AUTO}, {"command", TEXT_SORT_COMMAND}, {"mean-time", TEXT_SORT_MEAN},
};

static int find_name(const style_name *names, size_t n, const char *text, int *out)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(text, names[i].name) == 0) {
            *out = names[i].value;
            return 0;
        }
    return -1;
}

int text_style_parse_mode(const char *text, text_style_mode *out, verdict_error *err)
{
    int value;
    if (find_name(modes, sizeof modes / sizeof *modes, text, &value) == 0) {
        *out = (text_style_mode)value;
        return 0;
    }
    error_set(err, ERROR_USAGE, "--style '%s': expected auto, basic, full, nocolor, color or "
              "none", text);
    return -1;
}

int text_style_parse_sort(const char *text, text_sort *out, verdict_error *err)
{
    int value;
    if (find_name(sorts, sizeof sorts / sizeof *sorts, text, &value) == 0) {
        *out = (text_sort)value;
        return 0;
    }
    error_set(err, ERROR_USAGE, "--sort '%s': expected auto, command or mean-time", text);
    return -1;
}

bool text_style_wants_color(text_style_mode mode, bool is_terminal, const char *no_color)
{
    switch (mode) {
    case TEXT_STYLE_FULL:
    case TEXT_STYLE_COLOR: return true; /* asked for on this command line: beats NO_COLOR */
    case TEXT_STYLE_BASIC:
    case TEXT_STYLE_NOCOLOR:
    case TEXT_STYLE_NONE: return false;
    case TEXT_STYLE_AUTO: break;
    }
    return is_terminal && (no_color == NULL || no_color[0] == '\0');
}

bool text_style_wants_progress(text_style_mode mode)
{
    return mode == TEXT_STYLE_AUTO || mode == TEXT_STYLE_FULL || mode == TEXT_STYLE_NOCOLOR;
}

bool text_style_is_time(const report_text_style *style, const char *metric)
{
    const char *unit = query_metric_unit(metric);
    if (unit != NULL && strcmp(unit, "seconds") == 0)
        return true;
    for (size_t i = 0; i < style->n_time_metrics; i++)
        if (strcmp(style->time_metrics[i], metric) == 0)
            return true;
    return false;
}

void text_style_on(FILE *out, const report_text_style *style, text_paint paint)
{
    static const char *const codes[] = {
        [TEXT_PAINT_BOLD] = "\x1b[1m", [TEXT_PAINT_GREEN] = "\x1b[32m",
        [TEXT_PAINT_RED] = "\x1b[31m", [TEXT_PAINT_YELLOW] = "\x1b[33m",
    };
    if (style->color)
        fputs(codes[paint], out);
}

void text_style_off(FILE *out, const report_text_style *style)
{
    if (style->color)
        fputs("\x1b[0m", out);
}

void text_style_verdict(FILE *out, const report_text_style *style, verdict_kind kind)
{
    bool painted = kind != VERDICT_EQUIVALENT;
    if (painted)
        text_style_on(out, style, kind == VERDICT_BETTER ? TEXT_PAINT_GREEN
                                  : kind == VERDICT_WORSE ? TEXT_PAINT_RED : TEXT_PAINT_YELLOW);
    fputs(verdict_kind_name(kind), out);
    if (painted)
        text_style_off(out, style);
}

/* --time-unit, --style and --sort read into text_choices; the one place that looks at the
 * terminal and NO_COLOR, so the report writers decide nothing from the environment. */
#include "cli/text_options.h"

#include <stdlib.h>
#include <unistd.h>

#include "common/error.h"

int text_choice_apply(text_choices *c, int opt, const char *arg, verdict_error *err)
{
    switch (opt) {
    case TEXT_OPT_TIME_UNIT: return units_parse_time(arg, &c->time_unit, err);
    case TEXT_OPT_STYLE: return text_style_parse_mode(arg, &c->style, err);
    case TEXT_OPT_SORT: return text_style_parse_sort(arg, &c->sort, err);
    }
    return 1;
}

report_text_style text_choices_style(const text_choices *c, FILE *out)
{
    bool terminal = out != NULL && isatty(fileno(out));
    return (report_text_style){
        .time_unit = c->time_unit, .sort = c->sort, .headlines = c->headlines,
        .color = text_style_wants_color(c->style, terminal, getenv("NO_COLOR"))};
}

/* The headlines a hyperfine user looks for first, computed from the runs themselves (the
 * compared metric may be another): wall time's mean ± σ, median and range per command. */
#include "report/text_headlines.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/plain_text.h"
#include "report/report_query.h"
#include "common/utf8.h"
#include "report/units.h"
#include "stats/descriptive.h"

#define VALUE_WIDTH 10

typedef struct {
    size_t variant;      /* index into in->variants; the command's number is variant + 1 */
    stats_summary wall;
    double user, sys;    /* means; NaN when not recorded */
} headline;

/* A metric's values of a variant's successful runs in blocks at the point, into values
 * (room for every sample); how many. Failed and timed-out runs are never analysed. */
static size_t collect(const report_input *in, const char *point, const char *variant,
                      const char *metric, double *values)
{
    size_t n = 0;
    for (size_t i = 0; i < in->n_samples; i++) {
        const report_sample *s = &in->samples[i];
        double value;
        if (s->block < 0 || s->timed_out || s->exit_code != 0 || s->point == NULL ||
            strcmp(s->point, point) != 0 || strcmp(s->variant, variant) != 0)
            continue;
        if (query_sample_value(s, metric, &value) && isfinite(value))
            values[n++] = value;
    }
    return n;
}

static double mean_of(const report_input *in, const char *point, const char *variant,
                      const char *metric, double *values)
{
    size_t n = collect(in, point, variant, metric, values);
    return n > 0 ? stats_mean(values, n) : NAN;
}

/* False when the variant has no wall time at the point. */
static bool measure(const report_input *in, const char *point, size_t v, double *values,
                    headline *out)
{
    const char *name = in->variants[v].name;
    size_t n = collect(in, point, name, "wall", values);
    if (n == 0 || stats_summarize(values, n, &out->wall) != STATS_OK)
        return false;
    out->variant = v;
    out->user = mean_of(in, point, name, "user", values);
    out->sys = mean_of(in, point, name, "sys", values);
    return true;
}

static void print_value(FILE *out, double seconds, units_time unit)
{
    char text[48];
    units_format_time(seconds, unit, text, sizeof text);
    size_t columns = utf8_width(text);
    fprintf(out, "%*s%s", columns < VALUE_WIDTH ? (int)(VALUE_WIDTH - columns) : 0, "", text);
}

static void print_user_system(const headline *h, units_time unit, FILE *out)
{
    char user[48], sys[48];
    if (isnan(h->user) && isnan(h->sys))
        return;
    units_format_time(h->user, unit, user, sizeof user);
    units_format_time(h->sys, unit, sys, sizeof sys);
    fputs("    [", out);
    if (!isnan(h->user))
        fprintf(out, "User: %s%s", user, isnan(h->sys) ? "" : ", ");
    if (!isnan(h->sys))
        fprintf(out, "System: %s", sys);
    fputs("]", out);
}

static void print_one(const report_input *in, const headline *h, const char *point, FILE *out)
{
    const report_text_style *style = &in->text_style;
    /* From the median, as the tables' unit (group_format in text_report.c says why). */
    units_time unit = units_pick(h->wall.median, style->time_unit);
    fputs("\n", out);
    text_style_on(out, style, TEXT_PAINT_BOLD);
    fprintf(out, "Benchmark %zu:", h->variant + 1);
    text_style_off(out, style);
    fputs(" ", out);
    plain_write(out, in->variants[h->variant].name);
    if (in->n_points > 1) {
        fputs(" \xc2\xb7 ", out);
        plain_write(out, point);
    }
    fputs("\n  Time (mean \xc2\xb1 \xcf\x83):   ", out);
    print_value(out, h->wall.mean, unit);
    fputs(" \xc2\xb1 ", out);
    print_value(out, h->wall.stddev, unit);
    print_user_system(h, unit, out);
    fputs("\n  Time (median):     ", out);
    print_value(out, h->wall.median, unit);
    fputs("\n  Range (min \xe2\x80\xa6 max): ", out);
    print_value(out, h->wall.min, unit);
    fputs(" \xe2\x80\xa6 ", out);
    print_value(out, h->wall.max, unit);
    fprintf(out, "    %zu run%s\n", h->wall.n, h->wall.n == 1 ? "" : "s");
}

/* --sort mean-time: fastest first, stably; otherwise as the commands were given. */
static void order(const report_input *in, headline *h, size_t n)
{
    for (size_t i = 1; in->text_style.sort == TEXT_SORT_MEAN && i < n; i++)
        for (size_t j = i; j > 0 && h[j].wall.mean < h[j - 1].wall.mean; j--) {
            headline swap = h[j];
            h[j] = h[j - 1];
            h[j - 1] = swap;
        }
}

void text_headlines_write(const report_input *in, const char *point, FILE *out)
{
    double *values = malloc((in->n_samples + 1) * sizeof *values);
    headline *lines = malloc((in->n_variants + 1) * sizeof *lines);
    size_t n = 0;
    for (size_t v = 0; values && lines && v < in->n_variants; v++)
        n += measure(in, point, v, values, &lines[n]);
    order(in, lines, n);
    for (size_t i = 0; i < n; i++)
        print_one(in, &lines[i], point, out);
    free(values);
    free(lines);
}

/* Writes a forest plot as SVG. The layout is settled first (texts fitted, axis and ticks
 * chosen), then drawn in one pass in which only finite, checked coordinates are printed. */
#include "report/forest_plot.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/utf8.h"
#include "report/markup.h"
#include "report/svg_scale.h"

#define MARGIN 12.0
#define CHAR_WIDTH 7.0        /* a 12px sans-serif character, a little over the average */
#define DIGIT_WIDTH 7.6       /* a 12px digit: the numbers' column is mostly digits */
#define NOTE_CHAR_WIDTH 6.0   /* the same at 11px */
#define TITLE_CHAR_WIDTH 8.2  /* at 14px bold */
#define HEADER_Y 64.0
#define ROWS_TOP 72.0
#define ROW_HEIGHT 20.0
#define POOLED_GAP 8.0        /* between the machines and the pooled row, for the rule */
#define PLOT_WIDTH 440.0
#define GAP 14.0
#define LABEL_COLUMNS_MIN 16
#define LABEL_COLUMNS_MAX 36  /* longer names are cut with "…"; the row's tooltip has all */
#define TEXT_COLUMNS_MIN 22
#define TEXT_COLUMNS_MAX 48
#define EXTEND 2.0            /* interval ends beyond every estimate × or ÷ this: arrows */
#define MIN_TICK_GAP 48.0     /* pixels between tick labels */
#define MAX_TICKS 64
#define TOP_TICKS_FROM 20     /* with more rows than this, tick labels are repeated on top */
#define SQUARE 4.0            /* half the side of a machine's marker */
#define DIAMOND 6.0           /* half the height of the pooled diamond */
#define INFINITY_SIGN "\xE2\x88\x9E"

#define POOLED_LABEL "pooled (random effects)"
#define PREDICT_LABEL "new machine"
#define EXCLUDED_TEXT "no successful runs"

typedef struct {
    char *label;   /* fitted to the label column */
    char *numbers; /* the right-hand column, fitted */
    char *full;    /* the whole label and numbers, for the row's tooltip */
} row_text;

typedef struct {
    const forest_plot *plot;
    row_text *texts;          /* n_rows machines, then the pooled row, then the new machine */
    char *title;
    char level[24];           /* "95%", or "" when the confidence is not given */
    svg_mapping x;
    double ticks[MAX_TICKS];
    size_t n_ticks;
    double plot_left, plot_right, text_x, pooled_y, predict_y, axis_y;
    int width, height;
    bool has_predict;
} forest_layout;

/* ---- numbers as text ---- */

/* A ratio as a change in percent with `decimals` decimals: "+24.8%", "-3.0%", "+∞". */
static void format_change(double ratio, int decimals, char *buf, size_t len)
{
    if (isnan(ratio)) {
        snprintf(buf, len, "?");
        return;
    }
    if (isinf(ratio)) {
        snprintf(buf, len, "%s" INFINITY_SIGN, ratio > 0 ? "+" : "-");
        return;
    }
    double percent = (ratio - 1) * 100;
    if (fabs(percent) < 0.5 * pow(10, -decimals))
        percent = 0; /* no "-0.0%" */
    snprintf(buf, len, "%+.*f%%", decimals, percent);
}

/* Enough decimals that the interval's width shows: 1, or 2 or 3 for narrow intervals. */
static int decimals_for(double low, double high)
{
    double width = fabs(high - low) * 100;
    if (!isfinite(width) || width >= 1)
        return 1;
    return width >= 0.1 ? 2 : 3;
}

/* "+24.8% [+20.1%, +29.7%]", the interval left out when it has no end. */
static void format_estimate(double ratio, double low, double high, char *buf, size_t len)
{
    char r[40], l[40], h[40];
    int decimals = decimals_for(low, high);
    format_change(ratio, decimals, r, sizeof r);
    if (isnan(low) && isnan(high)) {
        snprintf(buf, len, "%s", r);
        return;
    }
    format_change(low, decimals, l, sizeof l);
    format_change(high, decimals, h, sizeof h);
    snprintf(buf, len, "%s [%s, %s]", r, l, h);
}

/* A tick's label: "0", "+25%", "-0.5%", "+200%", and "×10" from ten times on. */
static void format_tick(double ratio, char *buf, size_t len)
{
    double percent = (ratio - 1) * 100;
    if (fabs(percent) < 1e-9)
        snprintf(buf, len, "0");
    else if (ratio >= 10)
        snprintf(buf, len, "\xC3\x97%g", ratio);
    else if (fabs(percent) >= 100)
        snprintf(buf, len, "%+.0f%%", percent);
    else
        snprintf(buf, len, "%+.3g%%", percent);
}

/* ---- texts ---- */

static void free_texts(row_text *texts, size_t n)
{
    for (size_t i = 0; texts && i < n; i++) {
        free(texts[i].label);
        free(texts[i].numbers);
        free(texts[i].full);
    }
    free(texts);
}

/* The right-hand text of a machine: its estimate and note, or why it has none. */
static void row_numbers(const forest_row *row, char *buf, size_t len)
{
    if (isnan(row->ratio)) {
        snprintf(buf, len, "%s", row->note && *row->note ? row->note : EXCLUDED_TEXT);
        return;
    }
    char estimate[160];
    format_estimate(row->ratio, row->low, row->high, estimate, sizeof estimate);
    if (row->note && *row->note)
        snprintf(buf, len, "%s \xC2\xB7 %s", estimate, row->note);
    else
        snprintf(buf, len, "%s", estimate);
}

static int set_text(row_text *t, const char *label, const char *numbers, size_t label_columns,
                    size_t text_columns)
{
    size_t length = strlen(label) + strlen(numbers) + 3;
    t->label = utf8_fit(label, label_columns);
    t->numbers = utf8_fit(numbers, text_columns);
    t->full = malloc(length);
    if (t->label == NULL || t->numbers == NULL || t->full == NULL)
        return -1;
    snprintf(t->full, length, "%s: %s", label, numbers);
    return 0;
}

static size_t clamp_columns(size_t columns, size_t min, size_t max)
{
    return columns < min ? min : columns > max ? max : columns;
}

/* The label column is as wide as the longest name, within limits; so is the text column. */
static void column_widths(const forest_plot *p, char (*numbers)[256], size_t *label_columns,
                          size_t *text_columns)
{
    size_t widest_label = strlen(POOLED_LABEL), widest_text = 0;
    for (size_t i = 0; i < p->n_rows + 2; i++) {
        const char *label = i < p->n_rows && p->rows[i].label ? p->rows[i].label : "";
        size_t w = utf8_width(label), t = utf8_width(numbers[i]);
        widest_label = w > widest_label ? w : widest_label;
        widest_text = t > widest_text ? t : widest_text;
    }
    *label_columns = clamp_columns(widest_label, LABEL_COLUMNS_MIN, LABEL_COLUMNS_MAX);
    *text_columns = clamp_columns(widest_text, TEXT_COLUMNS_MIN, TEXT_COLUMNS_MAX);
}

static const char *row_label(const forest_plot *p, size_t i)
{
    if (i == p->n_rows)
        return POOLED_LABEL;
    if (i == p->n_rows + 1)
        return PREDICT_LABEL;
    return p->rows[i].label ? p->rows[i].label : "";
}

static void pooled_numbers(const forest_plot *p, char (*numbers)[256])
{
    if (isnan(p->pooled_ratio))
        snprintf(numbers[p->n_rows], 256, "no pooled estimate");
    else
        format_estimate(p->pooled_ratio, p->pooled_low, p->pooled_high, numbers[p->n_rows], 256);
    int decimals = decimals_for(p->predict_low, p->predict_high);
    char low[40], high[40];
    format_change(p->predict_low, decimals, low, sizeof low);
    format_change(p->predict_high, decimals, high, sizeof high);
    snprintf(numbers[p->n_rows + 1], 256, "[%s, %s]", low, high);
}

/* Every text of the plot, fitted; the column widths come out of it. -1: out of memory. */
static int prepare_texts(forest_layout *l, size_t *label_columns, size_t *text_columns)
{
    const forest_plot *p = l->plot;
    size_t n = p->n_rows + 2;
    char (*numbers)[256] = calloc(n, sizeof *numbers);
    int rc = -1;
    l->texts = calloc(n, sizeof *l->texts);
    if (numbers == NULL || l->texts == NULL)
        goto done;
    for (size_t i = 0; i < p->n_rows; i++)
        row_numbers(&p->rows[i], numbers[i], sizeof numbers[i]);
    pooled_numbers(p, numbers);
    column_widths(p, numbers, label_columns, text_columns);
    rc = 0;
    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = set_text(&l->texts[i], row_label(p, i), numbers[i], *label_columns, *text_columns);
done:
    free(numbers);
    return rc;
}

/* ---- the axis ---- */

typedef struct {
    double min, max;
    bool any;
} extent;

static void extend_to(extent *e, double value)
{
    if (!svg_placeable(SVG_SCALE_LOG, value))
        return;
    e->min = e->any && e->min < value ? e->min : value;
    e->max = e->any && e->max > value ? e->max : value;
    e->any = true;
}

/* Interval ends count only up to EXTEND beyond the estimates: one machine with a few runs
 * and an interval of ×0.01 to ×100 must not squeeze every other row into a few pixels. */
static void extend_clipped(extent *e, const extent *core, double value)
{
    if (svg_placeable(SVG_SCALE_LOG, value))
        extend_to(e, fmin(fmax(value, core->min / EXTEND), core->max * EXTEND));
}

static bool axis_range(const forest_plot *p, svg_mapping *x)
{
    extent core = {1, 1, true}; /* no change is always shown */
    for (size_t i = 0; i < p->n_rows; i++)
        extend_to(&core, p->rows[i].ratio);
    extend_to(&core, p->pooled_ratio);
    extend_to(&core, p->pooled_low);
    extend_to(&core, p->pooled_high);
    extent all = core;
    for (size_t i = 0; i < p->n_rows; i++) {
        extend_clipped(&all, &core, p->rows[i].low);
        extend_clipped(&all, &core, p->rows[i].high);
    }
    extend_clipped(&all, &core, p->predict_low);
    extend_clipped(&all, &core, p->predict_high);
    x->kind = SVG_SCALE_LOG;
    x->min = all.min;
    x->max = all.max;
    return svg_range_finish(SVG_SCALE_LOG, &x->min, &x->max);
}

/* Tick candidates in the order they are tried, outwards from no change: round changes
 * in percent, then whole multiples. */
static const double ticks_up[] = {1.001, 1.002, 1.005, 1.01, 1.02, 1.05, 1.1, 1.2, 1.25, 1.5,
                                  2, 3, 5, 10, 20, 50, 100, 1000};
static const double ticks_down[] = {0.999, 0.998, 0.995, 0.99, 0.98, 0.95, 0.9, 0.8, 0.75,
                                    0.5, 0.25, 0.2, 0.1, 0.05, 0.01, 0.001};

static void pick_ticks(forest_layout *l, const double *candidates, size_t n)
{
    double last = svg_map(&l->x, 1);
    for (size_t i = 0; i < n && l->n_ticks < MAX_TICKS; i++) {
        if (candidates[i] < l->x.min || candidates[i] > l->x.max)
            continue;
        double at = svg_map(&l->x, candidates[i]);
        if (fabs(at - last) < MIN_TICK_GAP)
            continue;
        l->ticks[l->n_ticks++] = candidates[i];
        last = at;
    }
}

static void choose_ticks(forest_layout *l)
{
    l->n_ticks = 0;
    l->ticks[l->n_ticks++] = 1;
    pick_ticks(l, ticks_up, sizeof ticks_up / sizeof *ticks_up);
    pick_ticks(l, ticks_down, sizeof ticks_down / sizeof *ticks_down);
}

/* ---- layout ---- */

static void confidence_level(const forest_plot *p, char *buf, size_t len)
{
    if (p->confidence > 0 && p->confidence < 1)
        snprintf(buf, len, "%g%%", p->confidence * 100);
    else
        buf[0] = '\0';
}

static void note_text(const forest_layout *l, char *buf, size_t len)
{
    const char *space = l->level[0] ? " " : "";
    int used = snprintf(buf, len, "Diamond: all machines pooled (random effects), with its "
                        "%s%sconfidence interval", l->level, space);
    if (l->has_predict && used > 0 && (size_t)used < len)
        snprintf(buf + used, len - (size_t)used, "; dashed bar: where a new machine would "
                 "fall (%s%sprediction interval)", l->level, space);
}

static void geometry(forest_layout *l, size_t label_columns, size_t text_columns)
{
    const forest_plot *p = l->plot;
    char note[400];
    note_text(l, note, sizeof note);
    l->plot_left = MARGIN + (double)label_columns * CHAR_WIDTH + GAP;
    l->plot_right = l->plot_left + PLOT_WIDTH;
    l->text_x = l->plot_right + GAP;
    double width = l->text_x + (double)text_columns * DIGIT_WIDTH + MARGIN;
    double note_width = 2 * MARGIN + (double)utf8_width(note) * NOTE_CHAR_WIDTH;
    l->width = (int)ceil(fmax(width, note_width));
    l->pooled_y = ROWS_TOP + (double)p->n_rows * ROW_HEIGHT + POOLED_GAP + ROW_HEIGHT / 2;
    l->predict_y = l->pooled_y + (l->has_predict ? ROW_HEIGHT : 0);
    l->axis_y = l->predict_y + ROW_HEIGHT / 2 + 4;
    l->height = (int)ceil(l->axis_y + 46);
    l->x.pixel_from = l->plot_left;
    l->x.pixel_to = l->plot_right;
}

static void free_layout(forest_layout *l)
{
    free_texts(l->texts, l->plot->n_rows + 2);
    free(l->title);
}

static int make_layout(forest_layout *l, const forest_plot *p, verdict_error *err)
{
    size_t label_columns = 0, text_columns = 0;
    memset(l, 0, sizeof *l);
    l->plot = p;
    l->has_predict = !isnan(p->predict_low) && !isnan(p->predict_high);
    confidence_level(p, l->level, sizeof l->level);
    int rc = prepare_texts(l, &label_columns, &text_columns);
    if (rc == 0 && !axis_range(p, &l->x)) /* cannot happen: 1 is always in the range */
        return error_set(err, ERROR_INTERNAL, "forest plot: no range for the axis");
    if (rc == 0) {
        geometry(l, label_columns, text_columns);
        choose_ticks(l);
        l->title = utf8_fit(p->title ? p->title : "",
                            (size_t)(((double)l->width - 2 * MARGIN) / TITLE_CHAR_WIDTH));
        rc = l->title ? 0 : -1;
    }
    return rc == 0 ? 0 : error_set(err, ERROR_NO_MEMORY, "forest plot: out of memory");
}

/* ---- drawing ---- */

static void draw_text(FILE *out, double x, double y, const char *anchor, const char *extra,
                      const char *text)
{
    fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\"%s>", x, y, anchor, extra);
    markup_write_escaped(out, text);
    fputs("</text>\n", out);
}

/* Where a value lands: *beyond is -1 or +1 when it lies off the axis (0, infinite, or
 * clipped), and the pixel is then the edge. The value must not be NaN. */
static double place(const forest_layout *l, double value, int *beyond)
{
    *beyond = !(value > l->x.min) ? -1 : !(value < l->x.max) ? 1 : 0;
    if (*beyond != 0)
        return *beyond < 0 ? l->plot_left : l->plot_right;
    return svg_map(&l->x, value);
}

/* An end of an interval: a cap inside the axis, an arrow pointing off it at its edge. */
static void draw_end(FILE *out, double x, double y, int beyond, const char *color)
{
    if (beyond == 0)
        fprintf(out, "<path stroke=\"%s\" stroke-width=\"1.4\" d=\"M%.1f,%.1fv8\"/>\n",
                color, x, y - 4);
    else
        fprintf(out, "<path fill=\"%s\" class=\"forest-arrow\" d=\"M%.1f,%.1fl%d,-4v8z\"/>\n",
                color, x, y, beyond < 0 ? 7 : -7);
}

/* The interval from low to high at height y; left out when an end is unknown (NaN). */
static void draw_interval(FILE *out, const forest_layout *l, double low, double high, double y,
                          const char *attributes)
{
    if (isnan(low) || isnan(high))
        return;
    int beyond_low, beyond_high;
    double x1 = place(l, low, &beyond_low), x2 = place(l, high, &beyond_high);
    fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"%s/>\n", x1, y, x2, y,
            attributes);
    draw_end(out, x1, y, beyond_low, "#333");
    draw_end(out, x2, y, beyond_high, "#333");
}

static void draw_tick_labels(FILE *out, const forest_layout *l, double y)
{
    char label[32];
    for (size_t i = 0; i < l->n_ticks; i++) {
        format_tick(l->ticks[i], label, sizeof label);
        draw_text(out, svg_map(&l->x, l->ticks[i]), y, "middle", " fill=\"#333\"", label);
    }
}

static void draw_axis(FILE *out, const forest_layout *l)
{
    fputs("<g class=\"forest-axis\">\n", out);
    for (size_t i = 0; i < l->n_ticks; i++) {
        double x = svg_map(&l->x, l->ticks[i]);
        fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e3e3e3\"/>\n",
                x, ROWS_TOP, x, l->axis_y + 4);
    }
    fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\"/>\n",
            l->plot_left, l->axis_y, l->plot_right, l->axis_y);
    draw_tick_labels(out, l, l->axis_y + 16);
    if (l->plot->n_rows > TOP_TICKS_FROM)
        draw_tick_labels(out, l, HEADER_Y); /* a tall plot is read far from its bottom */
    draw_text(out, (l->plot_left + l->plot_right) / 2, l->axis_y + 34, "middle",
              " font-weight=\"bold\"", "change of candidate against baseline (log scale)");
    fputs("</g>\n", out);
    double one = svg_map(&l->x, 1);
    fprintf(out, "<line class=\"forest-reference\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                 "y2=\"%.1f\" stroke=\"#333\" stroke-width=\"1.2\"/>\n",
            one, ROWS_TOP, one, l->axis_y);
}

static void draw_headers(FILE *out, const forest_layout *l)
{
    char header[64];
    snprintf(header, sizeof header, "change [%s%sCI]", l->level, l->level[0] ? " " : "");
    draw_text(out, MARGIN, HEADER_Y, "start", " font-weight=\"bold\"", "machine");
    draw_text(out, l->text_x, HEADER_Y, "start", " font-weight=\"bold\"", header);
}

/* The row's group opens with a tooltip holding the whole name and numbers, for names cut
 * to fit and for screen readers. */
static void open_row(FILE *out, const char *class, const row_text *t)
{
    fprintf(out, "<g class=\"%s\">\n<title>", class);
    markup_write_escaped(out, t->full);
    fputs("</title>\n", out);
}

static void row_texts(FILE *out, const forest_layout *l, const row_text *t, double y,
                      bool excluded)
{
    const char *style = excluded ? " fill=\"#777\"" : "";
    draw_text(out, MARGIN, y + 4, "start", style, t->label);
    draw_text(out, l->text_x, y + 4, "start",
              excluded ? " fill=\"#777\" font-style=\"italic\"" : "", t->numbers);
}

/* Stripes behind every other machine keep a long plot's rows apart. */
static void draw_stripes(FILE *out, const forest_layout *l)
{
    for (size_t i = 1; i < l->plot->n_rows; i += 2)
        fprintf(out, "<rect x=\"0\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" fill=\"#f4f4f4\"/>\n",
                ROWS_TOP + (double)i * ROW_HEIGHT, l->width, ROW_HEIGHT);
}

static void draw_marker(FILE *out, const forest_layout *l, double ratio, double y)
{
    int beyond;
    double x = place(l, ratio, &beyond);
    if (beyond == 0) /* an infinite or zero estimate has no place: its numbers say it */
        fprintf(out, "<rect class=\"forest-marker\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                     "height=\"%.1f\" fill=\"#0072B2\"/>\n",
                x - SQUARE, y - SQUARE, 2 * SQUARE, 2 * SQUARE);
}

static void draw_row(FILE *out, const forest_layout *l, size_t i)
{
    const forest_row *row = &l->plot->rows[i];
    double y = ROWS_TOP + ((double)i + 0.5) * ROW_HEIGHT;
    bool excluded = isnan(row->ratio);
    open_row(out, excluded ? "forest-row forest-excluded" : "forest-row", &l->texts[i]);
    row_texts(out, l, &l->texts[i], y, excluded);
    if (!excluded) {
        draw_interval(out, l, row->low, row->high, y, " stroke=\"#333\" stroke-width=\"1.4\"");
        draw_marker(out, l, row->ratio, y);
    }
    fputs("</g>\n", out);
}

/* The diamond spans the pooled interval (a small one when it has no interval). */
static void draw_diamond(FILE *out, const forest_layout *l)
{
    const forest_plot *p = l->plot;
    int beyond;
    if (isnan(p->pooled_ratio))
        return;
    double centre = place(l, p->pooled_ratio, &beyond);
    if (beyond != 0) /* an infinite or zero pooled ratio: its numbers say it */
        return;
    double left = isnan(p->pooled_low) ? centre - DIAMOND : place(l, p->pooled_low, &beyond);
    double right = isnan(p->pooled_high) ? centre + DIAMOND : place(l, p->pooled_high, &beyond);
    double y = l->pooled_y;
    fprintf(out, "<path class=\"forest-diamond\" fill=\"#D55E00\" stroke=\"#000\" "
                 "stroke-width=\"0.8\" d=\"M%.1f,%.1fL%.1f,%.1fL%.1f,%.1fL%.1f,%.1fz\"/>\n",
            left, y, centre, y - DIAMOND, right, y, centre, y + DIAMOND);
}

static void draw_pooled(FILE *out, const forest_layout *l)
{
    const row_text *t = &l->texts[l->plot->n_rows];
    double rule_y = l->pooled_y - ROW_HEIGHT / 2 - POOLED_GAP / 2;
    fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\"/>\n",
            MARGIN, rule_y, (double)l->width - MARGIN, rule_y);
    open_row(out, "forest-pooled", t);
    row_texts(out, l, t, l->pooled_y, isnan(l->plot->pooled_ratio));
    draw_diamond(out, l);
    fputs("</g>\n", out);
    if (!l->has_predict)
        return;
    t = &l->texts[l->plot->n_rows + 1];
    open_row(out, "forest-prediction", t);
    row_texts(out, l, t, l->predict_y, false);
    draw_interval(out, l, l->plot->predict_low, l->plot->predict_high, l->predict_y,
                  " stroke=\"#D55E00\" stroke-width=\"1.4\" stroke-dasharray=\"5 3\"");
    fputs("</g>\n", out);
}

/* What the plot shows, in words, for screen readers. */
static void write_desc(FILE *out, const forest_layout *l)
{
    const forest_plot *p = l->plot;
    size_t excluded = 0;
    for (size_t i = 0; i < p->n_rows; i++)
        excluded += isnan(p->rows[i].ratio) != 0;
    fprintf(out, "<desc>Forest plot of %zu machine%s (%zu without an estimate): each "
                 "machine's change with its %s%sconfidence interval. Pooled: ", p->n_rows,
            p->n_rows == 1 ? "" : "s", excluded, l->level, l->level[0] ? " " : "");
    markup_write_escaped(out, l->texts[p->n_rows].numbers);
    if (l->has_predict) {
        fputs(". A new machine: ", out);
        markup_write_escaped(out, l->texts[p->n_rows + 1].numbers);
    }
    fputs(".</desc>\n", out);
}

static void open_svg(FILE *out, const forest_layout *l, bool standalone)
{
    char note[400];
    if (standalone)
        fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
              "<svg xmlns=\"http://www.w3.org/2000/svg\"", out);
    else
        fputs("<svg", out);
    fprintf(out, " class=\"forest-plot\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" "
                 "role=\"img\" font-family=\"sans-serif\" font-size=\"12\">\n<title>",
            l->width, l->height, l->width, l->height);
    markup_write_escaped(out, l->plot->title ? l->plot->title : "");
    fputs("</title>\n", out);
    write_desc(out, l);
    fprintf(out, "<rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n", l->width, l->height);
    draw_text(out, MARGIN, 22, "start", " font-size=\"14\" font-weight=\"bold\"", l->title);
    note_text(l, note, sizeof note);
    draw_text(out, MARGIN, 38, "start", " font-size=\"11\" fill=\"#444\"", note);
}

static int check_plot(const forest_plot *plot, FILE *out, verdict_error *err)
{
    if (plot == NULL || out == NULL)
        return error_set(err, ERROR_INTERNAL, "forest plot: no plot or no output");
    if (plot->n_rows == 0 || plot->rows == NULL)
        return error_set(err, ERROR_INTERNAL, "forest plot: no machines to show");
    if (plot->n_rows > FOREST_MAX_ROWS)
        return error_set(err, ERROR_INTERNAL, "forest plot: %zu machines, more than the %d one "
                         "plot can show", plot->n_rows, FOREST_MAX_ROWS);
    return 0;
}

int forest_plot_write(const forest_plot *plot, FILE *out, bool standalone, verdict_error *err)
{
    forest_layout l;
    if (check_plot(plot, out, err) != 0)
        return -1;
    int rc = make_layout(&l, plot, err);
    if (rc == 0) {
        open_svg(out, &l, standalone);
        draw_headers(out, &l);
        draw_stripes(out, &l);
        draw_axis(out, &l);
        for (size_t i = 0; i < plot->n_rows; i++)
            draw_row(out, &l, i);
        draw_pooled(out, &l);
        fputs("</svg>\n", out);
        if (ferror(out))
            rc = error_set(err, ERROR_INTERNAL, "forest plot: cannot write the SVG");
    }
    free_layout(&l);
    return rc;
}

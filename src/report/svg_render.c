/* Writes an svg_chart as SVG: frame, grid, ticks, axis labels, the items in layers and
 * a legend below the plot. Every text goes through markup_write_escaped. */
#include "report/svg_chart_internal.h"

#include <math.h>
#include <string.h>

#include "report/markup.h"
#include "report/svg_scale.h"

#define MAX_TICKS 64
#define MARGIN_LEFT 78.0
#define MARGIN_RIGHT 22.0
#define MARGIN_TOP 38.0
#define MARGIN_BOTTOM 48.0
#define LEGEND_ROW 18.0
#define NOTE_HEIGHT 16.0
#define CHAR_WIDTH 6.6   /* average width of a 12px sans-serif character, for layout */
#define MARKER_SIZE 4.0

typedef struct {
    svg_mapping x, y;
    double left, top, right, bottom;
    bool rotate_x_labels;
    size_t legend_rows;
} plot_frame;

typedef struct {
    svg_scale scale;
    double min, max;
    bool any;
} range_accumulator;

static void accumulate(range_accumulator *r, double value)
{
    if (!svg_placeable(r->scale, value))
        return;
    r->min = r->any && r->min < value ? r->min : value;
    r->max = r->any && r->max > value ? r->max : value;
    r->any = true;
}

static void accumulate_array(range_accumulator *r, const double *values, size_t n)
{
    for (size_t i = 0; i < n; i++)
        accumulate(r, values[i]);
}

static void accumulate_item(range_accumulator *r, const chart_item *it, svg_axis_id axis)
{
    switch (it->kind) {
    case ITEM_LINE:
    case ITEM_SCATTER: accumulate_array(r, axis == SVG_X ? it->x : it->y, it->n); break;
    case ITEM_INTERVALS:
    case ITEM_BAND:
        if (axis == SVG_X) {
            accumulate_array(r, it->x, it->n);
        } else {
            accumulate_array(r, it->low, it->n);
            accumulate_array(r, it->high, it->n);
            if (it->kind == ITEM_INTERVALS)
                accumulate_array(r, it->y, it->n);
        }
        break;
    case ITEM_SHADE:
        if (axis == SVG_Y) {
            accumulate(r, it->box[0]);
            accumulate(r, it->box[1]);
        }
        break;
    case ITEM_RULE:
        if (axis == SVG_Y)
            accumulate(r, it->box[0]);
        break;
    case ITEM_BOX: accumulate_array(r, axis == SVG_X ? it->box : it->box + 1, axis == SVG_X ? 1 : 5);
        break;
    case ITEM_KINDS: break;
    }
}

static bool axis_range(const svg_chart *c, svg_axis_id axis, svg_mapping *m)
{
    const chart_axis *a = &c->axes[axis];
    range_accumulator r = {a->scale, 0, 0, false};
    for (size_t i = 0; i < c->n_items; i++)
        accumulate_item(&r, &c->items[i], axis);
    if (a->has_include) {
        accumulate(&r, a->include_min);
        accumulate(&r, a->include_max);
    }
    accumulate_array(&r, a->ticks, a->n_ticks);
    m->kind = a->scale;
    m->min = r.min;
    m->max = r.max;
    return r.any && svg_range_finish(a->scale, &m->min, &m->max);
}

static size_t text_columns(const char *text)
{
    size_t n = 0;
    for (const unsigned char *s = (const unsigned char *)(text ? text : ""); *s; s++)
        n += (*s & 0xC0) != 0x80; /* count code points, not bytes */
    return n;
}

static bool any_flagged(const svg_chart *c)
{
    for (size_t i = 0; i < c->n_items; i++)
        for (size_t k = 0; c->items[i].flagged && k < c->items[i].n; k++)
            if (c->items[i].flagged[k])
                return true;
    return false;
}

static double legend_entry_width(const char *text)
{
    return 40.0 + CHAR_WIDTH * (double)text_columns(text);
}

/* Legend entries flow left to right and wrap at the chart's width. */
static size_t legend_rows(const svg_chart *c)
{
    double x = MARGIN_LEFT, usable = c->width - MARGIN_RIGHT;
    size_t rows = 0;
    for (size_t i = 0; i <= c->n_items; i++) {
        const char *text = i < c->n_items ? c->items[i].legend
                           : any_flagged(c) ? c->flag_legend : NULL;
        if (text == NULL)
            continue;
        double w = legend_entry_width(text);
        if (rows == 0 || x + w > usable) {
            rows++;
            x = MARGIN_LEFT;
        }
        x += w;
    }
    return rows;
}

static bool x_labels_crowded(const svg_chart *c, double plot_width, size_t *widest)
{
    const chart_axis *a = &c->axes[SVG_X];
    *widest = 0;
    for (size_t i = 0; i < a->n_ticks; i++)
        if (a->tick_labels[i] && text_columns(a->tick_labels[i]) > *widest)
            *widest = text_columns(a->tick_labels[i]);
    return a->n_ticks > 0 && (double)(*widest + 2) * CHAR_WIDTH * (double)a->n_ticks > plot_width;
}

static bool layout(const svg_chart *c, plot_frame *f)
{
    size_t widest;
    f->left = MARGIN_LEFT;
    f->right = c->width - MARGIN_RIGHT;
    f->top = MARGIN_TOP + (c->note ? NOTE_HEIGHT : 0);
    f->rotate_x_labels = x_labels_crowded(c, f->right - f->left, &widest);
    f->legend_rows = legend_rows(c);
    double below = MARGIN_BOTTOM + (double)f->legend_rows * LEGEND_ROW;
    if (f->rotate_x_labels)
        below += (double)(widest > 30 ? 30 : widest) * CHAR_WIDTH * 0.5;
    f->bottom = c->height - below;
    if (f->bottom - f->top < 40 || !axis_range(c, SVG_X, &f->x) || !axis_range(c, SVG_Y, &f->y))
        return false;
    f->x.pixel_from = f->left;
    f->x.pixel_to = f->right;
    f->y.pixel_from = f->bottom;
    f->y.pixel_to = f->top;
    return true;
}

/* ---- drawing primitives ---- */

static void dash_attribute(FILE *out, svg_style style)
{
    if (*svg_style_dash(style))
        fprintf(out, " stroke-dasharray=\"%s\"", svg_style_dash(style));
}

/* Six shapes, filled with the style's hue and outlined in white to stand out; the sixth
 * is a stroked cross. */
static void draw_marker(FILE *out, svg_style style, double x, double y)
{
    const char *color = svg_style_color(style);
    double s = MARKER_SIZE;
    if (style % 6 == 5) {
        fprintf(out, "<path fill=\"none\" stroke=\"%s\" stroke-width=\"2.2\" "
                     "d=\"M%.1f,%.1fL%.1f,%.1fM%.1f,%.1fL%.1f,%.1f\"/>\n",
                color, x - s, y - s, x + s, y + s, x - s, y + s, x + s, y - s);
        return;
    }
    fprintf(out, "<path fill=\"%s\" stroke=\"#fff\" stroke-width=\"0.8\" d=\"", color);
    switch (style % 6) {
    case 0: fprintf(out, "M%.1f,%.1fa%.1f,%.1f 0 1,0 %.1f,0a%.1f,%.1f 0 1,0 %.1f,0", x - s, y, s, s,
                    2 * s, s, s, -2 * s); break;
    case 1: fprintf(out, "M%.1f,%.1fh%.1fv%.1fh%.1fz", x - s * 0.9, y - s * 0.9, 1.8 * s, 1.8 * s,
                    -1.8 * s); break;
    case 2: fprintf(out, "M%.1f,%.1fL%.1f,%.1fL%.1f,%.1fz", x, y - 1.2 * s, x + 1.1 * s, y + 0.8 * s,
                    x - 1.1 * s, y + 0.8 * s); break;
    case 3: fprintf(out, "M%.1f,%.1fL%.1f,%.1fL%.1f,%.1fL%.1f,%.1fz", x, y - 1.3 * s, x + 1.1 * s, y,
                    x, y + 1.3 * s, x - 1.1 * s, y); break;
    default: fprintf(out, "M%.1f,%.1fL%.1f,%.1fL%.1f,%.1fz", x, y + 1.2 * s, x + 1.1 * s, y - 0.8 * s,
                     x - 1.1 * s, y - 0.8 * s); break;
    }
    fputs("\"/>\n", out);
}

static void draw_ring(FILE *out, double x, double y)
{
    fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"none\" stroke=\"#000\" "
                 "stroke-width=\"1.3\"/>\n", x, y, MARKER_SIZE + 3.5);
}

static void draw_text(FILE *out, double x, double y, const char *anchor, const char *extra,
                      const char *text)
{
    fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\"%s>", x, y, anchor, extra);
    markup_write_escaped(out, text);
    fputs("</text>\n", out);
}

static bool placeable(const plot_frame *f, double x, double y)
{
    return svg_placeable(f->x.kind, x) && svg_placeable(f->y.kind, y);
}

/* ---- axes ---- */

static size_t axis_ticks(const chart_axis *a, const svg_mapping *m, double *at)
{
    if (a->n_ticks == 0)
        return svg_auto_ticks(m, at, MAX_TICKS);
    size_t n = 0;
    for (size_t i = 0; i < a->n_ticks && n < MAX_TICKS; i++)
        at[n++] = a->ticks[i];
    return n;
}

static const char *tick_label(const chart_axis *a, size_t i, double value, char *buf, size_t len)
{
    if (a->n_ticks > 0 && a->tick_labels[i])
        return a->tick_labels[i];
    svg_format_number(value, buf, len);
    return buf;
}

static void draw_x_axis(FILE *out, const svg_chart *c, const plot_frame *f)
{
    const chart_axis *a = &c->axes[SVG_X];
    double at[MAX_TICKS];
    char buf[32];
    size_t n = axis_ticks(a, &f->x, at);
    for (size_t i = 0; i < n; i++) {
        if (!svg_placeable(f->x.kind, at[i]))
            continue;
        double x = svg_map(&f->x, at[i]);
        fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e3e3e3\"/>\n",
                x, f->top, x, f->bottom + 4);
        const char *label = tick_label(a, i, at[i], buf, sizeof buf);
        if (f->rotate_x_labels) {
            char transform[96];
            snprintf(transform, sizeof transform, " transform=\"rotate(-35 %.1f %.1f)\"", x,
                     f->bottom + 16);
            draw_text(out, x, f->bottom + 16, "end", transform, label);
        } else {
            draw_text(out, x, f->bottom + 16, "middle", "", label);
        }
    }
    double label_y = (double)c->height - (double)f->legend_rows * LEGEND_ROW - 10;
    draw_text(out, (f->left + f->right) / 2, label_y, "middle", " font-weight=\"bold\"",
              a->label ? a->label : "");
}

static void draw_y_axis(FILE *out, const svg_chart *c, const plot_frame *f)
{
    const chart_axis *a = &c->axes[SVG_Y];
    double at[MAX_TICKS];
    char buf[32];
    size_t n = axis_ticks(a, &f->y, at);
    for (size_t i = 0; i < n; i++) {
        if (!svg_placeable(f->y.kind, at[i]))
            continue;
        double y = svg_map(&f->y, at[i]);
        fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e3e3e3\"/>\n",
                f->left - 4, y, f->right, y);
        draw_text(out, f->left - 7, y + 4, "end", "", tick_label(a, i, at[i], buf, sizeof buf));
    }
    char transform[96];
    double x = 16, y = (f->top + f->bottom) / 2;
    snprintf(transform, sizeof transform, " transform=\"rotate(-90 %.1f %.1f)\" font-weight=\"bold\"",
             x, y);
    draw_text(out, x, y, "middle", transform, a->label ? a->label : "");
}

/* ---- items ---- */

static void draw_polyline(FILE *out, const plot_frame *f, const double *x, const double *y,
                          size_t n, svg_style style, double width)
{
    bool open = false;
    for (size_t i = 0; i < n; i++) {
        if (!placeable(f, x[i], y[i]))
            continue; /* a gap in the data is drawn as a jump, not as a false value */
        if (!open)
            fprintf(out, "<path fill=\"none\" stroke=\"%s\" stroke-width=\"%.1f\"",
                    svg_style_color(style), width);
        if (!open)
            dash_attribute(out, style), fputs(" d=\"M", out);
        else
            fputs(" L", out);
        fprintf(out, "%.1f,%.1f", svg_map(&f->x, x[i]), svg_map(&f->y, y[i]));
        open = true;
    }
    if (open)
        fputs("\"/>\n", out);
}

static void draw_markers(FILE *out, const plot_frame *f, const chart_item *it, double offset)
{
    for (size_t i = 0; i < it->n; i++) {
        if (!placeable(f, it->x[i], it->y[i]))
            continue;
        double x = svg_map(&f->x, it->x[i]) + offset, y = svg_map(&f->y, it->y[i]);
        draw_marker(out, it->style, x, y);
        if (it->flagged && it->flagged[i])
            draw_ring(out, x, y);
    }
}

static void draw_band(FILE *out, const plot_frame *f, const chart_item *it)
{
    fprintf(out, "<path fill=\"%s\" fill-opacity=\"0.16\" stroke=\"none\" d=\"",
            svg_style_color(it->style));
    bool first = true;
    for (size_t i = 0; i < it->n; i++)
        if (placeable(f, it->x[i], it->high[i]) && placeable(f, it->x[i], it->low[i])) {
            fprintf(out, "%s%.1f,%.1f", first ? "M" : " L", svg_map(&f->x, it->x[i]),
                    svg_map(&f->y, it->high[i]));
            first = false;
        }
    for (size_t i = it->n; i-- > 0;)
        if (placeable(f, it->x[i], it->high[i]) && placeable(f, it->x[i], it->low[i]))
            fprintf(out, " L%.1f,%.1f", svg_map(&f->x, it->x[i]), svg_map(&f->y, it->low[i]));
    fputs(first ? "M0,0\"/>\n" : " Z\"/>\n", out);
}

static void draw_shade(FILE *out, const plot_frame *f, const chart_item *it)
{
    if (!svg_placeable(f->y.kind, it->box[0]) || !svg_placeable(f->y.kind, it->box[1]))
        return;
    double top = svg_map(&f->y, it->box[1]), bottom = svg_map(&f->y, it->box[0]);
    fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#000\" "
                 "fill-opacity=\"0.09\" stroke=\"#777\" stroke-dasharray=\"3 3\"/>\n",
            f->left, top, f->right - f->left, bottom - top);
}

static void draw_rule(FILE *out, const plot_frame *f, const chart_item *it)
{
    if (!svg_placeable(f->y.kind, it->box[0]))
        return;
    double y = svg_map(&f->y, it->box[0]);
    fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\" "
                 "stroke-width=\"1.2\"/>\n", f->left, y, f->right, y);
}

static void vertical_bar(FILE *out, svg_style style, double x, double y1, double y2, double cap)
{
    fprintf(out, "<path fill=\"none\" stroke=\"%s\" stroke-width=\"1.6\" d=\"M%.1f,%.1fV%.1f"
                 "M%.1f,%.1fh%.1fM%.1f,%.1fh%.1f\"/>\n", svg_style_color(style), x, y1, y2,
            x - cap, y1, 2 * cap, x - cap, y2, 2 * cap);
}

static void draw_intervals(FILE *out, const plot_frame *f, const chart_item *it)
{
    for (size_t i = 0; i < it->n; i++)
        if (placeable(f, it->x[i], it->low[i]) && placeable(f, it->x[i], it->high[i]))
            vertical_bar(out, it->style, svg_map(&f->x, it->x[i]) + it->offset,
                         svg_map(&f->y, it->low[i]), svg_map(&f->y, it->high[i]), 4);
    draw_markers(out, f, it, it->offset);
}

static void draw_box(FILE *out, const plot_frame *f, const chart_item *it)
{
    const double *b = it->box;
    for (size_t i = 0; i < 6; i++)
        if (!placeable(f, b[0], i == 0 ? b[1] : b[i]))
            return;
    double x = svg_map(&f->x, b[0]), half = 14;
    double q1 = svg_map(&f->y, b[1]), median = svg_map(&f->y, b[2]), q3 = svg_map(&f->y, b[3]);
    const char *color = svg_style_color(it->style);
    vertical_bar(out, it->style, x, svg_map(&f->y, b[4]), q1, 0);
    vertical_bar(out, it->style, x, q3, svg_map(&f->y, b[5]), 0);
    fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" "
                 "fill-opacity=\"0.12\" stroke=\"%s\" stroke-width=\"1.4\"/>\n",
            x - half, q3, 2 * half, q1 - q3, color, color);
    fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                 "stroke-width=\"3\"/>\n", x - half, median, x + half, median, color);
}

static void draw_item(FILE *out, const plot_frame *f, const chart_item *it)
{
    switch (it->kind) {
    case ITEM_SHADE: draw_shade(out, f, it); break;
    case ITEM_BAND: draw_band(out, f, it); break;
    case ITEM_RULE: draw_rule(out, f, it); break;
    case ITEM_BOX: draw_box(out, f, it); break;
    case ITEM_LINE:
        draw_polyline(out, f, it->x, it->y, it->n, it->style, 2);
        if (it->markers)
            draw_markers(out, f, it, 0);
        break;
    case ITEM_INTERVALS:
        draw_polyline(out, f, it->x, it->y, it->n, it->style, 1);
        draw_intervals(out, f, it);
        break;
    case ITEM_SCATTER: draw_markers(out, f, it, 0); break;
    case ITEM_KINDS: break;
    }
}

/* ---- legend ---- */

static void legend_swatch(FILE *out, const chart_item *it, double x, double y)
{
    const char *color = svg_style_color(it->style);
    switch (it->kind) {
    case ITEM_SHADE:
        fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"28\" height=\"10\" fill=\"#000\" "
                     "fill-opacity=\"0.09\" stroke=\"#777\" stroke-dasharray=\"3 3\"/>\n", x, y - 5);
        return;
    case ITEM_RULE:
        fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\" "
                     "stroke-width=\"1.2\"/>\n", x, y, x + 28, y);
        return;
    case ITEM_LINE:
    case ITEM_INTERVALS:
        fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                     "stroke-width=\"2\"", x, y, x + 28, y, color);
        dash_attribute(out, it->style);
        fputs("/>\n", out);
        break;
    default: break;
    }
    if (it->markers)
        draw_marker(out, it->style, x + 14, y);
}

static void next_legend_slot(const svg_chart *c, double width, double *x, double *y)
{
    if (*x + width > c->width - MARGIN_RIGHT && *x > MARGIN_LEFT) {
        *x = MARGIN_LEFT;
        *y += LEGEND_ROW;
    }
}

static void draw_legend(FILE *out, const svg_chart *c, const plot_frame *f)
{
    double x = MARGIN_LEFT, y = (double)c->height - (double)f->legend_rows * LEGEND_ROW + 4;
    for (size_t i = 0; i < c->n_items; i++) {
        const chart_item *it = &c->items[i];
        if (it->legend == NULL)
            continue;
        double w = legend_entry_width(it->legend);
        next_legend_slot(c, w, &x, &y);
        legend_swatch(out, it, x, y);
        draw_text(out, x + 34, y + 4, "start", "", it->legend);
        x += w;
    }
    if (c->flag_legend && any_flagged(c)) {
        next_legend_slot(c, legend_entry_width(c->flag_legend), &x, &y);
        draw_ring(out, x + 14, y);
        draw_text(out, x + 34, y + 4, "start", "", c->flag_legend);
    }
}

/* ---- the whole chart ---- */

static void open_svg(FILE *out, const svg_chart *c, bool standalone)
{
    if (standalone)
        fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
              "<svg xmlns=\"http://www.w3.org/2000/svg\"", out);
    else
        fputs("<svg", out);
    fprintf(out, " viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\" "
                 "font-family=\"sans-serif\" font-size=\"12\">\n<title>",
            c->width, c->height, c->width, c->height);
    markup_write_escaped(out, c->title);
    fprintf(out, "</title>\n<rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n", c->width, c->height);
    draw_text(out, 12, 22, "start", " font-size=\"14\" font-weight=\"bold\"", c->title);
    if (c->note)
        draw_text(out, 12, 22 + NOTE_HEIGHT, "start", " font-size=\"11\" fill=\"#444\"",
                  c->note);
}

int svg_chart_write(const svg_chart *c, FILE *out, bool standalone)
{
    plot_frame f;
    if (c->failed || !layout(c, &f))
        return -1;
    open_svg(out, c, standalone);
    draw_y_axis(out, c, &f);
    draw_x_axis(out, c, &f);
    for (int kind = 0; kind < ITEM_KINDS; kind++)
        for (size_t i = 0; i < c->n_items; i++)
            if ((int)c->items[i].kind == kind)
                draw_item(out, &f, &c->items[i]);
    fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
                 "stroke=\"#888\"/>\n", f.left, f.top, f.right - f.left, f.bottom - f.top);
    draw_legend(out, c, &f);
    fputs("</svg>\n", out);
    return ferror(out) ? -1 : 0;
}

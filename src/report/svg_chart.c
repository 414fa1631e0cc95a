/* The SVG chart builder: keeps copies of everything added, so callers may free their
 * arrays at once; svg_render.c turns it into SVG. */
#include "common/array.h"
#include "report/svg_chart_internal.h"

#include <stdlib.h>
#include <string.h>

/* Okabe and Ito's palette, distinguishable with the common colour-vision deficiencies. */
static const char *const colors[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                     "#E69F00", "#56B4E9", "#000000"};
static const char *const dashes[] = {"", "7 4", "2 3", "9 3 2 3", "4 2 1 2 1 2"};

const char *svg_style_color(svg_style style)
{
    return colors[style % (sizeof colors / sizeof *colors)];
}

const char *svg_style_dash(svg_style style)
{
    return dashes[style % (sizeof dashes / sizeof *dashes)];
}

static char *copy_text(const char *text)
{
    return text ? strdup(text) : NULL;
}

svg_chart *svg_chart_new(const char *title, int width, int height)
{
    svg_chart *chart = calloc(1, sizeof *chart);
    if (chart == NULL)
        return NULL;
    chart->title = strdup(title ? title : "");
    chart->width = width;
    chart->height = height;
    if (chart->title == NULL) {
        free(chart);
        return NULL;
    }
    return chart;
}

static void free_axis(chart_axis *axis)
{
    for (size_t i = 0; i < axis->n_ticks; i++)
        free(axis->tick_labels[i]);
    free(axis->tick_labels);
    free(axis->ticks);
    free(axis->label);
}

void svg_chart_free(svg_chart *chart)
{
    if (chart == NULL)
        return;
    for (size_t i = 0; i < chart->n_items; i++) {
        free(chart->items[i].legend);
        free(chart->items[i].x);
        free(chart->items[i].flagged);
    }
    free(chart->items);
    free_axis(&chart->axes[SVG_X]);
    free_axis(&chart->axes[SVG_Y]);
    free(chart->flag_legend);
    free(chart->note);
    free(chart->title);
    free(chart);
}

static int fail(svg_chart *chart)
{
    chart->failed = true;
    return -1;
}

int svg_chart_axis(svg_chart *chart, svg_axis_id axis, const char *label, svg_scale scale)
{
    chart_axis *a = &chart->axes[axis];
    free(a->label);
    a->label = copy_text(label);
    a->scale = scale;
    return label && a->label == NULL ? fail(chart) : 0;
}

int svg_chart_ticks(svg_chart *chart, svg_axis_id axis, const double *at,
                    const char *const *labels, size_t n)
{
    chart_axis *a = &chart->axes[axis];
    for (size_t i = 0; i < a->n_ticks; i++)
        free(a->tick_labels[i]);
    free(a->tick_labels);
    free(a->ticks);
    a->n_ticks = 0;
    a->ticks = malloc((n + 1) * sizeof *a->ticks);
    a->tick_labels = calloc(n + 1, sizeof *a->tick_labels);
    if (a->ticks == NULL || a->tick_labels == NULL)
        return fail(chart);
    for (size_t i = 0; i < n; i++, a->n_ticks++) {
        a->ticks[i] = at[i];
        a->tick_labels[i] = labels ? copy_text(labels[i]) : NULL;
        if (labels && labels[i] && a->tick_labels[i] == NULL)
            return fail(chart);
    }
    return 0;
}

void svg_chart_include(svg_chart *chart, svg_axis_id axis, double value)
{
    chart_axis *a = &chart->axes[axis];
    if (!a->has_include) {
        a->include_min = a->include_max = value;
        a->has_include = true;
    } else {
        a->include_min = value < a->include_min ? value : a->include_min;
        a->include_max = value > a->include_max ? value : a->include_max;
    }
}

int svg_chart_note(svg_chart *chart, const char *note)
{
    free(chart->note);
    chart->note = copy_text(note);
    return note && chart->note == NULL ? fail(chart) : 0;
}

int svg_chart_flag_legend(svg_chart *chart, const char *legend)
{
    free(chart->flag_legend);
    chart->flag_legend = copy_text(legend);
    return legend && chart->flag_legend == NULL ? fail(chart) : 0;
}

/* A new item with room for n points in x, y, low and high (and flags when asked). */
static chart_item *add_item(svg_chart *chart, chart_item_kind kind, svg_style style,
                            const char *legend, size_t n, bool with_flags)
{
    if (array_reserve((void **)&chart->items, &chart->capacity, chart->n_items + 1,
                      sizeof *chart->items) != 0)
        return fail(chart), NULL;
    chart_item *item = &chart->items[chart->n_items];
    memset(item, 0, sizeof *item);
    item->kind = kind;
    item->style = style;
    item->n = n;
    item->legend = copy_text(legend);
    item->x = calloc(4 * n + 1, sizeof *item->x);
    item->flagged = with_flags ? calloc(n + 1, sizeof *item->flagged) : NULL;
    if ((legend && item->legend == NULL) || item->x == NULL || (with_flags && !item->flagged)) {
        free(item->legend);
        free(item->x);
        free(item->flagged);
        return fail(chart), NULL;
    }
    item->y = item->x + n;
    item->low = item->y + n;
    item->high = item->low + n;
    chart->n_items++;
    return item;
}

static void copy_values(double *to, const double *from, size_t n)
{
    if (from && n)
        memcpy(to, from, n * sizeof *to);
}

int svg_chart_line(svg_chart *chart, svg_style style, const char *legend, const double *x,
                   const double *y, size_t n, bool markers)
{
    chart_item *item = add_item(chart, ITEM_LINE, style, legend, n, false);
    if (item == NULL)
        return -1;
    copy_values(item->x, x, n);
    copy_values(item->y, y, n);
    item->markers = markers;
    return 0;
}

int svg_chart_scatter(svg_chart *chart, svg_style style, const char *legend, const double *x,
                      const double *y, const bool *flagged, size_t n)
{
    chart_item *item = add_item(chart, ITEM_SCATTER, style, legend, n, true);
    if (item == NULL)
        return -1;
    copy_values(item->x, x, n);
    copy_values(item->y, y, n);
    if (flagged && n)
        memcpy(item->flagged, flagged, n * sizeof *flagged);
    item->markers = true;
    return 0;
}

int svg_chart_band(svg_chart *chart, svg_style style, const double *x, const double *low,
                   const double *high, size_t n)
{
    chart_item *item = add_item(chart, ITEM_BAND, style, NULL, n, false);
    if (item == NULL)
        return -1;
    copy_values(item->x, x, n);
    copy_values(item->low, low, n);
    copy_values(item->high, high, n);
    return 0;
}

int svg_chart_shade(svg_chart *chart, double low, double high, const char *legend)
{
    chart_item *item = add_item(chart, ITEM_SHADE, 0, legend, 0, false);
    if (item == NULL)
        return -1;
    item->box[0] = low;
    item->box[1] = high;
    return 0;
}

int svg_chart_rule(svg_chart *chart, double y, const char *legend)
{
    chart_item *item = add_item(chart, ITEM_RULE, 0, legend, 0, false);
    if (item == NULL)
        return -1;
    item->box[0] = y;
    return 0;
}

int svg_chart_intervals(svg_chart *chart, svg_style style, const char *legend, const double *x,
                        const double *estimate, const double *low, const double *high,
                        size_t n, double offset)
{
    chart_item *item = add_item(chart, ITEM_INTERVALS, style, legend, n, false);
    if (item == NULL)
        return -1;
    copy_values(item->x, x, n);
    copy_values(item->y, estimate, n);
    copy_values(item->low, low, n);
    copy_values(item->high, high, n);
    item->offset = offset;
    item->markers = true;
    return 0;
}

int svg_chart_box(svg_chart *chart, svg_style style, double x, double q1, double median,
                  double q3, double low, double high)
{
    chart_item *item = add_item(chart, ITEM_BOX, style, NULL, 0, false);
    if (item == NULL)
        return -1;
    double values[6] = {x, q1, median, q3, low, high};
    memcpy(item->box, values, sizeof values);
    return 0;
}

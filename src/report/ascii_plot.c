/* Draws ministat-style distribution plots in plain ASCII, so they survive a mail.
 * Markers stack upward when values share a column; nothing here does statistics beyond quartiles. */
#include "report/ascii_plot.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/descriptive.h"

#define MAX_STACK 6

typedef struct {
    double low, high;
    int width;
} plot_axis;

static int column_of(const plot_axis *axis, double x)
{
    if (!(axis->high > axis->low))
        return axis->width / 2;
    double t = (x - axis->low) / (axis->high - axis->low);
    int column = (int)lround(t * (axis->width - 1));
    return column < 0 ? 0 : column >= axis->width ? axis->width - 1 : column;
}

static void frame_line(FILE *out, int width)
{
    fputs("  +", out);
    for (int i = 0; i < width; i++)
        fputc('-', out);
    fputs("+\n", out);
}

static void print_row(FILE *out, char label, const char *cells, int width)
{
    fprintf(out, "%c |%.*s|\n", label, width, cells);
}

/* Rows of markers for one group, the tallest stack first. */
static void draw_markers(FILE *out, const plot_axis *axis, const plot_group *g, char *row)
{
    int *height = calloc((size_t)axis->width, sizeof *height);
    if (height == NULL)
        return;
    int tallest = 0;
    for (size_t i = 0; i < g->n; i++) {
        int c = column_of(axis, g->values[i]);
        if (height[c] < MAX_STACK)
            height[c]++;
        if (height[c] > tallest)
            tallest = height[c];
    }
    for (int level = tallest; level >= 1; level--) {
        memset(row, ' ', (size_t)axis->width);
        for (int c = 0; c < axis->width; c++)
            if (height[c] >= level)
                row[c] = g->marker;
        print_row(out, g->marker, row, axis->width);
    }
    free(height);
}

/* |____M____| from the first to the third quartile, M at the median. */
static void draw_quartiles(FILE *out, const plot_axis *axis, const plot_group *g, char *row)
{
    double *sorted = NULL;
    if (stats_sorted_copy(g->values, g->n, &sorted) != STATS_OK)
        return;
    int q1 = column_of(axis, stats_quantile_sorted(sorted, g->n, 0.25));
    int q3 = column_of(axis, stats_quantile_sorted(sorted, g->n, 0.75));
    int median = column_of(axis, stats_median_sorted(sorted, g->n));
    free(sorted);
    memset(row, ' ', (size_t)axis->width);
    for (int c = q1; c <= q3; c++)
        row[c] = '_';
    row[q1] = '|';
    row[q3] = '|';
    row[median] = 'M';
    print_row(out, g->marker, row, axis->width);
}

void ascii_plot_write(FILE *out, const plot_group *groups, size_t n_groups, int width,
                      const units_format *axis_format)
{
    plot_axis axis = {INFINITY, -INFINITY, width < 20 ? 20 : width};
    for (size_t g = 0; g < n_groups; g++)
        for (size_t i = 0; i < groups[g].n; i++) {
            axis.low = fmin(axis.low, groups[g].values[i]);
            axis.high = fmax(axis.high, groups[g].values[i]);
        }
    if (!isfinite(axis.low))
        return;
    char *row = malloc((size_t)axis.width);
    if (row == NULL)
        return;
    frame_line(out, axis.width);
    for (size_t g = 0; g < n_groups; g++)
        draw_markers(out, &axis, &groups[g], row);
    for (size_t g = 0; g < n_groups; g++)
        draw_quartiles(out, &axis, &groups[g], row);
    frame_line(out, axis.width);
    char low[48], high[48];
    units_format_value(axis_format, axis.low, low, sizeof low);
    units_format_value(axis_format, axis.high, high, sizeof high);
    fprintf(out, "   %-*s%*s\n", axis.width / 2, low, axis.width - axis.width / 2 + 1, high);
    free(row);
}

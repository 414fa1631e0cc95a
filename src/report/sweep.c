/* Sweep detection for the charts. All points of an experiment share their parameter
 * names in one order (the plan is a product of the parameters' values). */
#include "report/sweep.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Values must grow by at least this factor at every step to be called geometric. */
#define GEOMETRIC_STEP 1.5

static bool parse_number(const char *text, double *out)
{
    char *end = NULL;
    errno = 0;
    *out = strtod(text, &end);
    return end != text && *end == '\0' && errno == 0 && isfinite(*out);
}

static bool same_parameters(const report_input *in)
{
    const report_point *first = &in->points[0];
    for (size_t p = 1; p < in->n_points; p++) {
        if (in->points[p].n_params != first->n_params)
            return false;
        for (size_t k = 0; k < first->n_params; k++)
            if (strcmp(in->points[p].param_names[k], first->param_names[k]) != 0)
                return false;
    }
    return true;
}

static int ascending(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Distinct numeric values of parameter k, sorted; 0 when one of them is not a number. */
static size_t distinct_values(const report_input *in, size_t k, double *sorted)
{
    for (size_t p = 0; p < in->n_points; p++)
        if (!parse_number(in->points[p].param_values[k], &sorted[p]))
            return 0;
    qsort(sorted, in->n_points, sizeof *sorted, ascending);
    size_t n = 0;
    for (size_t p = 0; p < in->n_points; p++)
        if (n == 0 || sorted[p] != sorted[n - 1])
            sorted[n++] = sorted[p];
    return n;
}

static svg_scale scale_of(const double *sorted, size_t n)
{
    if (n < 3 || sorted[0] <= 0)
        return SVG_SCALE_LINEAR;
    for (size_t i = 1; i < n; i++)
        if (sorted[i] < sorted[i - 1] * GEOMETRIC_STEP)
            return SVG_SCALE_LINEAR;
    return SVG_SCALE_LOG;
}

/* The numeric parameter with the most distinct values (the first on a tie). */
static bool choose_parameter(const report_input *in, report_sweep *out, double *scratch)
{
    size_t best = 1;
    for (size_t k = 0; k < in->points[0].n_params; k++) {
        size_t n = distinct_values(in, k, scratch);
        if (n > best) {
            best = n;
            out->parameter = k;
            out->found = true;
        }
    }
    if (out->found)
        out->scale = scale_of(scratch, distinct_values(in, out->parameter, scratch));
    return out->found;
}

static char *group_label_of(const report_point *point, size_t skip)
{
    size_t length = 1;
    for (size_t k = 0; k < point->n_params; k++)
        if (k != skip)
            length += strlen(point->param_names[k]) + strlen(point->param_values[k]) + 3;
    char *label = malloc(length);
    if (label == NULL)
        return NULL;
    label[0] = '\0';
    for (size_t k = 0; k < point->n_params; k++)
        if (k != skip)
            snprintf(label + strlen(label), length - strlen(label), "%s%s=%s", label[0] ? ", " : "",
                     point->param_names[k], point->param_values[k]);
    return label;
}

static int assign_groups(const report_input *in, report_sweep *out)
{
    for (size_t p = 0; p < in->n_points; p++) {
        char *label = group_label_of(&in->points[p], out->parameter);
        if (label == NULL)
            return -1;
        size_t g = 0;
        while (g < out->n_groups && strcmp(out->group_label[g], label) != 0)
            g++;
        if (g < out->n_groups) {
            free(label);
        } else {
            out->group_label[out->n_groups++] = label;
        }
        out->group[p] = g;
        parse_number(in->points[p].param_values[out->parameter], &out->value[p]);
    }
    return 0;
}

int sweep_find(const report_input *in, report_sweep *out)
{
    memset(out, 0, sizeof *out);
    if (in->n_points < 2 || in->points[0].n_params == 0 || !same_parameters(in))
        return 0;
    double *scratch = malloc(in->n_points * sizeof *scratch);
    if (scratch == NULL)
        return -1;
    bool found = choose_parameter(in, out, scratch);
    free(scratch);
    if (!found)
        return 0;
    out->name = in->points[0].param_names[out->parameter];
    out->value = calloc(in->n_points, sizeof *out->value);
    out->group = calloc(in->n_points, sizeof *out->group);
    out->group_label = calloc(in->n_points, sizeof *out->group_label);
    if (!out->value || !out->group || !out->group_label || assign_groups(in, out) != 0) {
        sweep_free(out);
        return -1;
    }
    return 0;
}

void sweep_free(report_sweep *sweep)
{
    for (size_t g = 0; sweep->group_label && g < sweep->n_groups; g++)
        free(sweep->group_label[g]);
    free(sweep->group_label);
    free(sweep->group);
    free(sweep->value);
    memset(sweep, 0, sizeof *sweep);
}

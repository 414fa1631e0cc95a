/* A point's blocks held as one table of values, NaN where nothing was measured, and the
 * series over its complete blocks: one rule for what a look and a report analyse. */
#include "lab/lab_series.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "core/metrics.h"

bool lab_sample_measured(int exit_code, bool timed_out)
{
    return exit_code == 0 && !timed_out;
}

double lab_sample_reading(const store_sample *s, const char *name)
{
    for (size_t i = 0; i < s->n_metrics; i++)
        if (strcmp(s->metric_names[i], name) == 0)
            return s->metric_values[i];
    if (strcmp(name, "wall") == 0)
        return s->wall;
    if (strcmp(name, "user") == 0)
        return s->user;
    if (strcmp(name, "sys") == 0)
        return s->sys;
    if (strcmp(name, "cpu") == 0)
        return s->user + s->sys;
    if (strcmp(name, "maxrss") == 0)
        return s->maxrss_kib;
    return NAN;
}

lab_block_table lab_block_table_make(size_t n_units, size_t n_metrics)
{
    return (lab_block_table){.values = NULL, .blocks = 0, .n_units = n_units,
                             .n_metrics = n_metrics};
}

/* The index of a cell's first value; every caller's index is checked here. */
static size_t cell_start(const lab_block_table *t, size_t block, size_t unit)
{
    assert(block < t->blocks && unit < t->n_units);
    return (block * t->n_units + unit) * t->n_metrics;
}

int lab_block_table_reserve(lab_block_table *t, size_t blocks)
{
    if (blocks <= t->blocks)
        return 0;
    size_t grown = t->blocks ? t->blocks : 16, per_block, values, bytes;
    while (grown < blocks)
        if (size_multiply(grown, 2, &grown) != 0)
            return -1;
    if (size_multiply(t->n_units, t->n_metrics, &per_block) != 0 ||
        size_multiply(grown, per_block, &values) != 0 ||
        size_multiply(values + 1, sizeof *t->values, &bytes) != 0)
        return -1;
    double *v = realloc(t->values, bytes);
    if (v == NULL)
        return -1;
    for (size_t i = t->blocks * per_block; i < values; i++)
        v[i] = NAN;
    t->values = v;
    t->blocks = grown;
    return 0;
}

void lab_block_table_clear(lab_block_table *t)
{
    size_t n = t->blocks * t->n_units * t->n_metrics;
    for (size_t i = 0; i < n; i++)
        t->values[i] = NAN;
}

void lab_block_table_put(lab_block_table *t, size_t block, size_t unit, const double *values)
{
    double *cell = t->values + cell_start(t, block, unit);
    for (size_t m = 0; m < t->n_metrics; m++)
        cell[m] = values ? values[m] : NAN;
}

double lab_block_table_value(const lab_block_table *t, size_t block, size_t unit, size_t metric)
{
    assert(metric < t->n_metrics);
    return t->values[cell_start(t, block, unit) + metric];
}

void lab_block_table_free(lab_block_table *t)
{
    free(t->values);
    t->values = NULL;
    t->blocks = 0;
}

/* The first unit with no value of the metric in any of the blocks, or -1. */
static long unit_without_values(const lab_block_table *t, size_t m, size_t blocks)
{
    for (size_t u = 0; u < t->n_units; u++) {
        bool any = false;
        for (size_t b = 0; b < blocks && !any; b++)
            any = isfinite(lab_block_table_value(t, b, u, m));
        if (!any)
            return (long)u;
    }
    return -1;
}

/* Both builders of old (the engine's looks, lab/results.c) agreed on complete blocks; they
 * differed in what a block held and when a metric counted, and the report's rule is kept:
 * - a failed or timed-out run recorded by on_failure: record is no measurement (the looks
 *   counted a failed command's wall time as one);
 * - a metric with fewer than two complete blocks is left out (the looks analysed it and
 *   the analysis could not decide, so one such metric held back every other one);
 * - a stored sample's metric is read as the report reads it (lab_sample_reading: a
 *   process reading when the sample has no value of that name; the looks had NaN);
 * - a series names its machine and whether it was built from a source, as the report's.
 * A look now sees the series the report of the same blocks shows (tests/lab/test_engine.c,
 * test_looks_see_the_reports_series). */
lab_series_shape lab_series_build(const experiment *e, const lab_block_table *t, size_t m,
                                  size_t blocks, const char *point, const char *machine,
                                  double *values, analysis_series *series)
{
    assert(blocks <= t->blocks && m < t->n_metrics && t->n_units == experiment_unit_count(e));
    lab_series_shape shape = {.complete = 0, .missing = unit_without_values(t, m, blocks)};
    for (size_t b = 0; b < blocks; b++) {
        bool all = true;
        for (size_t u = 0; u < t->n_units && all; u++)
            all = isfinite(lab_block_table_value(t, b, u, m));
        for (size_t u = 0; all && u < t->n_units; u++)
            values[u * blocks + shape.complete] = lab_block_table_value(t, b, u, m);
        shape.complete += all;
    }
    shape.analysed = shape.missing < 0 && shape.complete >= 2;
    for (size_t u = 0; u < t->n_units; u++) {
        size_t layout;
        const experiment_variant *v = &e->variants[experiment_unit_variant(e, u, &layout)];
        series[u] = (analysis_series){
            .point = point, .metric = e->metrics[m].name, .variant = v->name, .layout = layout,
            .n_layouts = experiment_variant_layouts(v), .built = v->source.path != NULL,
            .values = values + u * blocks, .n = shape.complete,
            .higher_is_better = e->metrics[m].higher_is_better,
            .exact_counts = metric_is_count(&e->metrics[m]),
            .machine = machine && machine[0] ? machine : NULL};
    }
    return shape;
}

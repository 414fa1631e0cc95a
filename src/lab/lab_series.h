/* The one series builder: a point's blocks as a table of values, and from it each metric's
 * series over the complete blocks, as the engine's adaptive looks and the reports read them. */
#ifndef VERDICT_LAB_LAB_SERIES_H
#define VERDICT_LAB_LAB_SERIES_H

#include <stdbool.h>
#include <stddef.h>

#include "core/analysis.h"
#include "core/experiment.h"
#include "store/store.h"

/* One point's blocks: values[(block * n_units + unit) * n_metrics + metric], NaN where the
 * unit has no measured value of the metric in that block (not run yet, a failed or timed-out
 * run, a metric the run did not give). */
typedef struct {
    double *values;
    size_t blocks;               /* blocks allocated */
    size_t n_units, n_metrics;
} lab_block_table;

/* Whether a stored run is a measurement of its variant: a failed or timed-out run (kept by
 * on_failure: record) is not; its block stays incomplete and is never analysed. */
bool lab_sample_measured(int exit_code, bool timed_out);
/* A stored sample's reading of a metric: its own value of that name, else the process's
 * (wall, user, sys, cpu, maxrss); NaN when it has none. */
double lab_sample_reading(const store_sample *s, const char *name);

/* An empty table of n_units x n_metrics per block (nothing allocated yet). */
lab_block_table lab_block_table_make(size_t n_units, size_t n_metrics);
/* Makes room for blocks [0, blocks), the new cells NaN; 0, or -1 when out of memory or the
 * size would overflow (the table is unchanged then). */
int lab_block_table_reserve(lab_block_table *t, size_t blocks);
/* Every cell NaN again (the allocation kept). */
void lab_block_table_clear(lab_block_table *t);
/* The unit's values in the block (n_metrics of them); NULL: the unit was not measured. */
void lab_block_table_put(lab_block_table *t, size_t block, size_t unit, const double *values);
double lab_block_table_value(const lab_block_table *t, size_t block, size_t unit, size_t metric);
void lab_block_table_free(lab_block_table *t);

typedef struct {
    size_t complete;             /* blocks in which every unit has a value of the metric */
    long missing;                /* the first unit without any value of it, or -1 */
    bool analysed;               /* two complete blocks or more: the series are analysed */
} lab_series_shape;

/* The series of metric m of every unit at a point over the complete blocks among the
 * table's first `blocks`: values[u * blocks + k] is unit u's value in the k-th complete
 * block (values holds n_units * blocks), series[u] describes it (n_units of them, filled
 * whatever the shape; use them only when analysed). machine: NULL or "" on one machine. */
lab_series_shape lab_series_build(const experiment *e, const lab_block_table *t, size_t m,
                                  size_t blocks, const char *point, const char *machine,
                                  double *values, analysis_series *series);

#endif

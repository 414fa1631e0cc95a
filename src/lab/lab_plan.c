/* The planner from a store: each (point, metric, machine, candidate) comparison's σ_d from
 * its paired log ratios and σ_layout from its twins, a run's cost from the samples' starts,
 * the family's alpha as the report will spend it, then stats/plan_design's allocation. */
#include "lab/lab_plan.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "core/stopping.h"
#include "lab/lab_report.h"
#include "stats/descriptive.h"
#include "stats/layouts.h"

/* σ_layout of a comparison with twins on both sides: layouts_compare's moment estimate;
 * 0 when the layouts carry no information; NaN without twins. */
static double layout_spread(const analysis_series *base, const analysis_series *cand,
                            size_t n_blocks, const experiment *e)
{
    size_t ka = base->n_layouts, kc = cand->n_layouts;
    if (ka < 2 || kc < 2)
        return NAN;
    const double **units = malloc((ka + kc) * sizeof *units);
    if (units == NULL)
        return NAN;
    for (size_t k = 0; k < ka + kc; k++)
        units[k] = k < ka ? base[k].values : cand[k - ka].values;
    layouts_variant a = {units, ka}, c = {units + ka, kc};
    layouts_options options = {METHOD_WILCOXON, e->confidence, e->margin,
                               base->higher_is_better};
    layouts_comparison out;
    memset(&out, 0, sizeof out);
    double spread = layouts_compare(&a, &c, n_blocks, &options, &out) == STATS_OK
                        ? out.layout_spread : 0.0;
    layouts_comparison_free(&out);
    free(units);
    return spread;
}

/* One comparison's row: its components from the series of baseline and candidate (each
 * their layouts' series, contiguous). */
static int plan_row(const analysis_series *base, const analysis_series *cand,
                    const experiment *e, plan_report_row *row, verdict_error *err)
{
    size_t ka = base->n_layouts > 1 ? base->n_layouts : 1;
    size_t kc = cand->n_layouts > 1 ? cand->n_layouts : 1;
    size_t pairs = ka < kc ? ka : kc, n = base->n;
    const double *a[EXPERIMENT_MAX_LAYOUTS], *c[EXPERIMENT_MAX_LAYOUTS];
    assert(pairs <= EXPERIMENT_MAX_LAYOUTS);
    for (size_t k = 0; k < pairs; k++) {
        assert(base[k].n == n && cand[k].n == n); /* complete blocks of one group */
        a[k] = base[k].values;
        c[k] = cand[k].values;
    }
    *row = (plan_report_row){.point = base->point, .metric = base->metric,
                             .machine = base->machine ? base->machine : "",
                             .baseline = base->variant, .candidate = cand->variant,
                             .blocks_measured = n, .layouts_measured = pairs};
    stats_status st = plan_pair_sd(a, c, pairs, n, &row->components.sd_pair);
    if (st == STATS_ERR_TOO_FEW)
        return error_set(err, ERROR_BAD_INPUT, "%s: point %s, metric %s: %zu complete "
                         "block%s stored; the planner needs at least %d (run more blocks, or "
                         "give --pilot N)", e->path, base->point, base->metric, n,
                         n == 1 ? "" : "s", PLAN_MIN_BLOCKS);
    if (st == STATS_ERR_NOMEM)
        return error_no_memory(err);
    if (st != STATS_OK)
        return error_set(err, ERROR_BAD_INPUT, "%s: point %s, metric %s: values of %s or %s "
                         "that are not positive: the planner works on log ratios", e->path,
                         base->point, base->metric, base->variant, cand->variant);
    row->components.sd_layout = layout_spread(base, cand, n, e);
    return 0;
}

static size_t layouts_of(const analysis_series *s)
{
    return s->n_layouts > 1 ? s->n_layouts : 1;
}

/* A row per candidate of every (point, metric, machine) group, against the group's first
 * variant, as the analysis pairs them. */
static int collect_rows(const lab_results *r, const experiment *e, lab_plan *p,
                        verdict_error *err)
{
    p->rows = calloc(r->n_series + 1, sizeof *p->rows);
    if (p->rows == NULL)
        return error_no_memory(err);
    size_t n_rows = 0;
    for (size_t g = 0; g < r->n_series;) {
        const analysis_series *base = &r->series[g];
        size_t j = g + layouts_of(base);
        for (; j < r->n_series && analysis_same_group(base, &r->series[j]);
             j += layouts_of(&r->series[j]))
            if (plan_row(base, &r->series[j], e, &p->rows[n_rows++], err) != 0)
                return -1;
        g = j;
    }
    p->report.rows = p->rows;
    p->report.n_rows = n_rows;
    return 0;
}

/* A fleet's spread between machines: τ of each comparison the analysis pools, as the report
 * computes it (the experiment's own analysis). */
static int collect_fleet(const lab_results *r, const experiment *e, lab_plan *p,
                         verdict_error *err)
{
    if (r->n_machines < 2)
        return 0;
    analysis_options options = lab_default_analysis(e);
    analysis_result a;
    if (analysis_run(r->series, r->n_series, &options, &a, err) != 0)
        return -1;
    int rc = 0;
    p->fleet = calloc(a.n_fleet + 1, sizeof *p->fleet);
    if (p->fleet == NULL)
        rc = error_no_memory(err);
    for (size_t i = 0; rc == 0 && i < a.n_fleet; i++) {
        const analysis_fleet *f = &a.fleet[i];
        if (f->ok) /* the strings are the series', which the results keep */
            p->fleet[p->report.n_fleet++] = (plan_report_fleet){
                f->point, f->metric, f->baseline, f->candidate, f->n_machines, f->tau};
    }
    p->report.fleet = p->fleet;
    analysis_result_free(&a);
    return rc;
}

/* The column of a sample's wall time. */
static long wall_column(const lab_results *r)
{
    for (size_t k = 0; k < r->n_sample_metrics; k++)
        if (strcmp(r->sample_metric_names[k], "wall") == 0)
            return (long)k;
    return -1;
}

/* A run's cost: the median time from one run's start to the next one's on the same machine
 * (the run with its prepare, conclude, server and verdict's own work); without starts, the
 * runs' mean wall. NaN when the store has neither. */
static int run_cost(const lab_results *r, plan_report *out, verdict_error *err)
{
    double *gaps = malloc((r->n_samples + 1) * sizeof *gaps), wall = 0;
    size_t n_gaps = 0, n_wall = 0;
    long column = wall_column(r);
    if (gaps == NULL)
        return error_no_memory(err);
    for (size_t i = 0; i < r->n_samples; i++) {
        const report_sample *s = &r->samples[i], *next = &r->samples[i + 1];
        double w = column >= 0 ? s->metric_values[column] : NAN;
        if (s->block >= 0 && isfinite(w))
            wall += w, n_wall++;
        double gap = i + 1 < r->n_samples ? next->started - s->started : NAN;
        /* a resumed session starts its clock again: a gap back in time is no run */
        if (s->block >= 0 && i + 1 < r->n_samples && next->block >= 0 && gap > 0 &&
            strcmp(s->machine, next->machine) == 0)
            gaps[n_gaps++] = gap;
    }
    out->run_from_starts = n_gaps > 0 && stats_median(gaps, n_gaps, &out->run_seconds) == STATS_OK;
    if (!out->run_from_starts)
        out->run_seconds = n_wall > 0 ? wall / (double)n_wall : NAN;
    free(gaps);
    if (!(out->run_seconds > 0))
        return error_set(err, ERROR_BAD_INPUT, "%s: its runs' durations are not stored: no "
                         "cost to plan with", out->experiment);
    return 0;
}

static bool has_twins(const experiment *e)
{
    for (size_t v = 0; v < e->n_variants; v++)
        if (experiment_variant_layouts(&e->variants[v]) > 1)
            return true;
    return false;
}

/* The family's alpha per comparison, as the report spends it for a plan of `repetitions`:
 * one look keeping reserve_for_more for --more, shared by the comparisons (Holm's first
 * step, Bonferroni). */
static void settle_target(const experiment *e, const lab_plan_options *o, plan_report *p)
{
    p->confidence = e->confidence;
    p->reserve_for_more = e->reserve_for_more;
    p->comparisons = p->n_rows;
    p->target = o->target;
    p->target.alpha = stopping_planned_alpha(1.0 - e->confidence, e->reserve_for_more, 1) /
                      (double)p->n_rows;
    p->relink_assumed = isnan(o->relink_seconds);
    p->relink_seconds = p->relink_assumed ? LAB_PLAN_DEFAULT_RELINK_SECONDS : o->relink_seconds;
}

static int allocate(lab_plan *p, verdict_error *err)
{
    plan_report *r = &p->report;
    p->components = malloc(r->n_rows * sizeof *p->components);
    if (p->components == NULL)
        return error_no_memory(err);
    /* one more block of a layout runs it at every point; a relink serves them all */
    double block = r->run_seconds * (double)r->points;
    stats_status st = STATS_OK;
    for (size_t i = 0; st == STATS_OK && i < r->n_rows; i++) {
        p->components[i] = p->rows[i].components;
        st = plan_allocate(&p->components[i], block, r->relink_seconds, &r->target,
                           &p->rows[i].alone);
    }
    if (st == STATS_OK)
        st = plan_allocate_all(p->components, r->n_rows, block, r->relink_seconds, &r->target,
                               &r->allocation);
    if (st == STATS_ERR_NOMEM)
        return error_no_memory(err);
    if (st != STATS_OK)
        return error_set(err, ERROR_BAD_INPUT, "%s: a target of %g%% is out of reach at this "
                         "noise (more than %.0f blocks or layouts)", r->experiment,
                         100.0 * r->target.change, PLAN_MAX_UNITS);
    r->expected_seconds = plan_expected_seconds(&r->allocation, r->points, r->variants,
                                                r->run_seconds, r->relink_seconds);
    return 0;
}

int lab_plan_compute(store *db, int64_t experiment_id, const experiment *e,
                     const lab_plan_options *o, lab_plan *out, verdict_error *err)
{
    memset(out, 0, sizeof *out);
    plan_report *r = &out->report;
    *r = (plan_report){.experiment = e->name, .store = o->store_name, .pilot = o->pilot,
                       .twins = has_twins(e), .points = experiment_point_count(e),
                       .variants = e->n_variants};
    if (lab_results_load(db, experiment_id, e, &out->results, err) != 0 ||
        collect_rows(&out->results, e, out, err) != 0)
        return -1;
    if (r->n_rows == 0)
        return error_set(err, ERROR_BAD_INPUT, "%s: %s holds no complete block of %s: run "
                         "`verdict run %s` first (a few blocks will do), or give --pilot N",
                         e->path, o->store_name, e->name, e->path);
    settle_target(e, o, r);
    if (run_cost(&out->results, r, err) != 0 || collect_fleet(&out->results, e, out, err) != 0)
        return -1;
    return allocate(out, err);
}

void lab_plan_free(lab_plan *p)
{
    free(p->rows);
    free(p->components);
    free(p->fleet);
    lab_results_free(&p->results);
    memset(p, 0, sizeof *p);
}

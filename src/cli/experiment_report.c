/* Builds the report input of an experiment from its stored samples: points with their
 * parameters, series over each point's complete blocks, the machine facts of the store. */
#include "cli/experiment_report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/stored_samples.h"
#include "core/stopping.h"
#include "report/report.h"

#define STOPPING_GROWTH 1.5

typedef struct {
    const experiment *e;
    const stored_samples *samples;
    report_point *points;
    char **point_ids;
    const char ***param_values;
    const char **param_names;
    report_variant *variants;
    report_sample *report_samples;
    const char **sample_metric_names;
    double *sample_metric_values;
    size_t n_sample_metrics;
    analysis_series *series;
    double *series_values;
    size_t n_series;
    report_fact *facts;
    size_t n_facts;
} experiment_model;

void experiment_report_defaults(const experiment *e, experiment_report_options *o)
{
    memset(o, 0, sizeof *o);
    o->analysis = (analysis_options){.method = METHOD_WILCOXON, .paired = true,
                                     .confidence = e->confidence, .margin = e->margin,
                                     .adjust = ADJUST_HOLM, .seed = e->seed};
    o->text = stdout;
}

static int build_points(const experiment *e, experiment_model *m)
{
    size_t n = experiment_point_count(e);
    m->points = calloc(n, sizeof *m->points);
    m->point_ids = calloc(n, sizeof *m->point_ids);
    m->param_values = calloc(n, sizeof *m->param_values);
    size_t *index = calloc(e->n_parameters + 1, sizeof *index);
    const char **names = m->param_names = calloc(e->n_parameters + 1, sizeof *names);
    if (!m->points || !m->point_ids || !m->param_values || !index || !names)
        goto fail;
    for (size_t k = 0; k < e->n_parameters; k++)
        names[k] = e->parameters[k].name;
    for (size_t p = 0; p < n; p++) {
        experiment_point_values(e, p, index);
        m->param_values[p] = calloc(e->n_parameters + 1, sizeof *m->param_values[p]);
        m->point_ids[p] = experiment_point_id(e, p);
        if (m->param_values[p] == NULL || m->point_ids[p] == NULL)
            goto fail;
        for (size_t k = 0; k < e->n_parameters; k++)
            m->param_values[p][k] = e->parameters[k].values[index[k]];
        m->points[p] = (report_point){m->point_ids[p], names, m->param_values[p], e->n_parameters};
    }
    free(index);
    return 0;
fail:
    free(index);
    return -1;
}

/* A block is complete at a point when every variant has a sample with every metric. */
static bool block_complete(const experiment_model *m, const char *point, long block)
{
    const experiment *e = m->e;
    for (size_t v = 0; v < e->n_variants; v++) {
        const stored_sample *s = stored_find(m->samples, point, e->variants[v].name, block);
        double value;
        if (s == NULL)
            return false;
        for (size_t k = 0; k < e->n_metrics; k++)
            if (!stored_metric(s, e->metrics[k].name, &value))
                return false;
    }
    return true;
}

static long max_block(const stored_samples *samples)
{
    long highest = -1;
    for (size_t i = 0; i < samples->n; i++)
        if (samples->items[i].block > highest)
            highest = samples->items[i].block;
    return highest;
}

/* Series per (point, metric, variant), in that order, over each point's complete blocks. */
static int build_series(experiment_model *m)
{
    const experiment *e = m->e;
    size_t n_points = experiment_point_count(e), blocks = (size_t)(max_block(m->samples) + 1);
    m->n_series = n_points * e->n_metrics * e->n_variants;
    m->series = calloc(m->n_series + 1, sizeof *m->series);
    m->series_values = calloc(m->n_series * (blocks + 1) + 1, sizeof *m->series_values);
    if (m->series == NULL || m->series_values == NULL)
        return -1;
    size_t i = 0;
    for (size_t p = 0; p < n_points; p++)
        for (size_t k = 0; k < e->n_metrics; k++)
            for (size_t v = 0; v < e->n_variants; v++, i++) {
                double *values = m->series_values + i * (blocks + 1);
                size_t n = 0;
                for (long b = 0; b < (long)blocks; b++)
                    if (block_complete(m, m->point_ids[p], b))
                        stored_metric(stored_find(m->samples, m->point_ids[p], e->variants[v].name, b),
                                      e->metrics[k].name, &values[n++]);
                m->series[i] = (analysis_series){m->point_ids[p], e->metrics[k].name,
                                                 e->variants[v].name, values, n,
                                                 e->metrics[k].higher_is_better};
            }
    return 0;
}

static void add_metric_name(experiment_model *m, const char *name)
{
    for (size_t k = 0; k < m->n_sample_metrics; k++)
        if (strcmp(m->sample_metric_names[k], name) == 0)
            return;
    m->sample_metric_names[m->n_sample_metrics++] = name;
}

static int build_report_samples(experiment_model *m)
{
    const experiment *e = m->e;
    size_t n = m->samples->n;
    static const char *const builtins[] = {"wall", "user", "sys", "maxrss"};
    m->sample_metric_names = calloc(e->n_metrics + 5, sizeof *m->sample_metric_names);
    m->report_samples = calloc(n + 1, sizeof *m->report_samples);
    if (m->sample_metric_names == NULL || m->report_samples == NULL)
        return -1;
    for (size_t k = 0; k < e->n_metrics; k++)
        add_metric_name(m, e->metrics[k].name);
    for (size_t b = 0; b < 4; b++)
        add_metric_name(m, builtins[b]);
    m->sample_metric_values = calloc((n + 1) * m->n_sample_metrics, sizeof *m->sample_metric_values);
    if (m->sample_metric_values == NULL)
        return -1;
    for (size_t i = 0; i < n; i++) {
        const stored_sample *s = &m->samples->items[i];
        double *values = m->sample_metric_values + i * m->n_sample_metrics;
        for (size_t k = 0; k < m->n_sample_metrics; k++)
            if (!stored_metric(s, m->sample_metric_names[k], &values[k]))
                values[k] = NAN;
        m->report_samples[i] = (report_sample){
            .variant = s->variant, .point = s->point, .block = s->block, .seq = s->seq,
            .metric_names = m->sample_metric_names, .metric_values = values,
            .n_metrics = m->n_sample_metrics, .exit_code = s->exit_code, .tainted = s->tainted,
            .taint_reason = s->taint_reason, .started = s->started, .steal = s->steal,
            .other_busy = s->other_busy, .load1 = s->load1, .has_interference = true};
    }
    return 0;
}

static int build_variants(experiment_model *m)
{
    const experiment *e = m->e;
    m->variants = calloc(e->n_variants + 1, sizeof *m->variants);
    if (m->variants == NULL)
        return -1;
    for (size_t v = 0; v < e->n_variants; v++)
        m->variants[v] = (report_variant){.name = e->variants[v].name,
                                          .argv = (const char *const *)e->variants[v].command,
                                          .argc = e->variants[v].n_command};
    return 0;
}

static int keep_fact(void *context, const char *key, const char *value)
{
    experiment_model *m = context;
    report_fact *grown = realloc(m->facts, (m->n_facts + 1) * sizeof *grown);
    if (grown == NULL)
        return -1;
    m->facts = grown;
    m->facts[m->n_facts].key = strdup(key);
    m->facts[m->n_facts].value = strdup(value);
    m->n_facts++;
    return m->facts[m->n_facts - 1].key && m->facts[m->n_facts - 1].value ? 0 : -1;
}

static void free_model(experiment_model *m)
{
    size_t n_points = experiment_point_count(m->e);
    for (size_t p = 0; m->point_ids && p < n_points; p++) {
        free(m->point_ids[p]);
        free(m->param_values ? m->param_values[p] : NULL);
    }
    free(m->param_names);
    free(m->points);
    free(m->point_ids);
    free(m->param_values);
    free(m->variants);
    free(m->report_samples);
    free(m->sample_metric_names);
    free(m->sample_metric_values);
    free(m->series);
    free(m->series_values);
    for (size_t i = 0; i < m->n_facts; i++) {
        free((char *)m->facts[i].key);
        free((char *)m->facts[i].value);
    }
    free(m->facts);
}

static size_t planned_looks(const experiment *e)
{
    if (!e->adaptive)
        return 0;
    stopping_rule rule = {e->min_blocks, e->max_blocks, STOPPING_GROWTH};
    return stopping_looks(&rule);
}

static int analyse_and_write(experiment_model *m, const experiment_report_options *o,
                             char *err, size_t errlen)
{
    const experiment *e = m->e;
    analysis_options options = o->analysis;
    size_t looks = planned_looks(e);
    if (looks > 1)
        options.confidence = 1.0 - (1.0 - o->analysis.confidence) / (double)looks;
    analysis_result a;
    if (analysis_run(m->series, m->n_series, &options, &a, err, errlen) != 0)
        return EXIT_INTERNAL;
    report_input in = {
        .experiment_name = e->name, .seed = e->seed, .has_seed = e->has_seed,
        .options = &o->analysis, .environment = m->facts, .n_environment = m->n_facts,
        .variants = m->variants, .n_variants = e->n_variants, .points = m->points,
        .n_points = experiment_point_count(e), .samples = m->report_samples,
        .n_samples = m->samples->n, .series = m->series, .n_series = m->n_series,
        .analysis = &a, .looks = looks};
    report_write_text(&in, o->text);
    int rc = EXIT_DONE;
    if (report_write_exports(&in, &o->exports, err, errlen) != 0)
        rc = EXIT_INTERNAL;
    else if (fail_if_triggered(o->fail_if, &a))
        rc = EXIT_GATE;
    analysis_result_free(&a);
    return rc;
}

int experiment_report(store *s, int64_t experiment_id, const experiment *e,
                      const experiment_report_options *o, char *err, size_t errlen)
{
    stored_samples samples;
    if (stored_samples_load(s, experiment_id, &samples, err, errlen) != 0)
        return EXIT_INTERNAL;
    experiment_model m;
    memset(&m, 0, sizeof m);
    m.e = e;
    m.samples = &samples;
    int rc = EXIT_INTERNAL;
    if (build_points(e, &m) != 0 || build_variants(&m) != 0 || build_series(&m) != 0 ||
        build_report_samples(&m) != 0 ||
        store_for_each_fact(s, experiment_id, keep_fact, &m, err, errlen) != 0) {
        if (!err[0])
            snprintf(err, errlen, "out of memory");
    } else {
        rc = analyse_and_write(&m, o, err, errlen);
    }
    free_model(&m);
    stored_samples_free(&samples);
    return rc;
}

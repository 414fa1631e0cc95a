/* Reads an experiment's samples back from the store once, indexes them by point, block and
 * variant, and builds the series over complete blocks without quadratic lookups. */
#include "lab/results.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "core/target.h"
#include "lab/lab_builds.h"
#include "lab/point_index.h"

/* Process readings every sample has, shown beside the experiment's metrics (the first two
 * are all an in-process target has). */
static const char *const builtin_metrics[] = {"wall", "user", "sys", "maxrss"};

static const char *keep_string(lab_results *r, const char *text)
{
    if (text == NULL)
        return NULL;
    if (array_reserve((void **)&r->strings, &r->strings_capacity, r->n_strings + 1,
                      sizeof *r->strings) != 0)
        return NULL;
    char *copy = strdup(text);
    if (copy)
        r->strings[r->n_strings++] = copy;
    return copy;
}

/* ---- points and variants ---- */

static int build_points(const experiment *e, lab_results *r)
{
    size_t n = experiment_point_count(e);
    r->n_points = n;
    r->points = calloc(n + 1, sizeof *r->points);
    r->point_ids = calloc(n + 1, sizeof *r->point_ids);
    r->param_values = calloc(n + 1, sizeof *r->param_values);
    r->param_names = calloc(e->n_parameters + 1, sizeof *r->param_names);
    r->complete_blocks = calloc(n + 1, sizeof *r->complete_blocks);
    size_t *index = calloc(e->n_parameters + 1, sizeof *index);
    int rc = r->points && r->point_ids && r->param_values && r->param_names &&
                     r->complete_blocks && index ? 0 : -1;
    for (size_t k = 0; rc == 0 && k < e->n_parameters; k++)
        r->param_names[k] = e->parameters[k].name;
    for (size_t p = 0; rc == 0 && p < n; p++) {
        experiment_point_values(e, p, index);
        r->param_values[p] = calloc(e->n_parameters + 1, sizeof *r->param_values[p]);
        r->point_ids[p] = experiment_point_id(e, p);
        if (r->param_values[p] == NULL || r->point_ids[p] == NULL) {
            rc = -1;
            break;
        }
        for (size_t k = 0; k < e->n_parameters; k++)
            r->param_values[p][k] = e->parameters[k].values[index[k]];
        r->points[p] = (report_point){r->point_ids[p], r->param_names, r->param_values[p],
                                      e->n_parameters};
    }
    free(index);
    return rc;
}

/* A command word as a reader expects it: "{{" and "}}" (literal braces) shown single;
 * placeholders stay as written. */
static const char *displayed_word(lab_results *r, const char *word)
{
    char *shown = strdup(word);
    if (shown == NULL)
        return NULL;
    char *out = shown;
    for (const char *c = word; *c; c++) {
        *out++ = *c;
        if ((c[0] == '{' || c[0] == '}') && c[1] == c[0])
            c++;
    }
    *out = '\0';
    const char *kept = keep_string(r, shown);
    free(shown);
    return kept;
}

static int build_variants(const experiment *e, lab_results *r)
{
    size_t n_words = 0;
    for (size_t v = 0; v < e->n_variants; v++)
        n_words += e->variants[v].n_command;
    r->n_variants = e->n_variants;
    r->variants = calloc(e->n_variants + 1, sizeof *r->variants);
    r->variant_words = calloc(n_words + 1, sizeof *r->variant_words);
    if (r->variants == NULL || r->variant_words == NULL)
        return -1;
    const char **words = r->variant_words;
    for (size_t v = 0; v < e->n_variants; v++) {
        const experiment_variant *ev = &e->variants[v];
        for (size_t i = 0; i < ev->n_command; i++)
            if ((words[i] = displayed_word(r, ev->command[i])) == NULL)
                return -1;
        r->variants[v] = (report_variant){.name = ev->name, .argv = ev->command ? words : NULL,
                                          .argc = ev->n_command};
        words += ev->n_command;
    }
    return 0;
}

/* ---- samples ---- */

static void add_metric_name(lab_results *r, const char *name)
{
    for (size_t k = 0; k < r->n_sample_metrics; k++)
        if (strcmp(r->sample_metric_names[k], name) == 0)
            return;
    r->sample_metric_names[r->n_sample_metrics++] = name;
}

static int choose_sample_metrics(const experiment *e, lab_results *r)
{
    r->sample_metric_names = calloc(e->n_metrics + ARRAY_SIZE(builtin_metrics) + 1,
                                    sizeof *r->sample_metric_names);
    if (r->sample_metric_names == NULL)
        return -1;
    for (size_t m = 0; m < e->n_metrics; m++)
        add_metric_name(r, e->metrics[m].name);
    /* an in-process target has a wall and a CPU time per sample, no process of its own */
    size_t builtins = e->target->measures_processes ? ARRAY_SIZE(builtin_metrics) : 2;
    for (size_t b = 0; b < builtins; b++)
        add_metric_name(r, builtin_metrics[b]);
    return 0;
}

static double reading(const store_sample *s, const char *name)
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

typedef struct {
    lab_results *r;
    verdict_error *err;
} load_context;

static int keep_sample(void *context, const store_sample *s)
{
    load_context *c = context;
    lab_results *r = c->r;
    size_t width = r->n_sample_metrics;
    size_t old = r->samples_capacity;
    if (array_reserve((void **)&r->samples, &r->samples_capacity, r->n_samples + 1,
                      sizeof *r->samples) != 0)
        return error_set(c->err, ERROR_INTERNAL, "out of memory");
    if (r->samples_capacity != old) {
        size_t bytes;
        double *grown = size_multiply(r->samples_capacity, width * sizeof *grown, &bytes) == 0
                            ? realloc(r->sample_values, bytes) : NULL;
        if (grown == NULL)
            return error_set(c->err, ERROR_INTERNAL, "out of memory");
        r->sample_values = grown;
    }
    double *values = r->sample_values + r->n_samples * width;
    for (size_t k = 0; k < width; k++)
        values[k] = reading(s, r->sample_metric_names[k]);
    const char *variant = keep_string(r, s->variant), *point = keep_string(r, s->point);
    const char *reason = s->taint_reason ? keep_string(r, s->taint_reason) : NULL;
    const char *machine = keep_string(r, s->machine ? s->machine : "");
    if (variant == NULL || point == NULL || machine == NULL ||
        (s->taint_reason && reason == NULL))
        return error_set(c->err, ERROR_INTERNAL, "out of memory");
    r->samples[r->n_samples++] = (report_sample){
        .variant = variant, .point = point, .layout = s->layout, .machine = machine,
        .block = s->block, .seq = s->seq,
        .metric_names = NULL, .metric_values = NULL, .n_metrics = width,
        .exit_code = s->exit_code, .timed_out = s->timed_out, .tainted = s->tainted,
        .taint_reason = reason,
        .started = s->started, .steal = s->steal, .other_busy = s->other_busy,
        .load1 = s->load1, .has_interference = true};
    return 0;
}

/* The values of each sample point into sample_values, which moved while it grew. */
static void link_sample_values(lab_results *r)
{
    for (size_t i = 0; i < r->n_samples; i++) {
        r->samples[i].metric_names = r->sample_metric_names;
        r->samples[i].metric_values = r->sample_values + i * r->n_sample_metrics;
    }
}

/* ---- series ---- */

/* Samples ordered by (point, block, unit), each with the indices found for it; a unit is a
 * variant in one of its layouts (experiment_unit_index). */
typedef struct {
    size_t sample;
    long point, variant, unit;
    long block;
    size_t machine;              /* index into r->machines */
} placed;

static int compare_placed(const void *a, const void *b)
{
    const placed *x = a, *y = b;
    if (x->point != y->point)
        return x->point < y->point ? -1 : 1;
    if (x->machine != y->machine)
        return x->machine < y->machine ? -1 : 1;
    if (x->block != y->block)
        return x->block < y->block ? -1 : 1;
    return (x->unit > y->unit) - (x->unit < y->unit);
}

/* ---- machines ---- */

static int compare_machines(const void *a, const void *b)
{
    return strcmp(((const report_machine *)a)->name, ((const report_machine *)b)->name);
}

/* The machines that took samples, by name, with their runs and failed runs in blocks. */
static int collect_machines(lab_results *r)
{
    size_t capacity = 0;
    for (size_t i = 0; i < r->n_samples; i++) {
        const report_sample *s = &r->samples[i];
        size_t m = 0;
        while (m < r->n_machines && strcmp(r->machines[m].name, s->machine) != 0)
            m++;
        if (m == r->n_machines) {
            if (array_reserve((void **)&r->machines, &capacity, m + 1, sizeof *r->machines) != 0)
                return -1;
            r->machines[r->n_machines++] = (report_machine){.name = s->machine};
        }
        if (s->block < 0)
            continue;
        r->machines[m].samples++;
        r->machines[m].failed += s->exit_code != 0 || s->timed_out;
    }
    if (r->n_machines > 1)
        qsort(r->machines, r->n_machines, sizeof *r->machines, compare_machines);
    return 0;
}

static size_t machine_of_sample(const lab_results *r, const report_sample *s)
{
    size_t low = 0, high = r->n_machines;
    while (high - low > 1) {
        size_t mid = (low + high) / 2;
        if (strcmp(r->machines[mid].name, s->machine) <= 0)
            low = mid;
        else
            high = mid;
    }
    return low;
}

/* One pass: each sample's point (by binary search) and variant, looked up again only when
 * they change from the sample before (samples come in runs of one point). */
static placed *place_samples(const experiment *e, const lab_results *r,
                             const point_index *index, size_t *n_placed)
{
    placed *out = calloc(r->n_samples + 1, sizeof *out);
    const char *last_point = NULL, *last_variant = NULL;
    long point = -1, variant = -1;
    *n_placed = 0;
    for (size_t i = 0; out && i < r->n_samples; i++) {
        const report_sample *s = &r->samples[i];
        if (last_point == NULL || strcmp(last_point, s->point) != 0)
            point = point_index_find(index, s->point), last_point = s->point;
        if (last_variant == NULL || strcmp(last_variant, s->variant) != 0)
            variant = experiment_variant_index(e, s->variant), last_variant = s->variant;
        /* a failed or timed-out run (kept by on_failure: record) is not a measurement of
         * the variant: its block is incomplete, never analysed as a sample */
        bool measured = s->exit_code == 0 && !s->timed_out;
        if (measured && point >= 0 && variant >= 0 && s->block >= 0 && s->layout >= 0 &&
            (size_t)s->layout < experiment_variant_layouts(&e->variants[variant]))
            out[(*n_placed)++] = (placed){
                i, point, variant,
                (long)experiment_unit_index(e, (size_t)variant, (size_t)s->layout), s->block,
                machine_of_sample(r, s)};
    }
    if (out)
        qsort(out, *n_placed, sizeof *out, compare_placed);
    return out;
}

/* The metric's position among the sample values. */
static size_t sample_metric_column(const lab_results *r, const char *name)
{
    for (size_t k = 0; k < r->n_sample_metrics; k++)
        if (strcmp(r->sample_metric_names[k], name) == 0)
            return k;
    return 0;
}

/* For the samples of one point (placed[first..end)), the block table: cell[b * nu + u] is a
 * sample index + 1, or 0. */
static size_t *block_table(const placed *pl, size_t first, size_t end, size_t n_units,
                           long *blocks)
{
    *blocks = first < end ? pl[end - 1].block + 1 : 0;
    size_t cells;
    if (size_multiply((size_t)*blocks, n_units, &cells) != 0)
        return NULL;
    size_t *cell = calloc(cells + 1, sizeof *cell);
    for (size_t i = first; cell && i < end; i++)
        cell[(size_t)pl[i].block * n_units + (size_t)pl[i].unit] = pl[i].sample + 1;
    return cell;
}

static double value_at(const lab_results *r, size_t sample_plus_one, size_t column)
{
    return r->sample_values[(sample_plus_one - 1) * r->n_sample_metrics + column];
}

static int add_warning(lab_results *r, const char *code, const char *point,
                       const char *variant, const char *message)
{
    if (array_reserve((void **)&r->warnings, &r->warnings_capacity, r->n_warnings + 1,
                      sizeof *r->warnings) != 0)
        return -1;
    lab_warning w = {keep_string(r, code), keep_string(r, point), keep_string(r, variant),
                     keep_string(r, message)};
    if (!w.code || !w.point || !w.variant || !w.message)
        return -1;
    r->warnings[r->n_warnings++] = w;
    return 0;
}

/* The first unit with no value of the metric at the point, or -1 (all have some). */
static long unit_without_values(const lab_results *r, size_t nu, const size_t *cell,
                                long blocks, size_t column)
{
    for (size_t u = 0; u < nu; u++) {
        bool any = false;
        for (long b = 0; b < blocks && !any; b++) {
            size_t s = cell[(size_t)b * nu + u];
            any = s && isfinite(value_at(r, s, column));
        }
        if (!any)
            return (long)u;
    }
    return -1;
}

/* Why a metric is left out at a point: some variant never had a value of it (a kernel
 * without bytes has no gbps), or fewer than two blocks are complete. 0: it is analysed. */
static int leave_out(const experiment *e, lab_results *r, size_t point, const char *machine,
                     size_t m, long missing, size_t complete, bool *left_out)
{
    strbuf why = STRBUF_INIT;
    const char *code = "not-analysed", *variant = "";
    *left_out = true;
    if (machine[0])
        strbuf_appendf(&why, "on machine %s: ", machine);
    size_t prefix = why.length;
    if (missing >= 0 && complete == 0 && r->complete_blocks[point] > 0) {
        size_t layout;
        variant = e->variants[experiment_unit_variant(e, (size_t)missing, &layout)].name;
        strbuf_appendf(&why, "%s has no %s values here: %s is left out at this point", variant,
                       e->metrics[m].name, e->metrics[m].name);
    } else if (complete < 2 && m == 0) {
        strbuf_appendf(&why, "%zu complete block%s: nothing to analyse at this point", complete,
                       complete == 1 ? "" : "s");
    } else if (complete >= 2) {
        *left_out = false;
    }
    bool said = why.length > prefix;
    int rc = said ? add_warning(r, code, r->point_ids[point], variant, strbuf_text(&why)) : 0;
    strbuf_free(&why);
    return rc;
}

/* Series of one point: per metric analysed, per unit, over the blocks in which every
 * unit has a finite value of that metric. */
static int point_series(const experiment *e, lab_results *r, size_t point, const char *machine,
                        const size_t *cell, long blocks, double **cursor)
{
    size_t nv = experiment_unit_count(e), stride = (size_t)(blocks > 0 ? blocks : 1);
    if (blocks == 0) /* never run: the report says so in one line for all such points */
        return 0;
    for (size_t m = 0; m < e->n_metrics; m++) {
        size_t column = sample_metric_column(r, e->metrics[m].name), complete = 0;
        double *start = *cursor;
        for (long b = 0; b < blocks; b++) {
            bool all = true;
            for (size_t v = 0; v < nv && all; v++) {
                size_t s = cell[(size_t)b * nv + v];
                all = s && isfinite(value_at(r, s, column));
            }
            for (size_t v = 0; all && v < nv; v++)
                start[v * stride + complete] = value_at(r, cell[(size_t)b * nv + v], column);
            complete += all;
        }
        if (m == 0)
            r->complete_blocks[point] += complete;
        bool left_out;
        long missing = unit_without_values(r, nv, cell, blocks, column);
        if (leave_out(e, r, point, machine, m, missing, complete, &left_out) != 0)
            return -1;
        if (left_out)
            continue;
        for (size_t u = 0; u < nv; u++) {
            size_t layout;
            const experiment_variant *v = &e->variants[experiment_unit_variant(e, u, &layout)];
            r->series[r->n_series++] = (analysis_series){
                .point = r->point_ids[point], .metric = e->metrics[m].name,
                .variant = v->name, .layout = layout, .n_layouts = experiment_variant_layouts(v),
                .built = v->source.path != NULL, .values = start + u * stride, .n = complete,
                .higher_is_better = e->metrics[m].higher_is_better,
                .machine = machine[0] ? machine : NULL};
        }
        *cursor += nv * stride;
    }
    return 0;
}

/* Runs and disturbed runs per (point, variant), in one pass over the placed samples. */
static int count_disturbed(const experiment *e, lab_results *r, const placed *pl, size_t n)
{
    size_t cells = r->n_points * e->n_variants + 1;
    r->runs = calloc(cells, sizeof *r->runs);
    r->disturbed = calloc(cells, sizeof *r->disturbed);
    r->disturbance = calloc(cells, sizeof *r->disturbance);
    if (r->runs == NULL || r->disturbed == NULL || r->disturbance == NULL)
        return -1;
    for (size_t i = 0; i < n; i++) {
        size_t cell = (size_t)pl[i].point * e->n_variants + (size_t)pl[i].variant;
        const report_sample *s = &r->samples[pl[i].sample];
        r->runs[cell]++;
        if (s->tainted) {
            r->disturbed[cell]++;
            r->disturbance[cell] = s->taint_reason;
        }
    }
    return 0;
}

/* The end of the samples of one (point, machine), placed[first..end). */
static size_t group_end(const placed *pl, size_t first, size_t n)
{
    size_t end = first;
    while (end < n && pl[end].point == pl[first].point && pl[end].machine == pl[first].machine)
        end++;
    return end;
}

static int build_series(const experiment *e, lab_results *r)
{
    size_t n_placed, cells = 0, n_units = experiment_unit_count(e);
    point_index index = {0};
    placed *pl = point_index_build(e, &index) == 0 ? place_samples(e, r, &index, &n_placed)
                                                   : NULL;
    point_index_free(&index);
    if (pl == NULL)
        return -1;
    /* room for every group's table of every metric: the blocks of a group bound its cells */
    for (size_t first = 0, end; first < n_placed; first = end) {
        end = group_end(pl, first, n_placed);
        cells += (size_t)(pl[end - 1].block + 1) * n_units * e->n_metrics;
    }
    size_t groups = r->n_points * (r->n_machines ? r->n_machines : 1);
    r->series = calloc(groups * e->n_metrics * n_units + 1, sizeof *r->series);
    r->series_values = calloc(cells + groups * e->n_metrics * n_units + 1,
                              sizeof *r->series_values);
    int rc = r->series && r->series_values ? count_disturbed(e, r, pl, n_placed) : -1;
    double *cursor = r->series_values;
    for (size_t first = 0, end; rc == 0 && first < n_placed; first = end) {
        end = group_end(pl, first, n_placed);
        long blocks;
        size_t *cell = block_table(pl, first, end, n_units, &blocks);
        rc = cell ? point_series(e, r, (size_t)pl[first].point,
                                 r->machines[pl[first].machine].name, cell, blocks, &cursor)
                  : -1;
        free(cell);
    }
    free(pl);
    return rc;
}

/* ---- facts and warnings ---- */

static int add_warning_line(lab_results *r, char *line)
{
    char *fields[4] = {NULL, NULL, NULL, NULL};
    for (int f = 0; f < 4; f++) {
        fields[f] = line;
        char *tab = f < 3 ? strchr(line, '\t') : NULL;
        if (f < 3 && tab == NULL)
            return 0; /* not a warning line: ignored */
        if (tab)
            *tab = '\0', line = tab + 1;
    }
    if (array_reserve((void **)&r->warnings, &r->warnings_capacity, r->n_warnings + 1,
                      sizeof *r->warnings) != 0)
        return -1;
    r->warnings[r->n_warnings++] = (lab_warning){fields[0], fields[1], fields[2], fields[3]};
    return 0;
}

/* "variant\tlayout\tkey\tsha256\tbinary" (lab/lab_builds.h). */
static int add_build_line(lab_results *r, char *line)
{
    char *fields[5];
    for (int f = 0; f < 5; f++) {
        fields[f] = line;
        char *tab = f < 4 ? strchr(line, '\t') : NULL;
        if (f < 4 && tab == NULL)
            return 0; /* not a line of ours: ignored */
        if (tab)
            *tab = '\0', line = tab + 1;
    }
    if (array_reserve((void **)&r->builds, &r->builds_capacity, r->n_builds + 1,
                      sizeof *r->builds) != 0)
        return -1;
    r->builds[r->n_builds++] = (report_build){fields[0], strtol(fields[1], NULL, 10),
                                              fields[2], fields[3], fields[4]};
    return 0;
}

static int keep_lines(lab_results *r, const char *value, int (*add)(lab_results *, char *))
{
    char *text = (char *)keep_string(r, value);
    for (char *line = text; line && *line;) {
        char *next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        if (add(r, line) != 0)
            return -1;
        line = next ? next : line + strlen(line);
    }
    return text ? 0 : -1;
}

static int keep_fact(void *context, const char *key, const char *value)
{
    lab_results *r = context;
    if (strcmp(key, LAB_BUILDS_FACT) == 0)
        return keep_lines(r, value, add_build_line);
    if (strncmp(key, LAB_WARNINGS_FACT, strlen(LAB_WARNINGS_FACT)) == 0)
        return keep_lines(r, value, add_warning_line);
    if (array_reserve((void **)&r->facts, &r->facts_capacity, r->n_facts + 1,
                      sizeof *r->facts) != 0)
        return -1;
    const char *k = keep_string(r, key), *v = keep_string(r, value);
    if (k == NULL || v == NULL)
        return -1;
    r->facts[r->n_facts++] = (report_fact){k, v};
    return 0;
}

/* ---- the whole ---- */

int lab_results_load(store *db, int64_t experiment_id, const experiment *e, lab_results *out,
                     verdict_error *err)
{
    memset(out, 0, sizeof *out);
    load_context c = {out, err};
    error_clear(err);
    if (build_points(e, out) != 0 || build_variants(e, out) != 0 ||
        choose_sample_metrics(e, out) != 0)
        return error_set(err, ERROR_INTERNAL, "out of memory");
    if (store_for_each_sample(db, experiment_id, keep_sample, &c, err) != 0)
        return err->kind != ERROR_NONE ? -1 : error_no_memory(err);
    link_sample_values(out);
    if (collect_machines(out) != 0 || build_series(e, out) != 0)
        return error_set(err, ERROR_INTERNAL, "out of memory");
    if (store_for_each_fact(db, experiment_id, keep_fact, out, err) != 0)
        return err->kind != ERROR_NONE ? -1 : error_no_memory(err); /* keep_fact's */
    return 0;
}

void lab_results_free(lab_results *r)
{
    for (size_t p = 0; r->point_ids && p < r->n_points; p++) {
        free(r->point_ids[p]);
        free(r->param_values ? r->param_values[p] : NULL);
    }
    for (size_t i = 0; i < r->n_strings; i++)
        free(r->strings[i]);
    free(r->strings);
    free(r->point_ids);
    free(r->param_values);
    free(r->param_names);
    free(r->points);
    free(r->variants);
    free(r->variant_words);
    free(r->samples);
    free(r->sample_values);
    free(r->sample_metric_names);
    free(r->series);
    free(r->series_values);
    free(r->facts);
    free(r->warnings);
    free(r->builds);
    free(r->complete_blocks);
    free(r->machines);
    free(r->runs);
    free(r->disturbed);
    free(r->disturbance);
    memset(r, 0, sizeof *r);
}

/* The comparison of peer files: variants of one point with names made unique, or benchmarks
 * matched by name across files, the ones found in only some files named in warnings. */
#include "core/peer_plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "common/error.h"
#include "common/strbuf.h"

/* Names of baseline benchmarks listed when none is found elsewhere. */
#define NAMES_SHOWN 5

static const peer_series *find_point(const peer_file *f, const char *point)
{
    for (size_t i = 0; i < f->n; i++)
        if (f->series[i].point && strcmp(f->series[i].point, point) == 0)
            return &f->series[i];
    return NULL;
}

static size_t count_series(const peer_file *files, size_t n)
{
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += files[i].n;
    return total;
}

/* Room for `variants` variants, `columns` columns and `points` points. */
static int plan_reserve(peer_plan *p, size_t variants, size_t columns, size_t points)
{
    p->variants = calloc(variants ? variants : 1, sizeof *p->variants);
    p->variant_files = calloc(variants ? variants : 1, sizeof *p->variant_files);
    p->columns = calloc(columns ? columns : 1, sizeof *p->columns);
    p->points = calloc(points ? points : 1, sizeof *p->points);
    return p->variants && p->variant_files && p->columns && p->points ? 0 : -1;
}

static int add_variant(peer_plan *p, const char *name, size_t file)
{
    char *copy = strdup(name);
    if (copy == NULL)
        return -1;
    p->variants[p->n_variants] = copy;
    p->variant_files[p->n_variants++] = file;
    return 0;
}

static int add_warning(peer_plan *p, strbuf *message)
{
    char *text = strbuf_detach(message);
    if (text == NULL ||
        array_reserve((void **)&p->warnings, &p->warnings_capacity, p->n_warnings + 1,
                      sizeof *p->warnings) != 0) {
        free(text);
        return -1;
    }
    p->warnings[p->n_warnings++] = text;
    return 0;
}

static bool is_repeated(char *const *names, size_t n, size_t i)
{
    for (size_t j = 0; j < n; j++)
        if (j != i && strcmp(names[j], names[i]) == 0)
            return true;
    return false;
}

/* Replaces variants[i] by text; 0, or -1 when it could not be made. */
static int rename_variant(peer_plan *p, size_t i, strbuf *text)
{
    char *name = strbuf_detach(text);
    if (name == NULL)
        return -1;
    free(p->variants[i]);
    p->variants[i] = name;
    return 0;
}

/* Two commands of one name (the same command measured before and after a change) are told
 * apart by their files. */
static int prefix_repeated(peer_plan *p, const char *const *file_names)
{
    bool *repeated = calloc(p->n_variants ? p->n_variants : 1, sizeof *repeated);
    int rc = repeated ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < p->n_variants; i++)
        repeated[i] = is_repeated(p->variants, p->n_variants, i);
    for (size_t i = 0; rc == 0 && i < p->n_variants; i++) {
        strbuf name = STRBUF_INIT;
        strbuf_appendf(&name, "%s: %s", file_names[p->variant_files[i]], p->variants[i]);
        rc = repeated[i] ? rename_variant(p, i, &name) : 0;
        strbuf_free(&name);
    }
    free(repeated);
    return rc;
}

/* Names still repeated (one file given twice) are told apart by their order: "a (2)". */
static int number_repeated(peer_plan *p)
{
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < p->n_variants; i++) {
        size_t earlier = 0;
        for (size_t j = 0; j < i; j++)
            earlier += strcmp(p->variants[j], p->variants[i]) == 0;
        strbuf name = STRBUF_INIT;
        strbuf_appendf(&name, "%s (%zu)", p->variants[i], earlier + 1);
        rc = earlier ? rename_variant(p, i, &name) : 0;
        strbuf_free(&name);
    }
    return rc;
}

/* The one metric of a comparison of variants: theirs, or "value" when they differ (bare
 * numbers beside hyperfine's times). */
static const char *common_metric(const peer_file *files, size_t n)
{
    const char *metric = NULL;
    for (size_t f = 0; f < n; f++)
        for (size_t i = 0; i < files[f].n; i++) {
            if (metric && strcmp(metric, files[f].series[i].metric) != 0)
                return "value";
            metric = files[f].series[i].metric;
        }
    return metric ? metric : "value";
}

static int plan_variants(const peer_file *files, const char *const *names, size_t n,
                         peer_plan *p, verdict_error *err)
{
    size_t total = count_series(files, n);
    const char *metric = common_metric(files, n);
    if (plan_reserve(p, total, total, 1) != 0)
        return error_no_memory(err);
    for (size_t f = 0; f < n; f++)
        for (size_t i = 0; i < files[f].n; i++) {
            const peer_series *s = &files[f].series[i];
            if (add_variant(p, s->variant ? s->variant : names[f], f) != 0)
                return error_no_memory(err);
            p->columns[p->n_columns++] = (peer_column){PEER_PLAN_POINT, NULL, metric,
                                                       s->higher_is_better, s, f};
        }
    if (total < 2)
        return error_set(err, ERROR_BAD_INPUT, "%s holds one variant only: compare needs two "
                         "(another file, or a hyperfine export of two commands)", names[0]);
    if (prefix_repeated(p, names) != 0 || number_repeated(p) != 0)
        return error_no_memory(err);
    for (size_t k = 0; k < p->n_columns; k++)
        p->columns[k].variant = p->variants[k];
    p->points[p->n_points++] = PEER_PLAN_POINT;
    return 0;
}

/* Whether file f's series have points: a hyperfine scan of several commands. */
static bool is_scan(const peer_file *f)
{
    return f->n > 0 && f->series[0].point != NULL;
}

/* The index of variant name of file f among the first n variants, or n. */
static size_t variant_index(const peer_plan *p, size_t n, const char *name, size_t f)
{
    for (size_t v = 0; v < n; v++)
        if (p->variant_files[v] == f && strcmp(p->variants[v], name) == 0)
            return v;
    return n;
}

static bool has_point(const peer_plan *p, const char *point)
{
    for (size_t i = 0; i < p->n_points; i++)
        if (strcmp(p->points[i], point) == 0)
            return true;
    return false;
}

/* Scans (hyperfine -L over several commands): every command a variant, every parameter value
 * a point at which the commands are compared, the first command the baseline. */
static int plan_scans(const peer_file *files, const char *const *names, size_t n, peer_plan *p,
                      verdict_error *err)
{
    size_t total = count_series(files, n), *index = calloc(total ? total : 1, sizeof *index);
    if (index == NULL || plan_reserve(p, total, total, total) != 0) {
        free(index);
        return error_no_memory(err);
    }
    int rc = 0;
    for (size_t f = 0, k = 0; rc == 0 && f < n; f++)
        for (size_t i = 0; rc == 0 && i < files[f].n; i++, k++) {
            const peer_series *s = &files[f].series[i];
            index[k] = variant_index(p, p->n_variants, s->variant, f);
            if (index[k] == p->n_variants && add_variant(p, s->variant, f) != 0)
                rc = error_no_memory(err);
            if (rc == 0 && !has_point(p, s->point))
                p->points[p->n_points++] = s->point;
        }
    /* columns point by point, each point's in the order of the variants */
    for (size_t q = 0; rc == 0 && q < p->n_points; q++)
        for (size_t v = 0; v < p->n_variants; v++)
            for (size_t f = 0, k = 0; f < n; f++)
                for (size_t i = 0; i < files[f].n; i++, k++) {
                    const peer_series *s = &files[f].series[i];
                    if (index[k] == v && strcmp(s->point, p->points[q]) == 0)
                        p->columns[p->n_columns++] = (peer_column){s->point, NULL, s->metric,
                                                                   s->higher_is_better, s, f};
                }
    if (rc == 0 && (prefix_repeated(p, names) != 0 || number_repeated(p) != 0))
        rc = error_no_memory(err);
    for (size_t c = 0, k; rc == 0 && c < p->n_columns; c++) {
        const peer_column *col = &p->columns[c];
        size_t before = 0;
        for (size_t f = 0; f < col->file; f++)
            before += files[f].n;
        k = before + (size_t)(col->series - files[col->file].series);
        p->columns[c].variant = p->variants[index[k]];
    }
    free(index);
    return rc;
}

static int check_same_format(const peer_file *files, const char *const *names, size_t n,
                             verdict_error *err)
{
    for (size_t f = 1; f < n; f++)
        if (files[f].format != files[0].format)
            return error_set(err, ERROR_BAD_INPUT, "%s is %s and %s is %s: files of benchmarks "
                             "are compared with files of the same format", names[0],
                             peer_format_name(files[0].format), names[f],
                             peer_format_name(files[f].format));
    return 0;
}

/* Adds a column for every candidate file that has the baseline's benchmark; the files
 * that lack it are listed in missing. */
static int add_matches(const peer_file *files, const char *const *names, size_t n,
                       const peer_series *base, peer_plan *p, strbuf *missing, verdict_error *err)
{
    for (size_t f = 1; f < n; f++) {
        const peer_series *s = find_point(&files[f], base->point);
        if (s == NULL) {
            strbuf_appendf(missing, "%s%s", missing->length ? ", " : "", names[f]);
        } else if (strcmp(s->metric, base->metric) != 0) {
            return error_set(err, ERROR_BAD_INPUT, "benchmark %s is in %s in %s, in %s in %s",
                             base->point, base->metric, names[0], s->metric, names[f]);
        } else {
            p->columns[p->n_columns++] = (peer_column){base->point, p->variants[f], s->metric,
                                                       s->higher_is_better, s, f};
        }
    }
    return 0;
}

/* Adds the columns of one baseline benchmark: itself and every file that has it. */
static int plan_point(const peer_file *files, const char *const *names, size_t n,
                      const peer_series *base, peer_plan *p, verdict_error *err)
{
    size_t start = p->n_columns;
    strbuf missing = STRBUF_INIT, warning = STRBUF_INIT;
    p->columns[p->n_columns++] = (peer_column){base->point, p->variants[0], base->metric,
                                               base->higher_is_better, base, 0};
    int rc = add_matches(files, names, n, base, p, &missing, err);
    if (rc == 0 && p->n_columns - start == 1) {
        p->n_columns = start;
        strbuf_appendf(&warning, "benchmark %s is only in the baseline %s: not compared",
                       base->point, names[0]);
    } else if (rc == 0) {
        p->points[p->n_points++] = base->point;
        if (missing.length)
            strbuf_appendf(&warning, "benchmark %s is not in %s: compared in the other files "
                           "only", base->point, strbuf_text(&missing));
    }
    if (rc == 0 && (strbuf_status(&missing) != 0 || strbuf_status(&warning) != 0 ||
                    (warning.length && add_warning(p, &warning) != 0)))
        rc = error_no_memory(err);
    strbuf_free(&missing);
    strbuf_free(&warning);
    return rc;
}

/* Benchmarks of a candidate that the baseline lacks cannot be compared: each is named. */
static int warn_unmatched(const peer_file *files, const char *const *names, size_t n,
                          peer_plan *p, verdict_error *err)
{
    for (size_t f = 1; f < n; f++)
        for (size_t i = 0; i < files[f].n; i++) {
            const char *point = files[f].series[i].point;
            if (find_point(&files[0], point) != NULL)
                continue;
            strbuf warning = STRBUF_INIT;
            strbuf_appendf(&warning, "benchmark %s is in %s but not in the baseline %s: not "
                           "compared", point, names[f], names[0]);
            int rc = strbuf_status(&warning) == 0 ? add_warning(p, &warning) : -1;
            strbuf_free(&warning);
            if (rc != 0)
                return error_no_memory(err);
        }
    return 0;
}

static int nothing_in_common(const peer_file *files, const char *const *names, verdict_error *err)
{
    strbuf list = STRBUF_INIT;
    for (size_t i = 0; i < files[0].n && i < NAMES_SHOWN; i++)
        strbuf_appendf(&list, "%s%s", i ? ", " : "", files[0].series[i].point);
    if (files[0].n > NAMES_SHOWN)
        strbuf_appendf(&list, " and %zu more", files[0].n - NAMES_SHOWN);
    error_set(err, ERROR_BAD_INPUT, "no benchmark of the baseline %s (%s) is in the other files: "
              "benchmarks are matched by name", names[0],
              strbuf_status(&list) == 0 ? strbuf_text(&list) : "?");
    strbuf_free(&list);
    return -1;
}

static int plan_points(const peer_file *files, const char *const *names, size_t n,
                       peer_plan *p, verdict_error *err)
{
    if (n < 2)
        return error_set(err, ERROR_BAD_INPUT, "%s is one variant (its benchmarks are points): "
                         "give the files to compare it with (the first is the baseline)", names[0]);
    if (check_same_format(files, names, n, err) != 0)
        return -1;
    size_t columns;
    if (size_multiply(files[0].n, n, &columns) != 0 || plan_reserve(p, n, columns, files[0].n) != 0)
        return error_no_memory(err);
    for (size_t f = 0; f < n; f++)
        if (add_variant(p, names[f], f) != 0)
            return error_no_memory(err);
    if (number_repeated(p) != 0)
        return error_no_memory(err);
    for (size_t i = 0; i < files[0].n; i++)
        if (plan_point(files, names, n, &files[0].series[i], p, err) != 0)
            return -1;
    if (warn_unmatched(files, names, n, p, err) != 0)
        return -1;
    return p->n_points ? 0 : nothing_in_common(files, names, err);
}

int peer_plan_build(const peer_file *files, const char *const *names, size_t n,
                    peer_plan *out, verdict_error *err)
{
    memset(out, 0, sizeof *out);
    bool points = n > 0 && peer_format_has_points(files[0].format);
    for (size_t f = 1; f < n; f++)
        if (peer_format_has_points(files[f].format) != points)
            return error_set(err, ERROR_BAD_INPUT, "%s is %s and %s is %s: files of benchmarks "
                              "(go, gbench, pyperf) are not compared with variants (numbers, "
                             "hyperfine)", names[0], peer_format_name(files[0].format), names[f],
                             peer_format_name(files[f].format));
    size_t scans = 0;
    for (size_t f = 0; f < n; f++)
        scans += is_scan(&files[f]);
    if (!points && scans > 0 && scans < n)
        return error_set(err, ERROR_BAD_INPUT, "%s is a hyperfine parameter scan and %s is "
                         "not: a scan's values are points, compared with scans only",
                         names[is_scan(&files[0]) ? 0 : 1], names[is_scan(&files[0]) ? 1 : 0]);
    int rc = points  ? plan_points(files, names, n, out, err)
             : scans ? plan_scans(files, names, n, out, err)
                     : plan_variants(files, names, n, out, err);
    if (rc != 0)
        peer_plan_free(out);
    return rc;
}

void peer_plan_free(peer_plan *plan)
{
    for (size_t i = 0; i < plan->n_variants; i++)
        free(plan->variants[i]);
    for (size_t i = 0; i < plan->n_warnings; i++)
        free(plan->warnings[i]);
    free(plan->variants);
    free(plan->variant_files);
    free(plan->columns);
    free(plan->points);
    free(plan->warnings);
    memset(plan, 0, sizeof *plan);
}

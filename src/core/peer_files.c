/* Peer files: the format told by content (JSON by its keys, Go by its Benchmark lines, else
 * bare numbers), the reader of that format, and the checks every reader shares. */
#include "core/peer_files.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/array.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "core/peer_internal.h"

/* Top-level keys named when a JSON file is of no known format. */
#define KEYS_SHOWN 8

static const struct {
    peer_format format;
    const char *name;
} format_names[] = {
    {PEER_AUTO, "auto"},     {PEER_NUMBERS, "numbers"}, {PEER_HYPERFINE, "hyperfine"},
    {PEER_GO, "go"},         {PEER_GBENCH, "gbench"},   {PEER_PYPERF, "pyperf"},
    {PEER_CRITERION, "criterion"}, {PEER_JMH, "jmh"},
};

const char *peer_format_name(peer_format format)
{
    for (size_t i = 0; i < ARRAY_SIZE(format_names); i++)
        if (format_names[i].format == format)
            return format_names[i].name;
    return "auto";
}

int peer_format_parse(const char *text, peer_format *out)
{
    for (size_t i = 0; i < ARRAY_SIZE(format_names); i++)
        if (strcmp(format_names[i].name, text) == 0) {
            *out = format_names[i].format;
            return 0;
        }
    return -1;
}

bool peer_format_has_points(peer_format format)
{
    return format == PEER_GO || format == PEER_GBENCH || format == PEER_PYPERF ||
           format == PEER_CRITERION || format == PEER_JMH;
}

static char *copy_or_null(const char *text, bool *failed)
{
    if (text == NULL)
        return NULL;
    char *copy = strdup(text);
    *failed |= copy == NULL;
    return copy;
}

peer_series *peer_series_add(peer_file *f, const char *point, const char *variant,
                             const char *metric, bool higher_is_better)
{
    if (array_reserve((void **)&f->series, &f->capacity, f->n + 1, sizeof *f->series) != 0)
        return NULL;
    peer_series *s = &f->series[f->n];
    bool failed = false;
    *s = (peer_series){.point = copy_or_null(point, &failed),
                       .variant = copy_or_null(variant, &failed),
                       .metric = copy_or_null(metric, &failed),
                       .higher_is_better = higher_is_better};
    f->n++; /* counted even when a copy failed, so that peer_file_free frees the others */
    return failed ? NULL : s;
}

int peer_file_warn(peer_file *f, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    int length = vsnprintf(NULL, 0, format, args);
    va_end(args);
    char *warning = length >= 0 ? malloc((size_t)length + 1) : NULL;
    if (warning != NULL) {
        va_start(args, format);
        vsnprintf(warning, (size_t)length + 1, format, args);
        va_end(args);
    }
    if (warning == NULL || array_reserve((void **)&f->warnings, &f->warnings_capacity,
                                         f->n_warnings + 1, sizeof *f->warnings) != 0) {
        free(warning);
        return -1;
    }
    f->warnings[f->n_warnings++] = warning;
    return 0;
}

peer_series *peer_series_find(peer_file *f, const char *point)
{
    for (size_t i = 0; i < f->n; i++)
        if (f->series[i].point && strcmp(f->series[i].point, point) == 0)
            return &f->series[i];
    return NULL;
}

int peer_keep_value(peer_series *s, double value, double divisor, size_t line,
                    const char *where, verdict_error *err)
{
    if (!isfinite(value) || value <= 0.0)
        return error_set(err, ERROR_BAD_INPUT, "%s: %.15g is not positive and finite; verdict "
                         "compares ratios (on a log scale), which need positive finite data", where,
                         value);
    if (!(value / divisor > 0.0))
        return error_set(err, ERROR_BAD_INPUT, "%s: %.15g is too small to hold in seconds", where,
                         value);
    if (sample_series_push(&s->samples, value / divisor, line) != 0)
        return error_set(err, ERROR_NO_MEMORY, "%s: out of memory", where);
    return 0;
}

int peer_check_metric(const char *name, const char *format, const char *asked,
                      const char *const *accepted, verdict_error *err)
{
    if (asked == NULL)
        return 0;
    for (size_t i = 0; accepted[i]; i++)
        if (strcmp(asked, accepted[i]) == 0)
            return 0;
    return error_set(err, ERROR_BAD_INPUT, "%s: --metric %s: %s files have the metric %s only",
                     name, asked, format, accepted[0]);
}

/* Bare numbers: the whole file is one variant of one metric. */
static int read_numbers(const char *name, const char *text, size_t length,
                        const peer_options *o, peer_file *out, verdict_error *err)
{
    static const char *const metrics[] = {"value", NULL};
    if (peer_check_metric(name, "bare-number", o->metric, metrics, err) != 0)
        return -1;
    peer_series *s = peer_series_add(out, NULL, NULL, "value", false);
    if (s == NULL)
        return error_set(err, ERROR_NO_MEMORY, "%s: out of memory", name);
    return sample_text_parse_layout(name, text, length, &o->layout, &s->samples, err);
}

/* The length of a UTF-8 byte-order mark at the start (editors on Windows write one). */
static size_t bom_length(const char *text, size_t length)
{
    return length >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
}

/* The first byte that is not white space or a byte-order mark. */
static size_t content_start(const char *text, size_t length)
{
    size_t i = bom_length(text, length);
    while (i < length && strchr(" \t\r\n", text[i]) != NULL && text[i] != '\0')
        i++;
    return i;
}

static bool looks_like_json(const char *text, size_t length)
{
    size_t i = content_start(text, length);
    return i < length && (text[i] == '{' || text[i] == '[');
}

/* criterion's sample.json ({"iters", "times"}, or [[iters], [times]] before 0.3) and its
 * estimates.json (told apart so that the reader can say which file to give instead). */
static bool is_criterion(const json_t *root)
{
    if (json_is_array(root))
        return json_array_size(root) == 2 && json_is_array(json_array_get(root, 0)) &&
               json_is_array(json_array_get(root, 1));
    return (json_is_array(json_object_get(root, "iters")) &&
            json_is_array(json_object_get(root, "times"))) ||
           json_is_object(json_object_get(json_object_get(root, "mean"), "confidence_interval")) ||
           json_is_object(json_object_get(json_object_get(root, "Mean"), "confidence_interval"));
}

static peer_format json_format(const json_t *root)
{
    if (json_is_array(root) && json_object_get(json_array_get(root, 0), "primaryMetric"))
        return PEER_JMH;
    if (is_criterion(root))
        return PEER_CRITERION;
    if (json_is_array(json_object_get(root, "results")))
        return PEER_HYPERFINE;
    const json_t *benchmarks = json_object_get(root, "benchmarks");
    if (!json_is_array(benchmarks))
        return PEER_AUTO;
    if (json_is_object(json_object_get(root, "context")))
        return PEER_GBENCH;
    if (json_object_get(root, "version") ||
        json_object_get(json_array_get(benchmarks, 0), "runs"))
        return PEER_PYPERF;
    return PEER_AUTO;
}

/* The message for JSON of no known format: the formats tried, and the keys found. */
static int unknown_json(const char *name, const json_t *root, verdict_error *err)
{
    strbuf found = STRBUF_INIT;
    if (!json_is_object(root)) {
        strbuf_appendf(&found, "%s", peer_json_kind(root));
    } else {
        const char *key;
        const json_t *value;
        size_t k = 0;
        strbuf_append(&found, "an object with the keys");
        json_object_foreach((json_t *)root, key, value) {
            if (k++ < KEYS_SHOWN)
                strbuf_appendf(&found, "%s \"%.40s\"", k > 1 ? "," : "", key);
        }
        if (k == 0)
            strbuf_append(&found, " (none)");
        else if (k > KEYS_SHOWN)
            strbuf_appendf(&found, " and %zu more", k - KEYS_SHOWN);
    }
    error_set(err, ERROR_BAD_INPUT, "%s:1: JSON of no format verdict reads: tried hyperfine "
               "(\"results\"), Google Benchmark (\"context\" and \"benchmarks\"), pyperf "
              "(\"benchmarks\" with \"runs\"), criterion (\"iters\" and \"times\") and JMH (an "
              "array of \"primaryMetric\"); found %s", name,
              strbuf_status(&found) == 0 ? strbuf_text(&found) : "?");
    strbuf_free(&found);
    return -1;
}

static peer_format detect(const char *text, size_t length, const json_t *root)
{
    if (root)
        return json_format(root);
    return peer_go_detect(text, length) ? PEER_GO : PEER_NUMBERS;
}

static int read_json(const char *name, peer_format format, const json_t *root,
                     const peer_options *o, peer_file *out, verdict_error *err)
{
    switch (format) {
    case PEER_HYPERFINE: return peer_hyperfine_read(name, root, o, out, err);
    case PEER_GBENCH: return peer_gbench_read(name, root, o, out, err);
    case PEER_PYPERF: return peer_pyperf_read(name, root, o, out, err);
    case PEER_CRITERION: return peer_criterion_read(name, root, o, out, err);
    case PEER_JMH: return peer_jmh_read(name, root, o, out, err);
    default: return unknown_json(name, root, err);
    }
}

static bool is_json_format(peer_format format)
{
    return format == PEER_HYPERFINE || format == PEER_GBENCH || format == PEER_PYPERF ||
           format == PEER_CRITERION || format == PEER_JMH;
}

/* Says, after a failure of text detected as bare numbers, what else was tried. */
static void add_detection_hint(verdict_error *err)
{
    verdict_error first;
    error_copy(&first, err);
    error_set(err, first.kind, "%s (read as bare numbers: no JSON of hyperfine, Google "
              "Benchmark, pyperf, criterion or JMH, no Go \"Benchmark\" lines; --format forces "
              "one)", first.message);
}

static int read_detected(const char *name, const char *text, size_t length,
                         const peer_options *o, peer_file *out, verdict_error *err)
{
    json_t *root = NULL;
    bool json = o->format == PEER_AUTO ? looks_like_json(text, length) : is_json_format(o->format);
    size_t bom = bom_length(text, length);
    if (json && peer_json_load(name, text + bom, length - bom, &root, err) != 0)
        return -1;
    peer_format format = o->format == PEER_AUTO ? detect(text, length, root) : o->format;
    out->format = format;
    int rc = -1;
    if ((o->layout.column || o->layout.delimiters) && format != PEER_NUMBERS)
        error_set(err, ERROR_BAD_INPUT, "%s: -C and -d pick a column of bare numbers; this file "
                  "is %s", name, format == PEER_AUTO ? "JSON" : peer_format_name(format));
    else if (root)
        rc = read_json(name, format, root, o, out, err);
    else if (format == PEER_GO)
        rc = peer_go_read(name, text, length, o, out, err);
    else if ((rc = read_numbers(name, text, length, o, out, err)) != 0 &&
             o->format == PEER_AUTO)
        add_detection_hint(err);
    json_decref(root);
    return rc;
}

int peer_text_parse(const char *name, const char *text, size_t length, const peer_options *o,
                    peer_file *out, verdict_error *err)
{
    memset(out, 0, sizeof *out);
    int rc = -1;
    if (length >= 2 && (unsigned char)text[0] == 0x1f && (unsigned char)text[1] == 0x8b)
        error_set(err, ERROR_BAD_INPUT, "%s: compressed with gzip: decompress it first (gunzip -k)",
                  name);
    else
        rc = read_detected(name, text, length, o, out, err);
    for (size_t i = 0; rc == 0 && i < out->n; i++)
        if (out->series[i].samples.n == 0 && out->series[i].failed.n == 0)
            rc = error_set(err, ERROR_BAD_INPUT, "%s: %s has no values", name,
                           out->series[i].point    ? out->series[i].point
                           : out->series[i].variant ? out->series[i].variant : "the file");
    if (rc == 0 && out->n == 0)
        rc = error_set(err, ERROR_BAD_INPUT, "%s: no samples", name);
    if (rc != 0)
        peer_file_free(out);
    return rc;
}

int peer_file_read(const char *path, const peer_options *o, peer_file *out, verdict_error *err)
{
    char *text = NULL;
    size_t length = 0;
    memset(out, 0, sizeof *out);
    struct stat st;
    if (strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return o->format == PEER_AUTO || o->format == PEER_CRITERION
                   ? peer_criterion_read_dir(path, o, out, err)
                   : error_set(err, ERROR_BAD_INPUT, "%s: a directory, read as criterion's "
                               "target/criterion only (not --format %s)", path,
                               peer_format_name(o->format));
    if (sample_file_load(path, &text, &length, err) != 0)
        return -1;
    const char *name = strcmp(path, "-") == 0 ? "<stdin>" : path;
    int rc = peer_text_parse(name, text, length, o, out, err);
    free(text);
    if (rc == 0 && out->format == PEER_CRITERION && strcmp(path, "-") != 0 &&
        (rc = peer_criterion_name(path, out, err)) != 0)
        peer_file_free(out);
    return rc;
}

void peer_file_free(peer_file *file)
{
    for (size_t i = 0; i < file->n; i++) {
        free(file->series[i].point);
        free(file->series[i].variant);
        free(file->series[i].metric);
        sample_series_free(&file->series[i].samples);
        sample_series_free(&file->series[i].failed);
        free(file->series[i].failed_exits);
    }
    free(file->series);
    for (size_t i = 0; i < file->n_warnings; i++)
        free(file->warnings[i]);
    free(file->warnings);
    memset(file, 0, sizeof *file);
}

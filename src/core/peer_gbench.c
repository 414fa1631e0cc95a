/* Google Benchmark JSON: the iteration entries (not the aggregates, failed or skipped ones) are
 * the samples, grouped by run_name into points; real_time, cpu_time or a counter. */
#include <stdio.h>
#include <string.h>

#include "common/array.h"
#include "common/error.h"
#include "core/peer_internal.h"

#define SUFFIX_PER_SECOND "_per_second"

/* Units per second: dividing by them rounds exactly, where multiplying by 1e-9 would not. */
static const struct {
    const char *unit;
    double per_second;
} time_units[] = {{"ns", 1e9}, {"us", 1e6}, {"ms", 1e3}, {"s", 1.0}};

static bool is_time_metric(const char *metric)
{
    return strcmp(metric, "real_time") == 0 || strcmp(metric, "cpu_time") == 0;
}

/* Counters named *_per_second (bytes_per_second, items_per_second) are rates. */
static bool is_rate(const char *metric)
{
    size_t n = strlen(metric), k = strlen(SUFFIX_PER_SECOND);
    return n > k && strcmp(metric + n - k, SUFFIX_PER_SECOND) == 0;
}

/* Aggregates (mean, median, stddev, cv, BigO, RMS) summarise the iterations: not samples.
 * Versions before run_type name them by aggregate_name alone. */
static int is_iteration(const char *name, const json_t *entry, const char *where, bool *yes,
                        verdict_error *err)
{
    const json_t *type = json_object_get(entry, "run_type");
    if (type == NULL) {
        *yes = json_object_get(entry, "aggregate_name") == NULL;
        return 0;
    }
    const char *text = json_string_value(type);
    if (text && (strcmp(text, "iteration") == 0 || strcmp(text, "aggregate") == 0)) {
        *yes = strcmp(text, "iteration") == 0;
        return 0;
    }
    return error_set(err, ERROR_BAD_INPUT, "%s: %s.run_type: %s%.40s%s, where \"iteration\" or "
                     "\"aggregate\" was expected", name, where, text ? "\"" : "",
                     text ? text : peer_json_kind(type), text ? "\"" : "");
}

static int unit_divisor(const char *name, const json_t *entry, const char *where, double *divisor,
                      verdict_error *err)
{
    const json_t *unit = json_object_get(entry, "time_unit");
    const char *text = unit ? json_string_value(unit) : "ns"; /* the library's default */
    for (size_t i = 0; text && i < ARRAY_SIZE(time_units); i++)
        if (strcmp(text, time_units[i].unit) == 0) {
            *divisor = time_units[i].per_second;
            return 0;
        }
    return error_set(err, ERROR_BAD_INPUT, "%s: %s.time_unit: %.40s, where ns, us, ms or s was "
                     "expected", name, where, text ? text : peer_json_kind(unit));
}

typedef struct {
    peer_file *out;
    const char *last_left_out; /* the benchmark last named in a warning */
} gbench_reader;

static const char *entry_name(const json_t *entry)
{
    const json_t *name = json_object_get(entry, "run_name");
    if (!json_is_string(name))
        name = json_object_get(entry, "name");
    return json_is_string(name) ? json_string_value(name) : NULL;
}

/* Why an entry has no value to compare: it failed (SkipWithError), was skipped
 * (SkipWithMessage, from 1.8), or lacks the counter asked for; NULL when it has one. */
static const char *left_out_reason(const json_t *entry, const char *metric, const char **detail)
{
    *detail = json_string_value(json_object_get(entry, "error_message"));
    if (json_is_true(json_object_get(entry, "error_occurred")))
        return "failed";
    *detail = json_string_value(json_object_get(entry, "skip_message"));
    if (json_is_true(json_object_get(entry, "skipped")))
        return "was skipped";
    *detail = NULL;
    return json_object_get(entry, metric) == NULL ? "has no" : NULL;
}

/* An entry left out is said once per benchmark (its repetitions say the same). */
static int warn_left_out(const char *run, const char *reason, const char *detail,
                         const char *metric, gbench_reader *r)
{
    if (r->last_left_out && strcmp(r->last_left_out, run) == 0)
        return 0;
    r->last_left_out = run;
    if (strcmp(reason, "has no") == 0)
        return peer_file_warn(r->out, "benchmark %.200s has no %.60s: not compared", run, metric);
    return peer_file_warn(r->out, "benchmark %.200s %s%s%.200s: not compared", run, reason,
                          detail ? ": " : "", detail ? detail : "");
}

static int read_entry(const char *name, const json_t *entry, const char *where,
                      const char *metric, gbench_reader *r, verdict_error *err)
{
    const char *run = entry_name(entry);
    if (run == NULL)
        return error_set(err, ERROR_BAD_INPUT, "%s: %s.name: missing or not a string", name, where);
    const char *detail, *reason = left_out_reason(entry, metric, &detail);
    if (reason != NULL)
        return warn_left_out(run, reason, detail, metric, r) == 0 ? 0 : error_no_memory(err);
    double divisor = 1.0, value;
    char path[PEER_WHERE_SIZE + 80];
    snprintf(path, sizeof path, "%s.%.60s", where, metric);
    if ((is_time_metric(metric) && unit_divisor(name, entry, where, &divisor, err) != 0) ||
        peer_json_number(name, json_object_get(entry, metric), path, &value, err) != 0)
        return -1;
    peer_series *s = peer_series_find(r->out, run);
    if (s == NULL && (s = peer_series_add(r->out, run, NULL, metric, is_rate(metric))) == NULL)
        return error_set(err, ERROR_NO_MEMORY, "%s: out of memory", name);
    char place[sizeof path + 512];
    snprintf(place, sizeof place, "%s: %s", name, path);
    return peer_keep_value(s, value, divisor, 0, place, err);
}

int peer_gbench_read(const char *name, const json_t *root, const peer_options *o,
                     peer_file *out, verdict_error *err)
{
    const char *metric = o->metric ? o->metric : "real_time";
    const json_t *benchmarks = peer_json_array(name, root, "benchmarks", "", err);
    if (benchmarks == NULL)
        return -1;
    size_t i;
    const json_t *entry;
    gbench_reader r = {.out = out};
    json_array_foreach((json_t *)benchmarks, i, entry) {
        char where[PEER_WHERE_SIZE];
        bool iteration = false;
        snprintf(where, sizeof where, "benchmarks[%zu]", i);
        if (!json_is_object(entry))
            return error_set(err, ERROR_BAD_INPUT, "%s: %s: %s, where an object was expected", name,
                             where, peer_json_kind(entry));
        if (is_iteration(name, entry, where, &iteration, err) != 0 ||
            (iteration && read_entry(name, entry, where, metric, &r, err) != 0))
            return -1;
    }
    if (out->n == 0 && out->n_warnings > 0)
        return error_set(err, ERROR_BAD_INPUT, "%s: benchmarks: no iteration entry to compare: "
                         "%s", name, out->warnings[0]);
    if (out->n == 0)
        return error_set(err, ERROR_BAD_INPUT, "%s: benchmarks: no iteration entries (only "
                         "aggregates, or none)", name);
    return 0;
}

/* pyperf JSON: every benchmark a point named by its metadata (or the file's, for a file of
 * one benchmark); the values of every run are the samples, warmups and calibrations not. */
#include <stdio.h>
#include <string.h>

#include "common/error.h"
#include "core/peer_internal.h"

static const char *const pyperf_metrics[] = {"time", "values", NULL};

/* A benchmark's metadata key, else the file's (pyperf writes common metadata once). */
static const char *metadata_text(const json_t *root, const json_t *benchmark, const char *key)
{
    const json_t *value = json_object_get(json_object_get(benchmark, "metadata"), key);
    if (!json_is_string(value))
        value = json_object_get(json_object_get(root, "metadata"), key);
    return json_is_string(value) ? json_string_value(value) : NULL;
}

/* pyperf's units are second (the default), byte and integer; seconds are the "time". */
static const char *metric_of(const json_t *root, const json_t *benchmark)
{
    const char *unit = metadata_text(root, benchmark, "unit");
    return unit == NULL || strcmp(unit, "second") == 0 ? "time" : unit;
}

static int read_runs(const char *name, const json_t *runs, const char *where, peer_series *s,
                     verdict_error *err)
{
    size_t i;
    const json_t *run;
    json_array_foreach((json_t *)runs, i, run) {
        char path[PEER_WHERE_SIZE + 40];
        snprintf(path, sizeof path, "%s.runs[%zu]", where, i);
        if (!json_is_object(run))
            return error_set(err, ERROR_BAD_INPUT, "%s: %s: %s, where a run object was expected",
                             name, path, peer_json_kind(run));
        const json_t *values = json_object_get(run, "values");
        if (values == NULL)
            continue; /* a calibration run: warmups only */
        if ((values = peer_json_array(name, run, "values", path, err)) == NULL)
            return -1;
        char values_path[sizeof path + 8];
        snprintf(values_path, sizeof values_path, "%s.values", path);
        if (peer_keep_json_values(name, values, values_path, 1.0, s, err) != 0)
            return -1;
    }
    return 0;
}

static int read_benchmark(const char *name, const json_t *root, const json_t *benchmark,
                          size_t i, peer_file *out, verdict_error *err)
{
    char where[PEER_WHERE_SIZE];
    snprintf(where, sizeof where, "benchmarks[%zu]", i);
    if (!json_is_object(benchmark))
        return error_set(err, ERROR_BAD_INPUT, "%s: %s: %s, where an object was expected", name,
                         where, peer_json_kind(benchmark));
    const char *point = metadata_text(root, benchmark, "name");
    if (point == NULL)
        return error_set(err, ERROR_BAD_INPUT, "%s: %s.metadata.name: missing, and the file's "
                         "metadata has no name either", name, where);
    if (peer_series_find(out, point) != NULL)
        return error_set(err, ERROR_BAD_INPUT, "%s: %s: a second benchmark named \"%.80s\"", name,
                         where, point);
    const json_t *runs = peer_json_array(name, benchmark, "runs", where, err);
    if (runs == NULL)
        return -1;
    peer_series *s = peer_series_add(out, point, NULL, metric_of(root, benchmark), false);
    if (s == NULL)
        return error_set(err, ERROR_NO_MEMORY, "%s: out of memory", name);
    if (read_runs(name, runs, where, s, err) != 0)
        return -1;
    if (s->samples.n == 0)
        return error_set(err, ERROR_BAD_INPUT, "%s: %s (%.80s): no run has values", name, where,
                         point);
    return 0;
}

int peer_pyperf_read(const char *name, const json_t *root, const peer_options *o,
                     peer_file *out, verdict_error *err)
{
    if (peer_check_metric(name, "pyperf", o->metric, pyperf_metrics, err) != 0)
        return -1;
    const json_t *benchmarks = peer_json_array(name, root, "benchmarks", "", err);
    if (benchmarks == NULL)
        return -1;
    if (json_array_size(benchmarks) == 0)
        return error_set(err, ERROR_BAD_INPUT, "%s: benchmarks: empty", name);
    size_t i;
    const json_t *benchmark;
    json_array_foreach((json_t *)benchmarks, i, benchmark) {
        if (read_benchmark(name, root, benchmark, i, out, err) != 0)
            return -1;
    }
    return 0;
}

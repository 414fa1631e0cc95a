/* JMH -rf json: every benchmark (with its params) a point, the rawData of every fork and
 * iteration its samples, in scoreUnit (times per operation as seconds); --metric a secondary. */
#include <stdio.h>
#include <string.h>

#include "common/array.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "core/peer_internal.h"

/* Time per operation, as JMH names its units, in units per second. */
static const struct {
    const char *unit;
    double per_second;
} op_times[] = {{"ns/op", 1e9}, {"us/op", 1e6}, {"ms/op", 1e3}, {"s/op", 1.0},
                {"min/op", 1.0 / 60}};

/* "ops/ms", "ops/s", ...: throughput, higher is better. */
static bool is_throughput(const char *unit)
{
    return strncmp(unit, "ops/", 4) == 0;
}

/* The name JMH prints: the benchmark, then its params as k=v in their order. */
static int point_name(const json_t *entry, const char *benchmark, strbuf *out)
{
    strbuf_append(out, benchmark);
    const json_t *params = json_object_get(entry, "params");
    const char *key;
    const json_t *value;
    size_t k = 0;
    json_object_foreach((json_t *)params, key, value) {
        const char *text = json_string_value(value);
        strbuf_appendf(out, "%s%s=%s", k++ ? "," : " {", key, text ? text : "?");
    }
    if (k)
        strbuf_append(out, "}");
    return strbuf_status(out);
}

/* The metric asked for: the primary one, or a secondary named by --metric; NULL when the
 * entry has no secondary of that name (the benchmark is then left out, with a warning). */
static const json_t *chosen_metric(const json_t *entry, const char *asked)
{
    if (asked == NULL || strcmp(asked, "primary") == 0)
        return json_object_get(entry, "primaryMetric");
    return json_object_get(json_object_get(entry, "secondaryMetrics"), asked);
}

static int unit_of(const char *name, const json_t *metric, const char *where, const char **unit,
                   double *divisor, verdict_error *err)
{
    *unit = json_string_value(json_object_get(metric, "scoreUnit"));
    if (*unit == NULL)
        return error_set(err, ERROR_BAD_INPUT, "%s: %s.scoreUnit: missing or not a string",
                         name, where);
    *divisor = 1.0;
    for (size_t i = 0; i < ARRAY_SIZE(op_times); i++)
        if (strcmp(*unit, op_times[i].unit) == 0) {
            *divisor = op_times[i].per_second;
            *unit = "sec/op";
            break;
        }
    return 0;
}

/* rawData: one array per fork, one value per measurement iteration. */
static int keep_raw(const char *name, const json_t *metric, const char *where, double divisor,
                    peer_series *s, verdict_error *err)
{
    const json_t *forks = peer_json_array(name, metric, "rawData", where, err);
    if (forks == NULL)
        return json_object_get(metric, "rawDataHistogram")
                   ? error_set(err, ERROR_BAD_INPUT, "%s: %s.rawData: missing; the sample mode "
                               "writes histograms: use -bm avgt or thrpt", name, where)
                   : -1;
    size_t f;
    const json_t *fork;
    json_array_foreach((json_t *)forks, f, fork) {
        char path[PEER_WHERE_SIZE + 120];
        snprintf(path, sizeof path, "%s.rawData[%zu]", where, f);
        if (!json_is_array(fork))
            return error_set(err, ERROR_BAD_INPUT, "%s: %s: %s, where an array was expected",
                             name, path, peer_json_kind(fork));
        if (peer_keep_json_values(name, fork, path, divisor, s, err) != 0)
            return -1;
    }
    return 0;
}

/* Adds the entry's series, or a warning when it lacks the secondary metric asked for. */
static int add_entry(const char *name, const json_t *entry, const char *where, const char *point,
                     const peer_options *o, peer_file *out, verdict_error *err)
{
    const json_t *metric = chosen_metric(entry, o->metric);
    char path[PEER_WHERE_SIZE + 80];
    snprintf(path, sizeof path, "%s.%s%.60s", where, o->metric ? "secondaryMetrics." : "",
             o->metric ? o->metric : "primaryMetric");
    if (metric == NULL && o->metric == NULL)
        return error_set(err, ERROR_BAD_INPUT, "%s: %s: missing", name, path);
    if (metric == NULL)
        return peer_file_warn(out, "benchmark %s has no %s: not compared", point, o->metric) == 0
                   ? 0 : error_no_memory(err);
    if (peer_series_find(out, point) != NULL)
        return error_set(err, ERROR_BAD_INPUT, "%s: %s: a second %s (another -bm mode?): give "
                         "one mode per file", name, where, point);
    const char *unit;
    double divisor;
    if (unit_of(name, metric, path, &unit, &divisor, err) != 0)
        return -1;
    peer_series *s = peer_series_add(out, point, NULL, unit, is_throughput(unit));
    return s ? keep_raw(name, metric, path, divisor, s, err) : error_no_memory(err);
}

static int read_entry(const char *name, const json_t *entry, const char *where,
                      const peer_options *o, peer_file *out, verdict_error *err)
{
    if (!json_is_object(entry))
        return error_set(err, ERROR_BAD_INPUT, "%s: %s: %s, where a benchmark object was "
                         "expected", name, where, peer_json_kind(entry));
    const char *benchmark = json_string_value(json_object_get(entry, "benchmark"));
    if (benchmark == NULL)
        return error_set(err, ERROR_BAD_INPUT, "%s: %s.benchmark: missing or not a string", name,
                         where);
    strbuf point = STRBUF_INIT;
    int rc = point_name(entry, benchmark, &point) == 0
                 ? add_entry(name, entry, where, strbuf_text(&point), o, out, err)
                 : error_no_memory(err);
    strbuf_free(&point);
    return rc;
}

int peer_jmh_read(const char *name, const json_t *root, const peer_options *o, peer_file *out,
                  verdict_error *err)
{
    if (!json_is_array(root))
        return error_set(err, ERROR_BAD_INPUT, "%s: %s, where JMH's array of benchmarks was "
                         "expected", name, peer_json_kind(root));
    if (json_array_size(root) == 0)
        return error_set(err, ERROR_BAD_INPUT, "%s: an empty array (JMH ran no benchmark)", name);
    size_t i;
    const json_t *entry;
    json_array_foreach((json_t *)root, i, entry) {
        char where[PEER_WHERE_SIZE];
        snprintf(where, sizeof where, "[%zu]", i);
        if (read_entry(name, entry, where, o, out, err) != 0)
            return -1;
    }
    if (out->n == 0)
        return error_set(err, ERROR_BAD_INPUT, "%s: no benchmark has the metric %s", name,
                         o->metric ? o->metric : "primaryMetric");
    return 0;
}

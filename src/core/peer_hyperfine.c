/* hyperfine --export-json: every result a variant named by its command, its "times" (seconds)
 * the samples but failed runs; a scan of several commands has its parameter values as points. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "core/peer_internal.h"

/* How a parameter's value is put back as {name} in a command: everywhere, or only in its
 * first or last place ("sleep 0.011" at n=1 is "sleep 0.01{n}"). */
typedef enum { REPLACE_ALL, REPLACE_FIRST, REPLACE_LAST } replace_where;

static const char *const hyperfine_metrics[] = {"time", "times", NULL};

/* hyperfine writes the name given with -n into "command"; command_name is read too, for
 * exports whose writers keep the two apart. */
static const char *result_name(const json_t *result)
{
    const json_t *name = json_object_get(result, "command_name");
    if (json_is_string(name) && json_string_length(name) > 0)
        return json_string_value(name);
    name = json_object_get(result, "command");
    return json_is_string(name) ? json_string_value(name) : NULL;
}

/* A run's exit code: 0, the code, or -1 for null (hyperfine's word for a signal). */
static int exit_code_of(const char *name, const json_t *code, const char *where, int *out,
                        verdict_error *err)
{
    if (json_is_null(code)) {
        *out = -1;
        return 0;
    }
    double value;
    if (peer_json_number(name, code, where, &value, err) != 0)
        return -1;
    if (!(value >= INT_MIN && value <= INT_MAX) || value != (int)value)
        return error_set(err, ERROR_BAD_INPUT, "%s: %s: %.15g is not an exit code", name, where,
                         value);
    *out = (int)value;
    return 0;
}

static int keep_failed(peer_series *s, double time, size_t run, int code)
{
    if (array_reserve((void **)&s->failed_exits, &s->failed_capacity, s->failed.n + 1,
                      sizeof *s->failed_exits) != 0 ||
        sample_series_push(&s->failed, time, run) != 0)
        return -1;
    s->failed_exits[s->failed.n - 1] = code;
    return 0;
}

/* Runs whose exit code is not 0 (kept with hyperfine -i) are counted as failed, as verdict's
 * own runs are, and never analysed: a failing command's time measures the failure. */
static int keep_runs(const char *name, const json_t *times, const json_t *exits,
                     const char *where, peer_series *s, verdict_error *err)
{
    if (!json_is_array(exits))
        return error_set(err, ERROR_BAD_INPUT, "%s: %s.exit_codes: %s, where an array was "
                         "expected", name, where, peer_json_kind(exits));
    if (json_array_size(exits) != json_array_size(times))
        return error_set(err, ERROR_BAD_INPUT, "%s: %s.exit_codes: %zu codes for %zu times: "
                         "one per run", name, where, json_array_size(exits),
                         json_array_size(times));
    for (size_t i = 0; i < json_array_size(times); i++) {
        char at[PEER_WHERE_SIZE + 40], place[sizeof at + 512];
        double time;
        int code = 0;
        snprintf(at, sizeof at, "%s.exit_codes[%zu]", where, i);
        if (exit_code_of(name, json_array_get(exits, i), at, &code, err) != 0)
            return -1;
        snprintf(at, sizeof at, "%s.times[%zu]", where, i);
        snprintf(place, sizeof place, "%s: %s", name, at);
        if (peer_json_number(name, json_array_get(times, i), at, &time, err) != 0)
            return -1;
        if (code == 0 && peer_keep_value(s, time, 1.0, 0, place, err) != 0)
            return -1;
        if (code != 0 && keep_failed(s, time, i, code) != 0)
            return error_no_memory(err);
    }
    return 0;
}

/* "n=1" or "n=1,size=64": a result's parameter values (hyperfine -L, -P), as verdict names a
 * point; 0 with an empty text when the result has none. */
static int parameter_point(const json_t *result, strbuf *out)
{
    const char *key;
    const json_t *value;
    json_object_foreach((json_t *)json_object_get(result, "parameters"), key, value) {
        const char *text = json_string_value(value);
        strbuf_appendf(out, "%s%s=%s", out->length ? "," : "", key, text ? text : "?");
    }
    return strbuf_status(out);
}

static int read_result(const char *name, const json_t *result, size_t i, peer_file *out,
                       verdict_error *err)
{
    char where[PEER_WHERE_SIZE];
    snprintf(where, sizeof where, "results[%zu]", i);
    if (!json_is_object(result))
        return error_set(err, ERROR_BAD_INPUT, "%s: %s: %s, where a result object was expected",
                         name, where, peer_json_kind(result));
    const char *command = result_name(result);
    if (command == NULL)
        return error_set(err, ERROR_BAD_INPUT, "%s: %s.command: missing or not a string", name,
                         where);
    const json_t *times = peer_json_array(name, result, "times", where, err);
    if (times == NULL)
        return -1;
    strbuf point = STRBUF_INIT;
    peer_series *s = parameter_point(result, &point) == 0
                         ? peer_series_add(out, point.length ? strbuf_text(&point) : NULL,
                                           command, "time", false)
                         : NULL;
    strbuf_free(&point);
    if (s == NULL)
        return error_set(err, ERROR_NO_MEMORY, "%s: out of memory", name);
    char path[PEER_WHERE_SIZE + 8];
    snprintf(path, sizeof path, "%s.times", where);
    if (json_array_size(times) == 0)
        return error_set(err, ERROR_BAD_INPUT, "%s: %s: no times", name, path);
    const json_t *exits = json_object_get(result, "exit_codes");
    if (exits == NULL) /* hyperfine before 1.12 kept no exit codes: every run is a success */
        return peer_keep_json_values(name, times, path, 1.0, s, err);
    return keep_runs(name, times, exits, where, s, err);
}

static void replace_text(const char *text, const char *from, const char *to, replace_where where,
                         strbuf *out)
{
    size_t n = strlen(from);
    const char *first = strstr(text, from), *last = first;
    for (const char *p = first; p && (p = strstr(p + 1, from)) != NULL;)
        last = p;
    for (const char *p = text; *p;) {
        const char *hit = n ? strstr(p, from) : NULL;
        bool use = hit && (where == REPLACE_ALL || (where == REPLACE_FIRST && hit == first) ||
                           (where == REPLACE_LAST && hit == last));
        const char *end = hit ? hit : p + strlen(p);
        strbuf_append_bytes(out, p, (size_t)(end - p));
        if (hit)
            strbuf_append(out, use ? to : from);
        p = hit ? hit + n : end;
    }
    strbuf_append(out, "");
}

/* The command with every parameter's value put back as {name} (reverse) or the other way. */
static char *substitute(const char *command, const json_t *params, bool reverse,
                        replace_where where)
{
    char *text = strdup(command);
    const char *key;
    const json_t *value;
    json_object_foreach((json_t *)params, key, value) {
        strbuf braced = STRBUF_INIT, out = STRBUF_INIT;
        const char *v = json_string_value(value);
        strbuf_appendf(&braced, "{%s}", key);
        if (text && v && *v && strbuf_status(&braced) == 0)
            replace_text(text, reverse ? v : strbuf_text(&braced),
                         reverse ? strbuf_text(&braced) : v, where, &out);
        char *next = out.length && strbuf_status(&out) == 0 ? strbuf_detach(&out) : NULL;
        strbuf_free(&out);
        strbuf_free(&braced);
        if (next) {
            free(text);
            text = next;
        }
    }
    return text;
}

/* Whether template gives every command of the column when its parameters are put in. */
static bool template_fits(const char *template, const json_t *results, const size_t *column,
                          size_t n, const peer_file *f)
{
    bool fits = true;
    for (size_t j = 0; fits && j < n; j++) {
        const json_t *params = json_object_get(json_array_get(results, column[j]), "parameters");
        char *command = substitute(template, params, false, REPLACE_ALL);
        fits = command && strcmp(command, f->series[column[j]].variant) == 0;
        free(command);
    }
    return fits;
}

/* The name of the k-th command of a scan: its template ("sleep 0.0{n}"), found by putting
 * the first point's values back and checked against every point; else the first command
 * and its point, so that the name never claims what the file does not say. */
static char *scan_variant(const json_t *results, const size_t *column, size_t n,
                          const peer_file *f)
{
    const char *first = f->series[column[0]].variant;
    const json_t *params = json_object_get(json_array_get(results, column[0]), "parameters");
    static const replace_where ways[] = {REPLACE_ALL, REPLACE_LAST, REPLACE_FIRST};
    for (size_t w = 0; w < sizeof ways / sizeof ways[0]; w++) {
        char *template = substitute(first, params, true, ways[w]);
        if (template && template_fits(template, results, column, n, f))
            return template;
        free(template);
    }
    strbuf name = STRBUF_INIT;
    strbuf_appendf(&name, "%s (at %s)", first, f->series[column[0]].point);
    char *text = strbuf_detach(&name);
    strbuf_free(&name);
    return text;
}

/* Results in each group of parameter values, or 0 when the groups differ in size. */
static size_t commands_per_point(const peer_file *f, size_t *points)
{
    size_t per = 0;
    *points = 0;
    for (size_t i = 0; i < f->n; i++) {
        size_t same = 0, earlier = 0;
        for (size_t j = 0; j < f->n; j++) {
            same += strcmp(f->series[j].point, f->series[i].point) == 0;
            earlier += j < i && strcmp(f->series[j].point, f->series[i].point) == 0;
        }
        *points += earlier == 0;
        if (per != 0 && same != per)
            return 0;
        per = same;
    }
    return per;
}

static void forget_points(peer_file *f)
{
    for (size_t i = 0; i < f->n; i++) {
        free(f->series[i].point);
        f->series[i].point = NULL;
    }
}

/* A scan of two commands or more over parameter values (hyperfine -L n 1,2 A B) compares
 * A with B at each value: the values are points, the commands variants named by their
 * templates. A scan of one command keeps its values as variants (each against the first). */
static int settle_scan(const char *name, const json_t *results, peer_file *f, verdict_error *err)
{
    size_t points = 0, per = 0;
    bool all = f->n > 0;
    for (size_t i = 0; i < f->n; i++)
        all &= f->series[i].point != NULL;
    if (all)
        per = commands_per_point(f, &points);
    if (!all || per < 2 || points < 2) {
        forget_points(f);
        return 0;
    }
    size_t *column = calloc(points, sizeof *column);
    char **names = calloc(per, sizeof *names);
    int rc = column && names ? 0 : error_set(err, ERROR_NO_MEMORY, "%s: out of memory", name);
    for (size_t k = 0; rc == 0 && k < per; k++) {
        for (size_t i = 0, n = 0; i < f->n; i++) /* hyperfine: each value's commands in order */
            if (i % per == k)
                column[n++] = i;
        if ((names[k] = scan_variant(results, column, points, f)) == NULL)
            rc = error_set(err, ERROR_NO_MEMORY, "%s: out of memory", name);
    }
    for (size_t i = 0; rc == 0 && i < f->n; i++) {
        char *copy = strdup(names[i % per]);
        if (copy == NULL) {
            rc = error_set(err, ERROR_NO_MEMORY, "%s: out of memory", name);
            break;
        }
        free(f->series[i].variant);
        f->series[i].variant = copy;
    }
    for (size_t k = 0; names && k < per; k++)
        free(names[k]);
    free(names);
    free(column);
    return rc;
}

int peer_hyperfine_read(const char *name, const json_t *root, const peer_options *o,
                        peer_file *out, verdict_error *err)
{
    if (peer_check_metric(name, "hyperfine", o->metric, hyperfine_metrics, err) != 0)
        return -1;
    const json_t *results = peer_json_array(name, root, "results", "", err);
    if (results == NULL)
        return -1;
    if (json_array_size(results) == 0)
        return error_set(err, ERROR_BAD_INPUT, "%s: results: empty (hyperfine measured nothing)",
                         name);
    size_t i;
    const json_t *result;
    json_array_foreach((json_t *)results, i, result) {
        if (read_result(name, result, i, out, err) != 0)
            return -1;
    }
    return settle_scan(name, results, out, err);
}

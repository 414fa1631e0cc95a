/* hyperfine --export-json: every result is a variant named by its command (or command_name),
 * its "times" (seconds, one per run) the samples, save runs whose exit_codes say they failed. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "common/array.h"
#include "common/error.h"
#include "core/peer_internal.h"

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
    peer_series *s = peer_series_add(out, NULL, command, "time", false);
    if (s == NULL)
        return error_set(err, ERROR_NO_MEMORY, "%s: out of memory", name);
    char path[PEER_WHERE_SIZE + 8];
    snprintf(path, sizeof path, "%s.times", where);
    if (json_array_size(times) == 0)
        return error_set(err, ERROR_BAD_INPUT, "%s: %s: no times", name, path);
    const json_t *exits = json_object_get(result, "exit_codes");
    if (exits == NULL) /* hyperfine before 1.12 kept no exit codes: every run is a success */
        return peer_keep_json_values(name, times, path, s, err);
    return keep_runs(name, times, exits, where, s, err);
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
    return 0;
}

/* hyperfine --export-json: every result is a variant named by its command (or command_name),
 * its "times" (seconds, one per run) the samples; the file's first result is the baseline. */
#include <stdio.h>
#include <string.h>

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
    return peer_keep_json_values(name, times, path, s, err);
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

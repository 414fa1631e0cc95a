/* JSON for the peer readers: a document loaded strictly (duplicate keys refused, places
 * named by line and column) and typed lookups whose messages name the JSON path at fault. */
#include <stdio.h>

#include "common/error.h"
#include "core/peer_internal.h"

int peer_json_load(const char *name, const char *text, size_t length, json_t **root,
                   verdict_error *err)
{
    json_error_t problem;
    /* Integers as reals: an integer beyond json_int_t is a number, not a parse error. */
    *root = json_loadb(text, length, JSON_REJECT_DUPLICATES | JSON_DECODE_INT_AS_REAL,
                       &problem);
    if (*root == NULL)
        return error_set(err, ERROR_BAD_INPUT, "%s:%d:%d: not valid JSON: %s", name, problem.line,
                         problem.column, problem.text);
    return 0;
}

const char *peer_json_kind(const json_t *value)
{
    switch (json_typeof(value)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER:
    case JSON_REAL: return "a number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    case JSON_NULL: return "null";
    }
    return "a value";
}

json_t *peer_json_array(const char *name, const json_t *object, const char *key,
                        const char *where, verdict_error *err)
{
    json_t *array = json_object_get(object, key);
    if (json_is_array(array))
        return array;
    error_set(err, ERROR_BAD_INPUT, "%s: %s%s%s: %s, where an array was expected", name, where,
              *where ? "." : "", key, array ? peer_json_kind(array) : "missing");
    return NULL;
}

int peer_json_number(const char *name, const json_t *value, const char *where, double *out,
                     verdict_error *err)
{
    if (!json_is_number(value))
        return error_set(err, ERROR_BAD_INPUT, "%s: %s: %s, where a number was expected", name,
                         where, value ? peer_json_kind(value) : "missing");
    *out = json_number_value(value);
    return 0;
}

int peer_keep_json_values(const char *name, const json_t *array, const char *path,
                          double divisor, peer_series *s, verdict_error *err)
{
    size_t i;
    const json_t *value;
    json_array_foreach((json_t *)array, i, value) {
        char where[PEER_WHERE_SIZE + 40];
        double number;
        snprintf(where, sizeof where, "%s[%zu]", path, i);
        if (peer_json_number(name, value, where, &number, err) != 0)
            return -1;
        char place[sizeof where + 512];
        snprintf(place, sizeof place, "%s: %s", name, where);
        if (peer_keep_value(s, number, divisor, 0, place, err) != 0)
            return -1;
    }
    return 0;
}

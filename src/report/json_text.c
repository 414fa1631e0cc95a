/* Untrusted text into JSON without loss: "caf\xe9.txt" is written as "caf\ufffd.txt" with
 * "name_base64": "Y2Fm6S50eHQ=" beside it, so readers get valid UTF-8 and the exact bytes. */
#include "report/json_text.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/utf8.h"
#include "report/output_file.h"

#define BASE64_SUFFIX "_base64"

json_t *json_text_string(const char *text)
{
    if (text == NULL)
        text = "";
    if (utf8_valid(text, strlen(text)))
        return json_string(text);
    char *replaced = utf8_replace_invalid(text);
    json_t *value = replaced ? json_string(replaced) : NULL;
    free(replaced);
    return value;
}

static char *base64_of(const char *text)
{
    static const char alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const unsigned char *s = (const unsigned char *)text;
    size_t n = strlen(text), used = 0;
    char *out = malloc(4 * (n / 3 + 1) + 1);
    if (out == NULL)
        return NULL;
    for (size_t i = 0; i < n; i += 3) {
        unsigned long group = (unsigned long)s[i] << 16;
        if (i + 1 < n)
            group |= (unsigned long)s[i + 1] << 8;
        if (i + 2 < n)
            group |= s[i + 2];
        out[used++] = alphabet[(group >> 18) & 63];
        out[used++] = alphabet[(group >> 12) & 63];
        out[used++] = i + 1 < n ? alphabet[(group >> 6) & 63] : '=';
        out[used++] = i + 2 < n ? alphabet[group & 63] : '=';
    }
    out[used] = '\0';
    return out;
}

static json_t *base64_value(const char *text)
{
    char *encoded = base64_of(text ? text : "");
    json_t *value = encoded ? json_string(encoded) : NULL;
    free(encoded);
    return value;
}

/* field + "_base64", or NULL when out of memory. */
static char *companion_name(const char *field)
{
    size_t length = strlen(field) + sizeof BASE64_SUFFIX;
    char *name = malloc(length);
    if (name != NULL)
        snprintf(name, length, "%s" BASE64_SUFFIX, field);
    return name;
}

int json_text_set(json_t *object, const char *field, const char *text)
{
    if (json_object_set_new(object, field, json_text_string(text)) != 0)
        return -1;
    if (text == NULL || utf8_valid(text, strlen(text)))
        return 0;
    char *companion = companion_name(field);
    int rc = companion ? json_object_set_new(object, companion, base64_value(text)) : -1;
    free(companion);
    return rc;
}

int json_text_set_words(json_t *object, const char *field, const char *const *words,
                        size_t n)
{
    json_t *array = json_array(), *exact = json_array();
    bool any_invalid = false;
    int rc = array && exact ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        any_invalid |= !utf8_valid(words[i], strlen(words[i]));
        rc |= json_array_append_new(array, json_text_string(words[i]));
        rc |= json_array_append_new(exact, base64_value(words[i]));
    }
    if (rc == 0 && json_object_set(object, field, array) != 0)
        rc = -1;
    char *companion = any_invalid ? companion_name(field) : NULL;
    if (rc == 0 && any_invalid)
        rc = companion ? json_object_set(object, companion, exact) : -1;
    free(companion);
    json_decref(array);
    json_decref(exact);
    return rc;
}

int json_text_set_key(json_t *object, const char *key, json_t *value)
{
    if (key == NULL)
        key = "";
    char *valid = utf8_valid(key, strlen(key)) ? strdup(key) : utf8_replace_invalid(key);
    size_t room = valid ? strlen(valid) + 24 : 0;
    char *unique = valid ? malloc(room) : NULL;
    int rc = -1;
    if (unique != NULL) {
        snprintf(unique, room, "%s", valid);
        for (int copy = 2; json_object_get(object, unique) != NULL; copy++)
            snprintf(unique, room, "%s (%d)", valid, copy);
        rc = json_object_set_new(object, unique, value);
        value = NULL;
    }
    json_decref(value);
    free(valid);
    free(unique);
    return rc;
}

int json_text_write(json_t *doc, const char *path, verdict_error *err)
{
    if (doc == NULL)
        return error_set(err, ERROR_NO_MEMORY, "cannot build the JSON document (out of memory)");
    output_file out;
    int rc = output_open(&out, path, err);
    if (rc == 0) {
        size_t flags = JSON_INDENT(1) | JSON_REAL_PRECISION(17) | JSON_PRESERVE_ORDER;
        if (json_dumpf(doc, out.stream, flags) != 0 || fputc('\n', out.stream) == EOF) {
            error_set(err, ERROR_INTERNAL, "%s: cannot write JSON", path);
            output_abandon(&out);
            rc = -1;
        } else {
            rc = output_commit(&out, err);
        }
    }
    json_decref(doc);
    return rc;
}

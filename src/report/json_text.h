/* JSON strings from untrusted bytes. JSON must be UTF-8 and jansson refuses anything else,
 * which silently dropped whole entries; here nothing is dropped: see json_text.c. */
#ifndef VERDICT_REPORT_JSON_TEXT_H
#define VERDICT_REPORT_JSON_TEXT_H

#include <jansson.h>
#include <stddef.h>

#include "common/error.h"

/* A JSON string of text; bytes that are not valid UTF-8 become U+FFFD. NULL only when out
 * of memory. */
json_t *json_text_string(const char *text);

/* object[field] = text. When text is not valid UTF-8, the field holds it with U+FFFD and
 * field + "_base64" holds its exact bytes (RFC 4648 base64). 0, or -1 out of memory. */
int json_text_set(json_t *object, const char *field, const char *text);

/* object[field] = the words as an array of strings; when any is not valid UTF-8, also
 * field + "_base64": every word's exact bytes, in the same order. 0, or -1. */
int json_text_set_words(json_t *object, const char *field, const char *const *words,
                        size_t n);

/* object[key] = value (the reference is taken), with key made valid UTF-8; a key already
 * there (two names that differed only in invalid bytes) gets " (2)", " (3)", ... so that
 * no value is lost. 0, or -1 out of memory. */
int json_text_set_key(json_t *object, const char *key, json_t *value);

/* Writes doc (the reference is taken) to path, "-" for standard output, as every JSON
 * document of verdict is written: indented, doubles to 17 digits, keys in order, atomic for
 * a file (output_file.h). NULL doc: out of memory. 0, or -1 with err. */
int json_text_write(json_t *doc, const char *path, verdict_error *err);

#endif

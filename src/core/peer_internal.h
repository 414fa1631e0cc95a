/* What the readers of peer files share: series found or added by name, values checked before
 * they are kept, JSON loaded with file:line:column messages and walked with typed lookups. */
#ifndef VERDICT_CORE_PEER_INTERNAL_H
#define VERDICT_CORE_PEER_INTERNAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/peer_files.h"
#include "common/error.h"

/* Longest JSON path in messages ("benchmarks[12].runs[3].values[40]"). */
#define PEER_WHERE_SIZE 160

/* Appends a new series; NULL when out of memory. Strings are copied (NULL stays NULL). */
peer_series *peer_series_add(peer_file *f, const char *point, const char *variant,
                             const char *metric, bool higher_is_better);
/* Adds a warning to the file (printf format); 0, or -1 when out of memory. */
int peer_file_warn(peer_file *f, const char *format, ...) __attribute__((format(printf, 2, 3)));
/* The series of this point, or NULL. */
peer_series *peer_series_find(peer_file *f, const char *point);
/* Keeps value / divisor (1e9: nanoseconds to seconds) after checking that the value, as the
 * file has it, is positive and finite (comparisons are ratios, on a log scale); `where`
 * names it in the message ("a.json: results[0].times[3]"). */
int peer_keep_value(peer_series *s, double value, double divisor, size_t line,
                    const char *where, verdict_error *err);
/* Whether a metric other than the format's one was asked for: an error naming the format's. */
int peer_check_metric(const char *name, const char *format, const char *asked,
                      const char *const *accepted, verdict_error *err);

/* Parses JSON text (duplicate keys refused); -1 with "name:line:column: ..." otherwise. */
int peer_json_load(const char *name, const char *text, size_t length, json_t **root,
                   verdict_error *err);
/* "an object", "a string", ...: what a JSON value is, for messages. */
const char *peer_json_kind(const json_t *value);
/* The array at key of object, or NULL with a message naming where and what is there. */
json_t *peer_json_array(const char *name, const json_t *object, const char *key,
                        const char *where, verdict_error *err);
/* The number value is, or -1 with a message naming where. */
int peer_json_number(const char *name, const json_t *value, const char *where, double *out,
                     verdict_error *err);
/* Keeps every element of a JSON array of numbers, each / divisor as peer_keep_value does;
 * path names the array. */
int peer_keep_json_values(const char *name, const json_t *array, const char *path,
                          double divisor, peer_series *s, verdict_error *err);

/* The readers, one per format (peer_hyperfine.c, peer_gobench.c, ...). */
int peer_hyperfine_read(const char *name, const json_t *root, const peer_options *o,
                        peer_file *out, verdict_error *err);
int peer_gbench_read(const char *name, const json_t *root, const peer_options *o,
                     peer_file *out, verdict_error *err);
int peer_pyperf_read(const char *name, const json_t *root, const peer_options *o,
                     peer_file *out, verdict_error *err);
int peer_criterion_read(const char *name, const json_t *root, const peer_options *o,
                        peer_file *out, verdict_error *err);
/* Names the one benchmark of a criterion file read from path by the full_id of the
 * benchmark.json beside it, when there is one; -1 when that file is unreadable. */
int peer_criterion_name(const char *path, peer_file *f, verdict_error *err);
/* Reads every new/sample.json below dir (target/criterion, or a copy) as one file whose
 * benchmarks are its points. */
int peer_criterion_read_dir(const char *dir, const peer_options *o, peer_file *out,
                            verdict_error *err);
int peer_jmh_read(const char *name, const json_t *root, const peer_options *o, peer_file *out,
                  verdict_error *err);
int peer_go_read(const char *name, const char *text, size_t length, const peer_options *o,
                 peer_file *out, verdict_error *err);
/* True when text holds a Go benchmark result line or a goos:/goarch:/pkg:/cpu: header. */
bool peer_go_detect(const char *text, size_t length);

#endif

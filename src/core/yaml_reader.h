/* Reading YAML for experiment files with libfyaml: one document with libfyaml's own
 * diagnostics captured into our message, node positions, and scalars read as typed values. */
#ifndef VERDICT_CORE_YAML_READER_H
#define VERDICT_CORE_YAML_READER_H

#include <libfyaml.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

/* Where messages go and which file they name. */
typedef struct {
    const char *file;
    verdict_error *err;
} yaml_reader;

/* The most items one sequence may hold (a parameter's list of values is the longest any
 * experiment needs): a longer one is refused while the text is scanned, before libfyaml
 * builds a document of it (10^6 values took 355 MB to refuse). */
#define YAML_SEQUENCE_MAX 100000

/* The longest key a file may hold: variant names are keys, and the command line names a
 * variant by its command, so this is also the longest such name (command_experiment). */
#define YAML_KEY_MAX 4096

/* One key: value pair of a mapping; value is NULL for "key:" with nothing after it. */
typedef struct {
    char key[YAML_KEY_MAX]; /* a NUL-terminated copy (libfyaml's text is not terminated) */
    struct fy_node *key_node;
    struct fy_node *value;
} yaml_field;

/* libfyaml's diagnostics, captured instead of printed. */
typedef struct {
    char text[512];
    size_t length;
} diag_capture;

/* A parsed document with the parser that owns its memory (it must not move while open). */
typedef struct {
    struct fy_diag *diag;
    struct fy_parser *parser;
    struct fy_document *document;
    diag_capture capture;
} yaml_source;

/* Parses text, which must hold exactly one YAML document: 0, or -1 with
 * "FILE:LINE:COLUMN: ..." in the reader's err. */
int yaml_open(yaml_reader *r, const char *text, size_t length, yaml_source *out);
void yaml_close(yaml_source *s);

/* 1-based position of a node (for collections, of the first scalar inside; 0 if unknown). */
void yaml_position(struct fy_node *node, int *line, int *column);
/* Writes "FILE:LINE:COLUMN: message" about node (or the field's key when node has no
 * position) and returns -1, so callers can `return yaml_fail(...)`. */
int yaml_fail(yaml_reader *r, struct fy_node *node, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int yaml_fail_field(yaml_reader *r, const yaml_field *f, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The text of a scalar node, or NULL when the node is not a scalar (or holds a NUL byte). */
const char *yaml_scalar(struct fy_node *node, size_t *length);
/* NULL, or a plain "", "~" or "null": YAML's ways of writing nothing. */
bool yaml_is_null(struct fy_node *node);
/* A copy of a scalar node's text; errors say "'key' must be WHAT". */
int yaml_string(yaml_reader *r, const yaml_field *f, const char *what, char **out);

/* Typed values; each error names the key and the offending text. */
int yaml_count(yaml_reader *r, const yaml_field *f, bool positive, size_t *out);
int yaml_u64(yaml_reader *r, const yaml_field *f, uint64_t *out);
int yaml_int64(yaml_reader *r, const yaml_field *f, int64_t *out);
int yaml_bool(yaml_reader *r, const yaml_field *f, bool *out);
/* "30s", "500ms", "5m", "1h" or a number of seconds; must be positive. */
int yaml_duration(yaml_reader *r, const yaml_field *f, double *out);
/* One of n words (an enum's names, in the enum's order): its index in out; the error lists
 * them all ("'pin' must be none, same or split, not 'both'"). */
int yaml_choice(yaml_reader *r, const yaml_field *f, const char *const *choices, size_t n,
                int *out);
/* "95%" or 0.95, within [low, high) (low excluded too when low_open); what describes it. */
int yaml_fraction(yaml_reader *r, const yaml_field *f, double low, double high, bool low_open,
                  const char *what, double *out);

#endif

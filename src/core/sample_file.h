/* Reads samples gathered elsewhere: one number per line, or column N of whitespace- (or
 * -d) separated text (like ministat's -C and -d), with '#' comments and blank lines skipped. */
#ifndef VERDICT_CORE_SAMPLE_FILE_H
#define VERDICT_CORE_SAMPLE_FILE_H

#include <stddef.h>

#include "common/error.h"

typedef struct {
    double *values;
    size_t *lines;   /* line number (1-based) each value came from; 0 when not from a line */
    size_t n;
    size_t capacity[2]; /* of values and of lines (sample_series_push) */
} sample_series;

/* Where the number of a line is, as ministat's options say it. */
typedef struct {
    int column;             /* 1-based; 0: the whole line (before a comment) is the number */
    const char *delimiters; /* -d: any of these bytes separates columns and a run of them
                               counts as one, like strtok; NULL: white space. With
                               delimiters, column 0 means column 1 (ministat's default) */
} sample_layout;

/* Parses text already in memory; `name` only appears in messages. A '#' at the start of a
 * field begins a comment to the end of the line ("0.0011 # cold" is 0.0011). Returns 0, or
 * -1 with a message in err. */
int sample_text_parse_layout(const char *name, const char *text, size_t length,
                             const sample_layout *layout, sample_series *out, verdict_error *err);
/* The same with white space between columns; column 0 is the whole line. */
int sample_text_parse(const char *name, const char *text, size_t length, int column,
                      sample_series *out, verdict_error *err);
/* Reads a whole file ("-" is standard input) into *text (malloc'd, not NUL-terminated, of
 * *length bytes, any of them NUL). Returns 0, or -1 with a message naming the path. */
int sample_file_load(const char *path, char **text, size_t *length, verdict_error *err);
/* Appends one value and the line it came from; 0, or -1 when out of memory. */
int sample_series_push(sample_series *series, double value, size_t line);
void sample_series_free(sample_series *series);

/* Reads text[0..length) (not NUL-terminated, any length) as a decimal number: digits with
 * an optional sign, point and exponent. Hexadecimal (strtod's 0x10 = 16), infinities,
 * NaN, values beyond DBL_MAX and nonzero values that round to 0 are refused; subnormal
 * values (1e-308) are kept. Returns 0, or -1 with why it is refused in why ("\"0x10\" is
 * hexadecimal; ..."), the text quoted. Sign is not checked: callers decide. */
int sample_number_parse(const char *text, size_t length, double *value, verdict_error *why);

#endif

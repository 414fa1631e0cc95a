/* Reads samples gathered elsewhere: one number per line, or column N of whitespace-
 * separated text (like ministat's -C), with '#' comments and blank lines skipped. */
#ifndef VERDICT_CORE_SAMPLE_FILE_H
#define VERDICT_CORE_SAMPLE_FILE_H

#include <stddef.h>

typedef struct {
    double *values;
    size_t *lines;   /* line number (1-based) each value came from */
    size_t n;
} sample_series;

/* Parses text already in memory; `name` only appears in messages. column is 1-based,
 * 0 means "the whole line is the number". Returns 0, or -1 with a message in err. */
int sample_text_parse(const char *name, const char *text, size_t length, int column,
                      sample_series *out, char *err, size_t errlen);
/* Reads a file ("-" is standard input) and parses it as above. */
int sample_file_read(const char *path, int column, sample_series *out, char *err, size_t errlen);
void sample_series_free(sample_series *series);

/* Reads text[0..length) (not NUL-terminated, any length) as a decimal number: digits with
 * an optional sign, point and exponent. Hexadecimal (strtod's 0x10 = 16), infinities,
 * NaN, values beyond DBL_MAX and nonzero values that round to 0 are refused; subnormal
 * values (1e-308) are kept. Returns 0, or -1 with why it is refused in why ("\"0x10\" is
 * hexadecimal; ..."), the text quoted. Sign is not checked: callers decide. */
int sample_number_parse(const char *text, size_t length, double *value, char *why,
                        size_t whylen);

#endif

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

#endif

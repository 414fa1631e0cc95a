/* Parser for sample files: numbers one per line or in a chosen column, validated
 * strictly (positive, finite) with file:line messages naming the offending text. */
#include "core/sample_file.h"

#include "common/array.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define QUOTE_MAX 60

typedef struct {
    const char *start;
    size_t length;
} text_span;

/* capacity[0] for the values, capacity[1] for their line numbers */
static bool series_push(sample_series *s, size_t capacity[2], double value, size_t line)
{
    if (array_reserve((void **)&s->values, &capacity[0], s->n + 1, sizeof *s->values) != 0 ||
        array_reserve((void **)&s->lines, &capacity[1], s->n + 1, sizeof *s->lines) != 0)
        return false;
    s->values[s->n] = value;
    s->lines[s->n] = line;
    s->n++;
    return true;
}

static text_span trim(text_span t)
{
    while (t.length && isspace((unsigned char)t.start[0])) {
        t.start++;
        t.length--;
    }
    while (t.length && isspace((unsigned char)t.start[t.length - 1]))
        t.length--;
    return t;
}

/* Quotes a line for a message, cut short and with control bytes made visible. */
static void quote_text(text_span t, char *out, size_t outlen)
{
    size_t o = 0;
    for (size_t i = 0; i < t.length && o + 5 < outlen && i < QUOTE_MAX; i++) {
        unsigned char c = (unsigned char)t.start[i];
        if (isprint(c))
            out[o++] = (char)c;
        else
            o += (size_t)snprintf(out + o, outlen - o, "\\x%02x", c);
    }
    if (t.length > QUOTE_MAX && o + 4 < outlen) {
        memcpy(out + o, "...", 3);
        o += 3;
    }
    out[o < outlen ? o : outlen - 1] = '\0';
}

/* Finds the column-th whitespace-separated field (1-based); column 0 is the whole line. */
static bool select_field(text_span line, int column, text_span *field)
{
    if (column == 0) {
        *field = line;
        return true;
    }
    size_t i = 0;
    for (int k = 1; i < line.length; k++) {
        while (i < line.length && isspace((unsigned char)line.start[i]))
            i++;
        size_t begin = i;
        while (i < line.length && !isspace((unsigned char)line.start[i]))
            i++;
        if (begin == i)
            break;
        if (k == column) {
            field->start = line.start + begin;
            field->length = i - begin;
            return true;
        }
    }
    return false;
}

static bool parse_number(text_span field, double *value)
{
    char buffer[128];
    if (field.length == 0 || field.length >= sizeof buffer)
        return false;
    memcpy(buffer, field.start, field.length);
    buffer[field.length] = '\0';
    char *end = NULL;
    errno = 0;
    *value = strtod(buffer, &end);
    return end == buffer + field.length && errno != ERANGE;
}

static int parse_line(const char *name, text_span line, size_t lineno, int column,
                      double *value, char *err, size_t errlen)
{
    char quoted[4 * QUOTE_MAX + 8];
    text_span field;
    quote_text(line, quoted, sizeof quoted);
    if (!select_field(line, column, &field)) {
        snprintf(err, errlen, "%s:%zu: no column %d in \"%s\"", name, lineno, column, quoted);
        return -1;
    }
    if (!parse_number(field, value)) {
        char bad[4 * QUOTE_MAX + 8];
        quote_text(field, bad, sizeof bad);
        snprintf(err, errlen, "%s:%zu: not a number: \"%s\"%s", name, lineno, bad,
                 column ? " (column selected with -C)" : "");
        return -1;
    }
    if (!isfinite(*value) || *value <= 0.0) {
        snprintf(err, errlen,
                 "%s:%zu: value %s is not positive; verdict compares ratios, which need "
                 "positive finite data", name, lineno, quoted);
        return -1;
    }
    return 0;
}

int sample_text_parse(const char *name, const char *text, size_t length, int column,
                      sample_series *out, char *err, size_t errlen)
{
    size_t capacity[2] = {0, 0}, lineno = 0, pos = 0;
    memset(out, 0, sizeof *out);
    while (pos < length) {
        const char *newline = memchr(text + pos, '\n', length - pos);
        size_t end = newline ? (size_t)(newline - text) : length;
        text_span line = trim((text_span){text + pos, end - pos});
        lineno++;
        pos = end + 1;
        if (line.length == 0 || line.start[0] == '#')
            continue;
        double value;
        if (parse_line(name, line, lineno, column, &value, err, errlen) != 0)
            goto fail;
        if (!series_push(out, capacity, value, lineno)) {
            snprintf(err, errlen, "%s: out of memory", name);
            goto fail;
        }
    }
    if (out->n == 0) {
        snprintf(err, errlen, "%s: no samples (the file is empty or holds only comments)", name);
        goto fail;
    }
    return 0;
fail:
    sample_series_free(out);
    return -1;
}

static int slurp(FILE *f, char **text, size_t *length)
{
    size_t capacity = 0, used = 0;
    char *buffer = NULL;
    for (;;) {
        if (used == capacity &&
            array_reserve((void **)&buffer, &capacity, used < 4096 ? 4096 : used + 1, 1) != 0) {
            free(buffer);
            return -1;
        }
        size_t got = fread(buffer + used, 1, capacity - used, f);
        used += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        free(buffer);
        return -1;
    }
    *text = buffer;
    *length = used;
    return 0;
}

int sample_file_read(const char *path, int column, sample_series *out, char *err, size_t errlen)
{
    bool from_stdin = strcmp(path, "-") == 0;
    const char *name = from_stdin ? "<stdin>" : path;
    FILE *f = from_stdin ? stdin : fopen(path, "rb");
    memset(out, 0, sizeof *out);
    if (f == NULL) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    char *text = NULL;
    size_t length = 0;
    int rc = slurp(f, &text, &length);
    int saved_errno = errno;
    if (!from_stdin)
        fclose(f);
    if (rc != 0) {
        snprintf(err, errlen, "%s: cannot read: %s", name, strerror(saved_errno));
        return -1;
    }
    rc = sample_text_parse(name, text, length, column, out, err, errlen);
    free(text);
    return rc;
}

void sample_series_free(sample_series *series)
{
    free(series->values);
    free(series->lines);
    memset(series, 0, sizeof *series);
}

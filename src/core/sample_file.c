/* Parser for sample files: numbers one per line or in a chosen column (split at white
 * space or -d bytes), validated strictly (positive, finite) with file:line messages. */
#include "core/sample_file.h"

#include "common/array.h"
#include "common/error.h"

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

int sample_series_push(sample_series *s, double value, size_t line)
{
    if (array_reserve((void **)&s->values, &s->capacity[0], s->n + 1, sizeof *s->values) != 0 ||
        array_reserve((void **)&s->lines, &s->capacity[1], s->n + 1, sizeof *s->lines) != 0)
        return -1;
    s->values[s->n] = value;
    s->lines[s->n] = line;
    s->n++;
    return 0;
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

static bool is_delimiter(char c, const char *delimiters)
{
    if (delimiters == NULL)
        return isspace((unsigned char)c);
    return c != '\0' && strchr(delimiters, c) != NULL;
}

/* The line before its comment: a '#' that starts a field (at the start of the line, or
 * after white space or a delimiter) begins one, as in ministat, where a field beginning
 * with '#' ends the line. A '#' inside a field ("run#3") is text. */
static text_span before_comment(text_span line, const char *delimiters)
{
    for (size_t i = 0; i < line.length; i++) {
        if (line.start[i] != '#')
            continue;
        char before = i ? line.start[i - 1] : ' ';
        if (isspace((unsigned char)before) || is_delimiter(before, delimiters))
            return trim((text_span){line.start, i});
    }
    return line;
}

/* Finds the column-th field (1-based), runs of delimiters counting as one like strtok;
 * column 0 is the whole line. Fields are trimmed of white space. */
static bool select_field(text_span line, const sample_layout *layout, text_span *field)
{
    if (layout->column == 0) {
        *field = line;
        return true;
    }
    size_t i = 0;
    for (int k = 1; i < line.length; k++) {
        while (i < line.length && is_delimiter(line.start[i], layout->delimiters))
            i++;
        size_t begin = i;
        while (i < line.length && !is_delimiter(line.start[i], layout->delimiters))
            i++;
        if (begin == i)
            break;
        if (k == layout->column) {
            *field = trim((text_span){line.start + begin, i - begin});
            return true;
        }
    }
    return false;
}

/* What a field holds, as far as the parser is concerned. */
typedef enum {
    FIELD_NUMBER,      /* a decimal number, stored in *value (may be <= 0: checked later) */
    FIELD_NOT_NUMBER,
    FIELD_HEXADECIMAL, /* strtod reads 0x10 as 16: refused, sample files are decimal */
    FIELD_NOT_FINITE,  /* inf, infinity, nan */
    FIELD_TOO_LARGE,   /* beyond DBL_MAX */
    FIELD_TOO_SMALL,   /* nonzero, but rounds to 0 */
    FIELD_NO_MEMORY
} field_kind;

static size_t count_digits(const char *s, size_t i, size_t length)
{
    size_t start = i;
    while (i < length && s[i] >= '0' && s[i] <= '9')
        i++;
    return i - start;
}

/* True when the span is [+-]digits[.digits][e[+-]digits] (or .digits): decimal only, so
 * that strtod's other forms (hex, inf, nan, locale-specific text) never get through. */
static bool is_decimal(text_span t)
{
    const char *s = t.start;
    size_t i = 0, n = t.length;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        i++;
    size_t whole = count_digits(s, i, n), fraction = 0;
    i += whole;
    if (i < n && s[i] == '.') {
        fraction = count_digits(s, i + 1, n);
        i += 1 + fraction;
    }
    if (whole + fraction == 0)
        return false;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            i++;
        size_t exponent = count_digits(s, i, n);
        if (exponent == 0)
            return false;
        i += exponent;
    }
    return i == n;
}

static bool starts_with_word(text_span t, const char *word)
{
    size_t i = t.length > 0 && (t.start[0] == '+' || t.start[0] == '-') ? 1 : 0;
    size_t n = strlen(word);
    if (t.length - i < n)
        return false;
    for (size_t k = 0; k < n; k++)
        if (tolower((unsigned char)t.start[i + k]) != word[k])
            return false;
    return true;
}

/* Converts a decimal field of any length (a copy is NUL-terminated for strtod). Subnormal
 * values (1e-308) are kept: strtod reports ERANGE for them, but they are positive and
 * finite; only a nonzero number that rounds to 0, or one beyond DBL_MAX, is refused. */
static field_kind convert_decimal(text_span field, double *value)
{
    char small[128], *copy = field.length < sizeof small ? small : malloc(field.length + 1);
    if (copy == NULL)
        return FIELD_NO_MEMORY;
    memcpy(copy, field.start, field.length);
    copy[field.length] = '\0';
    errno = 0;
    *value = strtod(copy, NULL);
    bool range_error = errno == ERANGE;
    /* 0e-999 is zero (refused later as not positive); 1e-999 is too small to hold. */
    bool nonzero_digits = strcspn(copy, "123456789") < strcspn(copy, "eE");
    if (copy != small)
        free(copy);
    if (isinf(*value))
        return FIELD_TOO_LARGE;
    if (range_error && *value == 0.0 && nonzero_digits)
        return FIELD_TOO_SMALL;
    return FIELD_NUMBER;
}

static field_kind parse_number(text_span field, double *value)
{
    if (is_decimal(field))
        return convert_decimal(field, value);
    if (starts_with_word(field, "0x"))
        return FIELD_HEXADECIMAL;
    if (starts_with_word(field, "inf") || starts_with_word(field, "nan"))
        return FIELD_NOT_FINITE;
    return FIELD_NOT_NUMBER;
}

/* The message for a field that is not a usable number; "" when it is one. */
static void describe_field(field_kind kind, const char *bad, verdict_error *why)
{
    switch (kind) {
    case FIELD_NUMBER: return;
    case FIELD_NOT_NUMBER: error_set(why, ERROR_BAD_INPUT, "not a number: \"%s\"", bad); return;
    case FIELD_HEXADECIMAL:
        error_set(why, ERROR_BAD_INPUT, "\"%s\" is hexadecimal; only decimal numbers are read",
                  bad);
        return;
    case FIELD_NOT_FINITE:
        error_set(why, ERROR_BAD_INPUT, "\"%s\" is not a finite number; verdict compares ratios, "
                  "which need positive finite data", bad);
        return;
    case FIELD_TOO_LARGE:
        error_set(why, ERROR_BAD_INPUT, "\"%s\" is too large (the largest number is about 1.8e308)",
                  bad);
        return;
    case FIELD_TOO_SMALL:
        error_set(why, ERROR_BAD_INPUT, "\"%s\" is too small: it rounds to 0 (the smallest "
                  "positive number is about 4.9e-324)", bad);
        return;
    case FIELD_NO_MEMORY: error_no_memory(why); return;
    }
}

int sample_number_parse(const char *text, size_t length, double *value, verdict_error *why)
{
    text_span field = {text, length};
    field_kind kind = parse_number(field, value);
    if (kind == FIELD_NUMBER)
        return 0;
    char bad[4 * QUOTE_MAX + 8];
    quote_text(field, bad, sizeof bad);
    describe_field(kind, bad, why);
    return -1;
}

static int parse_line(const char *name, text_span line, size_t lineno,
                      const sample_layout *layout, double *value, verdict_error *err)
{
    char quoted[4 * QUOTE_MAX + 8];
    text_span field;
    int column = layout->column;
    quote_text(line, quoted, sizeof quoted);
    if (!select_field(line, layout, &field)) {
        error_set(err, ERROR_BAD_INPUT, "%s:%zu: no column %d in \"%s\"%s", name, lineno, column,
                  quoted, layout->delimiters ? " (columns split at the -d delimiters)" : "");
        return -1;
    }
    quote_text(field, quoted, sizeof quoted);
    verdict_error why = {0};
    if (sample_number_parse(field.start, field.length, value, &why) != 0) {
        error_set(err, ERROR_BAD_INPUT, "%s:%zu: %s%s", name, lineno, why.message,
                  column ? " (column selected with -C)" : "");
        return -1;
    }
    if (*value <= 0.0) {
        error_set(err, ERROR_BAD_INPUT, "%s:%zu: value %s is not positive; verdict compares "
                  "ratios, which need positive finite data", name, lineno, quoted);
        return -1;
    }
    return 0;
}

int sample_text_parse_layout(const char *name, const char *text, size_t length,
                             const sample_layout *given, sample_series *out, verdict_error *err)
{
    size_t lineno = 0, pos = 0;
    sample_layout layout = *given;
    if (layout.delimiters && layout.column == 0)
        layout.column = 1;
    memset(out, 0, sizeof *out);
    while (pos < length) {
        const char *newline = memchr(text + pos, '\n', length - pos);
        size_t end = newline ? (size_t)(newline - text) : length;
        text_span line = trim((text_span){text + pos, end - pos});
        lineno++;
        pos = end + 1;
        line = before_comment(line, layout.delimiters);
        if (line.length == 0)
            continue;
        double value;
        if (parse_line(name, line, lineno, &layout, &value, err) != 0)
            goto fail;
        if (sample_series_push(out, value, lineno) != 0) {
            error_set(err, ERROR_NO_MEMORY, "%s: out of memory", name);
            goto fail;
        }
    }
    if (out->n == 0) {
        error_set(err, ERROR_BAD_INPUT, "%s: no samples (the file is empty or holds only comments)",
                  name);
        goto fail;
    }
    return 0;
fail:
    sample_series_free(out);
    return -1;
}

int sample_text_parse(const char *name, const char *text, size_t length, int column,
                      sample_series *out, verdict_error *err)
{
    sample_layout layout = {.column = column, .delimiters = NULL};
    return sample_text_parse_layout(name, text, length, &layout, out, err);
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

int sample_file_load(const char *path, char **text, size_t *length, verdict_error *err)
{
    bool from_stdin = strcmp(path, "-") == 0;
    FILE *f = from_stdin ? stdin : fopen(path, "rb");
    *text = NULL;
    *length = 0;
    if (f == NULL) {
        error_set(err, ERROR_BAD_INPUT, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    int rc = slurp(f, text, length);
    int saved_errno = errno;
    if (!from_stdin)
        fclose(f);
    if (rc != 0)
        error_set(err, ERROR_BAD_INPUT, "%s: cannot read: %s", from_stdin ? "<stdin>" : path,
                  strerror(saved_errno));
    return rc;
}

void sample_series_free(sample_series *series)
{
    free(series->values);
    free(series->lines);
    memset(series, 0, sizeof *series);
}

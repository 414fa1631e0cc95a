/* Go benchmark text as benchstat reads it: "BenchmarkName-8  1000  1234 ns/op  56 B/op" lines
 * are samples of a point named like benchstat names it; headers and other lines are skipped. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "common/error.h"
#include "core/peer_internal.h"

#define PREFIX "Benchmark"
#define PREFIX_LENGTH (sizeof PREFIX - 1)
#define TIME_UNIT "ns/op"
#define QUOTE_MAX 60

typedef struct {
    const char *start;
    size_t length;
} go_span;

/* Splits off the next whitespace-separated field of line; false at its end. */
static bool next_field(go_span line, size_t *pos, go_span *field)
{
    while (*pos < line.length && isspace((unsigned char)line.start[*pos]))
        (*pos)++;
    size_t begin = *pos;
    while (*pos < line.length && !isspace((unsigned char)line.start[*pos]))
        (*pos)++;
    *field = (go_span){line.start + begin, *pos - begin};
    return *pos > begin;
}

static bool span_is(go_span s, const char *text)
{
    return s.length == strlen(text) && memcmp(s.start, text, s.length) == 0;
}

/* As the testing package and benchfmt: "Benchmark" then an upper-case letter, a digit, '_',
 * '-' or '/', so "Benchmarking results:" is prose. */
static bool is_benchmark_line(go_span line)
{
    return line.length > PREFIX_LENGTH && memcmp(line.start, PREFIX, PREFIX_LENGTH) == 0 &&
           !islower((unsigned char)line.start[PREFIX_LENGTH]) &&
           !isspace((unsigned char)line.start[PREFIX_LENGTH]);
}

static bool is_header_line(go_span line)
{
    static const char *const keys[] = {"goos: ", "goarch: ", "pkg: ", "cpu: "};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (line.length >= strlen(keys[i]) && memcmp(line.start, keys[i], strlen(keys[i])) == 0)
            return true;
    return false;
}

/* Calls fn on every line (without its newline or trailing white space); stops at non-zero. */
typedef int (*line_fn)(go_span line, size_t lineno, void *context);

static int for_each_line(const char *text, size_t length, line_fn fn, void *context)
{
    size_t pos = 0, lineno = 0;
    while (pos < length) {
        const char *newline = memchr(text + pos, '\n', length - pos);
        size_t end = newline ? (size_t)(newline - text) : length;
        go_span line = {text + pos, end - pos};
        while (line.length && isspace((unsigned char)line.start[line.length - 1]))
            line.length--;
        int rc = fn(line, ++lineno, context);
        if (rc != 0)
            return rc;
        pos = end + 1;
    }
    return 0;
}

static int detect_line(go_span line, size_t lineno, void *context)
{
    (void)lineno;
    (void)context;
    go_span name, iterations;
    size_t pos = 0;
    bool result = is_benchmark_line(line) && next_field(line, &pos, &name) &&
                  next_field(line, &pos, &iterations);
    return result || is_header_line(line);
}

bool peer_go_detect(const char *text, size_t length)
{
    return for_each_line(text, length, detect_line, NULL) != 0;
}

typedef struct {
    const char *name;
    const char *unit;      /* the unit read: ns/op, B/op, ... */
    const char *metric;    /* its name in the report: sec/op for ns/op, as benchstat */
    double divisor;        /* 1e9 from ns to seconds: a division rounds exactly */
    peer_file *out;
    verdict_error *err;
    size_t results;
    go_span pkg;           /* of the last pkg: header (go test ./... prints one per package) */
    go_span *pkg_of;       /* the package of each series of out, by index */
    size_t pkg_capacity;
} go_reader;

static void quote(go_span s, char *out, size_t outlen)
{
    size_t o = 0;
    for (size_t i = 0; i < s.length && i < QUOTE_MAX && o + 5 < outlen; i++) {
        unsigned char c = (unsigned char)s.start[i];
        if (isprint(c))
            out[o++] = (char)c;
        else
            o += (size_t)snprintf(out + o, outlen - o, "\\x%02x", c);
    }
    snprintf(out + o, outlen - o, "%s", s.length > QUOTE_MAX ? "..." : "");
}

static int line_error(go_reader *r, size_t lineno, go_span line, const char *what)
{
    char quoted[4 * QUOTE_MAX + 8];
    quote(line, quoted, sizeof quoted);
    return error_set(r->err, ERROR_BAD_INPUT, "%s:%zu: %s in \"%s\"", r->name, lineno, what,
                     quoted);
}

static bool is_count(go_span s)
{
    for (size_t i = 0; i < s.length; i++)
        if (!isdigit((unsigned char)s.start[i]))
            return false;
    return s.length > 0;
}

/* benchstat's name: without "Benchmark", the -GOMAXPROCS suffix kept ("Encode-8"). */
static go_span point_name(go_span field)
{
    char next = field.start[PREFIX_LENGTH];
    if (next == '-' || next == '/')
        return field;
    return (go_span){field.start + PREFIX_LENGTH, field.length - PREFIX_LENGTH};
}

/* Every value must be a number; the one of the chosen unit is kept. */
static int read_pairs(go_reader *r, go_span line, size_t pos, size_t lineno, double *value,
                      bool *found)
{
    go_span number, unit;
    *found = false;
    while (next_field(line, &pos, &number)) {
        verdict_error why = {0};
        double v;
        if (!next_field(line, &pos, &unit))
            return line_error(r, lineno, line, "a value without its unit");
        if (sample_number_parse(number.start, number.length, &v, &why) != 0)
            return error_set(r->err, ERROR_BAD_INPUT, "%s:%zu: %s", r->name, lineno, why.message);
        if (!*found && span_is(unit, r->unit)) {
            *value = v;
            *found = true;
        }
    }
    return 0;
}

static bool same_span(go_span a, go_span b)
{
    return a.length == b.length && memcmp(a.start, b.start, a.length) == 0;
}

/* Benchmarks of one name in two packages are two benchmarks (benchstat tells them apart by
 * package): rather than merge them, verdict refuses the file. */
static int check_package(go_reader *r, const peer_series *s, const char *point, size_t lineno)
{
    go_span first = r->pkg_of[s - r->out->series]; /* every series has its package */
    if (same_span(first, r->pkg))
        return 0;
    return error_set(r->err, ERROR_BAD_INPUT, "%s:%zu: benchmark %s is in two packages (\"%.*s\" "
                     "and \"%.*s\"): give one package's output per file", r->name, lineno, point,
                     (int)first.length, first.start, (int)r->pkg.length, r->pkg.start);
}

/* The testing package counts allocations and bytes and prints the whole count per
 * operation: integers, exact, never a rounded measurement (benchstat reads them so). */
static bool counted_unit(const char *unit)
{
    return strcmp(unit, "allocs/op") == 0 || strcmp(unit, "B/op") == 0;
}

static peer_series *add_series(go_reader *r, const char *point)
{
    size_t n = strlen(r->unit);
    bool rate = n >= 2 && strcmp(r->unit + n - 2, "/s") == 0; /* MB/s: higher is better */
    size_t index = r->out->n;
    if (array_reserve((void **)&r->pkg_of, &r->pkg_capacity, index + 1, sizeof *r->pkg_of) != 0)
        return NULL;
    r->pkg_of[index] = r->pkg;
    peer_series *s = peer_series_add(r->out, point, NULL, r->metric, rate);
    if (s != NULL)
        s->exact_counts = counted_unit(r->unit);
    return s;
}

static int keep_result(go_reader *r, go_span name, double value, size_t lineno)
{
    char point[4096];
    if (name.length >= sizeof point)
        return error_set(r->err, ERROR_BAD_INPUT, "%s:%zu: a benchmark name of %zu bytes", r->name,
                         lineno, name.length);
    memcpy(point, name.start, name.length);
    point[name.length] = '\0';
    peer_series *s = peer_series_find(r->out, point);
    if (s != NULL && check_package(r, s, point, lineno) != 0)
        return -1;
    if (s == NULL && (s = add_series(r, point)) == NULL)
        return error_set(r->err, ERROR_NO_MEMORY, "%s: out of memory", r->name);
    char where[4096 + 64];
    snprintf(where, sizeof where, "%s:%zu: %s of %s", r->name, lineno, r->unit, point);
    r->results++;
    return peer_keep_value(s, value, r->divisor, lineno, where, r->err);
}

static int read_line(go_span line, size_t lineno, void *context)
{
    go_reader *r = context;
    go_span name, iterations;
    size_t pos = 0;
    if (line.length > 5 && memcmp(line.start, "pkg: ", 5) == 0)
        r->pkg = (go_span){line.start + 5, line.length - 5};
    if (!is_benchmark_line(line) || !next_field(line, &pos, &name))
        return 0;
    if (!next_field(line, &pos, &iterations))
        return 0; /* the name alone: go test prints it before a benchmark's log lines */
    if (memchr(line.start, '\0', line.length) != NULL)
        return line_error(r, lineno, line, "a NUL byte");
    if (!is_count(iterations))
        return line_error(r, lineno, line, "the iteration count is not a whole number");
    double value = 0.0;
    bool found;
    if (read_pairs(r, line, pos, lineno, &value, &found) != 0)
        return -1;
    if (!found) {
        char what[128];
        snprintf(what, sizeof what, "no %.40s (choose a unit of the line with --metric)",
                 r->unit);
        return line_error(r, lineno, line, what);
    }
    return keep_result(r, point_name(name), value, lineno);
}

int peer_go_read(const char *name, const char *text, size_t length, const peer_options *o,
                 peer_file *out, verdict_error *err)
{
    bool time = o->metric == NULL || strcmp(o->metric, TIME_UNIT) == 0 ||
                strcmp(o->metric, "sec/op") == 0;
    go_reader r = {.name = name, .unit = time ? TIME_UNIT : o->metric,
                   .metric = time ? "sec/op" : o->metric, .divisor = time ? 1e9 : 1.0,
                   .out = out, .err = err, .pkg = {"", 0}};
    int rc = for_each_line(text, length, read_line, &r);
    if (rc == 0 && r.results == 0)
        rc = error_set(err, ERROR_BAD_INPUT, "%s: no Go benchmark results (lines like "
                       "\"BenchmarkName-8  1000  1234 ns/op\")", name);
    free(r.pkg_of);
    return rc;
}

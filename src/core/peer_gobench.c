/* Go benchmark text as benchstat reads it: "BenchmarkName-8  1000  1234 ns/op  56 B/op" lines
 * are samples of a point named like benchstat names it, split by "key: value" configuration. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "common/error.h"
#include "common/strbuf.h"
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

/* A configuration line in force ("note: hw acceleration enabled"), spans of the text. */
typedef struct {
    go_span key, value;
} go_config;

/* A benchmark whose lines lack the unit compared: those lines are left out, and said. */
typedef struct {
    go_span name;
    size_t lines, first;
} go_lacking;

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
    go_config *config;     /* the configuration lines in force but pkg:, in first order */
    size_t n_config, config_capacity;
    char **config_of;      /* each series' configuration, "key: value\n" lines */
    size_t config_of_capacity;
    size_t lower_case, first_lower_case; /* "Benchmarkfoo" lines skipped, and the first's line */
    go_lacking *lacking;   /* benchmarks with lines that lack the unit */
    size_t n_lacking, lacking_capacity;
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

/* benchfmt's configuration line: a key without spaces or upper case that begins with a
 * lower-case letter, a colon, then white space and the value (empty: the key is unset). */
static bool config_line(go_span line, go_config *out)
{
    if (line.length == 0 || !islower((unsigned char)line.start[0]))
        return false;
    size_t i = 0;
    while (i < line.length && line.start[i] != ':') {
        unsigned char c = (unsigned char)line.start[i++];
        if (isspace(c) || isupper(c))
            return false;
    }
    if (i == line.length || (i + 1 < line.length && !isspace((unsigned char)line.start[i + 1])))
        return false;
    size_t v = i + 1;
    while (v < line.length && isspace((unsigned char)line.start[v]))
        v++;
    *out = (go_config){{line.start, i}, {line.start + v, line.length - v}};
    return true;
}

static int set_config(go_reader *r, go_config c)
{
    for (size_t i = 0; i < r->n_config; i++)
        if (same_span(r->config[i].key, c.key)) {
            r->config[i].value = c.value;
            return 0;
        }
    if (array_reserve((void **)&r->config, &r->config_capacity, r->n_config + 1,
                      sizeof *r->config) != 0)
        return -1;
    r->config[r->n_config++] = c;
    return 0;
}

/* The configuration in force as "key: value\n" lines; pkg: is apart (check_package). */
static char *config_text(const go_reader *r)
{
    strbuf text = STRBUF_INIT;
    strbuf_append(&text, "");
    for (size_t i = 0; i < r->n_config; i++) {
        const go_config *c = &r->config[i];
        if (!span_is(c->key, "pkg") && c->value.length > 0)
            strbuf_appendf(&text, "%.*s: %.*s\n", (int)c->key.length, c->key.start,
                           (int)c->value.length, c->value.start);
    }
    char *out = strbuf_detach(&text);
    strbuf_free(&text);
    return out;
}

/* The value of key in a configuration text; empty when it has none. */
static go_span config_value(const char *config, go_span key)
{
    for (const char *line = config; *line; line = strchr(line, '\n') + 1)
        if (strncmp(line, key.start, key.length) == 0 && line[key.length] == ':') {
            const char *value = line + key.length + 2;
            return (go_span){value, (size_t)(strchr(value, '\n') - value)};
        }
    return (go_span){"", 0};
}

/* Whether another series of series i's benchmark has another value of key. */
static bool key_differs(const go_reader *r, size_t i, go_span key)
{
    go_span mine = config_value(r->config_of[i], key);
    for (size_t j = 0; j < r->out->n; j++)
        if (j != i && strcmp(r->out->series[j].point, r->out->series[i].point) == 0 &&
            !same_span(config_value(r->config_of[j], key), mine))
            return true;
    return false;
}

/* Series i's name with the configuration lines that tell it from its namesakes, as
 * benchstat's tables would: "Encode-8 (note: hw acceleration enabled)"; NULL when none do. */
static int configured_name(const go_reader *r, size_t i, char **out)
{
    strbuf name = STRBUF_INIT;
    size_t keys = 0;
    strbuf_append(&name, r->out->series[i].point);
    for (const char *line = r->config_of[i]; *line; line = strchr(line, '\n') + 1) {
        go_span key = {line, strcspn(line, ":")}, value = config_value(line, key);
        if (key_differs(r, i, key))
            strbuf_appendf(&name, "%s%.*s: %.*s", keys++ ? ", " : " (", (int)key.length,
                           key.start, (int)value.length, value.start);
    }
    strbuf_append(&name, keys ? ")" : "");
    *out = keys && strbuf_status(&name) == 0 ? strbuf_detach(&name) : NULL;
    int rc = keys && *out == NULL ? -1 : 0;
    strbuf_free(&name);
    return rc;
}

/* A benchmark measured under two values of a configuration line (note:, cpu:, goos:) is two
 * benchmarks, never one pooled series: each is named with the lines that tell it apart. */
static int name_configurations(go_reader *r)
{
    size_t n = r->out->n;
    char **names = calloc(n ? n : 1, sizeof *names);
    int rc = names ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = configured_name(r, i, &names[i]);
    for (size_t i = 0; names && i < n; i++)
        if (rc == 0 && names[i] != NULL) {
            free(r->out->series[i].point);
            r->out->series[i].point = names[i];
        } else {
            free(names[i]);
        }
    free(names);
    return rc;
}

static peer_series *find_series(const go_reader *r, const char *point, const char *config)
{
    for (size_t i = 0; i < r->out->n; i++)
        if (strcmp(r->out->series[i].point, point) == 0 && strcmp(r->config_of[i], config) == 0)
            return &r->out->series[i];
    return NULL;
}

static peer_series *add_series(go_reader *r, const char *point, char *config)
{
    size_t n = strlen(r->unit);
    bool rate = n >= 2 && strcmp(r->unit + n - 2, "/s") == 0; /* MB/s: higher is better */
    size_t index = r->out->n;
    if (array_reserve((void **)&r->pkg_of, &r->pkg_capacity, index + 1, sizeof *r->pkg_of) != 0 ||
        array_reserve((void **)&r->config_of, &r->config_of_capacity, index + 1,
                      sizeof *r->config_of) != 0) {
        free(config);
        return NULL;
    }
    r->pkg_of[index] = r->pkg;
    r->config_of[index] = config; /* kept even when the series cannot be: freed with the others */
    peer_series *s = peer_series_add(r->out, point, NULL, r->metric, rate);
    if (s != NULL)
        s->exact_counts = counted_unit(r->unit);
    else if (r->out->n == index) /* not counted: nothing will free its configuration */
        free(config);
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
    char *config = config_text(r);
    if (config == NULL)
        return error_set(r->err, ERROR_NO_MEMORY, "%s: out of memory", r->name);
    if ((s = find_series(r, point, config)) != NULL)
        free(config);
    else if ((s = add_series(r, point, config)) == NULL)
        return error_set(r->err, ERROR_NO_MEMORY, "%s: out of memory", r->name);
    char where[4096 + 64];
    snprintf(where, sizeof where, "%s:%zu: %s of %s", r->name, lineno, r->unit, point);
    r->results++;
    return peer_keep_value(s, value, r->divisor, lineno, where, r->err);
}

/* "Benchmarkfoo 100 5 ns/op": a result line but for the lower-case letter, which the testing
 * package never runs (benchstat skips it too); skipped, and said in a warning. */
static bool is_lower_case_result(go_span line)
{
    go_span name, iterations;
    size_t pos = 0;
    return line.length > PREFIX_LENGTH && memcmp(line.start, PREFIX, PREFIX_LENGTH) == 0 &&
           islower((unsigned char)line.start[PREFIX_LENGTH]) && next_field(line, &pos, &name) &&
           next_field(line, &pos, &iterations) && is_count(iterations);
}

/* A line without the unit compared: left out (benchstat compares the benchmarks that have
 * it), counted per benchmark for the warning. */
static int note_lacking(go_reader *r, go_span name, size_t lineno)
{
    for (size_t i = 0; i < r->n_lacking; i++)
        if (same_span(r->lacking[i].name, name)) {
            r->lacking[i].lines++;
            return 0;
        }
    if (array_reserve((void **)&r->lacking, &r->lacking_capacity, r->n_lacking + 1,
                      sizeof *r->lacking) != 0)
        return error_no_memory(r->err);
    r->lacking[r->n_lacking++] = (go_lacking){name, 1, lineno};
    return 0;
}

/* The warnings of what was skipped: lower-case names, lines without the unit. */
static int warn_skipped(go_reader *r)
{
    int rc = 0;
    if (r->lower_case)
        rc = peer_file_warn(r->out, "line %zu%s: \"Benchmark\" then a lower-case letter is no Go "
                            "benchmark (the testing package runs none): %zu line%s skipped",
                            r->first_lower_case, r->lower_case > 1 ? " and others" : "",
                            r->lower_case, r->lower_case > 1 ? "s" : "");
    for (size_t i = 0; rc == 0 && i < r->n_lacking; i++) {
        const go_lacking *l = &r->lacking[i];
        go_span point = point_name(l->name);
        char text[4096];
        snprintf(text, sizeof text, "%.*s", (int)point.length, point.start);
        if (peer_series_find(r->out, text) != NULL)
            rc = peer_file_warn(r->out, "benchmark %s: %zu line%s without %s (line %zu): left "
                                "out", text, l->lines, l->lines > 1 ? "s" : "", r->unit, l->first);
        else
            rc = peer_file_warn(r->out, "benchmark %s has no %s (line %zu): not compared", text,
                                r->unit, l->first);
    }
    return rc == 0 ? 0 : error_no_memory(r->err);
}

static int read_line(go_span line, size_t lineno, void *context)
{
    go_reader *r = context;
    go_span name, iterations;
    size_t pos = 0;
    go_config config;
    if (config_line(line, &config)) {
        if (span_is(config.key, "pkg"))
            r->pkg = config.value;
        return set_config(r, config) == 0 ? 0 : error_no_memory(r->err);
    }
    if (is_lower_case_result(line) && r->lower_case++ == 0)
        r->first_lower_case = lineno;
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
    if (!found)
        return note_lacking(r, name, lineno);
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
    if (rc == 0 && r.results == 0 && r.n_lacking > 0)
        rc = error_set(err, ERROR_BAD_INPUT, "%s: no benchmark line has %s (line %zu has none): "
                       "choose a unit of the lines with --metric", name, r.unit,
                       r.lacking[0].first);
    else if (rc == 0 && r.results == 0)
        rc = error_set(err, ERROR_BAD_INPUT, "%s: no Go benchmark results (lines like "
                       "\"BenchmarkName-8  1000  1234 ns/op\")", name);
    if (rc == 0 && (name_configurations(&r) != 0 || warn_skipped(&r) != 0))
        rc = error_no_memory(err);
    for (size_t i = 0; r.config_of && i < out->n; i++)
        free(r.config_of[i]);
    free(r.config_of);
    free(r.config);
    free(r.lacking);
    free(r.pkg_of);
    return rc;
}

/* libfyaml for the experiment loader: one document with libfyaml's diagnostics captured
 * into our message, node positions, and scalars read as counts, durations, fractions. */
#include "core/yaml_reader.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "common/utf8.h"

/* libfyaml writes its diagnostics in pieces ("<input>:3:1: error: msg\n", the source line,
 * a caret); we keep the first error line and report it under the experiment's name. */
static void capture_diag(struct fy_diag *diag, void *user, const char *buf, size_t len)
{
    (void)diag;
    diag_capture *c = user;
    size_t room = sizeof c->text - 1 - c->length;
    if (len > room)
        len = room;
    memcpy(c->text + c->length, buf, len);
    c->length += len;
    c->text[c->length] = '\0';
}

/* Finds "LINE:COLUMN: error: MESSAGE" in the captured text (the input name before it is
 * libfyaml's own and may itself hold colons, so we anchor on " error: "). */
static int parse_diag(const char *text, int *line, int *column, char *message, size_t size)
{
    const char *marker = strstr(text, ": error: ");
    if (marker == NULL)
        return -1;
    const char *p = marker;
    const char *digits_end[2], *digits_start[2];
    for (int i = 1; i >= 0; i--) {
        digits_end[i] = p;
        while (p > text && p[-1] >= '0' && p[-1] <= '9')
            p--;
        digits_start[i] = p;
        if (digits_start[i] == digits_end[i] || p == text || p[-1] != ':')
            return -1;
        p--;
    }
    *line = atoi(digits_start[0]);
    *column = atoi(digits_start[1]);
    const char *msg = marker + strlen(": error: ");
    size_t n = strcspn(msg, "\n");
    snprintf(message, size, "%.*s", (int)n, msg);
    return 0;
}

/* Errors tied to a token are collected (see capturing_diag); the few libfyaml reports
 * without one are still written out, and read back from the captured text. */
static void report_yaml_error(yaml_reader *r, struct fy_diag *diag, const diag_capture *c)
{
    int line = 1, column = 1;
    char message[400];
    void *iterator = NULL;
    struct fy_diag_error *collected;
    while ((collected = fy_diag_errors_iterate(diag, &iterator)) != NULL &&
           collected->type != FYET_ERROR) {
    }
    if (collected != NULL) {
        line = collected->line;
        column = collected->column;
        snprintf(message, sizeof message, "%s", collected->msg);
    } else if (parse_diag(c->text, &line, &column, message, sizeof message) != 0) {
        snprintf(message, sizeof message, "not a valid YAML document");
    }
    error_set(r->err, ERROR_USAGE, "%s:%d:%d: invalid YAML: %s", r->file, line, column, message);
}

static struct fy_diag *capturing_diag(diag_capture *capture)
{
    struct fy_diag_cfg cfg;
    fy_diag_cfg_default(&cfg);
    cfg.fp = NULL;
    cfg.output_fn = capture_diag;
    cfg.user = capture;
    cfg.level = FYET_ERROR;
    cfg.colorize = false;
    cfg.show_source = false;
    cfg.show_position = true;
    cfg.show_type = true;
    cfg.show_module = false;
    struct fy_diag *diag = fy_diag_create(&cfg);
    /* Collected, a token's error is not displayed: libfyaml 0.7.12 crashes while drawing
     * the source line of an error whose token spans a line of 80 columns or more when
     * its output is not a terminal (found by fuzzing). */
    if (diag != NULL)
        fy_diag_set_collect_errors(diag, true);
    return diag;
}

/* Duplicate keys are allowed through so that we can name them ourselves; aliases are left
 * unresolved (and refused later), which also keeps "billion laughs" files harmless. */
static struct fy_document *load_single_document(yaml_reader *r, struct fy_parser *parser,
                                                struct fy_diag *diag, diag_capture *capture)
{
    struct fy_document *doc = fy_parse_load_document(parser);
    if (doc == NULL) {
        if (fy_diag_got_error(diag))
            report_yaml_error(r, diag, capture);
        else
            error_set(r->err, ERROR_USAGE, "%s:1:1: the file holds no YAML document", r->file);
        return NULL;
    }
    struct fy_document *extra = fy_parse_load_document(parser);
    if (extra != NULL || fy_diag_got_error(diag)) {
        if (fy_diag_got_error(diag)) {
            report_yaml_error(r, diag, capture);
        } else {
            int line = 0, column = 0;
            yaml_position(fy_document_root(extra), &line, &column);
            error_set(r->err, ERROR_USAGE, "%s:%d:%d: only one YAML document is allowed per file",
                      r->file, line ? line : 1, column ? column : 1);
        }
        if (extra)
            fy_parse_document_destroy(parser, extra);
        fy_parse_document_destroy(parser, doc);
        return NULL;
    }
    return doc;
}

/* Experiment files are UTF-8 text. Checking first gives a clear message, and it keeps
 * malformed bytes away from libfyaml 0.7's scanner, which can loop forever on some
 * (e.g. "%@=\xff" at the end of the input). */
static int check_text(yaml_reader *r, const char *text, size_t length)
{
    const unsigned char *p = (const unsigned char *)text;
    int line = 1, column = 1;
    for (size_t i = 0; i < length; column++) {
        size_t n = p[i] ? utf8_sequence(p + i, length - i) : 0;
        if (n == 0) {
            error_set(r->err, ERROR_USAGE, "%s:%d:%d: %s", r->file, line, column,
                      p[i] ? "not UTF-8 text (a malformed byte sequence)" : "holds a NUL byte");
            return -1;
        }
        if (p[i] == '\n') {
            line++;
            column = 0;
        }
        i += n;
    }
    return 0;
}

typedef struct {
    bool in_single, in_double, in_comment;
    bool escaped;                /* in double quotes, after a backslash */
} line_scan;

static bool blank_or_end(const char *text, size_t length, size_t i)
{
    return i >= length || text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r';
}

/* Tracks quotes and comments along one line (a quoted scalar spanning lines is rare in
 * experiment files; at worst a '?' in it is refused with a message saying why). */
static void scan_character(line_scan *s, const char *text, size_t i)
{
    char c = text[i], before = i ? text[i - 1] : '\n';
    if (s->in_comment)
        return;
    if (s->in_double && s->escaped)
        s->escaped = false;          /* \" and \\ stand for themselves */
    else if (s->in_double && c == '\\')
        s->escaped = true;
    else if (c == '\'' && !s->in_double)
        s->in_single = !s->in_single;
    else if (c == '"' && !s->in_single)
        s->in_double = !s->in_double;
    else if (c == '#' && !s->in_single && !s->in_double && strchr(" \t\n", before))
        s->in_comment = true;
}

/* An explicit complex key ("? key") is never needed in an experiment file, and some
 * malformed documents built from them crash libfyaml 0.7.12 while it cleans up (found
 * by fuzzing; fy_indent_vacuum_internal). Refusing the indicator keeps us off that path. */
static int check_no_complex_keys(yaml_reader *r, const char *text, size_t length)
{
    line_scan s = {false, false, false, false};
    int line = 1, column = 0;
    for (size_t i = 0; i < length; i++) {
        column++;
        if (text[i] == '\n') {
            s = (line_scan){false, false, false, false};
            line++;
            column = 0;
            continue;
        }
        scan_character(&s, text, i);
        bool indicator_place = i == 0 || strchr(" \t\r\n[{,", text[i - 1]) != NULL;
        if (text[i] == '?' && !s.in_single && !s.in_double && !s.in_comment && indicator_place &&
            blank_or_end(text, length, i + 1)) {
            error_set(r->err, ERROR_USAGE, "%s:%d:%d: '?' (a YAML complex key) is not supported "
                      "in experiment files; quote the text if it is part of a value", r->file, line,
                      column);
            return -1;
        }
    }
    return 0;
}

/* Counts the items of every open sequence from libfyaml's events, which it frees as they
 * are read, so memory stays bounded by the nesting. A text the parser refuses is left to
 * the document's load, which says why. */
static int check_sequence_sizes(yaml_reader *r, const char *text, size_t length)
{
    diag_capture ignored = {.length = 0};
    struct fy_diag *diag = capturing_diag(&ignored); /* libfyaml's own display crashes */
    struct fy_parse_cfg cfg = {.flags = FYPCF_QUIET | FYPCF_ALLOW_DUPLICATE_KEYS |
                                        FYPCF_DISABLE_MMAP_OPT, .diag = diag};
    struct fy_parser *parser = diag ? fy_parser_create(&cfg) : NULL;
    if (parser == NULL || fy_parser_set_string(parser, text, length) != 0) {
        if (parser)
            fy_parser_destroy(parser);
        if (diag)
            fy_diag_destroy(diag);
        return 0;
    }
    long *open = NULL; /* per open collection: items so far, or -1 for a mapping */
    size_t depth = 0, capacity = 0;
    int rc = 0;
    struct fy_event *event;
    while (rc == 0 && (event = fy_parser_parse(parser)) != NULL) {
        enum fy_event_type type = event->type;
        bool item = type == FYET_SCALAR || type == FYET_ALIAS || type == FYET_MAPPING_START ||
                    type == FYET_SEQUENCE_START;
        if (item && depth > 0 && open[depth - 1] >= 0 &&
            ++open[depth - 1] > YAML_SEQUENCE_MAX) {
            const struct fy_mark *at = fy_event_start_mark(event);
            error_set(r->err, ERROR_USAGE, "%s:%d:%d: a list of more than %d items; a parameter "
                      "has at most %d values", r->file, at ? at->line + 1 : 0,
                      at ? at->column + 1 : 0, YAML_SEQUENCE_MAX, YAML_SEQUENCE_MAX);
            rc = -1;
        } else if (type == FYET_MAPPING_START || type == FYET_SEQUENCE_START) {
            if (array_reserve((void **)&open, &capacity, depth + 1, sizeof *open) != 0) {
                error_set(r->err, ERROR_NO_MEMORY, "%s: out of memory", r->file);
                rc = -1;
            } else {
                open[depth++] = type == FYET_SEQUENCE_START ? 0 : -1;
            }
        } else if ((type == FYET_MAPPING_END || type == FYET_SEQUENCE_END) && depth > 0) {
            depth--;
        }
        fy_parser_event_free(parser, event);
    }
    free(open);
    fy_parser_destroy(parser);
    fy_diag_destroy(diag);
    return rc;
}

int yaml_open(yaml_reader *r, const char *text, size_t length, yaml_source *out)
{
    memset(out, 0, sizeof *out);
    if (check_text(r, text, length) != 0 || check_no_complex_keys(r, text, length) != 0 ||
        check_sequence_sizes(r, text, length) != 0)
        return -1;
    out->diag = capturing_diag(&out->capture);
    if (out->diag == NULL) {
        error_set(r->err, ERROR_NO_MEMORY, "%s: out of memory", r->file);
        return -1;
    }
    struct fy_parse_cfg cfg = {
        .flags = FYPCF_QUIET | FYPCF_ALLOW_DUPLICATE_KEYS | FYPCF_DISABLE_MMAP_OPT,
        .diag = out->diag,
    };
    out->parser = fy_parser_create(&cfg);
    if (out->parser == NULL || fy_parser_set_string(out->parser, text, length) != 0) {
        error_set(r->err, ERROR_USAGE, "%s: cannot start the YAML parser", r->file);
        yaml_close(out);
        return -1;
    }
    out->document = load_single_document(r, out->parser, out->diag, &out->capture);
    if (out->document == NULL) {
        yaml_close(out);
        return -1;
    }
    return 0;
}

/* The document goes first and through its parser: libfyaml 0.7 leaks the unescaped text
 * of quoted scalars when a document outlives the parser that built it. */
void yaml_close(yaml_source *s)
{
    if (s->document)
        fy_parse_document_destroy(s->parser, s->document);
    if (s->parser)
        fy_parser_destroy(s->parser);
    if (s->diag)
        fy_diag_destroy(s->diag);
    memset(s, 0, sizeof *s);
}

static bool scalar_position(struct fy_node *node, int *line, int *column)
{
    struct fy_token *token = fy_node_get_scalar_token(node);
    const struct fy_mark *mark = token ? fy_token_start_mark(token) : NULL;
    if (mark == NULL)
        return false;
    *line = mark->line + 1;
    *column = mark->column + 1;
    /* libfyaml marks a quoted scalar at its first character: point at the quote. */
    enum fy_node_style style = fy_node_get_style(node);
    if ((style == FYNS_SINGLE_QUOTED || style == FYNS_DOUBLE_QUOTED) && *column > 1)
        (*column)--;
    return true;
}

/* libfyaml 0.7 has no public start mark for collections: use the first scalar inside. */
static bool find_position(struct fy_node *node, int *line, int *column, int depth)
{
    if (node == NULL || depth > 64 || fy_node_is_alias(node))
        return false;
    if (fy_node_is_scalar(node))
        return scalar_position(node, line, column);
    void *iter = NULL;
    if (fy_node_is_sequence(node)) {
        struct fy_node *item;
        while ((item = fy_node_sequence_iterate(node, &iter)) != NULL)
            if (find_position(item, line, column, depth + 1))
                return true;
        return false;
    }
    struct fy_node_pair *pair;
    while ((pair = fy_node_mapping_iterate(node, &iter)) != NULL)
        if (find_position(fy_node_pair_key(pair), line, column, depth + 1) ||
            find_position(fy_node_pair_value(pair), line, column, depth + 1))
            return true;
    return false;
}

void yaml_position(struct fy_node *node, int *line, int *column)
{
    *line = *column = 0;
    if (!find_position(node, line, column, 0))
        *line = *column = 0;
}

__attribute__((format(printf, 4, 0)))
static int fail_at(yaml_reader *r, int line, int column, const char *fmt, va_list ap)
{
    char message[512];
    vsnprintf(message, sizeof message, fmt, ap);
    error_set(r->err, ERROR_USAGE, "%s:%d:%d: %s", r->file, line ? line : 1, column ? column : 1,
              message);
    return -1;
}

int yaml_fail(yaml_reader *r, struct fy_node *node, const char *fmt, ...)
{
    int line, column;
    yaml_position(node, &line, &column);
    va_list ap;
    va_start(ap, fmt);
    fail_at(r, line, column, fmt, ap);
    va_end(ap);
    return -1;
}

int yaml_fail_field(yaml_reader *r, const yaml_field *f, const char *fmt, ...)
{
    int line, column;
    yaml_position(f->value, &line, &column);
    if (line == 0)
        yaml_position(f->key_node, &line, &column);
    va_list ap;
    va_start(ap, fmt);
    fail_at(r, line, column, fmt, ap);
    va_end(ap);
    return -1;
}

/* Known upstream bug: libfyaml 0.7.12 leaks 512 bytes when it unescapes a single-quoted
 * scalar with many consecutive '' escapes (e.g. '); nothing we can free. */
const char *yaml_scalar(struct fy_node *node, size_t *length)
{
    if (node == NULL || fy_node_is_alias(node) || !fy_node_is_scalar(node))
        return NULL;
    size_t n = 0;
    const char *text = fy_node_get_scalar(node, &n);
    if (text == NULL || memchr(text, '\0', n) != NULL)
        return NULL;
    if (length)
        *length = n;
    return text;
}

bool yaml_is_null(struct fy_node *node)
{
    static const char *const nulls[] = {"", "~", "null", "Null", "NULL"};
    size_t n;
    const char *text = yaml_scalar(node, &n);
    if (node == NULL)
        return true;
    if (text == NULL || fy_node_get_style(node) != FYNS_PLAIN)
        return false;
    for (size_t i = 0; i < sizeof nulls / sizeof nulls[0]; i++)
        if (strlen(nulls[i]) == n && memcmp(nulls[i], text, n) == 0)
            return true;
    return false;
}

/* What the value looks like, for "must be X, not Y" messages. */
static const char *describe(const yaml_field *f, char *buf, size_t size)
{
    size_t n;
    const char *text = yaml_scalar(f->value, &n);
    if (f->value == NULL)
        return "nothing";
    if (fy_node_is_alias(f->value))
        return "an alias";
    if (text == NULL)
        return fy_node_is_sequence(f->value) ? "a list" : fy_node_is_mapping(f->value)
                                                              ? "a mapping" : "binary text";
    snprintf(buf, size, "'%.*s'", (int)(n > 60 ? 60 : n), text);
    return buf;
}

static int wrong(yaml_reader *r, const yaml_field *f, const char *what)
{
    char buf[80];
    return yaml_fail_field(r, f, "'%s' must be %s, not %s", f->key, what,
                           describe(f, buf, sizeof buf));
}

int yaml_string(yaml_reader *r, const yaml_field *f, const char *what, char **out)
{
    size_t n;
    const char *text = yaml_scalar(f->value, &n);
    if (text == NULL)
        return wrong(r, f, what);
    *out = strndup(text, n);
    return *out ? 0 : yaml_fail_field(r, f, "out of memory");
}

/* A scalar as a NUL-terminated string in buf; false when it is not a short scalar. */
static bool scalar_text(const yaml_field *f, char *buf, size_t size)
{
    size_t n;
    const char *text = yaml_scalar(f->value, &n);
    if (text == NULL || n == 0 || n >= size)
        return false;
    memcpy(buf, text, n);
    buf[n] = '\0';
    return true;
}

static bool parse_u64_text(const char *text, uint64_t *out)
{
    if (*text < '0' || *text > '9')
        return false;
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno != 0 || *end != '\0')
        return false;
    *out = v;
    return true;
}

int yaml_count(yaml_reader *r, const yaml_field *f, bool positive, size_t *out)
{
    char buf[32];
    uint64_t v;
    const char *what = positive ? "a positive integer" : "a non-negative integer";
    if (!scalar_text(f, buf, sizeof buf) || !parse_u64_text(buf, &v) || v > SIZE_MAX / 2 ||
        (positive && v == 0))
        return wrong(r, f, what);
    *out = (size_t)v;
    return 0;
}

int yaml_u64(yaml_reader *r, const yaml_field *f, uint64_t *out)
{
    char buf[32];
    if (!scalar_text(f, buf, sizeof buf) || !parse_u64_text(buf, out))
        return wrong(r, f, "a non-negative integer");
    return 0;
}

int yaml_int64(yaml_reader *r, const yaml_field *f, int64_t *out)
{
    char buf[32];
    if (!scalar_text(f, buf, sizeof buf))
        return wrong(r, f, "an integer");
    const char *digits = buf + (buf[0] == '-');
    if (*digits < '0' || *digits > '9')
        return wrong(r, f, "an integer");
    char *end = NULL;
    errno = 0;
    long long v = strtoll(buf, &end, 10);
    if (errno != 0 || *end != '\0')
        return wrong(r, f, "an integer");
    *out = v;
    return 0;
}

int yaml_bool(yaml_reader *r, const yaml_field *f, bool *out)
{
    char buf[8];
    if (scalar_text(f, buf, sizeof buf)) {
        if (strcmp(buf, "true") == 0 || strcmp(buf, "false") == 0) {
            *out = buf[0] == 't';
            return 0;
        }
    }
    return wrong(r, f, "true or false");
}

int yaml_duration(yaml_reader *r, const yaml_field *f, double *out)
{
    static const struct { const char *suffix; double seconds; } units[] = {
        {"", 1}, {"s", 1}, {"ms", 1e-3}, {"m", 60}, {"min", 60}, {"h", 3600},
    };
    char buf[64];
    if (scalar_text(f, buf, sizeof buf) && ((buf[0] >= '0' && buf[0] <= '9') || buf[0] == '.')) {
        char *end = NULL;
        errno = 0;
        double v = strtod(buf, &end);
        for (size_t i = 0; errno == 0 && i < sizeof units / sizeof units[0]; i++) {
            if (strcmp(end, units[i].suffix) == 0 && v > 0 && isfinite(v * units[i].seconds)) {
                *out = v * units[i].seconds;
                return 0;
            }
        }
    }
    return wrong(r, f, "a positive duration such as 30s, 500ms, 5m or 1h");
}

int yaml_fraction(yaml_reader *r, const yaml_field *f, double low, double high, bool low_open,
                  const char *what, double *out)
{
    char buf[64];
    if (!scalar_text(f, buf, sizeof buf) || !((buf[0] >= '0' && buf[0] <= '9') || buf[0] == '.'))
        return wrong(r, f, what);
    char *end = NULL;
    errno = 0;
    double v = strtod(buf, &end);
    if (strcmp(end, "%") == 0)
        v /= 100;
    else if (*end != '\0')
        return wrong(r, f, what);
    if (errno != 0 || !isfinite(v) || v >= high || v < low || (low_open && v == low))
        return wrong(r, f, what);
    *out = v;
    return 0;
}

int yaml_choice(yaml_reader *r, const yaml_field *f, const char *const *choices, size_t n,
                int *out)
{
    char what[160] = "";
    size_t length;
    const char *text = yaml_scalar(f->value, &length);
    for (size_t i = 0; i < n; i++) {
        if (text && strlen(choices[i]) == length && memcmp(choices[i], text, length) == 0) {
            *out = (int)i;
            return 0;
        }
        snprintf(what + strlen(what), sizeof what - strlen(what), "%s%s",
                 i == 0 ? "" : i + 1 == n ? " or " : ", ", choices[i]);
    }
    return wrong(r, f, what);
}

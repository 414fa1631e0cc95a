/* Parsers for pgbench's end-of-run summary (PostgreSQL 9.6 to 17) and its --log file.
 * Written from the formats printed by pgbench (see docs/pgbench-output.md); no copied code. */
#include "pgbench_output.h"

#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/error.h"
#include "common/sort.h"
#include "stats/descriptive.h"

/* Longest line kept for matching; longer lines (statement text under -r) are cut, which
 * never matters because every line verdict reads is short. */
enum { LINE_CAPACITY = 512, QUOTE_LENGTH = 72, PROBLEM_LENGTH = 96 };

/* ------------------------------------------------------------------------------------ */
/* Small text helpers                                                                    */

/* Copies up to limit bytes of text into quote with newlines shown as \n and other
 * control bytes as '?', so that an error message can show what the input looked like. */
static void quote_text(const char *text, size_t length, size_t limit, char *quote,
                       size_t capacity)
{
    size_t used = 0, taken = 0;
    while (taken < length && taken < limit && used + 3 < capacity) {
        unsigned char c = (unsigned char)text[taken++];
        if (c == '\n') {
            quote[used++] = '\\';
            quote[used++] = 'n';
        } else if (c == '\r' || c == '\t') {
            quote[used++] = ' ';
        } else {
            quote[used++] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
        }
    }
    quote[used] = '\0';
    if (taken < length && used + 4 < capacity)
        strcat(quote, "...");
}

/* The line without its prefix, or NULL when the line does not start with prefix. */
static const char *after_prefix(const char *line, const char *prefix)
{
    size_t n = strlen(prefix);
    return strncmp(line, prefix, n) == 0 ? line + n : NULL;
}

static bool read_literal(const char **cursor, const char *literal)
{
    const char *rest = after_prefix(*cursor, literal);
    if (rest == NULL)
        return false;
    *cursor = rest;
    return true;
}

/* A non-negative count as pgbench prints it with %d or INT64_FORMAT. */
static bool read_count(const char **cursor, long *out)
{
    const char *p = *cursor;
    while (*p == ' ')
        p++;
    if (*p < '0' || *p > '9')
        return false;
    long value = 0;
    while (*p >= '0' && *p <= '9') {
        int digit = *p - '0';
        if (value > (LONG_MAX - digit) / 10)
            return false;
        value = value * 10 + digit;
        p++;
    }
    *out = value;
    *cursor = p;
    return true;
}

/* A decimal as pgbench prints it with %f or %.3f: an optional sign, digits and a fraction
 * after '.' or ',' (pgbench calls setlocale, so a de_DE run prints "1234,5"), or inf/nan
 * (pgbench divides by zero when nothing ran). Converted in the C locale, whatever the
 * caller's locale is, which is why this does not call strtod directly. */
static bool read_decimal(const char **cursor, locale_t c_locale, double *out)
{
    const char *p = *cursor;
    while (*p == ' ')
        p++;
    char digits[72];
    size_t used = 0;
    if (*p == '-' || *p == '+')
        digits[used++] = *p++;
    if (strncasecmp(p, "inf", 3) == 0 || strncasecmp(p, "nan", 3) == 0) {
        bool infinite = (p[0] == 'i' || p[0] == 'I');
        double value = infinite ? INFINITY : NAN;
        *out = (used > 0 && digits[0] == '-') ? -value : value;
        p += 3;
        if (infinite && strncasecmp(p, "inity", 5) == 0)
            p += 5;
        *cursor = p;
        return true;
    }
    size_t integer_digits = 0;
    while (*p >= '0' && *p <= '9' && used < sizeof digits - 2) {
        digits[used++] = *p++;
        integer_digits++;
    }
    if (integer_digits == 0)
        return false;
    if ((*p == '.' || *p == ',') && p[1] >= '0' && p[1] <= '9') {
        digits[used++] = '.';
        p++;
        while (*p >= '0' && *p <= '9' && used < sizeof digits - 1)
            digits[used++] = *p++;
    }
    if (*p >= '0' && *p <= '9') /* more digits than any pgbench number has */
        return false;
    digits[used] = '\0';
    *out = strtod_l(digits, NULL, c_locale);
    *cursor = p;
    return true;
}

/* Copies text into a fixed field, cutting it to fit and dropping trailing blanks. */
static void copy_field(char *field, size_t capacity, const char *text)
{
    snprintf(field, capacity, "%s", text);
    size_t n = strlen(field);
    while (n > 0 && (field[n - 1] == ' ' || field[n - 1] == '\t'))
        field[--n] = '\0';
}

static bool at_end(const char *cursor)
{
    while (*cursor == ' ' || *cursor == '\t')
        cursor++;
    return *cursor == '\0';
}

/* ------------------------------------------------------------------------------------ */
/* The summary                                                                           */

enum { TPS_KIND_COUNT = PGBENCH_TPS_UNQUALIFIED + 1 };

typedef struct {
    pgbench_result *out;
    locale_t c_locale;
    double tps_by_kind[TPS_KIND_COUNT];
    bool tps_seen[TPS_KIND_COUNT];
    size_t tps_lines;
    pgbench_script_result *script; /* the section the " - " lines belong to, or NULL */
    char first_problem[PROBLEM_LENGTH + 8]; /* the first error line pgbench printed */
} summary_parser;

const char *pgbench_tps_kind_name(pgbench_tps_kind kind)
{
    switch (kind) {
    case PGBENCH_TPS_WITHOUT_INITIAL_CONNECTION: return "without initial connection time";
    case PGBENCH_TPS_EXCLUDING_CONNECTIONS: return "excluding connections establishing";
    case PGBENCH_TPS_INCLUDING_RECONNECTIONS: return "including reconnection times";
    case PGBENCH_TPS_INCLUDING_CONNECTIONS: return "including connections establishing";
    case PGBENCH_TPS_UNQUALIFIED: return "unqualified";
    }
    return "unknown";
}

static void reset_script(pgbench_script_result *script)
{
    memset(script, 0, sizeof *script);
    script->weight = -1;
    script->weight_percent = NAN;
    script->transactions = -1;
    script->tps = NAN;
    script->latency_average_ms = NAN;
    script->latency_stddev_ms = NAN;
}

static void reset_result(pgbench_result *out)
{
    memset(out, 0, sizeof *out);
    out->scaling_factor = -1;
    out->clients = -1;
    out->threads = -1;
    out->transactions_per_client = -1;
    out->duration_s = NAN;
    out->transactions_processed = -1;
    out->transactions_expected = -1;
    out->latency_average_ms = NAN;
    out->latency_stddev_ms = NAN;
    out->schedule_lag_ms = NAN;
    out->initial_connection_ms = NAN;
    out->average_connection_ms = NAN;
    out->tps = NAN;
    out->tps_kind = PGBENCH_TPS_UNQUALIFIED;
    out->tps_including_connections = NAN;
}

/* A measurement pgbench could not compute prints as nan or inf: keep it as "not known". */
static double finite_or_nan(double value)
{
    return isfinite(value) ? value : NAN;
}

/* "X ms" after a latency or connection-time prefix. */
static bool read_milliseconds(const char **cursor, locale_t c_locale, double *out)
{
    double value;
    if (!read_decimal(cursor, c_locale, &value) || !read_literal(cursor, " ms"))
        return false;
    *out = finite_or_nan(value);
    return true;
}

static bool parse_tps_line(summary_parser *parser, const char *rest)
{
    double value;
    if (!read_decimal(&rest, parser->c_locale, &value))
        return false;
    while (*rest == ' ')
        rest++;
    pgbench_tps_kind kind;
    if (*rest == '\0')
        kind = PGBENCH_TPS_UNQUALIFIED;
    else if (strcmp(rest, "(without initial connection time)") == 0)
        kind = PGBENCH_TPS_WITHOUT_INITIAL_CONNECTION;
    else if (strcmp(rest, "(excluding connections establishing)") == 0)
        kind = PGBENCH_TPS_EXCLUDING_CONNECTIONS;
    else if (strcmp(rest, "(including reconnection times)") == 0)
        kind = PGBENCH_TPS_INCLUDING_RECONNECTIONS;
    else if (strcmp(rest, "(including connections establishing)") == 0)
        kind = PGBENCH_TPS_INCLUDING_CONNECTIONS;
    else
        return false; /* an unknown qualifier: better refused than misread */
    parser->tps_lines++;
    parser->tps_seen[kind] = true;
    parser->tps_by_kind[kind] = value;
    return true;
}

/* The " - ..." lines of a "SQL script N:" section. */
static bool parse_script_line(summary_parser *parser, const char *rest)
{
    pgbench_script_result *script = parser->script;
    locale_t c_locale = parser->c_locale;
    const char *p;
    long count;
    double value;
    if ((p = after_prefix(rest, "weight: ")) != NULL) {
        if (!read_count(&p, &script->weight))
            return false;
        if (read_literal(&p, " (targets ") && read_decimal(&p, c_locale, &value))
            script->weight_percent = finite_or_nan(value);
        return true;
    }
    if ((p = after_prefix(rest, "latency average = ")) != NULL)
        return read_milliseconds(&p, c_locale, &script->latency_average_ms);
    if ((p = after_prefix(rest, "latency stddev = ")) != NULL)
        return read_milliseconds(&p, c_locale, &script->latency_stddev_ms);
    if ((p = after_prefix(rest, "number of failed transactions: ")) != NULL)
        return read_count(&p, &script->transactions_failed);
    if ((p = after_prefix(rest, "number of transactions actually processed: ")) != NULL) {
        /* PG 18+ prints the processed count and tps on a line of their own. */
        if (!read_count(&p, &script->transactions))
            return false;
        if (read_literal(&p, " (tps = ") && read_decimal(&p, c_locale, &value))
            script->tps = finite_or_nan(value);
        return true;
    }
    p = rest;
    if (read_count(&p, &count) && read_literal(&p, " transactions (")) {
        /* Up to PG 17: " - N transactions (x% of total, tps = Y)"; PG 18 drops the tps
         * and counts failed ones too, so a later "actually processed" line overrides. */
        script->transactions = count;
        const char *tps_text = strstr(p, "tps = ");
        if (tps_text != NULL) {
            tps_text += strlen("tps = ");
            if (!read_decimal(&tps_text, c_locale, &value))
                return false;
            script->tps = finite_or_nan(value);
        }
        return true;
    }
    return true; /* skipped counts, statement latencies: not needed */
}

static bool parse_script_header(summary_parser *parser, const char *rest)
{
    pgbench_result *out = parser->out;
    long number;
    if (!read_count(&rest, &number) || !read_literal(&rest, ": "))
        return false;
    /* Sections come numbered 1, 2, ...; anything else is not pgbench's summary. */
    if (number != (long)out->n_scripts + 1 || out->n_scripts >= PGBENCH_MAX_SCRIPTS)
        return false;
    parser->script = &out->scripts[out->n_scripts++];
    reset_script(parser->script);
    copy_field(parser->script->name, sizeof parser->script->name, rest);
    return true;
}

static void note_problem(summary_parser *parser, const char *line)
{
    pgbench_result *out = parser->out;
    out->partial = true;
    if (parser->first_problem[0] == '\0')
        quote_text(line, strlen(line), PROBLEM_LENGTH, parser->first_problem,
                   sizeof parser->first_problem);
}

/* Marks the run partial when pgbench said a client or the run was aborted. Other error
 * lines are not: retried or counted failures ("pgbench: client 0 got an error ...") are in
 * the counts, and the vacuum step's "pgbench: error: ERROR:  relation ... does not exist"
 * (custom scripts without pgbench's tables) is followed by "ignoring this error". */
static void check_for_abort(summary_parser *parser, const char *line)
{
    bool from_pgbench = after_prefix(line, "pgbench: error: ") != NULL ||
                        after_prefix(line, "client ") != NULL;
    if (after_prefix(line, "pgbench: fatal: ") != NULL ||
        after_prefix(line, "Run was aborted") != NULL ||
        (from_pgbench && strstr(line, "aborted") != NULL))
        note_problem(parser, line);
}

/* One summary line; false when a line pgbench would print is malformed. */
static bool parse_summary_line(summary_parser *parser, const char *line)
{
    pgbench_result *out = parser->out;
    locale_t c_locale = parser->c_locale;
    const char *p;
    double value;

    if (after_prefix(line, "progress: ") != NULL)
        return true; /* the running reports, never the summary */
    if ((p = after_prefix(line, " - ")) != NULL)
        return parser->script == NULL || parse_script_line(parser, p);
    if (line[0] == ' ' || line[0] == '\t' || line[0] == '\0')
        return true; /* statement latencies, DETAIL lines, blank lines */
    parser->script = NULL;
    check_for_abort(parser, line);

    if ((p = after_prefix(line, "tps = ")) != NULL)
        return parse_tps_line(parser, p);
    if ((p = after_prefix(line, "SQL script ")) != NULL)
        return parse_script_header(parser, p);
    if ((p = after_prefix(line, "pgbench (")) != NULL) {
        size_t n = strcspn(p, " ,)");
        if (n >= sizeof out->pgbench_version)
            n = sizeof out->pgbench_version - 1;
        memcpy(out->pgbench_version, p, n);
        out->pgbench_version[n] = '\0';
        return true;
    }
    if ((p = after_prefix(line, "transaction type: ")) != NULL) {
        copy_field(out->transaction_type, sizeof out->transaction_type, p);
        return true;
    }
    if ((p = after_prefix(line, "scaling factor: ")) != NULL)
        return read_count(&p, &out->scaling_factor);
    if ((p = after_prefix(line, "query mode: ")) != NULL) {
        copy_field(out->mode, sizeof out->mode, p);
        return true;
    }
    if ((p = after_prefix(line, "number of clients: ")) != NULL)
        return read_count(&p, &out->clients) && at_end(p);
    if ((p = after_prefix(line, "number of threads: ")) != NULL)
        return read_count(&p, &out->threads) && at_end(p);
    if ((p = after_prefix(line, "maximum number of tries: ")) != NULL)
        return read_count(&p, &out->max_tries);
    if ((p = after_prefix(line, "number of transactions per client: ")) != NULL)
        return read_count(&p, &out->transactions_per_client);
    if ((p = after_prefix(line, "duration: ")) != NULL) {
        if (!read_decimal(&p, c_locale, &value) || !read_literal(&p, " s"))
            return false;
        out->duration_s = finite_or_nan(value);
        return true;
    }
    if ((p = after_prefix(line, "number of transactions actually processed: ")) != NULL) {
        if (!read_count(&p, &out->transactions_processed))
            return false;
        if (read_literal(&p, "/") && !read_count(&p, &out->transactions_expected))
            return false;
        return true;
    }
    if ((p = after_prefix(line, "number of failed transactions: ")) != NULL)
        return read_count(&p, &out->transactions_failed);
    if ((p = after_prefix(line, "number of transactions retried: ")) != NULL)
        return read_count(&p, &out->transactions_retried);
    if ((p = after_prefix(line, "number of transactions skipped: ")) != NULL)
        return read_count(&p, &out->transactions_skipped);
    /* "latency average: X ms" is 9.5's spelling; accepted because it costs nothing. */
    if ((p = after_prefix(line, "latency average = ")) != NULL ||
        (p = after_prefix(line, "latency average: ")) != NULL) {
        if (!read_milliseconds(&p, c_locale, &out->latency_average_ms))
            return false;
        out->latency_includes_failures = strstr(p, "(including failures)") != NULL;
        return true;
    }
    if ((p = after_prefix(line, "latency stddev = ")) != NULL ||
        (p = after_prefix(line, "latency stddev: ")) != NULL)
        return read_milliseconds(&p, c_locale, &out->latency_stddev_ms);
    if ((p = after_prefix(line, "rate limit schedule lag: avg ")) != NULL) {
        if (!read_decimal(&p, c_locale, &value))
            return false;
        out->schedule_lag_ms = finite_or_nan(value);
        return true;
    }
    if ((p = after_prefix(line, "initial connection time = ")) != NULL)
        return read_milliseconds(&p, c_locale, &out->initial_connection_ms);
    if ((p = after_prefix(line, "average connection time = ")) != NULL)
        return read_milliseconds(&p, c_locale, &out->average_connection_ms);
    return true; /* anything else: vacuum notices, warnings, server messages */
}

/* Picks the run's tps among the lines seen; false (with a message) when they cannot
 * come from a single run. */
static bool choose_tps(summary_parser *parser, verdict_error *err)
{
    pgbench_result *out = parser->out;
    bool old_pair = parser->tps_lines == 2 &&
                    parser->tps_seen[PGBENCH_TPS_EXCLUDING_CONNECTIONS] &&
                    parser->tps_seen[PGBENCH_TPS_INCLUDING_CONNECTIONS];
    if (parser->tps_lines > 1 && !old_pair) {
        error_set(err, ERROR_BAD_INPUT, "pgbench output has %zu tps lines: more than one run's "
                  "summary in one output?", parser->tps_lines);
        return false;
    }
    static const pgbench_tps_kind preference[] = {
        PGBENCH_TPS_WITHOUT_INITIAL_CONNECTION, PGBENCH_TPS_EXCLUDING_CONNECTIONS,
        PGBENCH_TPS_INCLUDING_RECONNECTIONS, PGBENCH_TPS_INCLUDING_CONNECTIONS,
        PGBENCH_TPS_UNQUALIFIED};
    for (size_t i = 0; i < sizeof preference / sizeof preference[0]; i++) {
        if (parser->tps_seen[preference[i]]) {
            out->tps_kind = preference[i];
            out->tps = parser->tps_by_kind[preference[i]];
            break;
        }
    }
    if (parser->tps_seen[PGBENCH_TPS_INCLUDING_CONNECTIONS])
        out->tps_including_connections =
            finite_or_nan(parser->tps_by_kind[PGBENCH_TPS_INCLUDING_CONNECTIONS]);
    else if (parser->tps_seen[PGBENCH_TPS_INCLUDING_RECONNECTIONS])
        out->tps_including_connections =
            finite_or_nan(parser->tps_by_kind[PGBENCH_TPS_INCLUDING_RECONNECTIONS]);
    if (!(out->tps > 0.0) || !isfinite(out->tps)) {
        error_set(err, ERROR_COMMAND_FAILED, "pgbench reported tps = %g (%s): no transaction "
                  "completed, nothing to measure%s%s", out->tps,
                  pgbench_tps_kind_name(out->tps_kind),
                  parser->first_problem[0] ? "; pgbench said: " : "", parser->first_problem);
        return false;
    }
    return true;
}

int pgbench_parse(const char *text, size_t length, int exit_code, pgbench_result *out,
                  verdict_error *err)
{
    if (out == NULL || (text == NULL && length > 0)) {
        error_set(err, ERROR_INTERNAL, "pgbench_parse: no output given");
        return -1;
    }
    reset_result(out);
    summary_parser parser = {.out = out};
    parser.c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
    if (parser.c_locale == (locale_t)0) {
        error_set(err, ERROR_INTERNAL, "pgbench_parse: cannot create the C locale for numbers");
        return -1;
    }

    int status = 0;
    size_t offset = 0, line_number = 0;
    while (offset < length && status == 0) {
        const char *start = text + offset;
        const char *newline = memchr(start, '\n', length - offset);
        size_t line_length = newline ? (size_t)(newline - start) : length - offset;
        offset += line_length + (newline ? 1 : 0);
        line_number++;

        /* A NUL-terminated copy: the input may hold NUL bytes and need not end in one. */
        char line[LINE_CAPACITY];
        size_t kept = line_length < sizeof line - 1 ? line_length : sizeof line - 1;
        for (size_t i = 0; i < kept; i++)
            line[i] = start[i] == '\0' ? '?' : start[i];
        while (kept > 0 && line[kept - 1] == '\r')
            kept--;
        line[kept] = '\0';

        if (!parse_summary_line(&parser, line)) {
            char quote[QUOTE_LENGTH * 2 + 8];
            quote_text(line, kept, QUOTE_LENGTH, quote, sizeof quote);
            error_set(err, ERROR_BAD_INPUT, "pgbench output line %zu is not in pgbench's format: "
                      "\"%s\"", line_number, quote);
            status = -1;
        }
    }

    if (status == 0 && parser.tps_lines == 0) {
        char quote[QUOTE_LENGTH * 2 + 8];
        quote_text(text, length, QUOTE_LENGTH, quote, sizeof quote);
        error_set(err, ERROR_COMMAND_FAILED, "no \"tps = \" line in the pgbench output (exit code "
                  "%d%s%s); it starts: \"%s\"", exit_code,
                  parser.first_problem[0] ? ", pgbench said: " : "", parser.first_problem, quote);
        status = -1;
    }
    if (status == 0 && !choose_tps(&parser, err))
        status = -1;
    if (status == 0) {
        if (exit_code != 0)
            out->partial = true;
        if (out->partial) {
            if (exit_code != 0 && parser.first_problem[0] != '\0')
                snprintf(out->partial_reason, sizeof out->partial_reason,
                         "pgbench exited with %d: %s", exit_code, parser.first_problem);
            else if (exit_code != 0)
                snprintf(out->partial_reason, sizeof out->partial_reason,
                         "pgbench exited with %d", exit_code);
            else
                snprintf(out->partial_reason, sizeof out->partial_reason, "%s",
                         parser.first_problem);
        }
    }
    freelocale(parser.c_locale);
    if (status != 0)
        reset_result(out);
    return status;
}

/* ------------------------------------------------------------------------------------ */
/* The per-transaction log                                                               */

/* One whitespace-separated token of a log line (not NUL-terminated). */
typedef struct {
    const char *text;
    size_t length;
} log_token;

enum { LOG_MAX_FIELDS = 8, LOG_MIN_FIELDS = 6 };

/* An unsigned decimal token; false for anything else, or past 2^62. */
static bool token_to_unsigned(log_token token, unsigned long long *out)
{
    if (token.length == 0 || token.length > 19)
        return false;
    unsigned long long value = 0;
    for (size_t i = 0; i < token.length; i++) {
        char c = token.text[i];
        if (c < '0' || c > '9')
            return false;
        value = value * 10 + (unsigned long long)(c - '0');
    }
    if (value > (1ULL << 62))
        return false;
    *out = value;
    return true;
}

static bool token_is(log_token token, const char *word)
{
    return token.length == strlen(word) && memcmp(token.text, word, token.length) == 0;
}

typedef enum { LOG_LINE_BLANK, LOG_LINE_DONE, LOG_LINE_FAILED, LOG_LINE_SKIPPED,
               LOG_LINE_AGGREGATED, LOG_LINE_MALFORMED } log_line_kind;

/* Classifies one line; for a completed transaction, *latency_us is its time. */
static log_line_kind classify_log_line(const char *line, size_t length,
                                       unsigned long long *latency_us)
{
    log_token fields[LOG_MAX_FIELDS + 1] = {{NULL, 0}};
    size_t n = 0, i = 0;
    while (i < length) {
        while (i < length && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
            i++;
        if (i == length)
            break;
        size_t begin = i;
        while (i < length && line[i] != ' ' && line[i] != '\t' && line[i] != '\r')
            i++;
        if (n == LOG_MAX_FIELDS + 1)
            return LOG_LINE_AGGREGATED; /* more columns than a transaction line has */
        fields[n++] = (log_token){line + begin, i - begin};
    }
    if (n == 0)
        return LOG_LINE_BLANK;
    if (n > LOG_MAX_FIELDS)
        return LOG_LINE_AGGREGATED;
    if (n < LOG_MIN_FIELDS)
        return LOG_LINE_MALFORMED;

    unsigned long long client, transaction, script, epoch, microseconds, extra;
    if (!token_to_unsigned(fields[0], &client) || !token_to_unsigned(fields[1], &transaction) ||
        !token_to_unsigned(fields[3], &script) || !token_to_unsigned(fields[4], &epoch) ||
        !token_to_unsigned(fields[5], &microseconds) || microseconds > 999999)
        return LOG_LINE_MALFORMED;
    for (size_t f = LOG_MIN_FIELDS; f < n; f++)
        if (!token_to_unsigned(fields[f], &extra))
            return LOG_LINE_MALFORMED;
    /* An aggregated log starts with a Unix time; no client id comes near one. */
    if (client >= 100000000ULL)
        return LOG_LINE_AGGREGATED;
    if (token_is(fields[2], "failed"))
        return LOG_LINE_FAILED;
    if (token_is(fields[2], "skipped"))
        return LOG_LINE_SKIPPED;
    if (!token_to_unsigned(fields[2], latency_us))
        return LOG_LINE_MALFORMED;
    return LOG_LINE_DONE;
}

int pgbench_log_summarize(const char *log_text, size_t length, pgbench_log_summary *out,
                          verdict_error *err)
{
    if (out == NULL || (log_text == NULL && length > 0)) {
        error_set(err, ERROR_INTERNAL, "pgbench_log_summarize: no log given");
        return -1;
    }
    memset(out, 0, sizeof *out);
    out->p50_ms = out->p95_ms = out->p99_ms = NAN;

    /* At most one latency per line: count the lines to allocate once. */
    size_t capacity = 1;
    for (size_t at = 0; at < length; at++)
        capacity += log_text[at] == '\n';
    double *latencies_ms = malloc(capacity * sizeof *latencies_ms);
    if (latencies_ms == NULL) {
        error_set(err, ERROR_NO_MEMORY, "out of memory reading a pgbench log of %zu lines",
                  capacity);
        return -1;
    }

    int status = 0;
    size_t offset = 0, line_number = 0;
    while (offset < length && status == 0) {
        const char *start = log_text + offset;
        const char *newline = memchr(start, '\n', length - offset);
        size_t line_length = newline ? (size_t)(newline - start) : length - offset;
        offset += line_length + (newline ? 1 : 0);
        line_number++;

        unsigned long long latency_us = 0;
        log_line_kind kind = classify_log_line(start, line_length, &latency_us);
        switch (kind) {
        case LOG_LINE_BLANK:
            break;
        case LOG_LINE_DONE:
            latencies_ms[out->transactions++] = (double)latency_us / 1000.0;
            break;
        case LOG_LINE_FAILED:
            out->failed++;
            break;
        case LOG_LINE_SKIPPED:
            out->skipped++;
            break;
        case LOG_LINE_AGGREGATED:
            error_set(err, ERROR_BAD_INPUT, "pgbench log line %zu looks like an aggregated log "
                       "(--aggregate-interval); percentiles need the per-transaction log (--log "
                      "without it)", line_number);
            status = -1;
            break;
        case LOG_LINE_MALFORMED:
            /* A pgbench killed mid-write leaves a cut last line: not worth losing the rest. */
            if (newline == NULL && line_number > 1)
                break;
            {
                char quote[QUOTE_LENGTH * 2 + 8];
                quote_text(start, line_length, QUOTE_LENGTH, quote, sizeof quote);
                error_set(err, ERROR_BAD_INPUT, "pgbench log line %zu is not \"client_id "
                           "transaction_no time script_no time_epoch time_us [schedule_lag] "
                          "[retries]\": \"%s\"", line_number, quote);
            }
            status = -1;
            break;
        }
    }
    if (status == 0 && out->transactions == 0) {
        error_set(err, ERROR_COMMAND_FAILED, "pgbench log has no completed transaction (%zu "
                  "failed, %zu skipped): no latency to take percentiles of", out->failed,
                  out->skipped);
        status = -1;
    }
    if (status == 0) {
        qsort(latencies_ms, out->transactions, sizeof *latencies_ms, compare_doubles);
        out->p50_ms = stats_quantile_sorted(latencies_ms, out->transactions, 0.50);
        out->p95_ms = stats_quantile_sorted(latencies_ms, out->transactions, 0.95);
        out->p99_ms = stats_quantile_sorted(latencies_ms, out->transactions, 0.99);
    }
    free(latencies_ms);
    return status;
}

int pgbench_latency_percentiles(const char *log_text, size_t length, double *p50_ms,
                                double *p95_ms, double *p99_ms, verdict_error *err)
{
    pgbench_log_summary summary;
    if (pgbench_log_summarize(log_text, length, &summary, err) != 0)
        return -1;
    if (p50_ms != NULL)
        *p50_ms = summary.p50_ms;
    if (p95_ms != NULL)
        *p95_ms = summary.p95_ms;
    if (p99_ms != NULL)
        *p99_ms = summary.p99_ms;
    return 0;
}

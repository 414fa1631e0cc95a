/* The reader of cachegrind's output files, outside input: the `events:` line names the
 * columns, each count line adds to them, and the `summary:` line must equal their sum. */
#include "core/cachegrind.h"

#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    const char *file;
    size_t line;
    cachegrind_totals *out;
    bool have_events, have_summary;
    size_t summary_line;
    uint64_t summary[CACHEGRIND_MAX_EVENTS];
    verdict_error *err;
} parse_state;

/* A line as a pointer and a length: the file may hold NULs and need not end in one. */
typedef struct {
    const char *text;
    size_t length;
} span;

static int fail(parse_state *p, const char *what, span line)
{
    char shown[48];
    size_t n = 0;
    for (size_t i = 0; i < line.length && n + 1 < sizeof shown; i++)
        shown[n++] = line.text[i] >= ' ' && line.text[i] < 127 ? line.text[i] : '?';
    shown[n] = '\0';
    return error_set(p->err, ERROR_BAD_INPUT, "%s:%zu: %s: '%s%s'", p->file, p->line, what,
                     shown, line.length > n ? "..." : "");
}

static bool starts_with(span line, const char *prefix)
{
    size_t n = strlen(prefix);
    return line.length >= n && memcmp(line.text, prefix, n) == 0;
}

static bool is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* The next blank-separated word of *rest, consumed; its length is 0 at the end. */
static span next_word(span *rest)
{
    while (rest->length > 0 && is_blank(rest->text[0]))
        rest->text++, rest->length--;
    span word = {rest->text, 0};
    while (word.length < rest->length && !is_blank(rest->text[word.length]))
        word.length++;
    rest->text += word.length;
    rest->length -= word.length;
    return word;
}

static int parse_number(span word, uint64_t *value)
{
    if (word.length == 0)
        return -1;
    uint64_t v = 0;
    for (size_t i = 0; i < word.length; i++) {
        char c = word.text[i];
        if (c < '0' || c > '9' || v > (UINT64_MAX - (uint64_t)(c - '0')) / 10)
            return -1;
        v = v * 10 + (uint64_t)(c - '0');
    }
    *value = v;
    return 0;
}

static bool is_event_name(span word)
{
    if (word.length == 0 || word.length >= CACHEGRIND_EVENT_NAME)
        return false;
    for (size_t i = 0; i < word.length; i++) {
        char c = word.text[i];
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              c == '_'))
            return false;
    }
    return true;
}

static int parse_events(parse_state *p, span line)
{
    if (p->have_events)
        return fail(p, "a second 'events:' line", line);
    span rest = {line.text + strlen("events:"), line.length - strlen("events:")};
    cachegrind_totals *out = p->out;
    for (span word = next_word(&rest); word.length > 0; word = next_word(&rest)) {
        if (!is_event_name(word))
            return fail(p, "an event name is not a short word of letters and digits", line);
        if (out->n == CACHEGRIND_MAX_EVENTS)
            return fail(p, "more events than verdict reads (32)", line);
        memcpy(out->names[out->n], word.text, word.length);
        out->names[out->n][word.length] = '\0';
        for (size_t i = 0; i < out->n; i++)
            if (strcmp(out->names[i], out->names[out->n]) == 0)
                return fail(p, "an event named twice", line);
        out->n++;
    }
    if (out->n == 0)
        return fail(p, "an 'events:' line without events", line);
    p->have_events = true;
    return 0;
}

/* Up to n numbers after skip words; the missing ones are zero (cachegrind leaves out a
 * line's trailing zeros). */
static int parse_counts(parse_state *p, span line, span rest, uint64_t *values, bool all)
{
    size_t n = 0;
    for (span word = next_word(&rest); word.length > 0; word = next_word(&rest)) {
        if (n == p->out->n)
            return fail(p, "more counts than events", line);
        if (parse_number(word, &values[n++]) != 0)
            return fail(p, "a count is not a whole number", line);
    }
    if (all && n != p->out->n)
        return fail(p, "the summary has fewer counts than events", line);
    return 0;
}

static int parse_count_line(parse_state *p, span line)
{
    span rest = line;
    uint64_t line_number, values[CACHEGRIND_MAX_EVENTS] = {0};
    if (parse_number(next_word(&rest), &line_number) != 0)
        return fail(p, "a line number is not a whole number", line);
    if (parse_counts(p, line, rest, values, false) != 0)
        return -1;
    for (size_t i = 0; i < p->out->n; i++) {
        if (p->out->totals[i] > UINT64_MAX - values[i])
            return fail(p, "the counts overflow 64 bits", line);
        p->out->totals[i] += values[i];
    }
    return 0;
}

static int parse_summary(parse_state *p, span line)
{
    if (p->have_summary)
        return fail(p, "a second 'summary:' line", line);
    span rest = {line.text + strlen("summary:"), line.length - strlen("summary:")};
    if (parse_counts(p, line, rest, p->summary, true) != 0)
        return -1;
    p->have_summary = true;
    p->summary_line = p->line;
    return 0;
}

static int parse_line(parse_state *p, span line)
{
    if (line.length == 0)
        return 0;
    if (starts_with(line, "desc:") || starts_with(line, "cmd:"))
        return p->have_events ? fail(p, "a header line after 'events:'", line) : 0;
    if (starts_with(line, "events:"))
        return parse_events(p, line);
    if (!p->have_events)
        return fail(p, "a line before the 'events:' line", line);
    if (starts_with(line, "fl=") || starts_with(line, "fi=") || starts_with(line, "fe=") ||
        starts_with(line, "fn="))
        return 0;
    if (starts_with(line, "summary:"))
        return parse_summary(p, line);
    if (line.text[0] >= '0' && line.text[0] <= '9')
        return parse_count_line(p, line);
    return fail(p, "not a line of cachegrind's output", line);
}

/* The summary must be the per-line counts' sum, as cg_annotate checks: a file cut short or
 * patched by hand is refused rather than read as a smaller count. */
static int check_summary(parse_state *p)
{
    for (size_t i = 0; i < p->out->n; i++)
        if (p->summary[i] != p->out->totals[i])
            return error_set(p->err, ERROR_BAD_INPUT, "%s:%zu: the summary's %s is %" PRIu64
                             " but the lines add up to %" PRIu64 " (a file cut short?)",
                             p->file, p->summary_line, p->out->names[i], p->summary[i],
                             p->out->totals[i]);
    return 0;
}

int cachegrind_parse(const char *text, size_t length, const char *file_name,
                     cachegrind_totals *out, verdict_error *err)
{
    assert(text != NULL || length == 0);
    memset(out, 0, sizeof *out);
    parse_state p = {.file = file_name, .out = out, .err = err};
    size_t at = 0;
    while (at < length) {
        const char *end = memchr(text + at, '\n', length - at);
        span line = {text + at, end ? (size_t)(end - (text + at)) : length - at};
        p.line++;
        if (parse_line(&p, line) != 0)
            return -1;
        at += line.length + (end != NULL);
    }
    if (!p.have_events)
        return error_set(err, ERROR_BAD_INPUT, "%s: no 'events:' line (not cachegrind's "
                         "output?)", file_name);
    if (p.have_summary && check_summary(&p) != 0)
        return -1;
    out->files = 1;
    return 0;
}

static size_t find_event(const cachegrind_totals *totals, const char *name)
{
    for (size_t i = 0; i < totals->n; i++)
        if (strcmp(totals->names[i], name) == 0)
            return i;
    return totals->n;
}

int cachegrind_add(cachegrind_totals *sum, const cachegrind_totals *file, verdict_error *err)
{
    for (size_t i = 0; i < file->n; i++) {
        size_t at = find_event(sum, file->names[i]);
        if (at == sum->n) {
            if (sum->n == CACHEGRIND_MAX_EVENTS)
                return error_set(err, ERROR_BAD_INPUT, "a run's files name more than %d "
                                 "events", CACHEGRIND_MAX_EVENTS);
            memcpy(sum->names[sum->n++], file->names[i], CACHEGRIND_EVENT_NAME);
        }
        if (sum->totals[at] > UINT64_MAX - file->totals[i])
            return error_set(err, ERROR_BAD_INPUT, "the run's %s overflows 64 bits",
                             file->names[i]);
        sum->totals[at] += file->totals[i];
    }
    sum->files += file->files;
    return 0;
}

int cachegrind_value(const cachegrind_totals *totals, const cachegrind_count *count,
                     uint64_t *value, verdict_error *err)
{
    char events[64];
    snprintf(events, sizeof events, "%s", count->events);
    uint64_t sum = 0;
    char *save = NULL;
    for (char *event = strtok_r(events, " ", &save); event; event = strtok_r(NULL, " ", &save)) {
        size_t at = find_event(totals, event);
        if (at == totals->n)
            return error_set(err, ERROR_BAD_INPUT, "cachegrind's output has no %s count, which "
                             "'%s' needs (--%s-sim=yes)", event, count->name,
                             count->cache_sim ? "cache" : "branch");
        if (sum > UINT64_MAX - totals->totals[at])
            return error_set(err, ERROR_BAD_INPUT, "'%s' overflows 64 bits", count->name);
        sum += totals->totals[at];
    }
    *value = sum;
    return 0;
}

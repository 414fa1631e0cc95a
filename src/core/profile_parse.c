/* perf script's text read into a profile (samples per symbol, self and children, and per
 * folded stack), and the profile's text forms kept in the store, written and read back. */
#include "core/profile.h"

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"

/* One frame of a sample, its key "symbol\tdso" owned by the frame list. */
typedef struct {
    char *key;
    bool leaf;
} frame_key;

/* What the parse gathers before counting: every sample's folded stack and its frames' keys
 * (a symbol once per sample), then sorted and counted (no hash table is needed). */
typedef struct {
    char **stacks;
    size_t n_stacks, stacks_capacity;
    frame_key *keys;
    size_t n_keys, keys_capacity;
    /* the sample being read: its frames leaf first, each its name and key */
    struct sample_frame {
        char *name, *key;
    } *frames;
    size_t n_frames, frames_capacity;
} gathered;

static void gathered_free(gathered *g)
{
    for (size_t i = 0; i < g->n_stacks; i++)
        free(g->stacks[i]);
    for (size_t i = 0; i < g->n_keys; i++)
        free(g->keys[i].key);
    for (size_t i = 0; i < g->n_frames; i++)
        free(g->frames[i].name), free(g->frames[i].key);
    free(g->stacks);
    free(g->keys);
    free(g->frames);
}

bool profile_is_address(const char *symbol)
{
    return strncmp(symbol, "0x", 2) == 0 && symbol[2] != '\0' &&
           strspn(symbol + 2, "0123456789abcdefABCDEF") == strlen(symbol + 2);
}

/* A name as the text forms can hold it: ';' separates frames, tabs and newlines fields, and
 * a NUL would end it early. */
static char *clean_name(const char *text, size_t n)
{
    char *copy = malloc(n + 1);
    for (size_t i = 0; copy && i < n; i++)
        copy[i] = text[i] == ';' ? ':' : strchr("\t\n\r", text[i]) ? ' ' : text[i];
    if (copy)
        copy[n] = '\0';
    return copy;
}

/* "    1160 slow_part (/tmp/prog)": the symbol (its address in its object when perf could
 * not name it) and the object's file name (a variant's build lives in its own directory:
 * symbols are matched by name and object, wherever the object is). */
static int parse_frame(const char *line, size_t n, char **symbol, char **dso)
{
    while (n > 0 && isspace((unsigned char)*line))
        line++, n--;
    while (n > 0 && isspace((unsigned char)line[n - 1]))
        n--;
    size_t ip_len = 0; /* the text need not end in a NUL: every scan is bounded by n */
    while (ip_len < n && line[ip_len] != ' ' && line[ip_len] != '\t')
        ip_len++;
    if (ip_len == 0 || ip_len >= n || line[n - 1] != ')')
        return -1;
    const char *open = NULL;
    for (const char *c = line + n - 1; c > line + ip_len; c--)
        if (*c == '(' && c[-1] == ' ') {
            open = c;
            break;
        }
    if (open == NULL)
        return -1;
    const char *dso_start = open + 1, *dso_end = line + n - 1;
    for (const char *c = dso_start; c < dso_end; c++)
        if (*c == '/')
            dso_start = c + 1;
    /* the symbol lies between the address and the space before '(', and may be empty */
    const char *sym = line + ip_len, *sym_end = open - 1;
    while (sym < sym_end && *sym == ' ')
        sym++;
    size_t sym_len = sym < sym_end ? (size_t)(sym_end - sym) : 0;
    if (sym_len == 0 || (sym_len == 9 && strncmp(sym, "[unknown]", 9) == 0)) {
        char address[80];
        snprintf(address, sizeof address, "0x%.*s", (int)(ip_len < 64 ? ip_len : 64), line);
        *symbol = strdup(address);
    } else {
        *symbol = clean_name(sym, sym_len);
    }
    *dso = clean_name(dso_start, (size_t)(dso_end - dso_start));
    return *symbol && *dso ? 0 : -2;
}

static int add_frame(gathered *g, char *symbol, char *dso)
{
    strbuf key = STRBUF_INIT;
    strbuf_appendf(&key, "%s\t%s", symbol, dso);
    free(dso);
    char *k = strbuf_detach(&key);
    if (k == NULL || array_reserve((void **)&g->frames, &g->frames_capacity, g->n_frames + 1,
                                   sizeof *g->frames) != 0) {
        free(k), free(symbol);
        return -1;
    }
    g->frames[g->n_frames++] = (struct sample_frame){symbol, k};
    return 0;
}

/* The sample read: its stack folded root first, each symbol's key once (the leaf's marked). */
static int end_sample(gathered *g)
{
    if (g->n_frames == 0)
        return 0;
    strbuf stack = STRBUF_INIT;
    for (size_t i = g->n_frames; i-- > 0;)
        strbuf_appendf(&stack, "%s%s", i + 1 < g->n_frames ? ";" : "", g->frames[i].name);
    int rc = array_reserve((void **)&g->stacks, &g->stacks_capacity, g->n_stacks + 1,
                           sizeof *g->stacks);
    char *folded = strbuf_detach(&stack);
    if (rc != 0 || folded == NULL) {
        free(folded);
        return -1;
    }
    g->stacks[g->n_stacks++] = folded;
    for (size_t i = 0; i < g->n_frames; i++) {
        struct sample_frame *f = &g->frames[i];
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = strcmp(f->key, g->frames[j].key) == 0;
        if (seen)
            continue;
        if (array_reserve((void **)&g->keys, &g->keys_capacity, g->n_keys + 1,
                          sizeof *g->keys) != 0 ||
            (g->keys[g->n_keys].key = strdup(f->key)) == NULL)
            return -1; /* the frames are freed with g */
        g->keys[g->n_keys++].leaf = i == 0;
    }
    for (size_t i = 0; i < g->n_frames; i++)
        free(g->frames[i].name), free(g->frames[i].key);
    g->n_frames = 0;
    return 0;
}

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int compare_keys(const void *a, const void *b)
{
    return strcmp(((const frame_key *)a)->key, ((const frame_key *)b)->key);
}

/* Equal stacks counted once each, in sorted order. */
static int count_stacks(gathered *g, profile_data *out)
{
    if (g->n_stacks > 1)
        qsort(g->stacks, g->n_stacks, sizeof *g->stacks, compare_strings);
    size_t capacity = 0;
    for (size_t i = 0; i < g->n_stacks; i++) {
        if (out->n_stacks > 0 && strcmp(out->stacks[out->n_stacks - 1].stack, g->stacks[i]) == 0) {
            out->stacks[out->n_stacks - 1].samples++;
            continue;
        }
        if (array_reserve((void **)&out->stacks, &capacity, out->n_stacks + 1,
                          sizeof *out->stacks) != 0)
            return -1;
        out->stacks[out->n_stacks++] = (profile_stack){g->stacks[i], 1};
        g->stacks[i] = NULL;
    }
    return 0;
}

static int count_symbols(gathered *g, profile_data *out)
{
    if (g->n_keys > 1)
        qsort(g->keys, g->n_keys, sizeof *g->keys, compare_keys);
    size_t capacity = 0;
    for (size_t i = 0; i < g->n_keys; i++) {
        profile_symbol *last = out->n_symbols ? &out->symbols[out->n_symbols - 1] : NULL;
        char *tab = strchr(g->keys[i].key, '\t');
        assert(tab != NULL);
        *tab = '\0';
        if (last && strcmp(last->symbol, g->keys[i].key) == 0 && strcmp(last->dso, tab + 1) == 0) {
            last->children++;
            last->self += g->keys[i].leaf;
            continue;
        }
        if (array_reserve((void **)&out->symbols, &capacity, out->n_symbols + 1,
                          sizeof *out->symbols) != 0)
            return -1;
        char *dso = strdup(tab + 1);
        if (dso == NULL)
            return -1;
        out->symbols[out->n_symbols++] = (profile_symbol){g->keys[i].key, dso,
                                                          g->keys[i].leaf, 1};
        g->keys[i].key = NULL;
    }
    return 0;
}

int profile_parse_script(const char *text, size_t length, profile_data *out,
                         verdict_error *err)
{
    memset(out, 0, sizeof *out);
    gathered g = {0};
    int rc = 0;
    size_t line_number = 0;
    for (size_t at = 0; rc == 0 && at < length; line_number++) {
        const char *line = text + at, *end = memchr(line, '\n', length - at);
        size_t n = end ? (size_t)(end - line) : length - at;
        at += n + 1;
        size_t spaces = 0;
        while (spaces < n && (line[spaces] == ' ' || line[spaces] == '\t' || line[spaces] == '\r'))
            spaces++;
        bool blank = spaces == n;
        if (blank || !isspace((unsigned char)line[0])) { /* a blank line or the next header */
            rc = end_sample(&g) == 0 ? 0 : error_no_memory(err);
            continue;
        }
        char *symbol = NULL, *dso = NULL;
        int parsed = parse_frame(line, n, &symbol, &dso);
        if (parsed == -1)
            rc = error_set(err, ERROR_BAD_INPUT, "perf script, line %zu: no frame "
                           "\"ADDRESS SYMBOL (OBJECT)\" in '%.*s'", line_number + 1,
                           (int)(n < 200 ? n : 200), line);
        else if (parsed != 0 || add_frame(&g, symbol, dso) != 0)
            rc = error_no_memory(err), free(parsed != 0 ? symbol : NULL),
            free(parsed != 0 ? dso : NULL);
    }
    if (rc == 0 && end_sample(&g) != 0)
        rc = error_no_memory(err);
    out->samples = (long)g.n_stacks;
    if (rc == 0 && (count_stacks(&g, out) != 0 || count_symbols(&g, out) != 0))
        rc = error_no_memory(err);
    gathered_free(&g);
    if (rc != 0)
        profile_data_free(out);
    return rc;
}

void profile_symbols_text(const profile_data *p, strbuf *out)
{
    for (size_t i = 0; i < p->n_symbols; i++)
        strbuf_appendf(out, "%s\t%s\t%ld\t%ld\n", p->symbols[i].symbol, p->symbols[i].dso,
                       p->symbols[i].self, p->symbols[i].children);
}

void profile_stacks_text(const profile_data *p, strbuf *out)
{
    for (size_t i = 0; i < p->n_stacks; i++)
        strbuf_appendf(out, "%s %ld\n", p->stacks[i].stack, p->stacks[i].samples);
}

/* A count the text forms hold: digits only, within a long. */
static bool read_count(const char *text, size_t n, long *out)
{
    if (n == 0 || n > 18 || strspn(text, "0123456789") < n)
        return false;
    *out = strtol(text, NULL, 10);
    return true;
}

static int symbol_line(const char *line, size_t n, profile_data *out, size_t *capacity)
{
    const char *f[4];
    size_t len[4], k = 0;
    for (const char *c = line, *end = line + n; k < 4; k++) {
        const char *tab = k < 3 ? memchr(c, '\t', (size_t)(end - c)) : NULL;
        f[k] = c;
        len[k] = (size_t)((tab ? tab : end) - c);
        if (k < 3 && tab == NULL)
            return -1;
        c = tab ? tab + 1 : end;
    }
    profile_symbol s = {0};
    if (len[0] == 0 || !read_count(f[2], len[2], &s.self) ||
        !read_count(f[3], len[3], &s.children))
        return -1;
    if (array_reserve((void **)&out->symbols, capacity, out->n_symbols + 1,
                      sizeof *out->symbols) != 0 ||
        (s.symbol = strndup(f[0], len[0])) == NULL || (s.dso = strndup(f[1], len[1])) == NULL) {
        free(s.symbol);
        return -2;
    }
    out->symbols[out->n_symbols++] = s;
    return 0;
}

static int stack_line(const char *line, size_t n, profile_data *out, size_t *capacity)
{
    const char *space = NULL;
    for (size_t i = n; i-- > 0 && space == NULL;)
        if (line[i] == ' ')
            space = line + i;
    profile_stack s = {0};
    if (space == NULL || space == line ||
        !read_count(space + 1, (size_t)(line + n - space - 1), &s.samples))
        return -1;
    if (array_reserve((void **)&out->stacks, capacity, out->n_stacks + 1,
                      sizeof *out->stacks) != 0 ||
        (s.stack = strndup(line, (size_t)(space - line))) == NULL)
        return -2;
    out->stacks[out->n_stacks++] = s;
    out->samples += s.samples;
    return 0;
}

typedef int (*line_fn)(const char *line, size_t n, profile_data *out, size_t *capacity);

static int read_lines(const char *text, line_fn fn, const char *what, profile_data *out,
                      verdict_error *err)
{
    size_t capacity = 0, number = 0;
    for (const char *line = text; *line; number++) {
        size_t n = strcspn(line, "\n");
        int rc = fn(line, n, out, &capacity);
        if (rc == -2)
            return error_no_memory(err);
        if (rc != 0)
            return error_set(err, ERROR_BAD_INPUT, "a stored profile's %s, line %zu: '%.*s' "
                             "is not what verdict keeps", what, number + 1,
                             (int)(n < 200 ? n : 200), line);
        line += n + (line[n] == '\n');
    }
    return 0;
}

static int compare_symbols(const void *a, const void *b)
{
    const profile_symbol *x = a, *y = b;
    int c = strcmp(x->symbol, y->symbol);
    return c != 0 ? c : strcmp(x->dso, y->dso);
}

static int compare_stacks(const void *a, const void *b)
{
    return strcmp(((const profile_stack *)a)->stack, ((const profile_stack *)b)->stack);
}

int profile_from_text(const char *symbols, const char *stacks, profile_data *out,
                      verdict_error *err)
{
    memset(out, 0, sizeof *out);
    if (read_lines(symbols, symbol_line, "symbols", out, err) != 0 ||
        read_lines(stacks, stack_line, "stacks", out, err) != 0) {
        profile_data_free(out);
        return -1;
    }
    /* sorted as the parse sorts them, whoever wrote the text: lookups search them */
    if (out->n_symbols > 1)
        qsort(out->symbols, out->n_symbols, sizeof *out->symbols, compare_symbols);
    if (out->n_stacks > 1)
        qsort(out->stacks, out->n_stacks, sizeof *out->stacks, compare_stacks);
    return 0;
}

void profile_data_free(profile_data *p)
{
    for (size_t i = 0; i < p->n_symbols; i++)
        free(p->symbols[i].symbol), free(p->symbols[i].dso);
    for (size_t i = 0; i < p->n_stacks; i++)
        free(p->stacks[i].stack);
    free(p->symbols);
    free(p->stacks);
    memset(p, 0, sizeof *p);
}

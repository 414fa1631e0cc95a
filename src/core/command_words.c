/* Shell-like word splitting: whitespace separates words; '...' is literal; "..." keeps
 * spaces and honours \" \\ \$ \`; a backslash outside quotes escapes the next character. */
#include "core/command_words.h"

#include "common/error.h"
#include "common/strbuf.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void buffer_put(strbuf *b, char c)
{
    strbuf_append_bytes(b, &c, 1);
}

/* The word built so far becomes the next word ("" for a quoted empty word). */
static int words_push(command_words *w, strbuf *b)
{
    char **grown = realloc(w->words, (w->n + 2) * sizeof *grown);
    if (grown == NULL || strbuf_status(b) != 0)
        return -1;
    w->words = grown;
    strbuf_append(b, "");
    w->words[w->n++] = strbuf_detach(b);
    w->words[w->n] = NULL;
    return w->words[w->n - 1] ? 0 : -1;
}

static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Inside double quotes a backslash only escapes these, as in sh. */
static bool escapable_in_double_quotes(char c)
{
    return c == '"' || c == '\\' || c == '$' || c == '`' || c == '\n';
}

/* Consumes one quoted or escaped piece starting at *p: 0, -2 for an unterminated quote,
 * -3 for a trailing backslash (a failed allocation shows in the builder). */
static int take_piece(const char **p, strbuf *b)
{
    const char *s = *p;
    if (*s == '\'') {
        for (s++; *s && *s != '\''; s++)
            buffer_put(b, *s);
        if (*s != '\'')
            return -2;
        s++;
    } else if (*s == '"') {
        for (s++; *s && *s != '"'; s++) {
            if (*s == '\\' && s[1] && escapable_in_double_quotes(s[1]))
                s++;
            buffer_put(b, *s);
        }
        if (*s != '"')
            return -2;
        s++;
    } else if (*s == '\\') {
        if (s[1] == '\0')
            return -3;
        buffer_put(b, s[1]);
        s += 2;
    } else {
        buffer_put(b, *s++);
    }
    *p = s;
    return 0;
}

int command_words_split(const char *line, command_words *out, verdict_error *err)
{
    memset(out, 0, sizeof *out);
    strbuf b = STRBUF_INIT;
    bool in_word = false;
    const char *p = line;
    while (*p) {
        if (is_blank(*p)) {
            if (in_word && words_push(out, &b) != 0)
                goto nomem;
            in_word = false;
            p++;
            continue;
        }
        in_word = true;
        int rc = take_piece(&p, &b);
        if (rc < 0) {
            error_set(err, ERROR_USAGE,
                      rc == -2 ? "unterminated quote in command: %s"
                                            : "trailing backslash in command: %s",
                      line);
            goto fail;
        }
    }
    if (in_word && words_push(out, &b) != 0)
        goto nomem;
    if (out->n == 0) {
        error_set(err, ERROR_USAGE, "empty command");
        goto fail;
    }
    return 0;
nomem:
    error_no_memory(err);
fail:
    strbuf_free(&b);
    command_words_free(out);
    return -1;
}

int command_words_copy(const char *const *words, size_t n, command_words *out)
{
    out->n = 0;
    out->words = calloc(n + 1, sizeof *out->words);
    if (out->words == NULL)
        return -1;
    for (size_t i = 0; i < n; i++) {
        out->words[i] = strdup(words[i]);
        if (out->words[i] == NULL) {
            command_words_free(out);
            return -1;
        }
        out->n++;
    }
    return 0;
}

int command_words_append(command_words *words, const char *word)
{
    char *copy = strdup(word);
    char **grown = copy ? realloc(words->words, (words->n + 2) * sizeof *grown) : NULL;
    if (grown == NULL) {
        free(copy);
        return -1;
    }
    words->words = grown;
    words->words[words->n++] = copy;
    words->words[words->n] = NULL;
    return 0;
}

void command_words_free(command_words *words)
{
    for (size_t i = 0; words->words && i < words->n; i++)
        free(words->words[i]);
    free(words->words);
    words->words = NULL;
    words->n = 0;
}

static bool needs_quotes(const char *word)
{
    if (*word == '\0')
        return true;
    for (const char *c = word; *c; c++)
        if (strchr(" \t\n\r'\"\\$`*?[]{}()<>|&;#~!", *c))
            return true;
    return false;
}

char *command_words_join(const command_words *words)
{
    strbuf b = STRBUF_INIT;
    strbuf_append(&b, "");
    for (size_t i = 0; i < words->n; i++) {
        if (i)
            buffer_put(&b, ' ');
        bool quote = needs_quotes(words->words[i]);
        if (quote)
            buffer_put(&b, '\'');
        for (const char *c = words->words[i]; *c; c++) {
            if (*c == '\'')  /* close, escaped quote, reopen */
                strbuf_append(&b, "'\\'");
            buffer_put(&b, *c);
        }
        if (quote)
            buffer_put(&b, '\'');
    }
    return strbuf_detach(&b);
}

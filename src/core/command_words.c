/* Shell-like word splitting: whitespace separates words; '...' is literal; "..." keeps
 * spaces and honours \" \\ \$ \`; a backslash outside quotes escapes the next character. */
#include "core/command_words.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char *text;
    size_t length, capacity;
} word_buffer;

static int buffer_put(word_buffer *b, char c)
{
    if (b->length + 1 >= b->capacity) {
        size_t grown = b->capacity ? b->capacity * 2 : 32;
        char *text = realloc(b->text, grown);
        if (text == NULL)
            return -1;
        b->text = text;
        b->capacity = grown;
    }
    b->text[b->length++] = c;
    b->text[b->length] = '\0';
    return 0;
}

static int words_push(command_words *w, word_buffer *b)
{
    char **grown = realloc(w->words, (w->n + 2) * sizeof *grown);
    if (grown == NULL)
        return -1;
    w->words = grown;
    w->words[w->n++] = b->text ? b->text : strdup("");
    w->words[w->n] = NULL;
    b->text = NULL;
    b->length = b->capacity = 0;
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

/* Consumes one quoted or escaped piece starting at *p; returns -2 on a syntax error. */
static int take_piece(const char **p, word_buffer *b)
{
    const char *s = *p;
    int rc = 0;
    if (*s == '\'') {
        for (s++; *s && *s != '\''; s++)
            rc |= buffer_put(b, *s);
        if (*s != '\'')
            return -2;
        s++;
    } else if (*s == '"') {
        for (s++; *s && *s != '"'; s++) {
            if (*s == '\\' && s[1] && escapable_in_double_quotes(s[1]))
                s++;
            rc |= buffer_put(b, *s);
        }
        if (*s != '"')
            return -2;
        s++;
    } else if (*s == '\\') {
        if (s[1] == '\0')
            return -3;
        rc |= buffer_put(b, s[1]);
        s += 2;
    } else {
        rc |= buffer_put(b, *s++);
    }
    *p = s;
    return rc;
}

int command_words_split(const char *line, command_words *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    word_buffer b = {NULL, 0, 0};
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
        if (rc == -1)
            goto nomem;
        if (rc < -1) {
            snprintf(err, errlen, rc == -2 ? "unterminated quote in command: %s"
                                           : "trailing backslash in command: %s", line);
            goto fail;
        }
    }
    if (in_word && words_push(out, &b) != 0)
        goto nomem;
    if (out->n == 0) {
        snprintf(err, errlen, "empty command");
        goto fail;
    }
    return 0;
nomem:
    snprintf(err, errlen, "out of memory");
fail:
    free(b.text);
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
    word_buffer b = {NULL, 0, 0};
    int rc = buffer_put(&b, '\0');
    b.length = 0;
    for (size_t i = 0; i < words->n && rc == 0; i++) {
        if (i)
            rc |= buffer_put(&b, ' ');
        bool quote = needs_quotes(words->words[i]);
        if (quote)
            rc |= buffer_put(&b, '\'');
        for (const char *c = words->words[i]; *c && rc == 0; c++) {
            if (*c == '\'') {  /* close, escaped quote, reopen */
                rc |= buffer_put(&b, '\'') | buffer_put(&b, '\\') | buffer_put(&b, '\'');
            }
            rc |= buffer_put(&b, *c);
        }
        if (quote)
            rc |= buffer_put(&b, '\'');
    }
    if (rc != 0) {
        free(b.text);
        return NULL;
    }
    return b.text;
}

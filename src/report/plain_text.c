/* Escaping for the plain-text outputs. A variant named "\e]0;owned\a\e[2J" must not
 * retitle or clear the terminal of whoever reads the report, a CSV or a Markdown file. */
#include "report/plain_text.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/utf8.h"

/* Longest escape of one character: "\\u2066" (6) or four "\\xNN" (16) for a 4-byte
 * sequence is never needed (valid sequences pass), so 6 covers every case. */
#define ESCAPE_MAX 8

static bool is_bidi_control(unsigned long code)
{
    return (code >= 0x202A && code <= 0x202E) || (code >= 0x2066 && code <= 0x2069);
}

/* The bytes to write for the character at s: either s itself (*length bytes) or an
 * escape in `escape`. Returns the number of input bytes consumed. */
static size_t next_piece(const unsigned char *s, char escape[ESCAPE_MAX], bool *escaped)
{
    size_t length = utf8_sequence_at(s);
    unsigned long code = length > 0 ? utf8_code_point(s, length) : 0;
    *escaped = true;
    if (length == 0 || code < 0x20 || code == 0x7F) {
        snprintf(escape, ESCAPE_MAX, "\\x%02x", s[0]);
        return 1;
    }
    if (code >= 0x80 && code <= 0x9F) {
        snprintf(escape, ESCAPE_MAX, "\\u%04lx", code);
        return length;
    }
    if (is_bidi_control(code)) {
        snprintf(escape, ESCAPE_MAX, "\\u%04lx", code);
        return length;
    }
    *escaped = false;
    return length;
}

void plain_write(FILE *out, const char *text)
{
    const unsigned char *s = (const unsigned char *)(text ? text : "");
    while (*s) {
        char escape[ESCAPE_MAX];
        bool escaped;
        size_t consumed = next_piece(s, escape, &escaped);
        if (escaped)
            fputs(escape, out);
        else
            fwrite(s, 1, consumed, out);
        s += consumed;
    }
}

size_t plain_escape(const char *text, char *buf, size_t len)
{
    if (len == 0)
        return 0;
    const unsigned char *s = (const unsigned char *)(text ? text : "");
    size_t used = 0;
    while (*s) {
        char escape[ESCAPE_MAX];
        bool escaped;
        size_t consumed = next_piece(s, escape, &escaped);
        const char *piece = escaped ? escape : (const char *)s;
        size_t piece_length = escaped ? strlen(escape) : consumed;
        if (used + piece_length >= len)
            break; /* cut at a whole character: no half sequence, no half escape */
        memcpy(buf + used, piece, piece_length);
        used += piece_length;
        s += consumed;
    }
    buf[used] = '\0';
    return used;
}

char *plain_escaped_copy(const char *text)
{
    /* A byte becomes at most four ("\\xNN"), a 2- or 3-byte character at most six. */
    size_t room = 4 * strlen(text ? text : "") + 1;
    char *copy = malloc(room);
    if (copy != NULL)
        plain_escape(text, copy, room);
    return copy;
}

int plain_is_formula_start(const char *text)
{
    return text != NULL && text[0] != '\0' && strchr("=+-@\t\r", text[0]) != NULL;
}

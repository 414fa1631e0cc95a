/* Markup escaping shared by the SVG charts and the HTML report. Text from commands and
 * the machine may hold any bytes; XML parsers reject invalid UTF-8, so it is replaced. */
#include "report/markup.h"

#include "common/utf8.h"

#include <stddef.h>
#include <string.h>

/* Where the escaped bytes go: a stream or a string builder. */
typedef void (*markup_sink)(void *to, const char *bytes, size_t n);

static void to_stream(void *to, const char *bytes, size_t n)
{
    fwrite(bytes, 1, n, (FILE *)to);
}

static void to_strbuf(void *to, const char *bytes, size_t n)
{
    strbuf_append_bytes((strbuf *)to, bytes, n);
}

static const char *entity_of(unsigned char c)
{
    switch (c) {
    case '&': return "&amp;";
    case '<': return "&lt;";
    case '>': return "&gt;";
    case '"': return "&quot;";
    case '\'': return "&#39;";
    }
    return NULL;
}

/* The one escaping walk, whichever the destination: at most `limit` bytes of text (a
 * character that would cross the limit is not written). */
static void escape_into(markup_sink sink, void *to, const char *text, size_t limit)
{
    const unsigned char *s = (const unsigned char *)(text ? text : "");
    const unsigned char *end = s + limit; /* never reached before the NUL when unlimited */
    while (*s && s < end) {
        const char *entity = entity_of(*s);
        size_t length = utf8_sequence_at(s);
        if (length > (size_t)(end - s))
            break;
        if (entity) {
            sink(to, entity, strlen(entity));
        } else if (length == 0 || (*s < 0x20 && *s != '\t' && *s != '\n' && *s != '\r') ||
                   *s == 0x7F) {
            sink(to, UTF8_REPLACEMENT, sizeof UTF8_REPLACEMENT - 1);
            length = 1;
        } else {
            sink(to, (const char *)s, length);
        }
        s += length ? length : 1;
    }
}

void markup_write_escaped(FILE *out, const char *text)
{
    escape_into(to_stream, out, text, text ? strlen(text) : 0);
}

void markup_append_escaped(strbuf *out, const char *text)
{
    escape_into(to_strbuf, out, text, text ? strlen(text) : 0);
}

void markup_append_escaped_prefix(strbuf *out, const char *text, size_t bytes)
{
    escape_into(to_strbuf, out, text, bytes);
}

/* Markup escaping shared by the SVG charts and the HTML report. Text from commands and
 * the machine may hold any bytes; XML parsers reject invalid UTF-8, so it is replaced. */
#include "report/markup.h"

#include "common/utf8.h"

#include <stddef.h>

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

void markup_write_escaped(FILE *out, const char *text)
{
    const unsigned char *s = (const unsigned char *)(text ? text : "");
    while (*s) {
        const char *entity = entity_of(*s);
        size_t length = utf8_sequence_at(s);
        if (entity) {
            fputs(entity, out);
        } else if (length == 0 || (*s < 0x20 && *s != '\t' && *s != '\n' && *s != '\r') ||
                   *s == 0x7F) {
            fputs(UTF8_REPLACEMENT, out);
            length = 1;
        } else {
            fwrite(s, 1, length, out);
        }
        s += length ? length : 1;
    }
}

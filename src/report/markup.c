/* Markup escaping shared by the SVG charts and the HTML report. Text from commands and
 * the machine may hold any bytes; XML parsers reject invalid UTF-8, so it is replaced. */
#include "report/markup.h"

#include <stddef.h>

#define REPLACEMENT_CHARACTER "\xEF\xBF\xBD"

/* Length of the valid UTF-8 sequence starting at s, or 0 when it is not one. Overlong
 * forms, surrogates and code points above U+10FFFF are invalid. */
static size_t utf8_sequence_length(const unsigned char *s)
{
    if (s[0] < 0x80)
        return 1;
    size_t length;
    unsigned long code;
    if ((s[0] & 0xE0) == 0xC0) {
        length = 2;
        code = s[0] & 0x1F;
    } else if ((s[0] & 0xF0) == 0xE0) {
        length = 3;
        code = s[0] & 0x0F;
    } else if ((s[0] & 0xF8) == 0xF0) {
        length = 4;
        code = s[0] & 0x07;
    } else {
        return 0;
    }
    for (size_t i = 1; i < length; i++) {
        if ((s[i] & 0xC0) != 0x80) /* also stops at the terminating NUL */
            return 0;
        code = (code << 6) | (s[i] & 0x3F);
    }
    static const unsigned long smallest[] = {0, 0, 0x80, 0x800, 0x10000};
    if (code < smallest[length] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF))
        return 0;
    return length;
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

void markup_write_escaped(FILE *out, const char *text)
{
    const unsigned char *s = (const unsigned char *)(text ? text : "");
    while (*s) {
        const char *entity = entity_of(*s);
        size_t length = utf8_sequence_length(s);
        if (entity) {
            fputs(entity, out);
        } else if (length == 0 || (*s < 0x20 && *s != '\t' && *s != '\n' && *s != '\r') ||
                   *s == 0x7F) {
            fputs(REPLACEMENT_CHARACTER, out);
            length = 1;
        } else {
            fwrite(s, 1, length, out);
        }
        s += length ? length : 1;
    }
}

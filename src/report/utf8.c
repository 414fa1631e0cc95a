/* UTF-8 validation by hand (no locale involved, so the result is the same everywhere) and
 * the U+FFFD replacement that JSON, HTML and SVG need for bytes that are not UTF-8. */
#include "report/utf8.h"

#include <stdlib.h>
#include <string.h>

size_t utf8_sequence_length(const unsigned char *s)
{
    if (s[0] < 0x80)
        return 1;
    size_t length;
    if ((s[0] & 0xE0) == 0xC0)
        length = 2;
    else if ((s[0] & 0xF0) == 0xE0)
        length = 3;
    else if ((s[0] & 0xF8) == 0xF0)
        length = 4;
    else
        return 0;
    for (size_t i = 1; i < length; i++)
        if ((s[i] & 0xC0) != 0x80) /* also stops at the terminating NUL */
            return 0;
    unsigned long code = utf8_code_point(s, length);
    static const unsigned long smallest[] = {0, 0, 0x80, 0x800, 0x10000};
    if (code < smallest[length] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF))
        return 0;
    return length;
}

unsigned long utf8_code_point(const unsigned char *s, size_t length)
{
    static const unsigned char lead_mask[] = {0, 0x7F, 0x1F, 0x0F, 0x07};
    unsigned long code = s[0] & lead_mask[length];
    for (size_t i = 1; i < length; i++)
        code = (code << 6) | (s[i] & 0x3F);
    return code;
}

bool utf8_is_valid(const char *text)
{
    for (const unsigned char *s = (const unsigned char *)text; *s;) {
        size_t length = utf8_sequence_length(s);
        if (length == 0)
            return false;
        s += length;
    }
    return true;
}

char *utf8_replace_invalid(const char *text)
{
    /* Each invalid byte grows to three: the worst case is three times the input. */
    size_t in_length = strlen(text);
    char *out = malloc(3 * in_length + 1);
    if (out == NULL)
        return NULL;
    size_t used = 0;
    for (const unsigned char *s = (const unsigned char *)text; *s;) {
        size_t length = utf8_sequence_length(s);
        if (length == 0) {
            memcpy(out + used, UTF8_REPLACEMENT, 3);
            used += 3;
            s++;
        } else {
            memcpy(out + used, s, length);
            used += length;
            s += length;
        }
    }
    out[used] = '\0';
    return out;
}

/* UTF-8 by the definition of RFC 3629: lead byte C2..F4, continuation bytes 80..BF, no
 * overlong forms (E0 80..9F, F0 80..8F), no surrogates (ED A0..BF), nothing past F4 8F. */
#include "common/utf8.h"

#include <stdlib.h>
#include <string.h>

size_t utf8_sequence(const unsigned char *p, size_t left)
{
    if (left == 0)
        return 0;
    if (p[0] < 0x80)
        return 1;
    size_t n = p[0] >= 0xf0 ? 4 : p[0] >= 0xe0 ? 3 : p[0] >= 0xc2 ? 2 : 0;
    if (n == 0 || n > left || p[0] > 0xf4)
        return 0;
    for (size_t i = 1; i < n; i++)
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    if ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] >= 0xa0) ||
        (p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] >= 0x90))
        return 0;
    return n;
}

size_t utf8_sequence_at(const unsigned char *s)
{
    size_t left = 0;
    while (left < 4 && s[left])
        left++;
    return utf8_sequence(s, left);
}

unsigned long utf8_code_point(const unsigned char *p, size_t length)
{
    static const unsigned char lead_mask[] = {0, 0x7f, 0x1f, 0x0f, 0x07};
    unsigned long code = p[0] & lead_mask[length];
    for (size_t i = 1; i < length; i++)
        code = (code << 6) | (p[i] & 0x3f);
    return code;
}

bool utf8_valid(const char *text, size_t length)
{
    const unsigned char *p = (const unsigned char *)text;
    for (size_t i = 0; i < length;) {
        size_t n = p[i] ? utf8_sequence(p + i, length - i) : 0;
        if (n == 0)
            return false;
        i += n;
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
        size_t length = utf8_sequence_at(s);
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

/* UTF-8 by the definition of RFC 3629: lead byte C2..F4, continuation bytes 80..BF, no
 * overlong forms (E0 80..9F, F0 80..8F), no surrogates (ED A0..BF), nothing past F4 8F. */
#include "common/utf8.h"

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

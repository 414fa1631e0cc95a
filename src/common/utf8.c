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

/* Ranges of code points, sorted, for the width table lookups. */
typedef struct {
    unsigned long first, last;
} code_range;

/* Combining marks and zero-width characters (a subset of Unicode's Mn, Me and Cf that
 * covers the scripts and joiners met in names). */
static const code_range zero_width[] = {
    {0x0300, 0x036F}, {0x0483, 0x0489}, {0x0591, 0x05BD}, {0x0610, 0x061A}, {0x064B, 0x065F},
    {0x0E31, 0x0E31}, {0x0E34, 0x0E3A}, {0x0E47, 0x0E4E}, {0x1AB0, 0x1AFF}, {0x1DC0, 0x1DFF},
    {0x200B, 0x200F}, {0x2028, 0x202E}, {0x2060, 0x2064}, {0x20D0, 0x20FF}, {0xFE00, 0xFE0F},
    {0xFE20, 0xFE2F}, {0xFEFF, 0xFEFF}, {0xE0100, 0xE01EF},
};

/* East Asian Wide and Fullwidth blocks, and the emoji blocks terminals draw double. */
static const code_range double_width[] = {
    {0x1100, 0x115F}, {0x231A, 0x231B}, {0x2329, 0x232A}, {0x23E9, 0x23EC}, {0x2E80, 0x303E},
    {0x3041, 0x33FF}, {0x3400, 0x4DBF}, {0x4E00, 0x9FFF}, {0xA000, 0xA4CF}, {0xA960, 0xA97F},
    {0xAC00, 0xD7A3}, {0xF900, 0xFAFF}, {0xFE10, 0xFE19}, {0xFE30, 0xFE6F}, {0xFF00, 0xFF60},
    {0xFFE0, 0xFFE6}, {0x1F300, 0x1F64F}, {0x1F900, 0x1F9FF}, {0x20000, 0x2FFFD},
    {0x30000, 0x3FFFD},
};

static bool in_ranges(unsigned long code, const code_range *ranges, size_t n)
{
    for (size_t i = 0; i < n && ranges[i].first <= code; i++)
        if (code <= ranges[i].last)
            return true;
    return false;
}

/* Width of the character at s; *length gets its byte count (1 for a bad byte). */
static size_t char_width(const unsigned char *s, size_t *length)
{
    *length = utf8_sequence_at(s);
    if (*length == 0) {
        *length = 1;
        return 1;
    }
    unsigned long code = utf8_code_point(s, *length);
    if (in_ranges(code, zero_width, sizeof zero_width / sizeof *zero_width))
        return 0;
    return in_ranges(code, double_width, sizeof double_width / sizeof *double_width) ? 2 : 1;
}

size_t utf8_width(const char *text)
{
    size_t width = 0, length;
    for (const unsigned char *s = (const unsigned char *)text; *s; s += length)
        width += char_width(s, &length);
    return width;
}

size_t utf8_prefix_for_width(const char *text, size_t columns)
{
    size_t used = 0, width = 0, length;
    const unsigned char *s = (const unsigned char *)text;
    while (s[used]) {
        size_t w = char_width(s + used, &length);
        if (width + w > columns)
            break;
        width += w;
        used += length;
    }
    return used;
}

char *utf8_fit(const char *text, size_t columns)
{
    static const char ellipsis[] = "\xE2\x80\xA6";
    if (utf8_width(text) <= columns)
        return strdup(text);
    size_t keep = columns > 0 ? utf8_prefix_for_width(text, columns - 1) : 0;
    char *copy = malloc(keep + sizeof ellipsis);
    if (copy == NULL)
        return NULL;
    memcpy(copy, text, keep);
    memcpy(copy + keep, ellipsis, sizeof ellipsis);
    return copy;
}

/* UTF-8 validity: the length of one well-formed sequence, and whether a whole text is
 * UTF-8 (experiment files, names stored as YAML, text written into XML and JSON). */
#ifndef VERDICT_COMMON_UTF8_H
#define VERDICT_COMMON_UTF8_H

#include <stdbool.h>
#include <stddef.h>

/* Length (1..4) of the UTF-8 sequence at p, of which `left` bytes may be read, or 0 when it
 * is malformed, truncated, overlong, a surrogate or beyond U+10FFFF. */
size_t utf8_sequence(const unsigned char *p, size_t left);
/* True when text[0..length) is UTF-8 without a NUL byte. */
bool utf8_valid(const char *text, size_t length);

#endif

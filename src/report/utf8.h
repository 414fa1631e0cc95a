/* UTF-8 checks shared by the report writers: which bytes form valid sequences, and text
 * with the invalid ones replaced by U+FFFD for formats that must be valid UTF-8. */
#ifndef VERDICT_REPORT_UTF8_H
#define VERDICT_REPORT_UTF8_H

#include <stdbool.h>
#include <stddef.h>

#define UTF8_REPLACEMENT "\xEF\xBF\xBD"

/* Length of the valid UTF-8 sequence starting at s (NUL-terminated), or 0 when it is not
 * one: overlong forms, surrogates and code points above U+10FFFF are invalid. */
size_t utf8_sequence_length(const unsigned char *s);

/* The code point of the valid sequence of `length` bytes at s. */
unsigned long utf8_code_point(const unsigned char *s, size_t length);

bool utf8_is_valid(const char *text);

/* A copy of text with each byte that does not start a valid sequence replaced by U+FFFD;
 * NULL when out of memory. */
char *utf8_replace_invalid(const char *text);

#endif

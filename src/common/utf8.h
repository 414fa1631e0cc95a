/* UTF-8 validity: the length of one well-formed sequence, whether a whole text is UTF-8,
 * a copy with the bad bytes replaced by U+FFFD, and widths in terminal columns. */
#ifndef VERDICT_COMMON_UTF8_H
#define VERDICT_COMMON_UTF8_H

#include <stdbool.h>
#include <stddef.h>

/* U+FFFD REPLACEMENT CHARACTER, in UTF-8. */
#define UTF8_REPLACEMENT "\xEF\xBF\xBD"

/* Length (1..4) of the UTF-8 sequence at p, of which `left` bytes may be read, or 0 when it
 * is malformed, truncated, overlong, a surrogate or beyond U+10FFFF. */
size_t utf8_sequence(const unsigned char *p, size_t left);
/* The same for a NUL-terminated text: never reads past its terminating NUL. */
size_t utf8_sequence_at(const unsigned char *s);
/* The code point of the well-formed sequence of `length` bytes at p. */
unsigned long utf8_code_point(const unsigned char *p, size_t length);
/* True when text[0..length) is UTF-8 without a NUL byte. */
bool utf8_valid(const char *text, size_t length);
/* A copy of the NUL-terminated text with each byte that does not start a well-formed
 * sequence replaced by U+FFFD; NULL when out of memory. */
char *utf8_replace_invalid(const char *text);

/* Columns a terminal gives the NUL-terminated text: 2 for East Asian wide and fullwidth
 * characters and most emoji, 0 for combining marks and zero-width characters, 1 for the
 * rest (a byte that is not UTF-8 counts 1: it is shown as U+FFFD or an escape). */
size_t utf8_width(const char *text);
/* Bytes of the longest start of text made of whole characters that fits in `columns`. */
size_t utf8_prefix_for_width(const char *text, size_t columns);
/* A copy of text that fits in `columns`: itself, or its start and "…" where it was cut (a
 * visible cut, for table cells and chart labels). NULL when out of memory. */
char *utf8_fit(const char *text, size_t columns);

#endif

/* Untrusted text (names, commands, point ids, warnings) made safe for the plain-text
 * outputs: terminal, Markdown and CSV. Control characters become visible escapes. */
#ifndef VERDICT_REPORT_PLAIN_TEXT_H
#define VERDICT_REPORT_PLAIN_TEXT_H

#include <stddef.h>
#include <stdio.h>

/* Writes text with every byte a terminal could act on shown as an escape instead: C0
 * controls (newline and tab included: a name is one line), DEL, the C1 controls U+0080 to
 * U+009F, bytes that are not valid UTF-8 (an 8-bit terminal reads 0x9B as CSI) as \xNN,
 * and the bidirectional overrides and isolates (U+202A-U+202E, U+2066-U+2069, which can
 * make text read in another order than it is) as \uNNNN. Valid UTF-8 otherwise passes. */
void plain_write(FILE *out, const char *text);

/* The same escaping into buf (NUL-terminated, cut at a whole character or escape when it
 * does not fit); returns the length written. */
size_t plain_escape(const char *text, char *buf, size_t len);

/* The escaped text in a new allocation (NULL when out of memory); the caller frees it. */
char *plain_escaped_copy(const char *text);

/* True when a spreadsheet would read a cell starting with this text as a formula:
 * = + - @ and, as OWASP lists them, tab and carriage return. */
int plain_is_formula_start(const char *text);

#endif

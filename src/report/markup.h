/* Escaping of untrusted text (names, commands, machine facts) for HTML and SVG/XML:
 * markup characters become entities and bytes that are not valid UTF-8 become U+FFFD. */
#ifndef VERDICT_REPORT_MARKUP_H
#define VERDICT_REPORT_MARKUP_H

#include <stdio.h>

#include "common/strbuf.h"

/* Writes text escaped for element content and quoted attribute values alike: & < > " '
 * as entities; control characters XML 1.0 forbids and invalid UTF-8 as U+FFFD. */
void markup_write_escaped(FILE *out, const char *text);
/* The same, appended to a string builder. */
void markup_append_escaped(strbuf *out, const char *text);
/* The same for the first `bytes` bytes of text at most (e.g. a name cut to fit). */
void markup_append_escaped_prefix(strbuf *out, const char *text, size_t bytes);

#endif

/* The string builder: text (or bytes) appended piece by piece into one growing buffer,
 * always NUL-terminated; a failed allocation is remembered and reported once. */
#ifndef VERDICT_COMMON_STRBUF_H
#define VERDICT_COMMON_STRBUF_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"

typedef struct {
    char *data;          /* NUL-terminated when length > 0 or after any append */
    size_t length, capacity;
    bool failed;         /* an allocation failed: the text is incomplete */
} strbuf;

#define STRBUF_INIT {NULL, 0, 0, false}

void strbuf_append(strbuf *b, const char *text);
void strbuf_append_bytes(strbuf *b, const void *bytes, size_t n);
void strbuf_appendf(strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* 0 when every append succeeded, -1 otherwise. */
int strbuf_status(const strbuf *b);
/* The text ("" for an empty builder); valid until the next append or free. */
const char *strbuf_text(const strbuf *b);
/* Hands the buffer over (the caller frees it; NULL after a failure) and empties b. */
char *strbuf_detach(strbuf *b);
void strbuf_clear(strbuf *b);
void strbuf_free(strbuf *b);
/* Appends the whole file at path; 0, or -1 with a message naming the path when it cannot
 * be read, holds a NUL byte, or is longer than limit bytes (never truncated). */
int strbuf_append_file(strbuf *b, const char *path, size_t limit, verdict_error *err);

#endif

/* The string builder: appends with doubling growth; after a failed allocation every later
 * append is a no-op and strbuf_status says so, so that callers check once at the end. */
#include "common/strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>

#include "common/array.h"
#include "common/error.h"

static bool make_room(strbuf *b, size_t more)
{
    if (b->failed)
        return false;
    if (more > (size_t)-1 - b->length - 1 ||
        array_reserve((void **)&b->data, &b->capacity, b->length + more + 1, 1) != 0) {
        b->failed = true;
        return false;
    }
    return true;
}

void strbuf_append_bytes(strbuf *b, const void *bytes, size_t n)
{
    if (!make_room(b, n))
        return;
    if (n > 0)
        memcpy(b->data + b->length, bytes, n);
    b->length += n;
    b->data[b->length] = '\0';
}

void strbuf_append(strbuf *b, const char *text)
{
    strbuf_append_bytes(b, text, strlen(text));
}

void strbuf_appendf(strbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int needed = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (needed < 0) {
        b->failed = true;
        return;
    }
    if (!make_room(b, (size_t)needed))
        return;
    va_start(ap, fmt);
    vsnprintf(b->data + b->length, (size_t)needed + 1, fmt, ap);
    va_end(ap);
    b->length += (size_t)needed;
}

int strbuf_status(const strbuf *b)
{
    return b->failed ? -1 : 0;
}

const char *strbuf_text(const strbuf *b)
{
    return b->data ? b->data : "";
}

char *strbuf_detach(strbuf *b)
{
    char *text = b->failed ? NULL : b->data;
    if (text == NULL && !b->failed)
        text = calloc(1, 1);
    if (b->failed)
        free(b->data);
    *b = (strbuf)STRBUF_INIT;
    return text;
}

void strbuf_clear(strbuf *b)
{
    b->length = 0;
    b->failed = false;
    if (b->data)
        b->data[0] = '\0';
}

void strbuf_free(strbuf *b)
{
    free(b->data);
    *b = (strbuf)STRBUF_INIT;
}

int strbuf_append_file(strbuf *b, const char *path, size_t limit, verdict_error *err)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        error_set(err, ERROR_BAD_INPUT, "%s: %s", path, strerror(errno));
        return -1;
    }
    char chunk[65536];
    size_t got, total = 0;
    const char *problem = NULL;
    while (problem == NULL && (got = fread(chunk, 1, sizeof chunk, f)) > 0) {
        total += got;
        if (total > limit)
            problem = "longer";
        else if (memchr(chunk, '\0', got) != NULL)
            problem = "holds a NUL byte: not text";
        else
            strbuf_append_bytes(b, chunk, got);
    }
    if (problem == NULL && ferror(f))
        problem = "read error";
    fclose(f);
    if (problem == NULL && strbuf_status(b) != 0)
        problem = "out of memory";
    if (problem != NULL && total > limit)
        error_set(err, ERROR_BAD_INPUT, "%s: longer than %zu bytes", path, limit);
    else if (problem != NULL)
        error_set(err, ERROR_BAD_INPUT, "%s: %s", path, problem);
    return problem ? -1 : 0;
}

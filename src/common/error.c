/* The error value: setting it, putting context in front of its message, and naming kinds.
 * Messages are cut at ERROR_MESSAGE_SIZE with "..." so that a cut is visible. */
#include "common/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* A message that did not fit ends in "...", never silently short. */
static void mark_if_cut(char *text, size_t size, int written)
{
    if (written >= 0 && (size_t)written >= size && size > 4)
        memcpy(text + size - 4, "...", 4);
}

int error_set(verdict_error *err, error_kind kind, const char *fmt, ...)
{
    if (err == NULL)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    int written = vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    mark_if_cut(err->message, sizeof err->message, written);
    err->kind = kind;
    return -1;
}

int error_text(char *err, size_t errlen, const char *fmt, ...)
{
    if (err == NULL || errlen == 0)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    int written = vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    mark_if_cut(err, errlen, written);
    return -1;
}

int error_prefix(verdict_error *err, const char *fmt, ...)
{
    if (err == NULL)
        return -1;
    char context[ERROR_MESSAGE_SIZE], old[ERROR_MESSAGE_SIZE];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(context, sizeof context, fmt, ap);
    va_end(ap);
    memcpy(old, err->message, sizeof old);
    int written = snprintf(err->message, sizeof err->message, "%s: %s", context, old);
    mark_if_cut(err->message, sizeof err->message, written);
    if (err->kind == ERROR_NONE)
        err->kind = ERROR_INTERNAL;
    return -1;
}

int error_from_text(verdict_error *err, error_kind kind, const char *text)
{
    return error_set(err, kind, "%s", text && text[0] ? text : "out of memory");
}

void error_clear(verdict_error *err)
{
    err->kind = ERROR_NONE;
    err->message[0] = '\0';
}

const char *error_kind_name(error_kind kind)
{
    switch (kind) {
    case ERROR_NONE: return "none";
    case ERROR_USAGE: return "usage";
    case ERROR_BAD_INPUT: return "bad input";
    case ERROR_COMMAND_FAILED: return "command failed";
    case ERROR_INTERRUPTED: return "interrupted";
    case ERROR_INTERNAL: return "internal";
    }
    return "internal";
}

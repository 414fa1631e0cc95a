/* The error value: setting it, putting context in front of its message, and the one table
 * of kinds (name, exit status). Messages are cut with "..." so a cut is visible. */
#include "common/error.h"

#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Indexed by error_kind; a test checks every kind has a row and distinct names. */
static const error_kind_row error_kind_table[ERROR_KIND_COUNT] = {
    [ERROR_NONE] = {"none", 0},
    [ERROR_USAGE] = {"usage", 2},
    [ERROR_BAD_INPUT] = {"bad input", 2},
    [ERROR_COMMAND_FAILED] = {"command failed", 3},
    [ERROR_INTERRUPTED] = {"interrupted", 130},
    [ERROR_INTERNAL] = {"internal", 1},
    [ERROR_NO_MEMORY] = {"no memory", 1},
    [ERROR_STORE] = {"store", 1},
    [ERROR_STORE_LOCKED] = {"store locked", 2},
    [ERROR_PLAN_CHANGED] = {"plan changed", 2},
    [ERROR_CLAIM_LOST] = {"claim lost", 1},
};

/* A message that did not fit ends in "...", never silently short. */
static void mark_if_cut(char *text, size_t size, int written)
{
    if (written >= 0 && (size_t)written >= size && size > 4)
        memcpy(text + size - 4, "...", 4);
}

int error_set(verdict_error *err, error_kind kind, const char *fmt, ...)
{
    assert(kind > ERROR_NONE && kind < ERROR_KIND_COUNT);
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

int error_no_memory(verdict_error *err)
{
    return error_set(err, ERROR_NO_MEMORY, "out of memory");
}

int error_prefix(verdict_error *err, const char *fmt, ...)
{
    if (err == NULL)
        return -1;
    assert(err->kind != ERROR_NONE);
    char context[ERROR_MESSAGE_SIZE], old[ERROR_MESSAGE_SIZE];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(context, sizeof context, fmt, ap);
    va_end(ap);
    memcpy(old, err->message, sizeof old);
    int written = snprintf(err->message, sizeof err->message, "%s: %s", context, old);
    mark_if_cut(err->message, sizeof err->message, written);
    return -1;
}

int error_copy(verdict_error *to, const verdict_error *from)
{
    assert(from != NULL && from->kind != ERROR_NONE);
    if (to != NULL && to != from)
        memcpy(to, from, sizeof *to);
    return -1;
}

void error_clear(verdict_error *err)
{
    err->kind = ERROR_NONE;
    err->message[0] = '\0';
}

int error_is(const verdict_error *err, error_kind kind)
{
    return err != NULL && err->kind == kind;
}

const error_kind_row *error_kind_info(error_kind kind)
{
    if ((int)kind < 0 || kind >= ERROR_KIND_COUNT)
        return &error_kind_table[ERROR_INTERNAL];
    return &error_kind_table[kind];
}

const char *error_kind_name(error_kind kind)
{
    return error_kind_info(kind)->name;
}

int error_exit_status(error_kind kind)
{
    return error_kind_info(kind)->exit_status;
}

/* The error value every layer above the libraries passes up: a kind, which decides the exit
 * status once at the top, and a message that names the file, line and value at fault. */
#ifndef VERDICT_COMMON_ERROR_H
#define VERDICT_COMMON_ERROR_H

#include <stddef.h>

typedef enum {
    ERROR_NONE = 0,
    ERROR_USAGE,          /* the command line or an experiment file is wrong: exit 2 */
    ERROR_BAD_INPUT,      /* data verdict was given cannot be used (a sample file): exit 2 */
    ERROR_COMMAND_FAILED, /* a benchmarked command, a build or a server failed: exit 3 */
    ERROR_INTERRUPTED,    /* a stop was requested (Ctrl-C, SIGTERM): exit 130 */
    ERROR_INTERNAL        /* out of memory, a store that cannot be written: exit 1 */
} error_kind;

#define ERROR_MESSAGE_SIZE 2048

typedef struct {
    error_kind kind;
    char message[ERROR_MESSAGE_SIZE];
} verdict_error;

/* Sets kind and message; returns -1 so that callers can `return error_set(...)`. */
int error_set(verdict_error *err, error_kind kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Puts "context: " before the message already there (the kind stays). Returns -1. */
int error_prefix(verdict_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Takes a message written by a library into (char *, size_t) buffers. Returns -1. */
int error_from_text(verdict_error *err, error_kind kind, const char *text);
/* For layers that report errors as text into (char *, size_t) buffers (store, pg): formats
 * into err, which may be NULL or empty; a cut message ends in "...". Returns -1. */
int error_text(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void error_clear(verdict_error *err);
const char *error_kind_name(error_kind kind);

#endif

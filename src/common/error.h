/* The one error value every layer passes up: a kind, which decides the exit status once at
 * the top, and a message that names the file, line and value at fault. */
#ifndef VERDICT_COMMON_ERROR_H
#define VERDICT_COMMON_ERROR_H

#include <stddef.h>

/* Every failure verdict can report, each with one distinct code. The kind is set where the
 * failure is known (the store knows its file is full, the loader that a key is wrong) and
 * travels up unchanged: no caller converts or guesses it. error_kind_info gives each kind's
 * name and exit status from one table (common/error.c), as sqlite3ErrStr does. */
typedef enum {
    ERROR_NONE = 0,
    ERROR_USAGE,          /* the command line or an experiment file is wrong: exit 2 */
    ERROR_BAD_INPUT,      /* data verdict was given cannot be used (a sample file): exit 2 */
    ERROR_COMMAND_FAILED, /* a benchmarked command, a build or a server failed: exit 3 */
    ERROR_INTERRUPTED,    /* a stop was requested (Ctrl-C, SIGTERM): exit 130 */
    ERROR_INTERNAL,       /* an invariant broken, a system call that cannot fail failed: exit 1 */
    ERROR_NO_MEMORY,      /* an allocation failed: exit 1 */
    ERROR_STORE,          /* the results store cannot be read or written (full, damaged,
                             unreachable, read-only): exit 1 */
    ERROR_STORE_LOCKED,   /* another verdict holds the store for writing: exit 2 */
    ERROR_PLAN_CHANGED,   /* the stored experiment has another plan than the file's: exit 2 */
    ERROR_CLAIM_LOST,     /* a shared block is no longer this worker's (nothing was written);
                             the engine handles it, it never reaches the top */
    ERROR_KIND_COUNT      /* not a kind: the size of the table */
} error_kind;

#define ERROR_MESSAGE_SIZE 2048

typedef struct {
    error_kind kind;
    char message[ERROR_MESSAGE_SIZE];
} verdict_error;

/* One row of the table of kinds. */
typedef struct {
    const char *name;     /* "usage", "store locked": for logs and tests */
    int exit_status;      /* what the command exits with when this kind reaches the top */
} error_kind_row;

/* Sets kind and message; returns -1 so that callers can `return error_set(...)`.
 * err may be NULL (the caller does not want the message). kind is never ERROR_NONE. */
int error_set(verdict_error *err, error_kind kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* error_set(err, ERROR_NO_MEMORY, "out of memory"). Returns -1. */
int error_no_memory(verdict_error *err);
/* Puts "context: " before the message already there; the kind stays as it was set (an
 * error must have been set before). Returns -1. */
int error_prefix(verdict_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Copies an error (its kind and message) into another; returns -1. */
int error_copy(verdict_error *to, const verdict_error *from);
void error_clear(verdict_error *err);
/* True when err holds an error of this kind. */
int error_is(const verdict_error *err, error_kind kind);

/* The table's row for a kind (an unknown value gets ERROR_INTERNAL's). */
const error_kind_row *error_kind_info(error_kind kind);
const char *error_kind_name(error_kind kind);
int error_exit_status(error_kind kind);

#endif

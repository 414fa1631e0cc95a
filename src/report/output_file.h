/* Writes an export: a regular file (or a new one) atomically, into a temporary file beside
 * it renamed over it when complete; anything else (a device, a FIFO, /dev/stdout) directly. */
#ifndef VERDICT_REPORT_OUTPUT_FILE_H
#define VERDICT_REPORT_OUTPUT_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "common/error.h"

typedef struct {
    FILE *stream;
    const char *path;
    char *target;      /* the file renamed over (symbolic links resolved); NULL: direct */
    char *temporary;   /* NULL when written directly */
    bool borrowed;     /* stream is stdout or stderr: flushed, never closed */
} output_file;

/* "-" is standard output. A path naming the file standard output or standard error
 * already write to (/dev/stdout, /proc/self/fd/2, the file of a `>` redirection) is
 * written through that stream; anything else that is not a regular file (a character
 * device such as /dev/null, a FIFO, a terminal) is opened and written in place: renaming
 * a file over it would replace the device node or the link, and a FIFO's reader would get
 * nothing. A directory, or a symbolic link to nothing, is refused. Returns 0, or -1 with
 * a message naming the path. */
int output_open(output_file *out, const char *path, verdict_error *err);
/* Flushes; for an atomic write also syncs and renames into place. Closes in every case. */
int output_commit(output_file *out, verdict_error *err);
/* Gives up: closes, and removes the temporary file. */
void output_abandon(output_file *out);

/* Whether output_open could write path, asked before a run so that a bad --json is known
 * before an hour of measurements: nothing is created, truncated or renamed. A new or
 * regular file needs its directory to exist and take new files (the temporary file renamed
 * over it); a device or a FIFO needs write permission; "-" and verdict's own stdout or
 * stderr always pass. 0, or -1 with a message naming the path and the reason. */
int output_check(const char *path, verdict_error *err);
/* The same for a directory of exports (--svg DIR): an existing writable directory, or one
 * its parent directory can take (only DIR itself is created). */
int output_check_dir(const char *path, verdict_error *err);

#endif

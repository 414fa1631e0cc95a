/* Writes an export atomically: into a temporary file beside the target, renamed over it
 * only when complete, so an interrupted write never leaves half a report. "-" is stdout. */
#ifndef VERDICT_REPORT_OUTPUT_FILE_H
#define VERDICT_REPORT_OUTPUT_FILE_H

#include <stddef.h>
#include <stdio.h>

typedef struct {
    FILE *stream;
    const char *path;
    char *temporary;   /* NULL for stdout */
} output_file;

int output_open(output_file *out, const char *path, char *err, size_t errlen);
/* Flushes, syncs and renames into place; closes in every case. */
int output_commit(output_file *out, char *err, size_t errlen);
/* Gives up: closes and removes the temporary file. */
void output_abandon(output_file *out);

#endif

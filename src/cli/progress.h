/* The live progress line of long runs: block, elapsed time, ETA and the latest estimate,
 * redrawn in place on a terminal and never written when stderr is not one. */
#ifndef VERDICT_CLI_PROGRESS_H
#define VERDICT_CLI_PROGRESS_H

#include <stdbool.h>
#include <stdio.h>

#include "lab/engine.h"

typedef struct {
    FILE *stream;
    const char *noun;   /* what the line counts when there are several: "point" (NULL) or
                           "experiment" (verdict calibrate) */
    bool enabled;
    bool drawn;
} progress_line;

void progress_init(progress_line *line, FILE *stream);
/* A lab_progress_fn: the context is the progress_line. With several points the line
 * starts "point 2/6 clients=4 · " (its noun instead of "point" when it has one). */
void progress_update(void *line, const lab_progress *progress);
/* Erases the line so that the report starts on a clean one. */
void progress_clear(progress_line *line);

/* "12.3s", "4m05s", "2h10m": durations as the progress line and the plan show them. */
void progress_format_duration(double seconds, char *buf, size_t len);

#endif

/* Draws the progress line with a carriage return and an erase-to-end-of-line escape;
 * formats durations as a person reads them (8.3s, 1m20s). */
#include "cli/progress.h"

#include <math.h>
#include <unistd.h>

void progress_init(progress_line *line, FILE *stream)
{
    line->stream = stream;
    line->noun = NULL;
    line->enabled = isatty(fileno(stream));
    line->drawn = false;
}

void progress_format_duration(double seconds, char *buf, size_t len)
{
    if (seconds < 60)
        snprintf(buf, len, "%.1fs", seconds);
    else if (seconds < 3600)
        snprintf(buf, len, "%dm%02ds", (int)(seconds / 60), (int)fmod(seconds, 60));
    else
        snprintf(buf, len, "%dh%02dm", (int)(seconds / 3600), (int)fmod(seconds / 60, 60));
}

static void print_latest_estimate(FILE *f, const analysis_result *latest)
{
    if (latest == NULL || latest->n_comparisons == 0 || !latest->comparisons[0].ok)
        return;
    const comparison *c = &latest->comparisons[0].result;
    fprintf(f, " · change %+.1f%% [%+.1f%%, %+.1f%%]", (c->ratio - 1) * 100,
            (c->ci_low - 1) * 100, (c->ci_high - 1) * 100);
}

void progress_update(void *context, const lab_progress *p)
{
    progress_line *line = context;
    if (!line->enabled)
        return;
    char elapsed[32], eta[32];
    progress_format_duration(p->elapsed, elapsed, sizeof elapsed);
    fputs("\r\033[K", line->stream);
    if (p->n_points > 1)
        fprintf(line->stream, "%s %zu/%zu %s · ", line->noun ? line->noun : "point", p->position,
                p->n_points, p->point_id);
    fprintf(line->stream, "block %zu/%zu · %s", p->blocks_done, p->blocks_planned, elapsed);
    if (p->eta >= 0) {
        progress_format_duration(p->eta, eta, sizeof eta);
        fprintf(line->stream, " · %s %s left", p->next_look ? "at most" : "about", eta);
    }
    if (p->next_look)
        fprintf(line->stream, " · next look at block %zu", p->next_look);
    print_latest_estimate(line->stream, p->latest);
    fflush(line->stream);
    line->drawn = true;
}

void progress_clear(progress_line *line)
{
    if (line->enabled && line->drawn) {
        fputs("\r\033[K", line->stream);
        fflush(line->stream);
    }
    line->drawn = false;
}

/* libFuzzer target for the peer-file readers (hyperfine to JMH) and the comparison made of them:
 * any bytes give series of positive finite values and a plan, or a message; no crash or leak. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/peer_files.h"
#include "common/error.h"
#include "core/peer_plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The first byte picks the options: bits 0-2 the format, bits 3-4 -C and -d, bits 5-6
 * --metric (a JMH secondary among them); seeds begin with 0 (detected by content). */
static peer_options options_of(uint8_t selector)
{
    static const peer_format formats[] = {PEER_AUTO, PEER_NUMBERS, PEER_HYPERFINE, PEER_GO,
                                          PEER_GBENCH, PEER_PYPERF, PEER_CRITERION, PEER_JMH};
    static const char *const metrics[] = {NULL, "B/op", "cpu_time", "gc.alloc.rate.norm"};
    static const sample_layout layouts[] = {{0, NULL}, {2, NULL}, {0, ","}, {2, ","}};
    return (peer_options){.format = formats[selector & 7],
                          .layout = layouts[(selector >> 3) & 3],
                          .metric = metrics[(selector >> 5) & 3]};
}

static void check_file(const peer_file *f)
{
    if (f->n == 0)
        abort();
    for (size_t i = 0; i < f->n_warnings; i++)
        if (f->warnings[i] == NULL || f->warnings[i][0] == '\0')
            abort();
    for (size_t i = 0; i < f->n; i++) {
        const sample_series *s = &f->series[i].samples;
        /* a series of failed runs only (hyperfine's exit_codes) is kept for the report */
        if ((s->n == 0 && f->series[i].failed.n == 0) || f->series[i].metric == NULL)
            abort();
        for (size_t k = 0; k < f->series[i].failed.n; k++)
            if (f->series[i].failed_exits[k] == 0)
                abort();
        for (size_t k = 0; k < s->n; k++)
            if (!(s->values[k] > 0.0) || !isfinite(s->values[k]))
                abort();
    }
}

/* The file against itself: every column's series is one of the file's. */
static void check_plan(const peer_file *f)
{
    peer_file files[2] = {*f, *f};
    const char *names[] = {"a", "b"};
    peer_plan plan;
    verdict_error err = {0};
    if (peer_plan_build(files, names, 2, &plan, &err) != 0) {
        if (err.kind == ERROR_NONE || err.message[0] == '\0' || plan.columns != NULL)
            abort();
        return;
    }
    if (plan.n_columns < 2 || plan.n_points == 0)
        abort();
    for (size_t k = 0; k < plan.n_columns; k++)
        if (plan.columns[k].series < f->series || plan.columns[k].series >= f->series + f->n)
            abort();
    peer_plan_free(&plan);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    peer_options o = options_of(data[0]);
    peer_file f;
    verdict_error err = {0};
    if (peer_text_parse("fuzz", (const char *)data + 1, size - 1, &o, &f, &err) == 0) {
        check_file(&f);
        check_plan(&f);
        peer_file_free(&f);
    } else if (err.kind == ERROR_NONE || err.message[0] == '\0' || f.series != NULL) {
        abort();
    }
    return 0;
}

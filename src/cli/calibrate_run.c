/* verdict calibrate's runs: each A/A experiment built as `verdict CMD CMD` builds its
 * experiment, run by the engine with the progress line and the stop flag, read back. */
#include "cli/calibrate_run.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/progress.h"
#include "cli/stop_signal.h"
#include "core/experiment_writer.h"
#include "lab/lab_report.h"
#include "lab/lab_series.h"
#include "lab/lab_store.h"
#include "targets/command_target.h"

/* Trials of the in-process sizing, and the rounds each spins (a few milliseconds here). */
#define SIZING_TRIALS 5
#define SIZING_ROUNDS 1000000u
#define ROUNDS_STEP 100000u

uint64_t calibrate_spin(uint64_t rounds)
{
    uint64_t x = 0x9e3779b97f4a7c15ULL;
    /* examples/spin's loop, copied: the example is a program of its own, built without
       sanitizers, and is not installed; this one must be there on a fresh install */
    for (uint64_t i = 0; i < rounds; i++) {
        /* each round needs the previous one: the CPU cannot overlap them */
        x ^= x >> 29;
        x *= 0xbf58476d1ce4e5b9ULL;
        x += i;
    }
    return x;
}

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

uint64_t calibrate_spin_rounds_for(double seconds)
{
    double fastest = 0.0;
    volatile uint64_t sink = 0; /* keeps the trials from being optimised away */
    for (int t = 0; t < SIZING_TRIALS; t++) {
        double start = seconds_now();
        sink += calibrate_spin(SIZING_ROUNDS);
        double took = seconds_now() - start;
        fastest = t == 0 || took < fastest ? took : fastest;
    }
    (void)sink;
    double rounds = fastest > 0 ? seconds / fastest * SIZING_ROUNDS : SIZING_ROUNDS;
    uint64_t steps = (uint64_t)(rounds / ROUNDS_STEP + 0.5);
    return (steps ? steps : 1) * ROUNDS_STEP;
}

/* The progress of the whole series: "experiment 3/20 A/A · block 5/20 · 12.3s · about 1m left". */
typedef struct {
    progress_line line;
    size_t index, experiments, runs;
    double before;              /* seconds in the experiments before this one */
} series_progress;

static void show_progress(void *context, const lab_progress *p)
{
    series_progress *s = context;
    size_t done = s->index * s->runs + p->blocks_done, total = s->experiments * s->runs;
    double elapsed = s->before + p->elapsed;
    lab_progress whole = {.position = s->index + 1, .n_points = s->experiments,
                          .point_id = "A/A", .blocks_done = p->blocks_done,
                          .blocks_planned = p->blocks_planned, .elapsed = elapsed,
                          .eta = done > 0 ? elapsed / (double)done * (double)(total - done) : -1};
    progress_update(&s->line, &whole);
}

/* Experiment i: the command as variants A and B, R blocks, its own seed and name. */
static int build_experiment(const calibrate_plan *p, size_t i, experiment *e, verdict_error *err)
{
    const char *commands[] = {p->command, p->command}, *names[] = {"A", "B"};
    command_line_spec spec = {.commands = commands, .n_commands = 2, .names = names,
                              .n_names = 2, .runs = p->runs, .warmup = 1, .seed = p->seed + i,
                              .has_seed = true, .confidence = 0.95, .margin = 0.01};
    if (command_experiment(&spec, e, err) != 0)
        return -1;
    char name[64];
    snprintf(name, sizeof name, "calibrate-%llu-%zu", (unsigned long long)p->seed, i + 1);
    free(e->name);
    e->name = strdup(name);
    return e->name && experiment_set_written_text(e) == 0 ? 0 : error_no_memory(err);
}

/* One experiment's blocks read back from the store. */
typedef struct {
    double *a, *b;
    bool *a_first;
    long *seq_a, *seq_b;
    size_t runs, measured;
} block_reader;

static int read_sample(void *context, const store_sample *s)
{
    block_reader *r = context;
    if (s->block < 0 || (size_t)s->block >= r->runs ||
        !lab_sample_measured(s->exit_code, s->timed_out))
        return 0;
    bool is_a = strcmp(s->variant, "A") == 0;
    (is_a ? r->a : r->b)[s->block] = s->wall;
    (is_a ? r->seq_a : r->seq_b)[s->block] = s->seq;
    r->measured++;
    return 0;
}

static int read_blocks(store *db, int64_t id, size_t runs, double *a, double *b, bool *a_first,
                       verdict_error *err)
{
    long *seq = calloc(2 * runs, sizeof *seq);
    block_reader r = {a, b, a_first, seq, seq ? seq + runs : NULL, runs, 0};
    int rc = seq ? store_for_each_sample(db, id, read_sample, &r, err) : error_no_memory(err);
    if (rc == 0 && r.measured != 2 * runs)
        rc = error_set(err, ERROR_INTERNAL, "calibrate: %zu runs of %zu were measured",
                       r.measured, 2 * runs);
    for (size_t i = 0; rc == 0 && i < runs; i++)
        a_first[i] = r.seq_a[i] < r.seq_b[i];
    free(seq);
    return rc;
}

static int run_one(const calibrate_plan *p, series_progress *progress, calibrate_runs *out,
                   verdict_error *err)
{
    experiment e;
    store *db = NULL;
    int64_t id = 0;
    bool existing = false;
    lab_outcome outcome = {0};
    size_t at = out->done * p->runs;
    int rc = build_experiment(p, out->done, &e, err);
    if (rc == 0)
        rc = lab_open_store(p->store_path, &e, &db, &id, &existing, err);
    if (rc == 0) {
        lab_config c = {.e = &e, .db = db, .experiment_id = id,
                        .analysis = lab_default_analysis(&e),
                        .progress = p->progress ? show_progress : NULL,
                        .progress_context = progress, .stop = stop_signal_flag(),
                        .machine = "", .worker = "calibrate"};
        rc = lab_run(&c, &outcome, err);
        out->elapsed += outcome.elapsed;
    }
    if (rc == 0)
        rc = read_blocks(db, id, p->runs, out->a + at, out->b + at, out->a_first + at, err);
    if (rc == 0)
        out->done++;
    store_close(db);
    experiment_free(&e);
    return rc;
}

int calibrate_run(const calibrate_plan *p, calibrate_runs *out, verdict_error *err)
{
    assert(p->experiments >= 1 && p->runs >= 2);
    size_t n = p->experiments * p->runs;
    *out = (calibrate_runs){.a = malloc(n * sizeof *out->a), .b = malloc(n * sizeof *out->b),
                            .a_first = malloc(n * sizeof *out->a_first), .runs = p->runs};
    if (!out->a || !out->b || !out->a_first)
        return error_no_memory(err);
    series_progress progress = {.experiments = p->experiments, .runs = p->runs};
    progress_init(&progress.line, stderr);
    progress.line.noun = "experiment";
    stop_signal_install();
    int rc = 0;
    while (rc == 0 && out->done < p->experiments) {
        progress.index = out->done;
        progress.before = out->elapsed;
        rc = run_one(p, &progress, out, err);
    }
    progress_clear(&progress.line);
    return rc;
}

void calibrate_runs_free(calibrate_runs *runs)
{
    free(runs->a);
    free(runs->b);
    free(runs->a_first);
    *runs = (calibrate_runs){0};
}

/* The benchmark loop: warmup, then blocks of every variant in seeded shuffled order, each
 * run measured with the machine's interference around it, until done, decided or stopped. */
#include "core/session.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/schedule.h"

extern char **environ;

#define ENV_PAD_NAME "VERDICT_ENV_PAD="
#define ENV_PAD_MAX 4096

/* Everything a session needs while it runs; freed in one place. */
typedef struct {
    const session_config *config;
    volatile sig_atomic_t *stop;
    session_outcome *out;
    char **envp_of_variant[64];     /* per variant: environ + extra_env + the pad */
    char *pad;                      /* "VERDICT_ENV_PAD=xxxx...", cut per run */
    interference_probe probe;
    bool probe_open;
    double start;
    long seq;
    bool *done;                     /* done[block * n_variants + variant]: preloaded */
    size_t done_blocks;             /* blocks the done map covers */
} session_state;

static size_t count_words(char *const *words)
{
    size_t n = 0;
    while (words && words[n])
        n++;
    return n;
}

/* environ, then the variant's own variables, then the pad (changed before every run). */
static char **build_envp(char *const *extra, char *pad)
{
    size_t base = count_words(environ), more = count_words(extra);
    char **envp = calloc(base + more + 2, sizeof *envp);
    if (envp == NULL)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < base; i++)
        if (strncmp(environ[i], ENV_PAD_NAME, strlen(ENV_PAD_NAME)) != 0)
            envp[k++] = environ[i];
    for (size_t i = 0; i < more; i++)
        envp[k++] = extra[i];
    if (pad)
        envp[k++] = pad;
    return envp;
}

static session_sample *new_sample(session_outcome *out);

/* Copies the stored samples in and marks their (block, variant) as done. */
static int preload_samples(session_state *st)
{
    const session_config *c = st->config;
    st->done_blocks = c->adaptive ? c->stopping.max_blocks : c->runs;
    st->done = calloc(st->done_blocks * c->n_variants + 1, sizeof *st->done);
    if (st->done == NULL)
        return -1;
    for (size_t i = 0; i < c->n_preloaded; i++) {
        const session_sample *p = &c->preloaded[i];
        if (p->block < 0 || (size_t)p->block >= st->done_blocks || p->variant >= c->n_variants)
            continue;
        session_sample *s = new_sample(st->out);
        if (s == NULL)
            return -1;
        *s = *p;
        s->run.stdout_text = NULL;
        st->out->n_samples++;
        st->done[(size_t)p->block * c->n_variants + p->variant] = true;
        if (p->seq >= st->seq)
            st->seq = p->seq + 1;
    }
    return 0;
}

static int prepare_state(session_state *st, char *err, size_t errlen)
{
    const session_config *c = st->config;
    if (c->n_variants > sizeof st->envp_of_variant / sizeof st->envp_of_variant[0]) {
        snprintf(err, errlen, "too many variants (at most 64)");
        return -1;
    }
    if (c->randomize_env) {
        st->pad = malloc(strlen(ENV_PAD_NAME) + ENV_PAD_MAX + 1);
        if (st->pad == NULL)
            goto nomem;
        strcpy(st->pad, ENV_PAD_NAME);
        memset(st->pad + strlen(ENV_PAD_NAME), 'x', ENV_PAD_MAX);
        st->pad[strlen(ENV_PAD_NAME) + ENV_PAD_MAX] = '\0';
    }
    for (size_t v = 0; v < c->n_variants; v++)
        if ((st->envp_of_variant[v] = build_envp(c->variants[v].extra_env, st->pad)) == NULL)
            goto nomem;
    if (preload_samples(st) != 0)
        goto nomem;
    st->probe_open = interference_probe_open(&st->probe) == 0;
    return 0;
nomem:
    snprintf(err, errlen, "out of memory");
    return -1;
}

static void release_state(session_state *st)
{
    for (size_t v = 0; v < sizeof st->envp_of_variant / sizeof st->envp_of_variant[0]; v++)
        free(st->envp_of_variant[v]);
    free(st->pad);
    free(st->done);
    if (st->probe_open)
        interference_probe_close(&st->probe);
}

/* A new environment size for every run: it moves the stack, and with it alignment
 * effects that would otherwise favour one variant for the whole session. */
static void shuffle_env_pad(session_state *st)
{
    if (st->pad == NULL)
        return;
    uint64_t r = schedule_mix(st->config->seed, (uint64_t)st->seq, 0xe7);
    size_t length = (size_t)(r % ENV_PAD_MAX);
    memset(st->pad + strlen(ENV_PAD_NAME), 'x', ENV_PAD_MAX);
    st->pad[strlen(ENV_PAD_NAME) + length] = '\0';
}

static void describe_failure(session_state *st, const char *what, const run_result *r)
{
    char *f = st->out->failure;
    size_t size = sizeof st->out->failure;
    int n;
    if (r->timed_out)
        n = snprintf(f, size, "%s timed out after %.3g s", what, st->config->timeout);
    else if (r->term_signal)
        n = snprintf(f, size, "%s was killed by signal %d (%s)", what, r->term_signal,
                     strsignal(r->term_signal));
    else
        n = snprintf(f, size, "%s exited with status %d", what, r->exit_code);
    if (n > 0 && (size_t)n < size && r->stderr_tail[0])
        snprintf(f + n, size - (size_t)n, "; the end of its stderr:\n%s", r->stderr_tail);
}

/* Runs an unmeasured helper command (setup, prepare, cleanup). */
static int run_helper(session_state *st, const command_words *words, const char *role,
                      char *err, size_t errlen)
{
    if (words->n == 0)
        return 0;
    run_request request = {.argv = words->words, .envp = environ, .cwd = st->config->helper_cwd,
                           .timeout = st->config->timeout};
    run_result r;
    if (runner_execute(&request, st->stop, &r, err, errlen) != 0)
        return -1;
    run_result_free(&r);
    if (r.interrupted)
        return 1;
    if (r.exit_code != 0 || r.timed_out) {
        char what[128];
        snprintf(what, sizeof what, "the %s command", role);
        describe_failure(st, what, &r);
        return 2;
    }
    return 0;
}

static bool needs_stdout(const session_config *c)
{
    for (size_t m = 0; m < c->n_metrics; m++)
        if (c->metrics[m].kind == METRIC_REGEX || c->metrics[m].kind == METRIC_CUSTOM)
            return true;
    return false;
}

static session_sample *new_sample(session_outcome *out)
{
    if (out->n_samples == out->capacity) {
        size_t grown = out->capacity ? out->capacity * 2 : 64;
        session_sample *samples = realloc(out->samples, grown * sizeof *samples);
        if (samples == NULL)
            return NULL;
        out->samples = samples;
        out->capacity = grown;
    }
    session_sample *s = &out->samples[out->n_samples];
    memset(s, 0, sizeof *s);
    return s;
}

/* Turns a finished run into metric values; -1 when a metric cannot be read. */
static int measure_metrics(session_state *st, session_sample *s, char *why, size_t whylen)
{
    for (size_t m = 0; m < st->config->n_metrics; m++)
        if (metric_value(&st->config->metrics[m], &s->run, &s->values[m], why, whylen) != 0)
            return -1;
    return 0;
}

static void judge_interference(session_state *st, const cpu_snapshot *before, session_sample *s)
{
    cpu_snapshot after;
    s->noise.steal = s->noise.other_busy = s->noise.resolution = NAN;
    if (!st->probe_open || interference_probe_snapshot(&st->probe, &after) != 0)
        return;
    interference_between(before, &after, s->run.user + s->run.sys, &s->noise);
    if (st->config->server_does_the_work)
        s->noise.other_busy = NAN;
    s->tainted = interference_is_disturbing(&s->noise, s->taint_reason, sizeof s->taint_reason);
}

/* One measured run; returns 0, 1 when interrupted, 2 when it failed, -1 on a system error. */
static int measure_once(session_state *st, size_t v, long block, char *err, size_t errlen)
{
    const session_config *c = st->config;
    int rc = run_helper(st, &c->prepare, "prepare", err, errlen);
    if (rc != 0)
        return rc;
    shuffle_env_pad(st);
    session_sample *s = new_sample(st->out);
    if (s == NULL) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    run_request request = {.argv = c->variants[v].argv.words, .envp = st->envp_of_variant[v],
                           .cwd = c->variants[v].cwd, .timeout = c->timeout, .pin = c->pin,
                           .capture_stdout = needs_stdout(c)};
    if (c->before_run) {
        char *const *argv = NULL;
        char why[768] = "";
        if (c->before_run(c->run_context, v, &request, st->stop, &argv, why, sizeof why) != 0) {
            if (c->after_run)
                c->after_run(c->run_context, v);
            if (*st->stop)
                return 1; /* interrupted before it was measured */
            snprintf(st->out->failure, sizeof st->out->failure, "%s: %s", c->variants[v].name, why);
            return 2;
        }
        if (argv)
            request.argv = argv;
    }
    cpu_snapshot before;
    bool have_before = st->probe_open && interference_probe_snapshot(&st->probe, &before) == 0;
    s->started = runner_monotonic_seconds() - st->start;
    int ran = runner_execute(&request, st->stop, &s->run, err, errlen);
    if (ran == 0 && have_before)
        judge_interference(st, &before, s);
    if (c->after_run)
        c->after_run(c->run_context, v);
    if (ran != 0)
        return -1;
    s->variant = v;
    s->block = block;
    s->seq = st->seq++;
    if (s->run.interrupted) {
        run_result_free(&s->run);
        return 1;
    }
    char why[256] = "";
    bool metrics_read = measure_metrics(st, s, why, sizeof why) == 0;
    bool exited_badly = s->run.exit_code != 0 || s->run.timed_out;
    run_result_free(&s->run);
    if ((exited_badly || !metrics_read) && !c->ignore_failure) {
        char what[512];
        snprintf(what, sizeof what, "'%s' (%s)", c->variants[v].line, c->variants[v].name);
        if (exited_badly)
            describe_failure(st, what, &s->run);
        else
            snprintf(st->out->failure, sizeof st->out->failure, "%s: %s", what, why);
        return 2;
    }
    /* with --ignore-failure a value that could not be read stays missing (NaN) */
    for (size_t m = 0; m < c->n_metrics; m++)
        if (!metrics_read && !(s->values[m] > 0))
            s->values[m] = NAN;
    if (block >= 0 && c->on_sample && c->on_sample(c->sample_context, s, err, errlen) != 0)
        return -1;
    st->out->n_samples++;
    return 0;
}

/* Re-runs a failed run up to config->retries times before the failure counts. */
static int measure_with_retries(session_state *st, size_t v, long block, char *err, size_t errlen)
{
    int rc = measure_once(st, v, block, err, errlen);
    for (int attempt = 0; rc == 2 && attempt < st->config->retries; attempt++)
        rc = measure_once(st, v, block, err, errlen);
    return rc;
}

static int run_warmup(session_state *st, char *err, size_t errlen)
{
    const session_config *c = st->config;
    for (size_t w = 0; w < c->warmup; w++)
        for (size_t v = 0; v < c->n_variants; v++) {
            int rc = measure_with_retries(st, v, -1, err, errlen);
            if (rc != 0)
                return rc;
            st->out->n_samples--; /* warmup runs are not kept */
        }
    return 0;
}

static int run_block(session_state *st, size_t block, char *err, size_t errlen)
{
    const session_config *c = st->config;
    size_t order[64];
    schedule_block_order(c->seed, c->point, block, c->n_variants, order);
    for (size_t i = 0; i < c->n_variants; i++) {
        if (block < st->done_blocks && st->done[block * c->n_variants + order[i]])
            continue;
        int rc = measure_with_retries(st, order[i], (long)block, err, errlen);
        if (rc != 0)
            return rc;
    }
    st->out->complete_blocks = block + 1;
    return 0;
}

void session_series(const session_config *config, const session_outcome *outcome,
                    size_t metric, double *values, analysis_series *series)
{
    size_t blocks = outcome->complete_blocks, n = config->n_variants;
    for (size_t i = 0; i < outcome->n_samples; i++) {
        const session_sample *s = &outcome->samples[i];
        if (s->block >= 0 && (size_t)s->block < blocks)
            values[s->variant * blocks + (size_t)s->block] = s->values[metric];
    }
    for (size_t v = 0; v < n; v++)
        series[v] = (analysis_series){
            .point = config->point_id, .metric = config->metrics[metric].name,
            .variant = config->variants[v].name, .values = values + v * blocks, .n = blocks,
            .higher_is_better = config->metrics[metric].higher_is_better};
}

/* Analyses all metrics at a look; true when every comparison is decided. */
static bool look_decides(session_state *st, analysis_result *latest, bool *have_latest)
{
    const session_config *c = st->config;
    size_t n = c->n_variants, blocks = st->out->complete_blocks;
    double *values = malloc(n * blocks * c->n_metrics * sizeof *values);
    analysis_series *series = malloc(n * c->n_metrics * sizeof *series);
    bool decided = values && series;
    for (size_t m = 0; decided && m < c->n_metrics; m++)
        session_series(c, st->out, m, values + m * n * blocks, series + m * n);
    analysis_options o = c->analysis;
    o.confidence = st->out->look_confidence;
    char err[128];
    if (*have_latest)
        analysis_result_free(latest);
    *have_latest = decided && analysis_run(series, n * c->n_metrics, &o, latest, err, sizeof err) == 0;
    decided = *have_latest;
    for (size_t k = 0; decided && k < latest->n_comparisons; k++)
        decided = latest->comparisons[k].ok &&
                  latest->comparisons[k].result.decision.kind != VERDICT_INCONCLUSIVE;
    free(values);
    free(series);
    return decided;
}

static void report_progress(session_state *st, const analysis_result *latest)
{
    const session_config *c = st->config;
    if (c->progress == NULL)
        return;
    session_progress p = {.blocks_done = st->out->complete_blocks,
                          .blocks_planned = c->adaptive ? c->stopping.max_blocks : c->runs,
                          .elapsed = runner_monotonic_seconds() - st->start, .eta = -1, .latest = latest};
    if (p.blocks_done > 0) {
        double per_block = p.elapsed / (double)p.blocks_done;
        p.eta = per_block * (double)(p.blocks_planned - p.blocks_done);
        if (c->adaptive && c->max_seconds > 0 && p.eta > c->max_seconds - p.elapsed)
            p.eta = fmax(0.0, c->max_seconds - p.elapsed);
    }
    for (size_t b = p.blocks_done + 1; c->adaptive && b <= c->stopping.max_blocks; b++)
        if (stopping_is_look(&c->stopping, b)) {
            p.next_look = b;
            break;
        }
    c->progress(c->progress_context, &p);
}

static bool budget_left(session_state *st, size_t blocks)
{
    const session_config *c = st->config;
    if (!c->adaptive)
        return blocks < c->runs;
    if (blocks >= c->stopping.max_blocks)
        return false;
    return !(c->max_seconds > 0 && runner_monotonic_seconds() - st->start >= c->max_seconds);
}

static int run_blocks(session_state *st, char *err, size_t errlen)
{
    const session_config *c = st->config;
    analysis_result latest;
    bool have_latest = false;
    int rc = 0;
    for (size_t block = 0; budget_left(st, block); block++) {
        if ((rc = run_block(st, block, err, errlen)) != 0)
            break;
        if (c->adaptive && stopping_is_look(&c->stopping, block + 1)) {
            st->out->looks_taken++;
            if (look_decides(st, &latest, &have_latest)) {
                st->out->decided = true;
                break;
            }
        }
        report_progress(st, have_latest ? &latest : NULL);
    }
    if (rc == 0 && c->adaptive && !st->out->decided)
        st->out->budget_spent = true;
    if (have_latest)
        analysis_result_free(&latest);
    return rc;
}

static session_status status_of(int rc)
{
    return rc == 1 ? SESSION_INTERRUPTED : rc == 2 ? SESSION_FAILED : SESSION_DONE;
}

int session_run(const session_config *config, volatile sig_atomic_t *stop, session_outcome *out,
                char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    session_state st = {.config = config, .stop = stop, .out = out, .start = runner_monotonic_seconds()};
    out->look_confidence = config->adaptive
                               ? stopping_look_confidence(config->analysis.confidence, &config->stopping)
                               : config->analysis.confidence;
    int rc = prepare_state(&st, err, errlen);
    if (rc == 0)
        rc = run_helper(&st, &config->setup, "setup", err, errlen);
    if (rc == 0)
        rc = run_warmup(&st, err, errlen);
    if (rc == 0)
        rc = run_blocks(&st, err, errlen);
    /* cleanup runs even after a failure or an interruption, but not twice-interrupted */
    if (rc >= 0 && config->cleanup.n > 0) {
        volatile sig_atomic_t no_stop = 0;
        st.stop = &no_stop;
        char cleanup_err[256];
        if (run_helper(&st, &config->cleanup, "cleanup", cleanup_err, sizeof cleanup_err) == 2 &&
            rc == 0)
            rc = 2;
    }
    out->elapsed = runner_monotonic_seconds() - st.start;
    release_state(&st);
    if (rc < 0)
        return -1;
    out->status = status_of(rc);
    return 0;
}

void session_outcome_free(session_outcome *outcome)
{
    free(outcome->samples);
    memset(outcome, 0, sizeof *outcome);
}

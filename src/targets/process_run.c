/* The measured run of a process: a fresh environment size (stack alignment moves with it),
 * interference snapshots around the run, readings copied out, failures described once. */
#include "targets/process_run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/wait_status.h"
#include "core/schedule.h"

extern char **environ;

#define ENV_PAD_NAME "VERDICT_ENV_PAD="
#define ENV_PAD_MAX 4096

int process_runner_open(process_runner *p, const target_settings *s, uint64_t seed,
                        bool server_does_the_work, verdict_error *err)
{
    memset(p, 0, sizeof *p);
    p->seed = seed;
    p->server_does_the_work = server_does_the_work;
    if (s->randomize_env) {
        p->pad = malloc(strlen(ENV_PAD_NAME) + ENV_PAD_MAX + 1);
        if (p->pad == NULL)
            return error_no_memory(err);
        strcpy(p->pad, ENV_PAD_NAME);
        memset(p->pad + strlen(ENV_PAD_NAME), 'x', ENV_PAD_MAX);
        p->pad[strlen(ENV_PAD_NAME) + ENV_PAD_MAX] = '\0';
    }
    p->probe_open = interference_probe_open(&p->probe) == 0;
    p->longest_wall = NAN;
    return 0;
}

void process_runner_close(process_runner *p)
{
    free(p->pad);
    if (p->probe_open)
        interference_probe_close(&p->probe);
    memset(p, 0, sizeof *p);
}

static size_t count_words(char *const *words)
{
    size_t n = 0;
    while (words && words[n])
        n++;
    return n;
}

char **process_runner_envp(const process_runner *p, char *const *extra)
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
    if (p->pad)
        envp[k++] = p->pad;
    return envp;
}

/* A new environment size for every run: it moves the stack, and with it alignment
 * effects that would otherwise favour one variant for the whole session. */
static void shuffle_pad(process_runner *p, long seq)
{
    if (p->pad == NULL)
        return;
    uint64_t r = schedule_mix(p->seed, (uint64_t)seq, 0xe7);
    size_t length = (size_t)(r % ENV_PAD_MAX);
    memset(p->pad + strlen(ENV_PAD_NAME), 'x', ENV_PAD_MAX);
    p->pad[strlen(ENV_PAD_NAME) + length] = '\0';
}

static void judge_interference(process_runner *p, const cpu_snapshot *before,
                               double own_cpu, target_measurement *out)
{
    cpu_snapshot after;
    interference noise;
    out->steal = out->other_busy = out->load1 = NAN;
    if (!p->probe_open || interference_probe_snapshot(&p->probe, &after) != 0)
        return;
    interference_between(before, &after, own_cpu, &noise);
    if (p->server_does_the_work)
        noise.other_busy = NAN;
    out->steal = noise.steal;
    out->other_busy = noise.other_busy;
    out->load1 = noise.load1;
    out->tainted = interference_is_disturbing(&noise, out->taint_reason, sizeof out->taint_reason);
}

/* Two snapshots cost about 25 us, a twentieth of starting /bin/true, and around a run too
 * short for /proc/stat's clock ticks they can only give NaN. One long run (a slow variant,
 * or a stall) turns them on for the rest of the session: they then cost, never mislead. */
bool process_runner_brackets_next(const process_runner *p)
{
    return p->probe_open && (isnan(p->longest_wall) || interference_resolvable(p->longest_wall));
}

static void remember_wall(process_runner *p, double wall)
{
    if (isnan(p->longest_wall) || wall > p->longest_wall)
        p->longest_wall = wall;
}

int process_runner_measure(process_runner *p, const run_request *request, long seq,
                           volatile sig_atomic_t *stop, run_result *result,
                           target_measurement *out, verdict_error *err)
{
    shuffle_pad(p, seq);
    cpu_snapshot before;
    bool have_before = process_runner_brackets_next(p) && interference_probe_snapshot(&p->probe, &before) == 0;
    if (runner_execute(request, stop, result, err) != 0)
        return -1;
    remember_wall(p, result->wall);
    out->steal = out->other_busy = out->load1 = NAN;
    if (have_before)
        judge_interference(p, &before, result->user + result->sys, out);
    else if (p->probe_open && interference_probe_load1(&p->probe, &out->load1) != 0)
        out->load1 = NAN;
    out->wall = result->wall;
    out->user = result->user;
    out->sys = result->sys;
    out->maxrss_kib = result->maxrss_kib;
    out->voluntary_switches = result->voluntary_switches;
    out->involuntary_switches = result->involuntary_switches;
    out->exit_code = result->exit_code;
    out->timed_out = result->timed_out;
    return 0;
}

bool process_runner_span_begin(process_runner *p, cpu_snapshot *before)
{
    return p->probe_open && interference_probe_snapshot(&p->probe, before) == 0;
}

void process_runner_span_end(process_runner *p, const cpu_snapshot *before, bool have_before,
                             target_measurement *out)
{
    out->steal = out->other_busy = out->load1 = NAN;
    if (have_before)
        judge_interference(p, before, 0.0, out);
}

void process_describe_failure(const run_result *r, double timeout, const char *what,
                              target_measurement *out)
{
    char *f = out->failure, ended[128];
    size_t size = sizeof out->failure;
    int n;
    if (r->timed_out) {
        n = snprintf(f, size, "%s timed out after %.3g s", what, timeout);
    } else {
        exit_text(r->exit_code, r->term_signal, ended, sizeof ended);
        n = snprintf(f, size, "%s %s", what, ended);
    }
    if (n > 0 && (size_t)n < size && r->stderr_tail[0])
        snprintf(f + n, size - (size_t)n, "; the end of its stderr:\n%s", r->stderr_tail);
}

int process_read_metrics(const metric_def *metrics, size_t n, const run_result *r,
                         double *values, verdict_error *why)
{
    for (size_t m = 0; m < n; m++)
        if (metrics[m].kind != METRIC_COUNTER &&
            metric_value(&metrics[m], r, &values[m], why) != 0)
            return -1;
    return 0;
}

int process_metric_defs(const experiment *e, metric_def *defs, bool *defined,
                        verdict_error *err)
{
    static const char *const process_builtins[] = {"wall", "user", "sys", "cpu", "maxrss"};
    verdict_error why = {0};
    for (size_t m = 0; m < e->n_metrics; m++) {
        const experiment_metric *em = &e->metrics[m];
        bool builtin = false;
        for (size_t i = 0; i < sizeof process_builtins / sizeof *process_builtins; i++)
            builtin |= strcmp(em->name, process_builtins[i]) == 0;
        /* the loader let only the counters the target counts through */
        bool counter = e->target->counters && !builtin && em->regex == NULL;
        defined[m] = builtin || em->regex != NULL || counter;
        if (!defined[m])
            continue;
        int rc = em->regex ? metric_from_regex(em->name, em->regex, em->higher_is_better,
                                               &defs[m], &why)
                           : metric_parse(em->name, &defs[m], &why);
        if (rc != 0)
            return error_set(err, ERROR_USAGE, "metric %s: %s", em->name, why.message);
        defs[m].higher_is_better = em->higher_is_better;
    }
    return 0;
}

/* Counter metrics around a measured run: the distinct events (or cachegrind counts) the
 * metrics need, opened or wrapped around each run, and each metric's value from them. */
#include "core/run_counters.h"

#include <assert.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/error.h"
#include "core/cachegrind.h"
#include "core/target.h"

/* Every event at every level is 33 specs; more cannot be distinct. */
#define MAX_PARTS 48

/* A counter metric: the indices of its parts (perf's specs, or cachegrind's counts). */
typedef struct {
    size_t metric;
    const char *name;      /* the metric's, borrowed */
    size_t part[2];
    size_t n_parts;
} counted_metric;

struct run_counters {
    experiment_counters how;
    counted_metric *metrics;
    size_t n_metrics;
    perf_counters_spec specs[MAX_PARTS];          /* perf */
    const cachegrind_count *counts[MAX_PARTS];    /* valgrind */
    size_t n_parts;
    perf_counters_session *session;               /* between begin and end (perf), or from
                                                     the first start on (paused) */
    bool paused;                                  /* counting the thread's own work */
    pid_t thread;                                 /* paused: the thread counted */
    perf_counters_value last[MAX_PARTS];          /* paused: the readings at the last stop */
    cachegrind_options options;
    char valgrind[PATH_MAX];
    char dir[PATH_MAX];                           /* between begin and end (valgrind) */
    char **argv;
};

/* ---- before anything runs ---- */

/* What would count a hardware event this machine refuses, after the reason: cachegrind counts
 * user space only, so a kernel level is offered as ':u' there; a target that cannot run under
 * valgrind (a kernel, inside verdict) says so instead. */
static void describe_alternative(const experiment *e, const perf_counters_spec *part,
                                 char *out, size_t len)
{
    const char *event = part->event->name;
    if (e->target->no_valgrind != NULL)
        snprintf(out, len, "'target: %s' has no --counters valgrind: %s", e->target->name,
                 e->target->no_valgrind);
    else if (cachegrind_count_find(event) == NULL)
        snprintf(out, len, "--counters valgrind ('counters: valgrind' in a file) counts "
                 "instructions exactly under cachegrind, but no %s", event);
    else if (part->scope != PERF_COUNTERS_USER)
        snprintf(out, len, "--counters valgrind ('counters: valgrind' in a file) counts "
                 "%s:u exactly under cachegrind: user space only, it cannot see the kernel",
                 event);
    else
        snprintf(out, len, "--counters valgrind ('counters: valgrind' in a file) counts %s "
                 "exactly under cachegrind", event);
}

/* Whether the user-space count of a hardware event whose kernel level perf_event_paranoid
 * refused (its reason offers ':u') can be had here: not without a PMU, nor where the level
 * forbids every event. */
static bool user_level_countable(const perf_counters_spec *part)
{
    perf_counters_spec user = {part->event, PERF_COUNTERS_USER};
    verdict_error ignored = {0};
    return perf_counters_probe(&user, &ignored) == 0;
}

/* A refused event with the way out: a software event's reason, and a kernel level refused by
 * perf_event_paranoid (whose reason offers ':u' and the sysctl) where ':u' counts, already say
 * what would work; any other hardware event's is followed by what counts without a PMU. */
static int probe_part(const experiment *e, const char *metric, const perf_counters_spec *part,
                      verdict_error *err)
{
    if (perf_counters_probe(part, err) == 0)
        return 0;
    bool kernel_refused = (part->scope & PERF_COUNTERS_KERNEL) != 0 &&
                          strstr(err->message, "with ':u'") != NULL;
    if (!part->event->hardware || (kernel_refused && user_level_countable(part)))
        return error_prefix(err, "metric %s", metric);
    verdict_error why = *err;
    char alternative[512];
    describe_alternative(e, part, alternative, sizeof alternative);
    return error_set(err, why.kind, "metric %s: %s%s; %s", metric, why.message,
                     kernel_refused ? " (which cannot be counted here either)" : "",
                     alternative);
}

int run_counters_check(const experiment *e, verdict_error *err)
{
    char path[PATH_MAX];
    /* a target that reads its own processes' counters (a server) needs valgrind as much */
    if (!e->target->counters && e->target->counters_key &&
        e->counters == EXPERIMENT_COUNTERS_VALGRIND &&
        cachegrind_find_valgrind(path, sizeof path, err) != 0)
        return error_prefix(err, "counters: valgrind");
    if (!e->target->counters)
        return 0;
    bool valgrind_found = false;
    for (size_t m = 0; m < e->n_metrics; m++) {
        const experiment_metric *em = &e->metrics[m];
        perf_counters_metric counter;
        verdict_error not_counter = {0};
        if (em->regex != NULL ||
            metric_counter_parse(em->name, e->counters, &counter, &not_counter) != 0)
            continue; /* a builtin (the loader refused any other name) */
        if (e->counters == EXPERIMENT_COUNTERS_VALGRIND && !valgrind_found) {
            if (cachegrind_find_valgrind(path, sizeof path, err) != 0)
                return error_prefix(err, "metric %s", em->name);
            valgrind_found = true;
        }
        for (size_t i = 0; e->counters == EXPERIMENT_COUNTERS_PERF && i < counter.n_parts; i++)
            if (probe_part(e, em->name, &counter.parts[i], err) != 0)
                return -1;
    }
    return 0;
}

/* ---- opening ---- */

/* The index of a part, added when new: ipc's instructions are the instructions metric's. */
static size_t perf_part(run_counters *c, const perf_counters_spec *spec)
{
    for (size_t i = 0; i < c->n_parts; i++)
        if (c->specs[i].event == spec->event && c->specs[i].scope == spec->scope)
            return i;
    assert(c->n_parts < MAX_PARTS);
    c->specs[c->n_parts] = *spec;
    return c->n_parts++;
}

static int cachegrind_part(run_counters *c, const perf_counters_spec *spec, size_t *index,
                           verdict_error *err)
{
    const cachegrind_count *count = cachegrind_count_find(spec->event->name);
    if (count == NULL || spec->scope != PERF_COUNTERS_USER)
        return error_set(err, ERROR_USAGE, "'%s' cannot be counted under --counters valgrind",
                         spec->event->name);
    for (*index = 0; *index < c->n_parts; (*index)++)
        if (c->counts[*index] == count)
            return 0;
    assert(c->n_parts < MAX_PARTS);
    c->counts[c->n_parts] = count;
    *index = c->n_parts++;
    return 0;
}

static int add_metric(run_counters *c, size_t m, const metric_def *metric, verdict_error *err)
{
    counted_metric *cm = &c->metrics[c->n_metrics++];
    *cm = (counted_metric){.metric = m, .name = metric->name,
                           .n_parts = metric->counter.n_parts};
    for (size_t i = 0; i < cm->n_parts; i++) {
        const perf_counters_spec *spec = &metric->counter.parts[i];
        if (c->how == EXPERIMENT_COUNTERS_PERF)
            cm->part[i] = perf_part(c, spec);
        else if (cachegrind_part(c, spec, &cm->part[i], err) != 0)
            return error_prefix(err, "metric %s", metric->name);
    }
    return 0;
}

/* cachegrind's simulations for the counts, and valgrind's path, found once. */
static int prepare_cachegrind(run_counters *c, verdict_error *err)
{
    const char *names[MAX_PARTS];
    for (size_t i = 0; i < c->n_parts; i++)
        names[i] = c->counts[i]->name;
    if (cachegrind_options_for(names, c->n_parts, &c->options, err) != 0)
        return -1;
    return cachegrind_find_valgrind(c->valgrind, sizeof c->valgrind, err);
}

int run_counters_open(const metric_def *metrics, size_t n, experiment_counters how,
                      run_counters **out, verdict_error *err)
{
    *out = NULL;
    size_t counters = 0;
    for (size_t m = 0; m < n; m++)
        counters += metrics[m].kind == METRIC_COUNTER;
    if (counters == 0)
        return 0;
    run_counters *c = calloc(1, sizeof *c);
    if (c == NULL || (c->metrics = calloc(counters, sizeof *c->metrics)) == NULL) {
        free(c);
        return error_no_memory(err);
    }
    c->how = how;
    int rc = 0;
    for (size_t m = 0; rc == 0 && m < n; m++)
        if (metrics[m].kind == METRIC_COUNTER)
            rc = add_metric(c, m, &metrics[m], err);
    if (rc == 0 && how == EXPERIMENT_COUNTERS_VALGRIND)
        rc = prepare_cachegrind(c, err);
    if (rc != 0) {
        run_counters_close(c);
        return -1;
    }
    *out = c;
    return 0;
}

/* ---- around each run ---- */

int run_counters_begin(run_counters *c, char *const *command, char *const **argv,
                       verdict_error *err)
{
    assert(c->session == NULL && !c->paused && c->argv == NULL && c->dir[0] == '\0');
    *argv = command;
    if (c->how == EXPERIMENT_COUNTERS_PERF)
        return perf_counters_open(0, c->specs, c->n_parts, &c->session, err);
    if (cachegrind_make_dir(c->dir, sizeof c->dir, err) != 0)
        return -1;
    if (cachegrind_argv(c->valgrind, command, c->dir, &c->options, &c->argv, err) != 0) {
        rmdir(c->dir);
        c->dir[0] = '\0';
        return -1;
    }
    *argv = c->argv;
    return 0;
}

/* "instructions:u ran 41% of the time it was enabled" into note. */
static void describe_partial(const run_counters *c, size_t part, const perf_counters_value *v,
                             char *note, size_t note_len)
{
    char name[48];
    perf_counters_spec_name(&c->specs[part], name, sizeof name);
    if (v->time_enabled == 0 || v->time_running == 0)
        snprintf(note, note_len, "%s never counted (the run did not start, or no counter was "
                 "free)", name);
    else
        snprintf(note, note_len, "%s counted only %.0f%% of the time it was enabled (the CPU's "
                 "counters were shared with other events: multiplexed); not scaled, the "
                 "sample has no value of it", name,
                 100.0 * (double)v->time_running / (double)v->time_enabled);
}

/* values[m] of every counter metric from the readings (a partial reading's metrics NaN, the
 * first named in note): a run_counters_outcome. */
static int values_of(const run_counters *c, const perf_counters_value *readings, double *values,
                     char *note, size_t note_len)
{
    int outcome = RUN_COUNTERS_COUNTED;
    for (size_t i = 0; i < c->n_metrics; i++) {
        const counted_metric *cm = &c->metrics[i];
        const perf_counters_value *top = &readings[cm->part[0]];
        const perf_counters_value *bottom = cm->n_parts > 1 ? &readings[cm->part[1]] : NULL;
        values[cm->metric] = bottom ? perf_counters_ratio(top->count, bottom->count)
                                    : (double)top->count;
        const perf_counters_value *partial = top->partial ? top
                                             : bottom && bottom->partial ? bottom : NULL;
        if (partial == NULL)
            continue;
        values[cm->metric] = NAN;
        if (outcome == RUN_COUNTERS_COUNTED)
            describe_partial(c, cm->part[partial == top ? 0 : 1], partial, note, note_len);
        outcome = RUN_COUNTERS_PARTIAL;
    }
    return outcome;
}

static int end_perf(run_counters *c, double *values, char *note, size_t note_len,
                    verdict_error *err)
{
    perf_counters_value readings[MAX_PARTS];
    int rc = perf_counters_read(c->session, readings, err);
    perf_counters_close(c->session);
    c->session = NULL;
    return rc != 0 ? -1 : values_of(c, readings, values, note, note_len);
}

static int end_cachegrind(run_counters *c, double *values, char *note, size_t note_len,
                          verdict_error *err)
{
    cachegrind_totals totals;
    verdict_error why = {0};
    int rc = cachegrind_collect(c->dir, &totals, &why);
    rmdir(c->dir);
    c->dir[0] = '\0';
    cachegrind_argv_free(c->argv);
    c->argv = NULL;
    if (rc != 0 && why.kind == ERROR_INTERNAL)
        return error_copy(err, &why);
    int outcome = rc == 0 ? RUN_COUNTERS_COUNTED : RUN_COUNTERS_FAILED;
    for (size_t i = 0; i < c->n_metrics; i++) {
        const counted_metric *cm = &c->metrics[i];
        uint64_t part[2] = {0, 0};
        for (size_t k = 0; outcome == RUN_COUNTERS_COUNTED && k < cm->n_parts; k++)
            if (cachegrind_value(&totals, c->counts[cm->part[k]], &part[k], &why) != 0)
                outcome = RUN_COUNTERS_FAILED;
        values[cm->metric] = outcome != RUN_COUNTERS_COUNTED ? NAN
                             : cm->n_parts > 1 ? perf_counters_ratio(part[0], part[1])
                                               : (double)part[0];
    }
    if (outcome == RUN_COUNTERS_FAILED)
        snprintf(note, note_len, "%s", why.message);
    return outcome;
}

int run_counters_end(run_counters *c, double *values, char *note, size_t note_len,
                     verdict_error *err)
{
    note[0] = '\0';
    if (c->how == EXPERIMENT_COUNTERS_PERF)
        return end_perf(c, values, note, note_len, err);
    return end_cachegrind(c, values, note, note_len, err);
}

/* ---- around pieces of the thread's own work ---- */

static pid_t this_thread(void)
{
    return (pid_t)syscall(SYS_gettid);
}

int run_counters_start(run_counters *c, verdict_error *err)
{
    assert(c->argv == NULL && (c->session == NULL || c->paused));
    if (c->how != EXPERIMENT_COUNTERS_PERF)
        return error_set(err, ERROR_INTERNAL, "the thread's own work is counted by perf only");
    if (c->session == NULL) {
        if (perf_counters_open_paused(c->specs, c->n_parts, &c->session, err) != 0)
            return -1;
        c->paused = true;
        c->thread = this_thread();
    }
    assert(c->thread == this_thread()); /* the counters follow the thread that opened them */
    return perf_counters_enable(c->session, true, err);
}

/* The span since the last stop: totals, and the times enabled and running, less the last. */
static perf_counters_value span_of(const perf_counters_value *now,
                                   const perf_counters_value *last)
{
    return perf_counters_value_of(now->count - last->count,
                                  now->time_enabled - last->time_enabled,
                                  now->time_running - last->time_running);
}

int run_counters_stop(run_counters *c, double *values, char *note, size_t note_len,
                      verdict_error *err)
{
    assert(c->paused && c->session != NULL);
    perf_counters_value now[MAX_PARTS], span[MAX_PARTS];
    note[0] = '\0';
    if (perf_counters_enable(c->session, false, err) != 0 ||
        perf_counters_read(c->session, now, err) != 0)
        return -1;
    for (size_t i = 0; i < c->n_parts; i++) {
        span[i] = span_of(&now[i], &c->last[i]);
        c->last[i] = now[i];
    }
    return values_of(c, span, values, note, note_len);
}

void run_counters_close(run_counters *c)
{
    if (c == NULL)
        return;
    perf_counters_close(c->session);
    if (c->dir[0] != '\0') {
        cachegrind_totals leftover;
        verdict_error ignored;
        cachegrind_collect(c->dir, &leftover, &ignored); /* removes the files */
        rmdir(c->dir);
    }
    cachegrind_argv_free(c->argv);
    free(c->metrics);
    free(c);
}

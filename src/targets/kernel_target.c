/* The kernel target: the module loaded once, per point every kernel set up and calibrated
 * (first block's order), each sample one batch (counters around it) retaken while preempted. */
#include "targets/kernel_target.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "core/experiment_loader.h"
#include "core/experiment_writer.h"
#include "core/metrics.h"
#include "core/plan_hash.h"
#include "core/run_counters.h"
#include "core/runner.h"
#include "core/schedule.h"
#include "targets/kernel_module.h"

static const target_metric kernel_metrics[] = {{"ns_per_call", false}, {"gbps", true}};

/* A variant's kernel, by name. */
typedef struct {
    char *kernel;
} kernel_variant;

/* One kernel at the current point. */
typedef struct {
    const verdict_kernel *kernel;
    void *state;
    bool set_up;
    uint64_t iterations, bytes_per_call;
    uint64_t piece;              /* a batch is run in calls of at most this many */
    kernel_calibration calibration;
} kernel_slot;

struct target {
    const experiment *e;
    const kernel_options *options;
    kernel_module *module;
    kernel_slot *slots;          /* per variant */
    size_t point;
    char *point_id;
    size_t retakes, tainted;
    strbuf calls;                /* "point kernel calls" lines for the facts */
    strbuf warnings;             /* long calls, one per line */
    metric_def *defs;            /* per metric: the counters' (the builtins' are left empty) */
    run_counters *counters;      /* NULL when no metric is a counter */
    double *counted;             /* per metric: the last batch's counts */
    size_t partial_batches;      /* kept samples a counter did not count whole */
    strbuf first_partial;        /* the first of them, for the warning */
};

/* ---- experiment files ---- */

static kernel_options *options_of(const experiment *e)
{
    return e->target_options;
}

int kernel_check_sample_time(double seconds, verdict_error *why)
{
    if (seconds > 0 && seconds <= KERNEL_MAX_SAMPLE_SECONDS)
        return 0;
    error_set(why, ERROR_USAGE, "%.6g s: a sample time is above 0 and at most %g s (a stop "
              "request waits for the sample being taken)", seconds, KERNEL_MAX_SAMPLE_SECONDS);
    return -1;
}

int kernel_check_iterations(uint64_t iterations, verdict_error *why)
{
    if (iterations > 0 && iterations <= KERNEL_MAX_ITERATIONS)
        return 0;
    error_set(why, ERROR_USAGE, "%llu: calls per sample are 1 to %llu (2^42)",
              (unsigned long long)iterations, (unsigned long long)KERNEL_MAX_ITERATIONS);
    return -1;
}

static kernel_variant *variant_of(experiment_variant *v)
{
    if (v->options == NULL)
        v->options = calloc(1, sizeof(kernel_variant));
    return v->options;
}

static int key_module(experiment_loader *l, const yaml_field *f, void *target)
{
    (void)target;
    return loader_absolute_path(l, f, &options_of(loader_experiment(l))->module);
}

static int key_sample_time(experiment_loader *l, const yaml_field *f, void *target)
{
    (void)target;
    kernel_options *o = options_of(loader_experiment(l));
    verdict_error why = {0};
    if (yaml_duration(loader_reader(l), f, &o->sample_seconds) != 0)
        return -1;
    return kernel_check_sample_time(o->sample_seconds, &why) == 0
               ? 0 : yaml_fail_field(loader_reader(l), f, "'sample_time' %s", why.message);
}

static int key_iterations(experiment_loader *l, const yaml_field *f, void *target)
{
    (void)target;
    kernel_options *o = options_of(loader_experiment(l));
    verdict_error why = {0};
    if (yaml_u64(loader_reader(l), f, &o->iterations) != 0)
        return -1;
    /* 0 is the default: calibrated */
    return o->iterations == 0 || kernel_check_iterations(o->iterations, &why) == 0
               ? 0 : yaml_fail_field(loader_reader(l), f, "'iterations' %s", why.message);
}

static int key_arg(experiment_loader *l, const yaml_field *f, void *target)
{
    (void)target;
    return loader_read_template(l, f, "the kernel's arg", LOADER_SHARED_TEXT,
                                &options_of(loader_experiment(l))->arg);
}

static int top_kernel(experiment_loader *l, const yaml_field *f, void *target)
{
    static const experiment_key keys[] = {
        {"module", key_module, 1}, {"sample_time", key_sample_time, 1},
        {"iterations", key_iterations, 1}, {"arg", key_arg, 1},
    };
    if (loader_need_mapping(l, f, "module, sample_time, iterations, arg") != 0)
        return -1;
    return loader_walk(l, f->value, keys, ARRAY_SIZE(keys), " in 'kernel'", target);
}

static int set_kernel_name(experiment_loader *l, const yaml_field *f, experiment_variant *v)
{
    kernel_variant *k = variant_of(v);
    if (k == NULL)
        return yaml_fail_field(loader_reader(l), f, "out of memory");
    free(k->kernel);
    k->kernel = NULL;
    return yaml_string(loader_reader(l), f, "a kernel's name", &k->kernel);
}

static int variant_kernel(experiment_loader *l, const yaml_field *f, void *target)
{
    return set_kernel_name(l, f, target);
}

static int kernel_variant_scalar(experiment_loader *l, const yaml_field *f, experiment_variant *v)
{
    return set_kernel_name(l, f, v);
}

static int kernel_finish_variant(experiment_loader *l, const yaml_field *f, experiment_variant *v)
{
    kernel_variant *k = v->options;
    if (k == NULL || k->kernel == NULL)
        return yaml_fail(loader_reader(l), f->key_node, "variant %s names no kernel: give "
                         "'%s: KERNEL' or '%s: {kernel: KERNEL}'", v->name, v->name, v->name);
    return 0;
}

static int kernel_begin_file(experiment_loader *l)
{
    kernel_options *o = calloc(1, sizeof *o);
    if (o == NULL)
        return yaml_fail(loader_reader(l), NULL, "out of memory");
    o->sample_seconds = KERNEL_DEFAULT_SAMPLE_SECONDS;
    loader_experiment(l)->target_options = o;
    return 0;
}

static int kernel_finish_file(experiment_loader *l)
{
    if (options_of(loader_experiment(l))->module == NULL)
        return yaml_fail(loader_reader(l), loader_target_node(l), "'target: kernel' needs "
                         "'kernel: {module: PATH}': the shared object whose functions are "
                         "timed");
    return 0;
}

static void kernel_hash_variant(uint64_t *h, const experiment *e, const experiment_variant *v)
{
    (void)e;
    const kernel_variant *k = v->options;
    plan_hash_field(h, 'K', k ? k->kernel : NULL);
}

static void kernel_hash_plan(uint64_t *h, const experiment *e)
{
    const kernel_options *o = options_of(e);
    char seconds[32];
    snprintf(seconds, sizeof seconds, "%.17g", o->sample_seconds);
    plan_hash_field(h, 'T', "kernel");
    plan_hash_path(h, 'm', e, o->module);
    plan_hash_field(h, 't', seconds);
    plan_hash_number(h, 'i', o->iterations);
    plan_hash_field(h, 'a', o->arg);
}

static void kernel_free_variant(experiment_variant *v)
{
    kernel_variant *k = v->options;
    if (k)
        free(k->kernel);
    free(k);
    v->options = NULL;
}

static void kernel_free_options(experiment *e)
{
    kernel_options *o = e->target_options;
    if (o) {
        free(o->module);
        free(o->arg);
    }
    free(o);
    e->target_options = NULL;
}

/* For experiments of the command line, stored as the file that says the same. */
static void kernel_write_keys(strbuf *b, const experiment *e)
{
    const kernel_options *o = options_of(e);
    strbuf_append(b, "kernel: {module: ");
    experiment_write_scalar(b, o->module);
    strbuf_append(b, ", sample_time: ");
    experiment_write_number(b, o->sample_seconds);
    strbuf_append(b, "s");
    if (o->iterations)
        strbuf_appendf(b, ", iterations: %llu", (unsigned long long)o->iterations);
    if (o->arg) {
        strbuf_append(b, ", arg: ");
        experiment_write_scalar(b, o->arg);
    }
    strbuf_append(b, "}\n");
}

static void kernel_write_variant_keys(strbuf *b, const experiment_variant *v,
                                      const char *separator)
{
    const kernel_variant *k = v->options;
    strbuf_appendf(b, "%skernel: ", separator);
    experiment_write_scalar(b, k->kernel);
}

static const experiment_key kernel_top_keys[] = {{"kernel", top_kernel, 1}};
static const experiment_key kernel_variant_keys[] = {{"kernel", variant_kernel, 1}};

/* ---- running ---- */

static void teardown_point(target *t)
{
    for (size_t v = 0; t->slots && v < t->e->n_variants; v++) {
        kernel_slot *s = &t->slots[v];
        if (s->set_up && s->kernel->teardown)
            s->kernel->teardown(s->state);
        s->set_up = false;
        s->state = NULL;
    }
    free(t->point_id);
    t->point_id = NULL;
}

static int setup_kernel(target *t, size_t v, const char *arg, verdict_error *err)
{
    kernel_slot *s = &t->slots[v];
    char why[512] = "";
    verdict_kernel_setup setup = {.arg = arg, .bytes_per_call = s->kernel->bytes_per_call,
                                  .error = why, .error_size = sizeof why};
    if (s->kernel->setup && s->kernel->setup(&setup) != 0)
        return error_set(err, ERROR_USAGE, "kernel %s: setup(%s) failed: %s",
                         t->e->variants[v].name, arg ? arg : "no arg",
                         why[0] ? why : "no reason given");
    s->state = setup.state;
    s->set_up = true;
    s->bytes_per_call = setup.bytes_per_call;
    return 0;
}

/* Calibration visits the kernels in the first block's order, so that no kernel is
 * systematically the first one touched after the previous point. */
static void calibrate(target *t, size_t point, volatile sig_atomic_t *stop)
{
    size_t n = t->e->n_variants;
    size_t *order = calloc(n, sizeof *order);
    if (order == NULL)
        return;
    schedule_block_order(t->e->seed, point, SIZE_MAX, n, order);
    for (size_t i = 0; i < n && !*stop; i++) {
        kernel_slot *s = &t->slots[order[i]];
        if (t->options->iterations > 0) {
            s->iterations = t->options->iterations;
            s->piece = kernel_calls_lasting(s->kernel, s->state, KERNEL_PIECE_SECONDS);
            continue;
        }
        kernel_calibrate(s->kernel, s->state, t->options->sample_seconds, stop,
                         &s->calibration);
        s->iterations = s->calibration.iterations;
        s->piece = s->iterations; /* a sample lasts at most about KERNEL_MAX_SAMPLE_SECONDS */
        if (s->calibration.single_call_too_long)
            strbuf_appendf(&t->warnings, "long-call\t%s\t%s\t%s: one call takes %.3g ms, longer "
                           "than the sample time %.3g ms; each sample is one call\n",
                           t->point_id, t->e->variants[order[i]].name,
                           t->e->variants[order[i]].name, s->calibration.seconds * 1e3,
                           t->options->sample_seconds * 1e3);
    }
    for (size_t v = 0; v < n; v++) /* a stop may have come before a kernel's calibration */
        if (t->slots[v].iterations > 0)
            strbuf_appendf(&t->calls, "%s\t%s\t%llu\n", t->point_id, t->e->variants[v].name,
                           (unsigned long long)t->slots[v].iterations);
    free(order);
}

static int kernel_begin_point(target *t, size_t point, volatile sig_atomic_t *stop,
                              verdict_error *err)
{
    verdict_error why = {0};
    teardown_point(t);
    t->point = point;
    char *arg = t->options->arg ? experiment_substitute(t->e, point, t->options->arg, &why)
                                : NULL;
    t->point_id = experiment_point_id(t->e, point);
    int rc = arg || !t->options->arg ? 0 : (error_copy(err, &why), error_prefix(err, "arg"));
    if (rc == 0 && t->point_id == NULL)
        rc = error_no_memory(err);
    for (size_t v = 0; rc == 0 && v < t->e->n_variants; v++)
        rc = setup_kernel(t, v, arg, err);
    free(arg);
    if (rc == 0)
        calibrate(t, point, stop);
    return rc;
}

static void kernel_end_point(target *t)
{
    teardown_point(t);
}

/* One batch, its counters (when a metric is one) enabled just around it: false when a stop
 * came before the batch ended; *counted the run_counters_outcome, or -1 with err. */
static bool counted_batch(target *t, kernel_slot *s, volatile sig_atomic_t *stop,
                          kernel_timing *timing, char *note, size_t note_len, int *counted,
                          verdict_error *err)
{
    *counted = RUN_COUNTERS_COUNTED;
    if (t->counters && run_counters_start(t->counters, err) != 0) {
        *counted = -1;
        return true;
    }
    bool whole = kernel_time_batch_pieces(s->kernel, s->state, s->iterations, s->piece, stop,
                                          timing);
    if (t->counters)
        *counted = run_counters_stop(t->counters, t->counted, note, note_len, err);
    return whole;
}

/* A sample's value of metric m: a count per call (a batch's count over its calls; a ratio of
 * two counts as it is), nanoseconds per call, or gigabytes per second. */
static double metric_value_of(const target *t, const kernel_slot *s, size_t m, double ns)
{
    const metric_def *def = &t->defs[m];
    if (def->kind == METRIC_COUNTER)
        return def->counter.derived ? t->counted[m] : t->counted[m] / (double)s->iterations;
    if (strcmp(t->e->metrics[m].name, "gbps") == 0) /* bytes per nanosecond are GB/s */
        return s->bytes_per_call ? (double)s->bytes_per_call * (double)s->iterations / ns : NAN;
    return ns / (double)s->iterations;
}

/* A kept sample whose counter did not count the whole batch has no value of it (never a
 * scaled guess); the first is named in the warning that counts them. */
static void note_partial(target *t, const target_unit *unit, const char *note)
{
    if (unit->block < 0 || t->partial_batches++ > 0)
        return;
    strbuf_appendf(&t->first_partial, "kernel %s at %s, block %ld: %s",
                   t->e->variants[unit->variant].name, t->point_id, unit->block, note);
}

/* A sample that lost the CPU measures the scheduler, not the kernel: it is taken again
 * at once, in the same place of the block. Calibration makes every sample about as long,
 * so every kernel is about as likely to be retaken and the retakes favour none. */
static int kernel_measure(target *t, const target_unit *unit, volatile sig_atomic_t *stop,
                          target_measurement *out, verdict_error *err)
{
    kernel_slot *s = &t->slots[unit->variant];
    kernel_timing timing;
    char note[512] = "";
    int counted = RUN_COUNTERS_COUNTED;
    unsigned retakes = 0;
    for (;; retakes++) {
        bool whole = counted_batch(t, s, stop, &timing, note, sizeof note, &counted, err);
        if (counted < 0)
            return error_prefix(err, "kernel %s", t->e->variants[unit->variant].name);
        if (!whole)
            return TARGET_RUN_INTERRUPTED; /* a part of a batch is no sample */
        if (!kernel_timing_preempted(&timing) || retakes == KERNEL_MAX_RETAKES || *stop)
            break;
    }
    double ns = timing.seconds * 1e9;
    out->wall = timing.seconds;
    out->user = timing.cpu_seconds;
    out->sys = out->maxrss_kib = 0;
    out->steal = out->other_busy = out->load1 = NAN;
    out->tainted = kernel_timing_preempted(&timing);
    if (out->tainted)
        snprintf(out->taint_reason, sizeof out->taint_reason, "preempted in %u tries",
                 retakes + 1);
    for (size_t m = 0; m < t->e->n_metrics; m++)
        out->values[m] = metric_value_of(t, s, m, ns);
    if (counted == RUN_COUNTERS_PARTIAL)
        note_partial(t, unit, note);
    if (unit->block >= 0) {
        t->retakes += retakes;
        t->tainted += out->tainted;
    }
    return TARGET_MEASURED;
}

static int kernel_facts(target *t, machine_facts *facts)
{
    int rc = machine_facts_set(facts, KERNEL_CALLS_FACT, strbuf_text(&t->calls));
    if (t->retakes) {
        strbuf w = STRBUF_INIT;
        strbuf_appendf(&w, "retaken\t\t\t%zu samples lost more than %.0f%% of their time off the "
                       "CPU (another process or the hypervisor ran) and were taken again; %zu "
                       "stayed preempted after %d tries and are kept, marked tainted\n",
                       t->retakes, KERNEL_MAX_OFF_CPU * 100, t->tainted, KERNEL_MAX_RETAKES);
        strbuf_append(&t->warnings, strbuf_text(&w));
        strbuf_free(&w);
    }
    if (t->partial_batches) {
        strbuf_appendf(&t->warnings, "counter-partial\t\t\t%zu samples had a counter that did "
                       "not count the whole batch (the first: %s); such a sample has no value "
                       "of that counter, and its block is left out of that metric's "
                       "comparison\n", t->partial_batches, strbuf_text(&t->first_partial));
    }
    if (t->warnings.length)
        rc |= machine_facts_set(facts, "warnings.kernel", strbuf_text(&t->warnings));
    return rc;
}

static void kernel_close(target *t)
{
    if (t == NULL)
        return;
    teardown_point(t);
    free(t->slots);
    kernel_module_close(t->module);
    strbuf_free(&t->calls);
    strbuf_free(&t->warnings);
    strbuf_free(&t->first_partial);
    run_counters_close(t->counters);
    for (size_t m = 0; t->defs && m < t->e->n_metrics; m++)
        metric_free(&t->defs[m]);
    free(t->defs);
    free(t->counted);
    free(t);
}

/* The counter metrics' definitions (the loader let only the builtins and counters through)
 * and their counting, on the thread that will run the batches. */
static int open_counters(target *t, verdict_error *err)
{
    const experiment *e = t->e;
    verdict_error why = {0};
    t->defs = calloc(e->n_metrics + 1, sizeof *t->defs);
    t->counted = calloc(e->n_metrics + 1, sizeof *t->counted);
    if (t->defs == NULL || t->counted == NULL)
        return error_no_memory(err);
    for (size_t m = 0; m < e->n_metrics; m++)
        if (target_find_metric(&kernel_target, e->metrics[m].name) == NULL &&
            metric_parse(e->metrics[m].name, &t->defs[m], &why) != 0)
            return error_set(err, ERROR_USAGE, "metric %s: %s", e->metrics[m].name,
                             why.message);
    return run_counters_open(t->defs, e->n_metrics, e->counters, &t->counters, err);
}

static int kernel_open(const experiment *e, const target_settings *s, target **out,
                       verdict_error *err)
{
    (void)s;
    target *t = calloc(1, sizeof *t);
    if (t == NULL || (t->slots = calloc(e->n_variants + 1, sizeof *t->slots)) == NULL) {
        free(t);
        return error_no_memory(err);
    }
    t->e = e;
    t->options = options_of(e);
    if (open_counters(t, err) != 0 ||
        kernel_module_open(t->options->module, &t->module, err) != 0) {
        kernel_close(t);
        return -1;
    }
    for (size_t v = 0; v < e->n_variants; v++) {
        const kernel_variant *k = e->variants[v].options;
        t->slots[v].kernel = kernel_module_find(t->module, k->kernel, err);
        if (t->slots[v].kernel == NULL) {
            kernel_close(t);
            return -1;
        }
    }
    *out = t;
    return 0;
}

const target_kind kernel_target = {
    .name = "kernel",
    .top_keys = kernel_top_keys,
    .n_top_keys = ARRAY_SIZE(kernel_top_keys),
    .variant_keys = kernel_variant_keys,
    .n_variant_keys = ARRAY_SIZE(kernel_variant_keys),
    .no_command = "the kernel, a function of the module, is what runs",
    .no_build = "build the module yourself and give it as 'module'",
    .no_source = "build the module yourself and give it as 'module'",
    .no_helpers = "a kernel runs inside verdict: prepare its data in the module's setup",
    .no_valgrind = KERNEL_NO_VALGRIND,
    .no_process = "a kernel runs inside verdict's own process, which has no environment, "
                  "directory or time limit of its own",
    .begin_file = kernel_begin_file,
    .variant_scalar = kernel_variant_scalar,
    .finish_variant = kernel_finish_variant,
    .finish_file = kernel_finish_file,
    .hash_variant = kernel_hash_variant,
    .hash_plan = kernel_hash_plan,
    .free_variant = kernel_free_variant,
    .free_options = kernel_free_options,
    .write_keys = kernel_write_keys,
    .write_variant_keys = kernel_write_variant_keys,
    .metrics = kernel_metrics,
    .n_metrics = ARRAY_SIZE(kernel_metrics),
    .counters = true,
    .open = kernel_open,
    .facts = kernel_facts,
    .begin_point = kernel_begin_point,
    .measure = kernel_measure,
    .end_point = kernel_end_point,
    .close = kernel_close,
};

/* ---- the experiment of the command line ---- */

/* Repeated kernels get "#2", "#3" so that reports can tell them apart (an A/A check). */
static char *display_name(const kernel_line_spec *s, size_t i)
{
    size_t same = 0;
    for (size_t j = 0; j < i; j++)
        same += strcmp(s->kernels[j], s->kernels[i]) == 0;
    strbuf name = STRBUF_INIT;
    strbuf_append(&name, s->kernels[i]);
    if (same)
        strbuf_appendf(&name, " #%zu", same + 1);
    return strbuf_detach(&name);
}

static bool has_value(const experiment_parameter *p, const char *value, size_t n)
{
    for (size_t j = 0; j < p->n_values; j++)
        if (strlen(p->values[j]) == n && strncmp(p->values[j], value, n) == 0)
            return true;
    return false;
}

/* "size=64,4096": one parameter, whose values become the points. */
static int add_sweep(const char *sweep, experiment *e, verdict_error *err)
{
    const char *equals = strchr(sweep, '=');
    size_t name_length = strspn(sweep, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                       "0123456789_");
    if (equals == NULL || equals == sweep || equals[1] == '\0')
        return error_set(err, ERROR_USAGE, "--sweep '%s': expected NAME=V1,V2", sweep);
    if (sweep + name_length != equals)
        return error_set(err, ERROR_USAGE, "--sweep '%s': the name may hold letters, digits "
                         "and '_' only", sweep);
    experiment_parameter *p = calloc(1, sizeof *p);
    if (p == NULL)
        return error_no_memory(err);
    e->parameters = p;
    e->n_parameters = 1;
    if ((p->name = strndup(sweep, (size_t)(equals - sweep))) == NULL)
        return error_no_memory(err);
    size_t capacity = 0;
    for (const char *v = equals + 1; *v; v += strcspn(v, ",") + (v[strcspn(v, ",")] == ',')) {
        size_t n = strcspn(v, ",");
        if (n == 0)
            return error_set(err, ERROR_USAGE, "--sweep '%s': an empty value", sweep);
        if (has_value(p, v, n))
            return error_set(err, ERROR_USAGE, "--sweep lists '%.*s' twice", (int)n, v);
        if (array_reserve((void **)&p->values, &capacity, p->n_values + 1, sizeof *p->values) != 0 ||
            (p->values[p->n_values] = strndup(v, n)) == NULL)
            return error_no_memory(err);
        p->n_values++;
    }
    return p->n_values ? 0 : error_set(err, ERROR_USAGE, "--sweep '%s': no values", sweep);
}

static int kernel_options_from(const kernel_line_spec *s, experiment *e, verdict_error *err)
{
    kernel_options *o = calloc(1, sizeof *o);
    if (o == NULL)
        return error_no_memory(err);
    e->target_options = o;
    o->sample_seconds = s->sample_seconds;
    o->iterations = s->iterations;
    /* absolute, so that the stored experiment names the module wherever it is read */
    o->module = realpath(s->module, NULL);
    if (o->module == NULL)
        o->module = strdup(s->module);
    if (s->sweep) {
        strbuf arg = STRBUF_INIT;
        strbuf_appendf(&arg, "{%s}", e->parameters[0].name);
        o->arg = strbuf_detach(&arg);
    } else if (s->arg) {
        o->arg = experiment_literal_template(s->arg);
    }
    return o->module && (o->arg || (!s->sweep && !s->arg))
               ? 0 : error_no_memory(err);
}

/* The store keeps the experiment as a file: what the file cannot hold is refused first. */
static int check_writable(const kernel_line_spec *s, verdict_error *err)
{
    const char *why;
    for (size_t i = 0; i < s->n_kernels; i++)
        if ((why = experiment_unwritable(s->kernels[i], true)) != NULL)
            return error_set(err, ERROR_USAGE, "kernel %zu %s", i + 1, why);
    if ((why = experiment_unwritable(s->module, false)) != NULL)
        return error_set(err, ERROR_USAGE, "the module's path %s", why);
    if (s->arg && (why = experiment_unwritable(s->arg, false)) != NULL)
        return error_set(err, ERROR_USAGE, "--arg %s", why);
    if (s->sweep && (why = experiment_unwritable(s->sweep, false)) != NULL)
        return error_set(err, ERROR_USAGE, "--sweep %s", why);
    return 0;
}

/* A --metric (or a default builtin): ns_per_call, gbps, or a counter, counted per call. */
static int add_line_metric(experiment *e, const char *name, verdict_error *err)
{
    const target_metric *builtin = target_find_metric(&kernel_target, name);
    perf_counters_metric counter;
    verdict_error why = {0};
    if (builtin == NULL && metric_counter_parse(name, EXPERIMENT_COUNTERS_PERF, &counter,
                                                &why) != 0)
        return error_set(err, ERROR_USAGE, "--metric '%s': expected ns_per_call, gbps or a "
                         "counter (counted per call): %s", name, why.message);
    for (size_t m = 0; m < e->n_metrics; m++)
        if (strcmp(e->metrics[m].name, name) == 0)
            return error_set(err, ERROR_USAGE, "--metric '%s' is given twice", name);
    experiment_metric *em = &e->metrics[e->n_metrics];
    em->higher_is_better = builtin ? builtin->higher_is_better
                                   : metric_counter_higher_is_better(&counter);
    if ((em->name = strdup(name)) == NULL)
        return error_no_memory(err);
    e->n_metrics++;
    return 0;
}

int kernel_experiment(const kernel_line_spec *s, experiment *e, verdict_error *err)
{
    experiment_init(e);
    verdict_error why = {0};
    if (check_writable(s, err) != 0)
        return -1;
    if (kernel_check_sample_time(s->sample_seconds, &why) != 0)
        return error_set(err, ERROR_USAGE, "--sample-time %s", why.message);
    if (s->iterations && kernel_check_iterations(s->iterations, &why) != 0)
        return error_set(err, ERROR_USAGE, "--iterations %s", why.message);
    if (s->counters == EXPERIMENT_COUNTERS_VALGRIND)
        return error_set(err, ERROR_USAGE, "--counters valgrind: %s", KERNEL_NO_VALGRIND);
    e->target = &kernel_target;
    e->counters = s->counters;
    e->adaptive = s->runs == 0;
    e->repetitions = s->runs;
    e->min_blocks = e->adaptive ? s->min_runs : 0;
    e->max_blocks = e->adaptive ? s->max_runs : 0;
    if (e->adaptive && experiment_set_looks(e, s->looks, s->spending, err) != 0)
        return -1;
    e->warmup = s->warmup;
    e->seed = s->seed;
    e->has_seed = s->has_seed;
    e->confidence = s->confidence;
    e->margin = s->margin;
    e->path = strdup("command line");
    e->name = strdup("kernel");
    e->variants = calloc(s->n_kernels + 1, sizeof *e->variants);
    e->metrics = calloc(s->n_metrics + ARRAY_SIZE(kernel_metrics), sizeof *e->metrics);
    if (!e->path || !e->name || !e->variants || !e->metrics)
        return error_no_memory(err);
    if ((s->sweep && add_sweep(s->sweep, e, err) != 0) || kernel_options_from(s, e, err) != 0)
        return -1;
    for (size_t i = 0; i < s->n_kernels; i++, e->n_variants++) {
        experiment_variant *v = &e->variants[i];
        kernel_variant *k = variant_of(v);
        v->name = display_name(s, i);
        if (k == NULL || v->name == NULL || (k->kernel = strdup(s->kernels[i])) == NULL) {
            e->n_variants++;
            return error_no_memory(err);
        }
    }
    for (size_t m = 0; m < s->n_metrics; m++)
        if (add_line_metric(e, s->metrics[m], err) != 0)
            return -1;
    for (size_t m = 0; s->n_metrics == 0 && m < ARRAY_SIZE(kernel_metrics); m++)
        if (add_line_metric(e, kernel_metrics[m].name, err) != 0)
            return -1;
    return experiment_set_written_text(e) == 0 ? 0 : error_set(err, ERROR_INTERNAL,
                                                                "out of memory");
}

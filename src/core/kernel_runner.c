/* Loading of kernel modules with dlopen, batch-size calibration, and the interleaved
 * session of `verdict kernel`: every block times each kernel once, in seeded shuffled order. */
#include "core/kernel_runner.h"
#include "core/runner.h"

#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "core/schedule.h"

/* ---- loading ---------------------------------------------------------------------- */

struct kernel_module {
    void *handle;
    const verdict_kernel *kernels;
    size_t count;
};

/* dlopen searches the library path for a name without '/': a user naming a file in the
 * current directory means that file, so such names get "./" in front. */
static void loadable_path(const char *path, char *out, size_t outlen)
{
    snprintf(out, outlen, "%s%s", strchr(path, '/') ? "" : "./", path);
}

static int check_file(const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s: not a regular file (expected a shared object)", path);
        return -1;
    }
    return 0;
}

static void *find_symbol(void *handle, const char *path, const char *symbol, char *err,
                         size_t errlen)
{
    dlerror();
    void *address = dlsym(handle, symbol);
    if (address == NULL)
        snprintf(err, errlen,
                 "%s: does not export %s(): not a verdict kernel module (define the kernels "
                 "with VERDICT_KERNEL_MODULE from <verdict/kernel.h>)",
                 path, symbol);
    return address;
}

static bool valid_name(const char *name)
{
    if (name == NULL || *name == '\0')
        return false;
    for (const char *p = name; *p; p++)
        if (!(*p >= 'a' && *p <= 'z') && !(*p >= 'A' && *p <= 'Z') && !(*p >= '0' && *p <= '9') &&
            !strchr("_-.", *p))
            return false;
    return true;
}

/* A module's table is checked once, so the session can trust names and run pointers. */
static int check_table(const char *path, const verdict_kernel *kernels, size_t count, char *err,
                       size_t errlen)
{
    if (kernels == NULL || count == 0) {
        snprintf(err, errlen, "%s: verdict_kernels() returned no kernels", path);
        return -1;
    }
    for (size_t i = 0; i < count; i++) {
        if (!valid_name(kernels[i].name) || kernels[i].run == NULL) {
            snprintf(err, errlen, "%s: kernel %zu has %s", path, i + 1,
                     kernels[i].run ? "an invalid name (letters, digits, _ - . only)" : "no run()");
            return -1;
        }
        for (size_t j = 0; j < i; j++)
            if (strcmp(kernels[i].name, kernels[j].name) == 0) {
                snprintf(err, errlen, "%s: two kernels are called '%s'", path, kernels[i].name);
                return -1;
            }
    }
    return 0;
}

static int bind_module(kernel_module *m, const char *path, char *err, size_t errlen)
{
    verdict_kernel_abi_fn abi;
    verdict_kernels_fn table;
    /* POSIX lets dlsym's object pointer be converted to a function pointer; memcpy says
     * so without a pedantic cast warning. */
    void *abi_address = find_symbol(m->handle, path, "verdict_kernel_abi", err, errlen);
    void *table_address = abi_address ? find_symbol(m->handle, path, "verdict_kernels", err, errlen)
                                      : NULL;
    if (table_address == NULL)
        return -1;
    memcpy(&abi, &abi_address, sizeof abi);
    memcpy(&table, &table_address, sizeof table);
    uint32_t version = abi();
    if (version != VERDICT_KERNEL_ABI_VERSION) {
        snprintf(err, errlen,
                 "%s: built for kernel ABI version %u, this verdict loads version %d: rebuild "
                 "it against this verdict's <verdict/kernel.h>",
                 path, (unsigned)version, VERDICT_KERNEL_ABI_VERSION);
        return -1;
    }
    m->kernels = table(&m->count);
    return check_table(path, m->kernels, m->count, err, errlen);
}

int kernel_module_open(const char *path, kernel_module **out, char *err, size_t errlen)
{
    char loadable[4096];
    *out = NULL;
    if (check_file(path, err, errlen) != 0)
        return -1;
    kernel_module *m = calloc(1, sizeof *m);
    if (m == NULL) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    loadable_path(path, loadable, sizeof loadable);
    m->handle = dlopen(loadable, RTLD_NOW | RTLD_LOCAL);
    if (m->handle == NULL) {
        const char *why = dlerror();
        snprintf(err, errlen, "%s: cannot load as a shared object: %s", path, why ? why : "?");
        free(m);
        return -1;
    }
    if (bind_module(m, path, err, errlen) != 0) {
        kernel_module_close(m);
        return -1;
    }
    *out = m;
    return 0;
}

void kernel_module_close(kernel_module *module)
{
    if (module == NULL)
        return;
    if (module->handle)
        dlclose(module->handle);
    free(module);
}

size_t kernel_module_count(const kernel_module *module)
{
    return module->count;
}

const verdict_kernel *kernel_module_at(const kernel_module *module, size_t index)
{
    return index < module->count ? &module->kernels[index] : NULL;
}

const verdict_kernel *kernel_module_find(const kernel_module *module, const char *name, char *err,
                                         size_t errlen)
{
    for (size_t i = 0; i < module->count; i++)
        if (strcmp(module->kernels[i].name, name) == 0)
            return &module->kernels[i];
    size_t used = (size_t)snprintf(err, errlen, "no kernel '%s' in the module; it has:", name);
    for (size_t i = 0; i < module->count && used < errlen; i++)
        used += (size_t)snprintf(err + used, errlen - used, " %s", module->kernels[i].name);
    return NULL;
}

/* ---- calibration ------------------------------------------------------------------ */

/* Batches below a tenth of the target are only used to estimate the rate: at that length
 * clock reads and timer granularity (tens of ns) are below 0.1% of the batch. */
#define CALIBRATION_FIRST_FRACTION 0.1
/* Growing at most 100× per trial bounds the overshoot when the first calls are slow
 * (cold caches, page faults) and the rate from them is too pessimistic. */
#define CALIBRATION_MAX_GROWTH 100.0
/* Predictions at full size are checked and corrected this many times: the rate of short
 * batches can differ from long ones (caches, frequency ramps). */
#define CALIBRATION_REFINEMENTS 2
/* Each refinement times its batch this often and keeps the fastest: what CPU time does
 * not filter out (cache pollution by a neighbour, interrupts) only ever adds time. */
#define CALIBRATION_REPEATS 3
#define CALIBRATION_MAX_ITERATIONS (UINT64_C(1) << 42)

double kernel_time_batch(const verdict_kernel *kernel, void *state, uint64_t iterations)
{
    double begin = runner_monotonic_seconds();
    kernel->run(state, iterations);
    return runner_monotonic_seconds() - begin;
}

static double thread_cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void kernel_time_batch_cpu(const verdict_kernel *kernel, void *state, uint64_t iterations,
                           kernel_timing *out)
{
    double cpu = thread_cpu_seconds();
    double begin = runner_monotonic_seconds();
    kernel->run(state, iterations);
    double end = runner_monotonic_seconds();
    out->cpu_seconds = thread_cpu_seconds() - cpu;
    out->seconds = end - begin;
}

bool kernel_timing_preempted(const kernel_timing *timing)
{
    return timing->cpu_seconds < timing->seconds * (1.0 - KERNEL_MAX_OFF_CPU);
}

static uint64_t scaled_iterations(uint64_t n, double factor)
{
    double scaled = ceil((double)n * factor);
    if (scaled < 1)
        return 1;
    if (scaled > (double)CALIBRATION_MAX_ITERATIONS)
        return CALIBRATION_MAX_ITERATIONS;
    return (uint64_t)scaled;
}

static double growth_factor(double seconds, double goal)
{
    if (!(seconds > 0))
        return CALIBRATION_MAX_GROWTH;
    double factor = goal / seconds;
    return factor < 2 ? 2 : factor > CALIBRATION_MAX_GROWTH ? CALIBRATION_MAX_GROWTH : factor;
}

/* Calibration reads the thread's CPU time: time spent preempted says nothing about the
 * kernel's rate, and on a busy machine it would shrink the batch severalfold. */
static double cpu_time_of_batch(const verdict_kernel *kernel, void *state, uint64_t n)
{
    kernel_timing timing;
    kernel_time_batch_cpu(kernel, state, n, &timing);
    return timing.cpu_seconds < timing.seconds ? timing.cpu_seconds : timing.seconds;
}

static double fastest_batch(const verdict_kernel *kernel, void *state, uint64_t n, int repeats)
{
    double best = INFINITY;
    for (int i = 0; i < repeats; i++) {
        double t = cpu_time_of_batch(kernel, state, n);
        best = t < best ? t : best;
    }
    return best;
}

void kernel_calibrate(const verdict_kernel *kernel, void *state, double target_seconds,
                      kernel_calibration *out)
{
    uint64_t n = 1;
    double t = cpu_time_of_batch(kernel, state, n);
    size_t trials = 1;
    *out = (kernel_calibration){.iterations = 1, .seconds = t, .trials = 1};
    if (t >= target_seconds) {
        out->single_call_too_long = true;
        return;
    }
    /* aim at twice the first fraction so that one more step usually suffices */
    double first = target_seconds * CALIBRATION_FIRST_FRACTION;
    while (t < first && n < CALIBRATION_MAX_ITERATIONS) {
        n = scaled_iterations(n, growth_factor(t, 2 * first));
        t = cpu_time_of_batch(kernel, state, n);
        trials++;
    }
    for (int r = 0; r < CALIBRATION_REFINEMENTS && t > 0; r++) {
        n = scaled_iterations(n, target_seconds / t);
        t = fastest_batch(kernel, state, n, CALIBRATION_REPEATS);
        trials += CALIBRATION_REPEATS;
    }
    *out = (kernel_calibration){.iterations = n, .seconds = t, .trials = trials};
}

/* ---- sessions --------------------------------------------------------------------- */

const char *kernel_metric_name(kernel_metric metric)
{
    return metric == KERNEL_GBPS ? "gbps" : "ns_per_call";
}

typedef struct {
    const kernel_config *config;
    volatile sig_atomic_t *stop;
    kernel_outcome *out;
    double start;
    void **states;          /* per kernel, for the point being run */
    size_t *order;          /* per kernel: the block's shuffled order */
} run_state;

static kernel_setting *setting_of(const run_state *st, size_t point, size_t kernel)
{
    return &st->out->settings[point * st->config->n_kernels + kernel];
}

static int setup_kernel(run_state *st, size_t point, size_t k, char *err, size_t errlen)
{
    const verdict_kernel *kernel = st->config->kernels[k];
    char why[512] = "";
    verdict_kernel_setup s = {.arg = st->config->point_args[point],
                              .bytes_per_call = kernel->bytes_per_call,
                              .error = why,
                              .error_size = sizeof why};
    st->states[k] = NULL;
    if (kernel->setup && kernel->setup(&s) != 0) {
        snprintf(err, errlen, "kernel %s: setup(%s) failed: %s", st->config->kernel_names[k],
                 s.arg ? s.arg : "no arg", why[0] ? why : "no reason given");
        return -1;
    }
    st->states[k] = s.state;
    setting_of(st, point, k)->bytes_per_call = s.bytes_per_call;
    return 0;
}

static void teardown_kernels(run_state *st, size_t n_set_up)
{
    for (size_t k = 0; k < n_set_up; k++)
        if (st->config->kernels[k]->teardown)
            st->config->kernels[k]->teardown(st->states[k]);
}

static int setup_point(run_state *st, size_t point, char *err, size_t errlen)
{
    for (size_t k = 0; k < st->config->n_kernels; k++)
        if (setup_kernel(st, point, k, err, errlen) != 0) {
            teardown_kernels(st, k);
            return -1;
        }
    return 0;
}

static bool stop_requested(const run_state *st)
{
    return st->stop && *st->stop;
}

/* Calibration and warmup visit the kernels in the first block's order, so that no kernel
 * is systematically the first one touched after the previous point. */
static void calibrate_and_warm(run_state *st, size_t point)
{
    const kernel_config *c = st->config;
    schedule_block_order(c->seed, point, SIZE_MAX, c->n_kernels, st->order);
    for (size_t i = 0; i < c->n_kernels && !stop_requested(st); i++) {
        size_t k = st->order[i];
        kernel_setting *s = setting_of(st, point, k);
        if (c->fixed_iterations > 0)
            s->iterations = c->fixed_iterations;
        else {
            kernel_calibrate(c->kernels[k], st->states[k], c->sample_seconds, &s->calibration);
            s->iterations = s->calibration.iterations;
        }
    }
    for (size_t w = 0; w < c->warmup && !stop_requested(st); w++)
        for (size_t i = 0; i < c->n_kernels; i++)
            kernel_time_batch(c->kernels[st->order[i]], st->states[st->order[i]],
                              setting_of(st, point, st->order[i])->iterations);
}

static kernel_sample *new_sample(kernel_outcome *out)
{
    if (out->n_samples == out->capacity) {
        size_t capacity = out->capacity ? out->capacity * 2 : 256;
        kernel_sample *grown = realloc(out->samples, capacity * sizeof *grown);
        if (grown == NULL)
            return NULL;
        out->samples = grown;
        out->capacity = capacity;
    }
    return &out->samples[out->n_samples++];
}

/* A sample that lost the CPU measures the scheduler, not the kernel: it is taken again
 * at once, in the same place of the block. Calibration makes every sample about as long,
 * so every kernel is about as likely to be retaken and the retakes favour none. */
static int measure(run_state *st, size_t point, size_t k, size_t block)
{
    kernel_sample *s = new_sample(st->out);
    if (s == NULL)
        return -1;
    uint64_t iterations = setting_of(st, point, k)->iterations;
    kernel_timing timing;
    double started;
    unsigned retakes = 0;
    for (;; retakes++) {
        started = runner_monotonic_seconds() - st->start;
        kernel_time_batch_cpu(st->config->kernels[k], st->states[k], iterations, &timing);
        if (!kernel_timing_preempted(&timing) || retakes == KERNEL_MAX_RETAKES ||
            stop_requested(st))
            break;
    }
    st->out->retakes += retakes;
    *s = (kernel_sample){.point = point, .kernel = k, .block = (long)block,
                         .seq = (long)st->out->n_samples - 1, .iterations = iterations,
                         .seconds = timing.seconds, .cpu_seconds = timing.cpu_seconds,
                         .started = started, .retakes = retakes,
                         .tainted = kernel_timing_preempted(&timing)};
    return 0;
}

/* Returns 0 after a complete block, 1 when stopped inside it, -1 out of memory. */
static int run_block(run_state *st, size_t point, size_t block)
{
    const kernel_config *c = st->config;
    schedule_block_order(c->seed, point, block, c->n_kernels, st->order);
    for (size_t i = 0; i < c->n_kernels; i++) {
        if (measure(st, point, st->order[i], block) != 0)
            return -1;
        if (stop_requested(st))
            return i + 1 == c->n_kernels ? 0 : 1;
    }
    return 0;
}

/* Adaptive look: analyses this point alone; decided when no comparison is inconclusive. */
static bool point_decided(run_state *st, size_t point)
{
    const kernel_config *c = st->config;
    size_t blocks = st->out->complete_blocks[point], n = KERNEL_N_METRICS * c->n_kernels;
    double *values = malloc(n * blocks * sizeof *values);
    analysis_series *series = malloc(n * sizeof *series);
    analysis_result result;
    analysis_options options = c->analysis;
    options.confidence = st->out->look_confidence;
    char err[256];
    bool decided = false;
    if (values && series) {
        size_t n_series = kernel_point_series(c, st->out, point, values, series);
        if (analysis_run(series, n_series, &options, &result, err, sizeof err) == 0) {
            decided = true;
            for (size_t i = 0; i < result.n_comparisons; i++)
                decided &= result.comparisons[i].ok &&
                           result.comparisons[i].result.decision.kind != VERDICT_INCONCLUSIVE;
            analysis_result_free(&result);
        }
    }
    free(values);
    free(series);
    return decided;
}

static bool more_blocks(const run_state *st, size_t point)
{
    const kernel_config *c = st->config;
    size_t done = st->out->complete_blocks[point];
    return c->adaptive ? done < c->stopping.max_blocks && !st->out->decided[point]
                       : done < c->blocks;
}

static void report_progress(const run_state *st, size_t point)
{
    const kernel_config *c = st->config;
    if (c->progress == NULL)
        return;
    kernel_progress p = {.points_done = point, .n_points = c->n_points,
                         .blocks_done = st->out->complete_blocks[point],
                         .blocks_planned = c->adaptive ? c->stopping.max_blocks : c->blocks,
                         .elapsed = runner_monotonic_seconds() - st->start};
    c->progress(c->progress_context, &p);
}

/* Returns 0 when the point is done, 1 when stopped, -1 out of memory. */
static int run_point_blocks(run_state *st, size_t point)
{
    const kernel_config *c = st->config;
    while (more_blocks(st, point)) {
        int rc = run_block(st, point, st->out->complete_blocks[point]);
        if (rc != 0)
            return rc;
        size_t done = ++st->out->complete_blocks[point];
        if (c->adaptive && stopping_is_look(&c->stopping, done)) {
            st->out->looks_taken++;
            st->out->decided[point] = point_decided(st, point);
        }
        report_progress(st, point);
        if (stop_requested(st))
            return 1;
    }
    if (c->adaptive && !st->out->decided[point])
        st->out->budget_spent = true;
    return 0;
}

static int run_point(run_state *st, size_t point, char *err, size_t errlen)
{
    if (setup_point(st, point, err, errlen) != 0)
        return -1;
    st->out->points_started = point + 1;
    calibrate_and_warm(st, point);
    int rc = stop_requested(st) ? 1 : run_point_blocks(st, point);
    teardown_kernels(st, st->config->n_kernels);
    if (rc < 0)
        snprintf(err, errlen, "out of memory");
    return rc;
}

static int allocate_outcome(const kernel_config *c, kernel_outcome *out)
{
    memset(out, 0, sizeof *out);
    out->complete_blocks = calloc(c->n_points, sizeof *out->complete_blocks);
    out->decided = calloc(c->n_points, sizeof *out->decided);
    out->settings = calloc(c->n_points * c->n_kernels, sizeof *out->settings);
    out->look_confidence = c->adaptive ? stopping_look_confidence(c->analysis.confidence,
                                                                  &c->stopping)
                                       : c->analysis.confidence;
    return out->complete_blocks && out->decided && out->settings ? 0 : -1;
}

int kernel_run(const kernel_config *config, volatile sig_atomic_t *stop, kernel_outcome *out,
               char *err, size_t errlen)
{
    run_state st = {.config = config, .stop = stop, .out = out, .start = runner_monotonic_seconds()};
    st.states = calloc(config->n_kernels, sizeof *st.states);
    st.order = calloc(config->n_kernels, sizeof *st.order);
    int rc = allocate_outcome(config, out) == 0 && st.states && st.order ? 0 : -1;
    if (rc != 0)
        snprintf(err, errlen, "out of memory");
    for (size_t p = 0; rc == 0 && p < config->n_points; p++)
        rc = run_point(&st, p, err, errlen);
    out->status = rc == 1 ? KERNEL_INTERRUPTED : KERNEL_DONE;
    out->elapsed = runner_monotonic_seconds() - st.start;
    free(st.states);
    free(st.order);
    return rc < 0 ? -1 : 0;
}

void kernel_outcome_free(kernel_outcome *outcome)
{
    free(outcome->samples);
    free(outcome->complete_blocks);
    free(outcome->decided);
    free(outcome->settings);
    memset(outcome, 0, sizeof *outcome);
}

/* ---- series for analysis ---------------------------------------------------------- */

double kernel_sample_value(const kernel_config *config, const kernel_outcome *outcome,
                           const kernel_sample *sample, kernel_metric metric)
{
    double ns = sample->seconds * 1e9;
    if (metric == KERNEL_NS_PER_CALL)
        return ns / (double)sample->iterations;
    uint64_t bytes =
        outcome->settings[sample->point * config->n_kernels + sample->kernel].bytes_per_call;
    /* bytes per nanosecond are gigabytes (1e9 B) per second */
    return bytes ? (double)bytes * (double)sample->iterations / ns : NAN;
}

bool kernel_point_has_gbps(const kernel_config *config, const kernel_outcome *outcome,
                           size_t point)
{
    for (size_t k = 0; k < config->n_kernels; k++)
        if (outcome->settings[point * config->n_kernels + k].bytes_per_call == 0)
            return false;
    return true;
}

size_t kernel_point_series(const kernel_config *config, const kernel_outcome *outcome,
                           size_t point, double *values, analysis_series *series)
{
    size_t n = config->n_kernels, blocks = outcome->complete_blocks[point];
    size_t metrics = kernel_point_has_gbps(config, outcome, point) ? 2 : 1;
    for (size_t m = 0; m < metrics; m++)
        for (size_t k = 0; k < n; k++)
            series[m * n + k] = (analysis_series){
                .point = config->point_ids[point], .metric = kernel_metric_name((kernel_metric)m),
                .variant = config->kernel_names[k], .values = values + (m * n + k) * blocks,
                .n = blocks, .higher_is_better = m == KERNEL_GBPS};
    for (size_t i = 0; i < outcome->n_samples; i++) {
        const kernel_sample *s = &outcome->samples[i];
        if (s->point != point || s->block < 0 || (size_t)s->block >= blocks)
            continue;
        for (size_t m = 0; m < metrics; m++)
            values[(m * n + s->kernel) * blocks + (size_t)s->block] =
                kernel_sample_value(config, outcome, s, (kernel_metric)m);
    }
    return metrics * n;
}

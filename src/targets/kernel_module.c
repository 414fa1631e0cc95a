/* Loading of kernel modules with dlopen, checked once, and the calibration of a batch size:
 * how many calls make one sample about as long as the target, timed on the thread's CPU. */
#include "targets/kernel_module.h"

#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "common/error.h"
#include "common/strbuf.h"
#include "core/runner.h"

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

static int check_file(const char *path, verdict_error *err)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        error_set(err, ERROR_USAGE, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        error_set(err, ERROR_USAGE, "%s: not a regular file (expected a shared object)", path);
        return -1;
    }
    return 0;
}

static void *find_symbol(void *handle, const char *path, const char *symbol, verdict_error *err)
{
    dlerror();
    void *address = dlsym(handle, symbol);
    if (address == NULL)
        error_set(err, ERROR_USAGE, "%s: does not export %s(): not a verdict kernel module "
                  "(define the kernels with VERDICT_KERNEL_MODULE from <verdict/kernel.h>)", path,
                  symbol);
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
static int check_table(const char *path, const verdict_kernel *kernels, size_t count,
                       verdict_error *err)
{
    if (kernels == NULL || count == 0) {
        error_set(err, ERROR_USAGE, "%s: verdict_kernels() returned no kernels", path);
        return -1;
    }
    for (size_t i = 0; i < count; i++) {
        if (!valid_name(kernels[i].name) || kernels[i].run == NULL) {
            error_set(err, ERROR_USAGE, "%s: kernel %zu has %s", path, i + 1,
                      kernels[i].run ? "an invalid name (letters, digits, _ - . only)"
                                     : "no run()");
            return -1;
        }
        for (size_t j = 0; j < i; j++)
            if (strcmp(kernels[i].name, kernels[j].name) == 0) {
                error_set(err, ERROR_USAGE, "%s: two kernels are called '%s'", path,
                          kernels[i].name);
                return -1;
            }
    }
    return 0;
}

static int bind_module(kernel_module *m, const char *path, verdict_error *err)
{
    verdict_kernel_abi_fn abi;
    verdict_kernels_fn table;
    /* POSIX lets dlsym's object pointer be converted to a function pointer; memcpy says
     * so without a pedantic cast warning. */
    void *abi_address = find_symbol(m->handle, path, "verdict_kernel_abi", err);
    void *table_address = abi_address ? find_symbol(m->handle, path, "verdict_kernels", err)
                                      : NULL;
    if (table_address == NULL)
        return -1;
    memcpy(&abi, &abi_address, sizeof abi);
    memcpy(&table, &table_address, sizeof table);
    uint32_t version = abi();
    if (version != VERDICT_KERNEL_ABI_VERSION) {
        error_set(err, ERROR_USAGE, "%s: built for kernel ABI version %u, this verdict loads "
                  "version %d: rebuild it against this verdict's <verdict/kernel.h>", path,
                  (unsigned)version, VERDICT_KERNEL_ABI_VERSION);
        return -1;
    }
    m->kernels = table(&m->count);
    return check_table(path, m->kernels, m->count, err);
}

int kernel_module_open(const char *path, kernel_module **out, verdict_error *err)
{
    char loadable[4096];
    *out = NULL;
    if (check_file(path, err) != 0)
        return -1;
    kernel_module *m = calloc(1, sizeof *m);
    if (m == NULL) {
        error_no_memory(err);
        return -1;
    }
    loadable_path(path, loadable, sizeof loadable);
    m->handle = dlopen(loadable, RTLD_NOW | RTLD_LOCAL);
    if (m->handle == NULL) {
        const char *why = dlerror();
        error_set(err, ERROR_USAGE, "%s: cannot load as a shared object: %s", path,
                  why ? why : "?");
        free(m);
        return -1;
    }
    if (bind_module(m, path, err) != 0) {
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

const verdict_kernel *kernel_module_find(const kernel_module *module, const char *name,
                                         verdict_error *err)
{
    for (size_t i = 0; i < module->count; i++)
        if (strcmp(module->kernels[i].name, name) == 0)
            return &module->kernels[i];
    strbuf names = STRBUF_INIT;
    for (size_t i = 0; i < module->count; i++)
        strbuf_appendf(&names, " %s", module->kernels[i].name);
    error_set(err, ERROR_USAGE, "no kernel '%s' in the module; it has:%s", name,
              strbuf_text(&names));
    strbuf_free(&names);
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
#define CALIBRATION_MAX_ITERATIONS KERNEL_MAX_ITERATIONS

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

bool kernel_time_batch_pieces(const verdict_kernel *kernel, void *state, uint64_t iterations,
                              uint64_t piece, volatile sig_atomic_t *stop, kernel_timing *out)
{
    if (piece == 0)
        piece = 1;
    double cpu = thread_cpu_seconds();
    double begin = runner_monotonic_seconds();
    uint64_t left = iterations;
    while (left > 0 && !(left < iterations && stop && *stop)) {
        uint64_t n = left < piece ? left : piece;
        kernel->run(state, n);
        left -= n;
    }
    double end = runner_monotonic_seconds();
    out->cpu_seconds = thread_cpu_seconds() - cpu;
    out->seconds = end - begin;
    return left == 0;
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

uint64_t kernel_calls_lasting(const verdict_kernel *kernel, void *state, double seconds)
{
    /* Doubling until a batch lasts a millisecond: clock reads are then below 0.01%. */
    uint64_t n = 1;
    double t = cpu_time_of_batch(kernel, state, n);
    while (t < 1e-3 && n < CALIBRATION_MAX_ITERATIONS) {
        n *= 2;
        t = cpu_time_of_batch(kernel, state, n);
    }
    return t > 0 ? scaled_iterations(n, seconds / t) : CALIBRATION_MAX_ITERATIONS;
}

void kernel_calibrate(const verdict_kernel *kernel, void *state, double target_seconds,
                      volatile sig_atomic_t *stop, kernel_calibration *out)
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
    while (t < first && n < CALIBRATION_MAX_ITERATIONS && !(stop && *stop)) {
        n = scaled_iterations(n, growth_factor(t, 2 * first));
        t = cpu_time_of_batch(kernel, state, n);
        trials++;
    }
    for (int r = 0; r < CALIBRATION_REFINEMENTS && t > 0 && !(stop && *stop); r++) {
        n = scaled_iterations(n, target_seconds / t);
        t = fastest_batch(kernel, state, n, CALIBRATION_REPEATS);
        trials += CALIBRATION_REPEATS;
    }
    *out = (kernel_calibration){.iterations = n, .seconds = t, .trials = trials};
}

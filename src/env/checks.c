/* The noise checks of `verdict env`: each reads a fact or the short measurement and says
 * pass, warn or info with a message that tells what the reading means for timings. */
#include "env/checks.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "common/error.h"

/* Room for every check; a builder that fails once stays failed (out of memory). */
#define MAX_CHECKS 16

typedef struct {
    env_check items[MAX_CHECKS];
    size_t n;
    bool failed;
} check_list;

static void free_check_strings(env_check *checks, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(checks[i].code);
        free(checks[i].message);
    }
}

__attribute__((format(printf, 4, 5)))
static void add_check(check_list *list, check_status status, const char *code,
                      const char *format, ...)
{
    char message[512];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    if (list->failed || list->n == MAX_CHECKS) {
        list->failed = true;
        return;
    }
    env_check *c = &list->items[list->n];
    c->status = status;
    c->code = strdup(code);
    c->message = strdup(message);
    if (c->code == NULL || c->message == NULL) {
        free(c->code);
        free(c->message);
        list->failed = true;
        return;
    }
    list->n++;
}

/* A fact's value, or "unknown" when the facts lack it (hand-made facts in tests). */
static const char *fact(const machine_facts *facts, const char *key)
{
    const char *value = machine_facts_get(facts, key);
    return value ? value : "unknown";
}

static bool is(const char *value, const char *expected)
{
    return strcmp(value, expected) == 0;
}

static void check_governor(check_list *list, const machine_facts *facts)
{
    const char *governor = fact(facts, "governor");
    if (is(governor, "performance"))
        add_check(list, CHECK_PASS, "governor", "cpufreq governor is 'performance'");
    else if (is(governor, "none") || is(governor, "unknown"))
        add_check(list, CHECK_INFO, "governor",
                  "no cpufreq governor (usual in VMs): the host or firmware sets the clock speed");
    else
        add_check(list, CHECK_WARN, "governor",
                  "cpufreq governor is '%s', not 'performance': clock speed will vary", governor);
}

static void check_turbo(check_list *list, const machine_facts *facts)
{
    const char *turbo = fact(facts, "turbo");
    if (is(turbo, "on"))
        add_check(list, CHECK_WARN, "turbo",
                  "turbo boost is on: clock speed depends on temperature and on how many cores are busy");
    else if (is(turbo, "off"))
        add_check(list, CHECK_PASS, "turbo", "turbo boost is off");
    else
        add_check(list, CHECK_INFO, "turbo",
                  "turbo boost state unknown (no intel_pstate or cpufreq boost switch)");
}

static void check_smt(check_list *list, const machine_facts *facts)
{
    const char *smt = fact(facts, "smt");
    if (is(smt, "on"))
        add_check(list, CHECK_WARN, "smt",
                  "SMT is on: sibling threads share a core's units and caches; pin runs with --pin");
    else if (is(smt, "off"))
        add_check(list, CHECK_PASS, "smt", "SMT is off: one thread per core");
    else
        add_check(list, CHECK_INFO, "smt", "SMT state unknown");
}

static void check_aslr(check_list *list, const machine_facts *facts)
{
    const char *aslr = fact(facts, "aslr");
    if (is(aslr, "full") || is(aslr, "partial"))
        add_check(list, CHECK_INFO, "aslr",
                  "ASLR is on (%s): addresses change between runs; verdict also randomizes the "
                  "environment size, so layout luck is averaged out", aslr);
    else if (is(aslr, "off"))
        add_check(list, CHECK_INFO, "aslr",
                  "ASLR is off: stack and heap addresses repeat; verdict still randomizes the "
                  "environment size to vary the layout");
    else
        add_check(list, CHECK_INFO, "aslr", "ASLR state unknown");
}

static void check_load(check_list *list, const machine_facts *facts)
{
    char *end1, *end2;
    const char *load_text = fact(facts, "load1"), *cpus_text = fact(facts, "cpus_online");
    double load = strtod(load_text, &end1), cpus = strtod(cpus_text, &end2);
    if (*end1 != '\0' || *end2 != '\0' || end1 == load_text || end2 == cpus_text || !(cpus >= 1)) {
        add_check(list, CHECK_INFO, "load", "load average unknown");
        return;
    }
    double per_cpu = load / cpus;
    add_check(list, per_cpu > ENV_CHECK_LOAD_PER_CPU ? CHECK_WARN : CHECK_PASS, "load",
              "1-minute load average %.2f over %.0f CPUs (%.2f per CPU, limit %.2f)%s", load,
              cpus, per_cpu, ENV_CHECK_LOAD_PER_CPU,
              per_cpu > ENV_CHECK_LOAD_PER_CPU ? ": other work competes for the CPUs" : "");
}

/* steal and other-load share the measurement and its granularity rules. */
static bool sample_known(check_list *list, const interference *sample, const char *code)
{
    if (sample == NULL) {
        add_check(list, CHECK_INFO, code, "not measured (--seconds 0)");
        return false;
    }
    if (!isfinite(sample->seconds)) {
        add_check(list, CHECK_INFO, code, "not measured: /proc/stat cannot be read");
        return false;
    }
    if (!isfinite(sample->resolution)) {
        add_check(list, CHECK_INFO, code, "not measured: the interval of %.3f s is too short",
                  sample->seconds);
        return false;
    }
    return true;
}

static void check_steal(check_list *list, const interference *sample)
{
    if (!sample_known(list, sample, "steal"))
        return;
    bool high = sample->steal - INTERFERENCE_STEAL_SLACK_JIFFIES * sample->resolution >
                ENV_CHECK_STEAL_LIMIT;
    add_check(list, high ? CHECK_WARN : CHECK_PASS, "steal",
              "the hypervisor stole %.1f%% of CPU time over %.1f s (limit %.0f%%)%s",
              100.0 * sample->steal, sample->seconds, 100.0 * ENV_CHECK_STEAL_LIMIT,
              high ? ": other guests share the host's CPUs" : "");
}

static void check_other_load(check_list *list, const interference *sample)
{
    if (!sample_known(list, sample, "other-load"))
        return;
    double cpus = sample->other_busy * sample->ncpu;
    double slack = INTERFERENCE_BUSY_SLACK_JIFFIES * sample->resolution * sample->ncpu;
    bool high = cpus - slack > ENV_CHECK_OTHER_CPUS_LIMIT;
    add_check(list, high ? CHECK_WARN : CHECK_PASS, "other-load",
              "other work kept %.2f CPUs busy over %.1f s (limit %.2f)%s", cpus,
              sample->seconds, ENV_CHECK_OTHER_CPUS_LIMIT,
              high ? ": stop it or expect slower, noisier runs" : "");
}

static void check_vm(check_list *list, const machine_facts *facts)
{
    const char *vm = fact(facts, "virtualization");
    if (strncmp(vm, "vm", 2) == 0)
        add_check(list, CHECK_INFO, "vm",
                  "running in a virtual machine, %s: timings include the host's noise; "
                  "watch steal and the interference recorded with each sample", vm);
    else if (is(vm, "none"))
        add_check(list, CHECK_PASS, "vm", "no hypervisor detected");
    else
        add_check(list, CHECK_INFO, "vm", "cannot tell whether this is a virtual machine");
}

static void check_timer(check_list *list, double resolution)
{
    if (!isfinite(resolution))
        add_check(list, CHECK_INFO, "timer", "CLOCK_MONOTONIC resolution unknown");
    else if (resolution > ENV_CHECK_TIMER_LIMIT)
        add_check(list, CHECK_WARN, "timer",
                  "CLOCK_MONOTONIC resolution is %.0f ns, coarser than 1 us: short runs are "
                  "timed imprecisely", resolution * 1e9);
    else
        add_check(list, CHECK_PASS, "timer", "CLOCK_MONOTONIC resolution is %.0f ns",
                  resolution * 1e9);
}

static void check_clocksource(check_list *list, const machine_facts *facts)
{
    static const char *const fast[] = {"tsc", "kvm-clock", "arch_sys_counter",
                                       "hyperv_clocksource_tsc_page", "xen"};
    static const char *const slow[] = {"hpet", "acpi_pm", "jiffies", "refined-jiffies", "pit"};
    const char *source = fact(facts, "clocksource");
    for (size_t i = 0; i < sizeof fast / sizeof fast[0]; i++)
        if (is(source, fast[i])) {
            add_check(list, CHECK_PASS, "clocksource", "clocksource is '%s'", source);
            return;
        }
    for (size_t i = 0; i < sizeof slow / sizeof slow[0]; i++)
        if (is(source, slow[i])) {
            add_check(list, CHECK_WARN, "clocksource",
                      "clocksource is '%s': reading the clock is a slow system call, not a "
                      "vDSO read; timings of short runs carry its cost", source);
            return;
        }
    add_check(list, CHECK_INFO, "clocksource", "clocksource is '%s'", source);
}

int env_checks_judge(const machine_facts *facts, const interference *sample,
                     double timer_resolution, env_check **out, size_t *n, verdict_error *err)
{
    check_list list = {.n = 0, .failed = false};
    check_governor(&list, facts);
    check_turbo(&list, facts);
    check_smt(&list, facts);
    check_aslr(&list, facts);
    check_load(&list, facts);
    check_steal(&list, sample);
    check_other_load(&list, sample);
    check_vm(&list, facts);
    check_timer(&list, timer_resolution);
    check_clocksource(&list, facts);
    env_check *copy = list.failed ? NULL : malloc(list.n * sizeof *copy);
    if (copy == NULL) {
        free_check_strings(list.items, list.n);
        error_set(err, ERROR_NO_MEMORY, "environment checks: out of memory");
        return -1;
    }
    memcpy(copy, list.items, list.n * sizeof *copy);
    *out = copy;
    *n = list.n;
    return 0;
}

static double own_cpu_seconds(void)
{
    struct rusage u;
    if (getrusage(RUSAGE_SELF, &u) != 0)
        return 0.0;
    return (double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

static void sleep_seconds(double seconds)
{
    struct timespec left = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    while (nanosleep(&left, &left) != 0 && errno == EINTR)
        continue;
}

/* Steal and other load while this process sleeps: the quiet machine's own noise. */
static int measure_sample(double seconds, interference *sample)
{
    cpu_snapshot *snap = malloc(2 * sizeof *snap); /* two 4 KB structs: off the stack */
    if (snap == NULL)
        return -1;
    int rc = -1;
    double cpu_before = own_cpu_seconds();
    if (interference_snapshot(&snap[0]) == 0) {
        sleep_seconds(seconds);
        double own = own_cpu_seconds() - cpu_before;
        if (interference_snapshot(&snap[1]) == 0) {
            interference_between(&snap[0], &snap[1], own, sample);
            rc = 0;
        }
    }
    free(snap);
    return rc;
}

int env_checks_run(const machine_facts *facts, double sample_seconds, env_check **out,
                   size_t *n, verdict_error *err)
{
    interference sample = {.seconds = NAN, .steal = NAN, .other_busy = NAN,
                           .resolution = NAN, .load1 = NAN, .ncpu = 0};
    bool measured = sample_seconds > 0 && isfinite(sample_seconds);
    if (measured && measure_sample(sample_seconds, &sample) != 0)
        sample.seconds = NAN; /* judged as "cannot be read" */
    struct timespec res;
    double resolution = clock_getres(CLOCK_MONOTONIC, &res) == 0
                            ? (double)res.tv_sec + (double)res.tv_nsec / 1e9
                            : NAN;
    return env_checks_judge(facts, measured ? &sample : NULL, resolution, out, n, err);
}

void env_checks_free(env_check *checks, size_t n)
{
    if (checks == NULL)
        return;
    free_check_strings(checks, n);
    free(checks);
}

const char *check_status_name(check_status status)
{
    switch (status) {
    case CHECK_PASS: return "pass";
    case CHECK_WARN: return "warn";
    case CHECK_INFO: return "info";
    }
    return "info";
}

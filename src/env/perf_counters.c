/* The table of counters with perf's names, their perf_event_attr type and config, the derived
 * ratios, and the parser of what a user writes ("instructions", "cycles:k", "ipc:u"). */
#include "env/perf_counters.h"

#include <assert.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/array.h"
#include "common/edit_distance.h"

#define HW_CACHE_CONFIG(cache, op, result) \
    ((uint64_t)(cache) | ((uint64_t)(op) << 8) | ((uint64_t)(result) << 16))

/* perf list's names, in perf's order. The PMU's events count user space only unless asked
 * (the kernel's share is noise for a program's own work: rustc-perf's instructions:u); the
 * software events are the kernel's own bookkeeping and count both levels, because excluding
 * the kernel would drop every context switch and migration (they happen only in kernel
 * mode) and every page fault taken inside a system call. */
static const perf_counters_event events[] = {
    {"instructions", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, true,
     PERF_COUNTERS_USER, "instructions retired by the CPU"},
    {"cycles", "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, true,
     PERF_COUNTERS_USER, "CPU cycles while the process ran (changes with the clock speed)"},
    {"branches", "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS,
     true, PERF_COUNTERS_USER, "branch instructions retired"},
    {"branch-misses", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, true,
     PERF_COUNTERS_USER, "branches the CPU predicted wrongly"},
    {"cache-references", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, true,
     PERF_COUNTERS_USER, "accesses to the last-level cache (what counts is the CPU's choice)"},
    {"cache-misses", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, true,
     PERF_COUNTERS_USER, "accesses that missed the last-level cache and went to memory"},
    {"L1-dcache-load-misses", NULL, PERF_TYPE_HW_CACHE,
     HW_CACHE_CONFIG(PERF_COUNT_HW_CACHE_L1D, PERF_COUNT_HW_CACHE_OP_READ,
                     PERF_COUNT_HW_CACHE_RESULT_MISS),
     true, PERF_COUNTERS_USER, "loads that missed the first-level data cache"},
    {"task-clock", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, false,
     PERF_COUNTERS_USER_KERNEL, "CPU time of the process and its children, in nanoseconds"},
    {"page-faults", "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, false,
     PERF_COUNTERS_USER_KERNEL, "page faults, minor and major (first touches of memory)"},
    {"context-switches", "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, false,
     PERF_COUNTERS_USER_KERNEL, "times the process left a CPU, by choice or preempted"},
    {"cpu-migrations", "migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, false,
     PERF_COUNTERS_USER_KERNEL, "times the process moved from one CPU to another"},
};

static const perf_counters_derived derived[] = {
    {"ipc", "instructions", "cycles", true, "instructions per cycle (instructions / cycles)"},
    {"branch-miss-rate", "branch-misses", "branches", false,
     "the share of branches mispredicted (branch-misses / branches)"},
};

/* Every name a user may write, events first (aliases after them), then the ratios. */
#define MAX_NAMES (2 * ARRAY_SIZE(events) + ARRAY_SIZE(derived))

size_t perf_counters_event_count(void)
{
    return ARRAY_SIZE(events);
}

const perf_counters_event *perf_counters_event_at(size_t i)
{
    assert(i < ARRAY_SIZE(events));
    return &events[i];
}

const perf_counters_event *perf_counters_event_find(const char *name)
{
    for (size_t i = 0; i < ARRAY_SIZE(events); i++)
        if (strcmp(name, events[i].name) == 0 ||
            (events[i].alias != NULL && strcmp(name, events[i].alias) == 0))
            return &events[i];
    return NULL;
}

size_t perf_counters_derived_count(void)
{
    return ARRAY_SIZE(derived);
}

const perf_counters_derived *perf_counters_derived_at(size_t i)
{
    assert(i < ARRAY_SIZE(derived));
    return &derived[i];
}

static const perf_counters_derived *derived_find(const char *name)
{
    for (size_t i = 0; i < ARRAY_SIZE(derived); i++)
        if (strcmp(name, derived[i].name) == 0)
            return &derived[i];
    return NULL;
}

static const char *scope_suffix(perf_counters_scope scope)
{
    switch (scope) {
    case PERF_COUNTERS_USER: return "u";
    case PERF_COUNTERS_KERNEL: return "k";
    case PERF_COUNTERS_USER_KERNEL: return "uk";
    }
    assert(!"a scope outside the enumeration");
    return "?";
}

void perf_counters_spec_name(const perf_counters_spec *spec, char *buf, size_t len)
{
    snprintf(buf, len, "%s:%s", spec->event->name, scope_suffix(spec->scope));
}

double perf_counters_ratio(uint64_t numerator, uint64_t denominator)
{
    return denominator == 0 ? NAN : (double)numerator / (double)denominator;
}

/* "u", "k", "uk" or "ku" (perf's letters for the levels, each at most once). */
static int parse_scope(const char *modifier, perf_counters_scope *scope)
{
    if (strcmp(modifier, "u") == 0)
        *scope = PERF_COUNTERS_USER;
    else if (strcmp(modifier, "k") == 0)
        *scope = PERF_COUNTERS_KERNEL;
    else if (strcmp(modifier, "uk") == 0 || strcmp(modifier, "ku") == 0)
        *scope = PERF_COUNTERS_USER_KERNEL;
    else
        return -1;
    return 0;
}

void perf_counters_names(char *buf, size_t len)
{
    assert(len > 0);
    buf[0] = '\0';
    for (size_t i = 0; i < ARRAY_SIZE(events); i++)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", i ? ", " : "", events[i].name);
    for (size_t i = 0; i < ARRAY_SIZE(derived); i++)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", i ? ", " : "; ratios: ",
                 derived[i].name);
}

static int unknown_name(const char *name, verdict_error *err)
{
    const char *names[MAX_NAMES];
    size_t n = 0;
    char known[512];
    perf_counters_names(known, sizeof known);
    for (size_t i = 0; i < ARRAY_SIZE(events); i++)
        names[n++] = events[i].name;
    for (size_t i = 0; i < ARRAY_SIZE(events); i++)
        if (events[i].alias != NULL)
            names[n++] = events[i].alias;
    for (size_t i = 0; i < ARRAY_SIZE(derived); i++)
        names[n++] = derived[i].name;
    const char *closest = edit_distance_closest(name, names, n, 2);
    if (closest != NULL)
        return error_set(err, ERROR_USAGE, "unknown counter '%s' (did you mean '%s'?); "
                         "counters: %s", name, closest, known);
    return error_set(err, ERROR_USAGE, "unknown counter '%s'; counters: %s", name, known);
}

static void fill_parts(perf_counters_metric *out, const perf_counters_event *event,
                       const perf_counters_derived *ratio, const char *modifier,
                       perf_counters_scope scope)
{
    out->derived = ratio;
    if (ratio == NULL) {
        out->n_parts = 1;
        out->parts[0] = (perf_counters_spec){event, modifier ? scope : event->default_scope};
        perf_counters_spec_name(&out->parts[0], out->name, sizeof out->name);
        return;
    }
    const perf_counters_event *top = perf_counters_event_find(ratio->numerator);
    const perf_counters_event *bottom = perf_counters_event_find(ratio->denominator);
    assert(top != NULL && bottom != NULL && top->default_scope == bottom->default_scope);
    perf_counters_scope both = modifier ? scope : top->default_scope;
    out->n_parts = 2;
    out->parts[0] = (perf_counters_spec){top, both};
    out->parts[1] = (perf_counters_spec){bottom, both};
    snprintf(out->name, sizeof out->name, "%s:%s", ratio->name, scope_suffix(both));
}

int perf_counters_parse(const char *text, perf_counters_metric *out, verdict_error *err)
{
    char name[64];
    const char *colon = strchr(text, ':');
    size_t length = colon ? (size_t)(colon - text) : strlen(text);
    if (length >= sizeof name)
        return error_set(err, ERROR_USAGE, "unknown counter '%.*s…' (names are short: "
                         "instructions, cycles, page-faults...)", 40, text);
    memcpy(name, text, length);
    name[length] = '\0';
    const perf_counters_event *event = perf_counters_event_find(name);
    const perf_counters_derived *ratio = event ? NULL : derived_find(name);
    if (event == NULL && ratio == NULL)
        return unknown_name(name, err);
    perf_counters_scope scope = PERF_COUNTERS_USER;
    const char *modifier = colon ? colon + 1 : NULL;
    if (modifier != NULL && parse_scope(modifier, &scope) != 0)
        return error_set(err, ERROR_USAGE, "counter '%s': unknown modifier ':%s' (modifiers: "
                         ":u user space, :k kernel, :uk both)", text, modifier);
    memset(out, 0, sizeof *out);
    fill_parts(out, event, ratio, modifier, scope);
    return 0;
}

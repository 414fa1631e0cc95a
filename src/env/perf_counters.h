/* Hardware and software counters of a measured process through perf_event_open: perf's names
 * and modifiers, the derived ratios, whether this machine can count an event (and why not,
 * in words), and a counting session on a child, its children included, as `perf stat` does. */
#ifndef VERDICT_ENV_PERF_COUNTERS_H
#define VERDICT_ENV_PERF_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "common/error.h"

/* Which privilege levels an event counts: perf's modifiers :u, :k and :uk. */
typedef enum {
    PERF_COUNTERS_USER = 1,
    PERF_COUNTERS_KERNEL = 2,
    PERF_COUNTERS_USER_KERNEL = 3,
} perf_counters_scope;

/* One countable event, with perf's name and its perf_event_attr type and config. */
typedef struct {
    const char *name;       /* perf's name: "instructions", "page-faults" */
    const char *alias;      /* perf's other name ("branch-instructions"), or NULL */
    uint32_t type;          /* PERF_TYPE_HARDWARE, PERF_TYPE_HW_CACHE, PERF_TYPE_SOFTWARE */
    uint64_t config;
    bool hardware;          /* counted by the CPU's PMU (absent on most VMs) */
    perf_counters_scope default_scope; /* without a modifier: user space for the PMU's events,
                                          as rustc-perf's instructions:u; both for the
                                          kernel's own software events */
    const char *meaning;    /* one line for `verdict env` and docs/metrics.md */
} perf_counters_event;

/* An event with the privilege levels it counts. */
typedef struct {
    const perf_counters_event *event;
    perf_counters_scope scope;
} perf_counters_spec;

/* A ratio of two events measured together: ipc, branch-miss-rate. */
typedef struct {
    const char *name;
    const char *numerator, *denominator; /* event names of the table */
    bool higher_is_better;               /* ipc: more work per cycle; every count is lower */
    const char *meaning;
} perf_counters_derived;

/* What a user named: one event, or a derived ratio and the two events it needs (each with the
 * ratio's modifier, so ipc:k divides instructions:k by cycles:k). */
typedef struct {
    const perf_counters_derived *derived; /* NULL for a plain event */
    perf_counters_spec parts[2];          /* the event; or numerator, denominator */
    size_t n_parts;
    char name[48];                        /* canonical: "instructions:u", "ipc:u" */
} perf_counters_metric;

/* The table of events, in perf's order. */
size_t perf_counters_event_count(void);
const perf_counters_event *perf_counters_event_at(size_t i);
/* By perf's name or alias; NULL when none. */
const perf_counters_event *perf_counters_event_find(const char *name);
size_t perf_counters_derived_count(void);
const perf_counters_derived *perf_counters_derived_at(size_t i);

/* "instructions, cycles, ...; ratios: ipc, branch-miss-rate" into buf, for messages. */
void perf_counters_names(char *buf, size_t len);

/* Parses "instructions", "cycles:k", "page-faults:uk", "ipc". An unknown name is refused
 * (ERROR_USAGE) with the names that exist and the closest one; a modifier other than u, k,
 * uk (or ku) is refused with those that exist. */
int perf_counters_parse(const char *text, perf_counters_metric *out, verdict_error *err);
/* "instructions:u" into buf. */
void perf_counters_spec_name(const perf_counters_spec *spec, char *buf, size_t len);
/* numerator / denominator; NAN when the denominator is 0. */
double perf_counters_ratio(uint64_t numerator, uint64_t denominator);

/* Can this machine count the event? Opens it (disabled) on the calling thread and closes
 * it: 0, or -1 with ERROR_USAGE and the reason in words (perf_counters_refusal). */
int perf_counters_probe(const perf_counters_spec *spec, verdict_error *err);
/* The words for a refused perf_event_open: errnum as it failed, paranoid the value of
 * /proc/sys/kernel/perf_event_paranoid (or INT_MIN when unknown), has_pmu whether the CPU's
 * counters can count anything at all (cycles:u opens). Sets ERROR_USAGE (ERROR_INTERNAL for
 * too many open files, ERROR_NO_MEMORY), returns -1. */
int perf_counters_refusal(const perf_counters_spec *spec, int errnum, int paranoid,
                          bool has_pmu, verdict_error *err);
/* /proc/sys/kernel/perf_event_paranoid, or INT_MIN when it cannot be read. */
int perf_counters_paranoid(void);

/* One counter's reading. Values are never scaled: when the counter was multiplexed (it
 * ran only part of the time it was enabled) or never ran, partial says so. */
typedef struct {
    uint64_t count;
    uint64_t time_enabled, time_running; /* ns, children included */
    bool partial;                        /* time_running < time_enabled, or never enabled */
} perf_counters_value;

/* A value as the kernel reports it: partial when running < enabled or never enabled. */
perf_counters_value perf_counters_value_of(uint64_t count, uint64_t time_enabled,
                                           uint64_t time_running);

/* Counters opened on a process that has not exec'd yet. */
typedef struct perf_counters_session perf_counters_session;

/* Opens specs[0..n) on pid, disabled until its exec (enable_on_exec) and inherited by every
 * process it starts afterwards. Two ways to use it:
 * - pid a child stopped before its exec (as perf stat's workload waits on a pipe): that
 *   child and its descendants are counted from the exec on (perf_counters_measure_command);
 * - pid 0, the calling thread, for a runner whose child cannot wait (clone with CLONE_VFORK,
 *   posix_spawn): the calling thread's own counters never run (it does not exec), and the
 *   children it starts inherit them, enabled at their exec, so that each child and its
 *   descendants are counted and added back when they end. Open it just before the start and
 *   close it after the read: every child that the thread starts meanwhile is counted.
 * The hardware events form one group and the software events another (a group is counted
 * all at once or not at all: ipc's parts together; a software event never waits for a PMU
 * counter); where the kernel refuses a group (older kernels refuse inherit with a group
 * read), each event is opened alone and perf_counters_grouped says false. 0, or -1 with the
 * reason (perf_counters_refusal's words). */
int perf_counters_open(pid_t pid, const perf_counters_spec *specs, size_t n,
                       perf_counters_session **out, verdict_error *err);
/* Opens specs[0..n) on pid, a process that runs already and will not exec (a server), enabled
 * at once and inherited by every process it starts from now on: its own work from the open,
 * and each child's, added back when that child ends (the children it started before are not
 * counted). Read once the children of interest have ended. Groups as perf_counters_open. */
int perf_counters_attach(pid_t pid, const perf_counters_spec *specs, size_t n,
                         perf_counters_session **out, verdict_error *err);
/* Opens specs[0..n) on the calling thread, disabled: they count its own work (a kernel's
 * batch run in-process) only between perf_counters_enable(session, true) and (..., false),
 * as often as wanted; each read gives the totals of every span counted since the open, and
 * the times enabled and running over those spans. Groups as perf_counters_open. */
int perf_counters_open_paused(const perf_counters_spec *specs, size_t n,
                              perf_counters_session **out, verdict_error *err);
/* Starts (on) or stops the counting of a session opened paused, each group at once. 0, or -1
 * (ERROR_INTERNAL) naming the ioctl that failed. */
int perf_counters_enable(perf_counters_session *session, bool on, verdict_error *err);
/* True when every kind of event (hardware, software) with more than one member got a group. */
bool perf_counters_grouped(const perf_counters_session *session);
/* Reads every counter into values[0..n) (the order of the specs): after the process and
 * its children have ended, the totals. 0, or -1 (ERROR_INTERNAL) with the read that failed. */
int perf_counters_read(perf_counters_session *session, perf_counters_value *values,
                       verdict_error *err);
void perf_counters_close(perf_counters_session *session);

/* What perf_counters_measure_command saw of one run. */
typedef struct {
    perf_counters_value *values; /* the caller's array of n, filled in the specs' order */
    bool grouped;
    int status;                  /* waitpid's status */
    struct rusage usage;         /* the child's and its waited-for children's */
} perf_counters_measurement;

/* Runs argv (found through PATH; stdin, stdout and stderr from and to /dev/null) with the
 * counters open on it from its exec to its end, as `perf stat` does: fork, the child waits
 * on a pipe, the counters are opened on it, it is released and execs, is waited for, and
 * the counters are read. For tests and the runner. 0 when it ran (whatever its exit status),
 * or -1: the counters could not be opened (ERROR_USAGE, the reason), the program could not
 * be executed (ERROR_COMMAND_FAILED, naming it), a system call failed (ERROR_INTERNAL). */
int perf_counters_measure_command(char *const argv[], const perf_counters_spec *specs,
                                  size_t n, perf_counters_measurement *out, verdict_error *err);

#endif

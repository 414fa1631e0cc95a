/* Interference around one benchmark run: CPU time stolen by the hypervisor and CPU time
 * used by other work, from two cheap /proc snapshots taken before and after the run. */
#ifndef VERDICT_ENV_INTERFERENCE_H
#define VERDICT_ENV_INTERFERENCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Per-CPU counters kept for the first CPUs listed; CPUs beyond still count in ncpu and
 * in the totals (the kernel's aggregate "cpu" line covers them). */
#define INTERFERENCE_MAX_CPUS 128

/* Thresholds of interference_is_disturbing() (docs/environment.md says why). */
#define INTERFERENCE_STEAL_LIMIT 0.05          /* share of all CPU time stolen */
#define INTERFERENCE_OTHER_CPUS_LIMIT 0.5      /* CPUs' worth of other work */
/* Intervals shorter than this many jiffies (clock ticks, usually 10 ms) are not
 * measured at all: one tick would be more than a fifth of the interval. */
#define INTERFERENCE_MIN_JIFFIES 5.0
/* Counting error allowed per CPU, in jiffies: steal is counted from a precise clock and
 * only truncated at both ends; busy time is also sampled by the tick. */
#define INTERFERENCE_STEAL_SLACK_JIFFIES 1.0
#define INTERFERENCE_BUSY_SLACK_JIFFIES 2.0

/* Cumulative CPU time in jiffies (USER_HZ units) of one CPU or of all of them. */
typedef struct {
    uint64_t busy;  /* user + nice + system + irq + softirq (guest time is inside user) */
    uint64_t idle;  /* idle + iowait */
    uint64_t steal; /* time the hypervisor ran something else while this guest was runnable */
} cpu_times;

typedef struct {
    cpu_times total;                          /* the aggregate "cpu" line */
    cpu_times per_cpu[INTERFERENCE_MAX_CPUS]; /* "cpuN" lines, in order */
    int cpu_id[INTERFERENCE_MAX_CPUS];        /* N of each stored "cpuN" line */
    int ncpu;                                 /* "cpuN" lines seen: the online CPUs */
    double load1, load5, load15;              /* /proc/loadavg */
    int64_t monotonic_ns;                     /* CLOCK_MONOTONIC when /proc/stat was read */
} cpu_snapshot;

/* Reads /proc/stat, /proc/loadavg and the clock, opening and closing both files. No
 * allocation. Returns 0, or -1 with errno set (EINVAL when /proc/stat has no usable
 * "cpu" line). */
int interference_snapshot(cpu_snapshot *out);

/* How often a probe rereads /proc/loadavg: the kernel recomputes the averages only every
 * 5 s, so a snapshot per run of 1 ms would read the same numbers thousands of times. */
#define INTERFERENCE_LOADAVG_REFRESH_NS 1000000000LL

/* The two files kept open, for a runner that takes a snapshot before and after every
 * run: rereading them from offset 0 costs about a third of opening them again. The load
 * averages are kept between rereads. Owned by the caller (no global state); one probe
 * per thread. */
typedef struct {
    int stat_fd;
    int loadavg_fd;
    int64_t loadavg_read_ns;         /* CLOCK_MONOTONIC of the last reread; 0: never */
    double load1, load5, load15;
} interference_probe;

/* Opens /proc/stat and /proc/loadavg. Returns 0, or -1 with errno set (both closed). */
int interference_probe_open(interference_probe *probe);

/* As interference_snapshot, through the open files; no allocation, no open(2). The load
 * averages are the kept ones when they were read less than INTERFERENCE_LOADAVG_REFRESH_NS
 * ago. */
int interference_probe_snapshot(interference_probe *probe, cpu_snapshot *out);

/* The 1-minute load average alone (kept, or reread when stale), for a run too short to
 * be measured from /proc/stat. Returns 0, or -1 with errno set. */
int interference_probe_load1(interference_probe *probe, double *load1);

/* Whether /proc/stat can measure an interval of this many seconds: it counts in clock
 * ticks (USER_HZ, usually 100 a second), and below INTERFERENCE_MIN_JIFFIES of them one
 * tick is more than a fifth of the interval. interference_between gives NaN below it. */
bool interference_resolvable(double seconds);

/* Closes the files; safe to call twice. */
void interference_probe_close(interference_probe *probe);

/* Parses the text of /proc/stat into the CPU counters of out (total, per_cpu, cpu_id,
 * ncpu; the other fields are untouched). Missing trailing columns count as 0; lines of
 * fewer than 4 numbers and any other line are skipped. Returns 0, or -1 (errno EINVAL)
 * when no valid aggregate "cpu" line is found. The text need not be NUL-terminated. */
int parse_proc_stat(const char *text, size_t len, cpu_snapshot *out);

/* Parses the three load averages of /proc/loadavg. Returns 0, or -1 (errno EINVAL). */
int parse_proc_loadavg(const char *text, size_t len, cpu_snapshot *out);

typedef struct {
    double seconds;    /* CLOCK_MONOTONIC time between the snapshots */
    double steal;      /* share of CPU time stolen by the hypervisor, 0..1; NaN if unknown */
    double other_busy; /* share of all CPUs' capacity busy with work other than the run,
                        * 0..1: (busy - run_cpu_seconds) / (seconds * ncpu), clamped;
                        * NaN if unknown */
    double resolution; /* one jiffy per CPU as a share of the interval: the granularity of
                        * steal and other_busy; NaN if unknown */
    double load1;      /* 1-minute load average at the end */
    int ncpu;          /* online CPUs at the end */
} interference;

/* Interference between two snapshots of a run that used run_cpu_seconds of CPU itself
 * (user + sys of the run's processes). steal, other_busy and resolution are NaN when the
 * interval is shorter than INTERFERENCE_MIN_JIFFIES, runs backwards, or a snapshot is
 * unusable; the runner may then measure across a whole block of runs instead. */
void interference_between(const cpu_snapshot *before, const cpu_snapshot *after,
                          double run_cpu_seconds, interference *out);

/* True when the run looks disturbed ("tainted"), with the reason in reason (always
 * NUL-terminated; empty when false). Unknown readings are never disturbing, and the
 * counters' own granularity (resolution) is allowed for before comparing. */
bool interference_is_disturbing(const interference *i, char *reason, size_t reasonlen);

#endif

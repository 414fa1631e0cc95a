/* Exact counts where a machine has no counters: a command run under Valgrind's cachegrind,
 * children included, and its output files read into perf's names (instructions, and with
 * simulation cache-misses and branch-misses), then removed. */
#ifndef VERDICT_CORE_CACHEGRIND_H
#define VERDICT_CORE_CACHEGRIND_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

/* What cachegrind simulates beside counting instructions: each costs time, so only when a
 * count needs it. */
typedef struct {
    bool cache_sim;   /* --cache-sim=yes: I1, D1 and last-level misses */
    bool branch_sim;  /* --branch-sim=yes: conditional and indirect mispredictions */
} cachegrind_options;

/* A count verdict takes from cachegrind, with perf's name, as a sum of cachegrind's events. */
typedef struct {
    const char *name;      /* "instructions", "cache-misses" */
    const char *events;    /* cachegrind's events summed, blank-separated: "ILmr DLmr DLmw" */
    bool cache_sim, branch_sim; /* the simulation it needs */
    const char *meaning;
} cachegrind_count;

size_t cachegrind_count_count(void);
const cachegrind_count *cachegrind_count_at(size_t i);
/* By perf's name, modifiers allowed and ignored (cachegrind sees user space only, so
 * "instructions:u" is "instructions"; ":k" is refused); NULL when cachegrind has no such
 * count. */
const cachegrind_count *cachegrind_count_find(const char *name);

/* The simulations the named counts need; an unknown name is refused (ERROR_USAGE) with the
 * counts cachegrind has. */
int cachegrind_options_for(const char *const *names, size_t n, cachegrind_options *out,
                           verdict_error *err);

/* valgrind's path, found through $PATH as execvp would: 0, or -1 with "valgrind is not
 * installed: apt-get install valgrind" (ERROR_USAGE). */
int cachegrind_find_valgrind(char *path, size_t len, verdict_error *err);

/* The argv that runs command under cachegrind, every process of it writing dir/cg.<pid>:
 * valgrind -q --tool=cachegrind --trace-children=yes --cachegrind-out-file=DIR/cg.%p
 * --cache-sim=yes|no --branch-sim=yes|no COMMAND... (every string allocated; free with
 * cachegrind_argv_free). 0, or -1 (ERROR_NO_MEMORY). */
int cachegrind_argv(const char *valgrind, char *const command[], const char *dir,
                    const cachegrind_options *options, char ***out, verdict_error *err);
void cachegrind_argv_free(char **argv);

#define CACHEGRIND_MAX_EVENTS 32
#define CACHEGRIND_EVENT_NAME 16

/* The totals of one output file, or of all of a run's files added up by event name. */
typedef struct {
    size_t n;                                     /* events */
    char names[CACHEGRIND_MAX_EVENTS][CACHEGRIND_EVENT_NAME];
    uint64_t totals[CACHEGRIND_MAX_EVENTS];
    size_t files;                                 /* files added up */
} cachegrind_totals;

/* Parses one output file's text (length bytes; it need not end with a NUL): its `events:`
 * line, then its `summary:` line, checked against the sum of the per-line counts (which
 * stand in for a missing summary). Malformed input is refused (ERROR_BAD_INPUT) with
 * "FILE:LINE: what is wrong". */
int cachegrind_parse(const char *text, size_t length, const char *file_name,
                     cachegrind_totals *out, verdict_error *err);
/* Adds one file's totals to a run's, event by event (by name). 0, or -1 (ERROR_BAD_INPUT)
 * when the events do not fit or a sum overflows. */
int cachegrind_add(cachegrind_totals *sum, const cachegrind_totals *file, verdict_error *err);
/* The named count from totals: the sum of its events. -1 (ERROR_BAD_INPUT) when an event is
 * missing (naming the simulation that makes it). */
int cachegrind_value(const cachegrind_totals *totals, const cachegrind_count *count,
                     uint64_t *value, verdict_error *err);

/* Reads every dir/cg.* file of a run into *out (zeroed first), removing each file whether or
 * not it parses. 0, or -1: none was written, one is malformed (ERROR_BAD_INPUT), one cannot
 * be read (ERROR_INTERNAL). */
int cachegrind_collect(const char *dir, cachegrind_totals *out, verdict_error *err);

/* Makes a fresh directory for one run's output files under $TMPDIR (or /tmp), its absolute
 * path into dir. 0, or -1 (ERROR_INTERNAL). */
int cachegrind_make_dir(char *dir, size_t len, verdict_error *err);

/* Runs argv (through PATH, with envp; NULL: verdict's environment) under cachegrind with
 * the runner (a non-zero *stop ends it), in a directory of its own under $TMPDIR, stdin and
 * stdout from and to /dev/null, and adds up its files; the directory is removed. 0, or -1:
 * valgrind is missing (ERROR_USAGE), the command failed or was killed (ERROR_COMMAND_FAILED,
 * naming the command, with the tail of its stderr, valgrind's included), it was stopped
 * (ERROR_INTERRUPTED), the files are malformed (ERROR_BAD_INPUT), a system call failed. */
int cachegrind_measure_command(char *const argv[], char *const envp[],
                               const cachegrind_options *options,
                               volatile sig_atomic_t *stop, cachegrind_totals *out,
                               verdict_error *err);

#endif

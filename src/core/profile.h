/* A profiled run's samples as perf resolved them: per symbol (self and children) and per
 * call stack, read from `perf script`'s text and kept in the store as text (docs/profiles.md). */
#ifndef VERDICT_CORE_PROFILE_H
#define VERDICT_CORE_PROFILE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "common/strbuf.h"

/* A symbol perf could not resolve (a binary without symbols) is named by its address in
 * its object, "0x1160": addresses are shown, and said to be (profile_is_address). */
typedef struct {
    char *symbol, *dso;
    long self;                   /* samples whose leaf frame it is */
    long children;               /* samples with it anywhere on the stack (once each) */
} profile_symbol;

typedef struct {
    char *stack;                 /* frames root first, separated by ';' (folded) */
    long samples;
} profile_stack;

typedef struct {
    profile_symbol *symbols;     /* sorted by symbol, then dso */
    size_t n_symbols;
    profile_stack *stacks;       /* sorted by stack */
    size_t n_stacks;
    long samples;                /* all samples of the run */
} profile_data;

/* Reads `perf script -F comm,tid,event,ip,sym,dso` output (with call graphs: the frames of
 * a sample indented below its header line, leaf first; a blank line between samples).
 * 0, or -1 with ERROR_BAD_INPUT naming the line perf wrote that it cannot read. */
int profile_parse_script(const char *text, size_t length, profile_data *out,
                         verdict_error *err);
/* The store's text forms (store.h): "symbol\tdso\tself\tchildren" lines and folded
 * "root;...;leaf COUNT" lines; and the data back from them (0, or -1 with ERROR_BAD_INPUT). */
void profile_symbols_text(const profile_data *p, strbuf *out);
void profile_stacks_text(const profile_data *p, strbuf *out);
int profile_from_text(const char *symbols, const char *stacks, profile_data *out,
                      verdict_error *err);
/* Whether a symbol is an address perf could not name ("0x1160"). */
bool profile_is_address(const char *symbol);
void profile_data_free(profile_data *p);

/* ---- running perf (core/profile_run.c) ---- */

/* How profiled runs sample: perf's event and its sampling frequency per CPU second. */
#define PROFILE_DEFAULT_EVENT "cpu-clock"
#define PROFILE_FREQUENCY_TEXT "997"

/* Refuses, before anything runs, a machine where `perf record -e EVENT` cannot work: perf
 * not installed (the apt-get line), perf_event_paranoid forbidding sampling (what to set),
 * an event the machine has not (cycles without a PMU). 0, or -1 with ERROR_USAGE. */
int profile_check(const char *event, verdict_error *err);
/* The words `perf record -g -e EVENT -F N -q -o PATH --` followed by argv, NULL-terminated,
 * malloc'ed (the strings borrowed from argv, event and path); NULL when out of memory. */
char **profile_record_argv(const char *event, const char *path, char *const *argv);
/* A fresh directory for one recording, its "DIR/perf.data" (absolute: the run may change
 * directory) into path (PATH_MAX); 0, or -1 with ERROR_INTERNAL. Removed, the recording
 * with it, by profile_remove_path. */
int profile_make_path(char *path, size_t len, verdict_error *err);
void profile_remove_path(const char *path);
/* Runs `perf script` on the recording at path and parses it; the recording is removed.
 * 0, or -1 with err (ERROR_COMMAND_FAILED: perf failed, with its stderr's end). */
int profile_resolve(const char *path, volatile sig_atomic_t *stop, profile_data *out,
                    verdict_error *err);

#endif

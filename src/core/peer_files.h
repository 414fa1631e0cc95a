/* Reads the result files of peer tools for `verdict compare`: hyperfine's --export-json, Go
 * benchmark text, Google Benchmark, pyperf, criterion.rs and JMH JSON, and bare numbers. */
#ifndef VERDICT_CORE_PEER_FILES_H
#define VERDICT_CORE_PEER_FILES_H

#include <stdbool.h>
#include <stddef.h>

#include "core/sample_file.h"
#include "common/error.h"

typedef enum {
    PEER_AUTO,      /* detect by content */
    PEER_NUMBERS,   /* one number per line, or a column (ministat's -C, -d) */
    PEER_HYPERFINE, /* hyperfine --export-json: every result a variant */
    PEER_GO,        /* go test -bench output: every benchmark a point */
    PEER_GBENCH,    /* Google Benchmark --benchmark_format=json: every run_name a point */
    PEER_PYPERF,    /* pyperf -o FILE.json: every benchmark a point */
    PEER_CRITERION, /* criterion.rs sample.json: one benchmark, a point */
    PEER_JMH        /* JMH -rf json: every benchmark (with its params) a point */
} peer_format;

/* The samples of one (point, variant) a file holds. */
typedef struct {
    char *point;           /* the benchmark's name; NULL in formats without points */
    char *variant;         /* hyperfine's command name; NULL: the file is the variant */
    char *metric;          /* "sec/op", "real_time", "time", "value", ... */
    bool higher_is_better; /* the metric's own direction (MB/s, items_per_second) */
    bool exact_counts;     /* the metric is a count, exact as printed (Go's allocs/op, B/op) */
    sample_series samples; /* lines[i]: the line of a text file; 0 for JSON */
    sample_series failed;  /* runs that failed (hyperfine's exit_codes): counted, never
                            * analysed; lines[i] is the run's index in the file */
    int *failed_exits;     /* their exit codes; -1: ended by a signal (hyperfine's null) */
    size_t failed_capacity;
} peer_series;

typedef struct {
    peer_format format;    /* as detected or forced */
    peer_series *series;   /* in the order of the file */
    size_t n, capacity;
    char **warnings;       /* what was read but left out, and why (an errored entry, ...) */
    size_t n_warnings, warnings_capacity;
} peer_file;

typedef struct {
    peer_format format;     /* PEER_AUTO: detected by content */
    sample_layout layout;   /* bare numbers: -C and -d */
    const char *metric;     /* --metric; NULL: the format's default */
} peer_options;

/* Parses a file's text already in memory (`name` appears only in messages). Returns 0 with
 * at least one series of at least one value, or -1 with a message naming the file, the
 * line or JSON path (results[2].times[5]) and the value at fault. */
int peer_text_parse(const char *name, const char *text, size_t length, const peer_options *o,
                    peer_file *out, verdict_error *err);
/* Reads the file at path ("-" is standard input) and parses it as above. */
int peer_file_read(const char *path, const peer_options *o, peer_file *out, verdict_error *err);
void peer_file_free(peer_file *file);

/* "hyperfine", "go", "gbench", "pyperf", "criterion", "jmh", "numbers" (and "auto"); parse
 * returns 0 or -1. */
const char *peer_format_name(peer_format format);
int peer_format_parse(const char *text, peer_format *out);
/* True for formats whose files hold benchmarks (points) rather than variants. */
bool peer_format_has_points(peer_format format);

#endif

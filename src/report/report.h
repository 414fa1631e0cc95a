/* What every report writer reads: the experiment's settings, variants, points, samples
 * and the analysis of them. Writers only read; the caller owns everything here. */
#ifndef VERDICT_REPORT_REPORT_H
#define VERDICT_REPORT_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/analysis.h"
#include "core/profile_compare.h"
#include "common/error.h"
#include "report/text_style.h"

typedef struct {
    const char *name;
    const char *file;          /* samples read from this file (verdict compare), or NULL */
    const char *const *argv;   /* command words (runner), or NULL */
    size_t argc;
} report_variant;

typedef struct {
    const char *id;            /* "clients=4", or "default" without a sweep */
    const char *const *param_names, *const *param_values;
    size_t n_params;
} report_point;

typedef struct {
    const char *variant, *point;
    long layout;               /* the code layout of the variant's build (0: as built) */
    const char *machine;       /* the machine that took it; NULL or "": this one */
    long block;                /* -1 when samples are not in blocks */
    long seq;                  /* order of measurement, from 0 */
    const char *const *metric_names;
    const double *metric_values;
    size_t n_metrics;
    int exit_code;
    bool timed_out;            /* the run hit its timeout (its extracted metrics are NaN) */
    bool tainted;
    const char *taint_reason;  /* NULL or "" when not tainted */
    double started;            /* seconds since the session began; NaN when unknown */
    double steal, other_busy, load1; /* interference around the run; NaN when unknown */
    bool has_interference;
} report_sample;

typedef struct {
    const char *key, *value;
} report_fact;

/* A machine that took samples of the experiment (a fleet has several). */
typedef struct {
    const char *name;          /* "" : the one machine of a local store */
    size_t samples;            /* in blocks */
    size_t failed;             /* of those, failed or timed out runs */
} report_machine;

/* What a variant ran, exactly: its build's content key and its binary's SHA-256. */
typedef struct {
    const char *variant;
    long layout;
    const char *key;           /* "" for a variant without a source */
    const char *sha256;        /* "" when there is no file to name */
    const char *binary;        /* the file hashed, or "" */
} report_build;

typedef struct {
    const char *experiment_name;
    uint64_t seed;
    bool has_seed;
    const analysis_options *options;
    const report_fact *environment;
    size_t n_environment;
    bool from_runs;                /* samples verdict measured: builds and factors are known */
    const report_build *builds;
    size_t n_builds;
    const report_variant *variants;
    size_t n_variants;
    const report_point *points;
    size_t n_points;
    const report_sample *samples;
    size_t n_samples;
    const analysis_series *series; /* the compared metric per (point, variant) */
    size_t n_series;
    const analysis_result *analysis;
    const report_machine *machines; /* those that took samples; one "" on a local store */
    size_t n_machines;
    size_t looks;                  /* adaptive stopping: planned looks (0 or 1: none) */
    /* extensions (`verdict run --more`): the share of alpha kept for them, how many were
     * taken, and the last one's blocks per point before and after */
    double reserve_for_more;
    size_t planned_blocks, extensions, extended_from, extended_to;
    /* ---- the terminal report's look (--time-unit, --style, --sort; issue 16 item 4) ----
     * read by report_write_text only; left zero: adaptive units, no colour, rows in the
     * order given, no headlines */
    report_text_style text_style;
    /* profiles (docs/profiles.md): one per comparison of the analysis (n_blocks 0: none
     * paired), with the event they sampled; NULL: the experiment was not profiled */
    const profile_comparison *profiles;
    const char *profile_event;
} report_input;

/* Where the exports go; NULL: not written. */
typedef struct {
    const char *json, *csv, *markdown, *html, *svg_dir;
} report_exports;

/* Checks every destination before anything is run or read (output_check): at most one
 * export to "-" (standard output; --svg takes a directory, never "-"), each file writable.
 * 0, or -1 with a message naming the option, the path and the reason. */
int report_exports_check(const report_exports *to, verdict_error *err);
/* True when an export goes to standard output: the terminal report then goes to stderr. */
bool report_exports_use_stdout(const report_exports *to);
/* Writes every export asked for; stops at the first failure with its message. */
int report_write_exports(const report_input *in, const report_exports *to, verdict_error *err);
/* Writes the verdict/1 JSON document; path "-" is standard output. */
int report_write_json(const report_input *in, const char *path, verdict_error *err);
/* One row per sample: point, variant, block, seq, metrics, exit, interference. */
int report_write_csv(const report_input *in, const char *path, verdict_error *err);
/* Comparisons and summaries as Markdown tables, ready for a mail or a pull request. */
int report_write_markdown(const report_input *in, const char *path, verdict_error *err);
/* The terminal report: per-series table, distribution plot, comparisons, warnings. */
void report_write_text(const report_input *in, FILE *out);
int report_write_html(const report_input *in, const char *path, verdict_error *err);
int report_write_svg_dir(const report_input *in, const char *dir, verdict_error *err);

#endif

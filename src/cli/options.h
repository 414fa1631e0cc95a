/* The options the commands share — the report group (--confidence ... --json), counts,
 * durations, CPU lists — and the exit codes, with messages that name the value at fault. */
#ifndef VERDICT_CLI_OPTIONS_H
#define VERDICT_CLI_OPTIONS_H

#include <getopt.h>
#include <stdio.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sched.h>

#include "cli/text_options.h"
#include "common/error.h"
#include "core/analysis.h"
#include "core/experiment.h"
#include "report/report.h"

typedef enum { FAIL_IF_NEVER, FAIL_IF_WORSE, FAIL_IF_NOT_BETTER } fail_if_rule;

/* Exit codes of the command-line contract (docs/architecture.md). */
enum {
    EXIT_DONE = 0,
    EXIT_INTERNAL = 1,
    EXIT_USAGE = 2,
    EXIT_COMMAND_FAILED = 3,
    EXIT_GATE = 4,
    EXIT_INTERRUPTED = 130
};

/* Each returns 0, or -1 with a message in err naming the option and the value. */
int parse_confidence(const char *text, double *out, verdict_error *err);
int parse_margin(const char *text, double *out, verdict_error *err);
/* A relative size above 0: "2%" or 0.02 (verdict plan --detect, --half-width, --power). */
int parse_positive_share(const char *option, const char *text, double *out, verdict_error *err);
int parse_method(const char *text, comparison_method *out, verdict_error *err);
/* --quantile: 0.1 or 10%, strictly between 0 and 1. */
int parse_quantile(const char *text, double *out, verdict_error *err);
/* --quantile implies --method quantile: refused beside another --method (either order). */
int check_quantile_method(bool quantile_set, bool method_set, comparison_method method,
                          verdict_error *err);
int parse_adjust(const char *text, adjust_method *out, verdict_error *err);
int parse_fail_if(const char *text, fail_if_rule *out, verdict_error *err);
int parse_u64(const char *option, const char *text, uint64_t *out, verdict_error *err);
int parse_positive_int(const char *option, const char *text, int *out, verdict_error *err);
/* A positive count (--runs 5), or also 0 where allow_zero (--warmup 0). */
int parse_count(const char *option, const char *text, bool allow_zero, size_t *out,
                verdict_error *err);
/* "30", "30s", "500ms", "5m", "1h" into seconds. */
int parse_duration(const char *option, const char *text, double *out, verdict_error *err);
/* --counters: perf or valgrind. */
int parse_counters(const char *text, experiment_counters *out, verdict_error *err);
/* "0", "0-3", "0,2-3" into a CPU set; every CPU must be one verdict may run on. */
int parse_pin_option(const char *text, cpu_set_t *out, verdict_error *err);

/* The report group: how to analyse (each override remembered as given or not), what to
 * export and when to fail. Every analysing command takes these options alike. */
typedef struct {
    bool confidence_set, margin_set, method_set, adjust_set, quantile_set;
    double confidence, margin, quantile;
    comparison_method method;
    adjust_method adjust;
    report_exports exports;
    fail_if_rule fail_if;
    text_choices text;          /* the terminal report's look: --time-unit, --style, --sort */
} report_choices;

enum {
    REPORT_OPT_CONFIDENCE = 0x1000, REPORT_OPT_MARGIN, REPORT_OPT_METHOD, REPORT_OPT_ADJUST,
    REPORT_OPT_FAIL_IF, REPORT_OPT_JSON, REPORT_OPT_CSV, REPORT_OPT_MARKDOWN, REPORT_OPT_HTML,
    REPORT_OPT_SVG, REPORT_OPT_QUANTILE
};
/* The group's entries of a getopt_long table. */
#define REPORT_LONG_OPTIONS                                                                  \
    {"confidence", required_argument, NULL, REPORT_OPT_CONFIDENCE},                          \
    {"margin", required_argument, NULL, REPORT_OPT_MARGIN},                                  \
    {"method", required_argument, NULL, REPORT_OPT_METHOD},                                  \
    {"quantile", required_argument, NULL, REPORT_OPT_QUANTILE},                              \
    {"adjust", required_argument, NULL, REPORT_OPT_ADJUST},                                  \
    {"fail-if", required_argument, NULL, REPORT_OPT_FAIL_IF},                                \
    {"json", required_argument, NULL, REPORT_OPT_JSON},                                      \
    {"csv", required_argument, NULL, REPORT_OPT_CSV},                                        \
    {"markdown", required_argument, NULL, REPORT_OPT_MARKDOWN},                              \
    {"html", required_argument, NULL, REPORT_OPT_HTML},                                      \
    {"svg", required_argument, NULL, REPORT_OPT_SVG},                                        \
    TEXT_LONG_OPTIONS
/* The --help lines of the group. */
extern const char report_options_help[];

/* Applies one option of the group: 0, -1 with a message, or 1 when opt is not one of it. */
int report_choice_apply(report_choices *c, int opt, const char *arg, verdict_error *err);
/* The overrides given, applied over the experiment's own analysis options. */
void report_choices_override(const report_choices *c, analysis_options *o);
/* Where the terminal report goes: stderr when an export takes stdout (--markdown -). */
FILE *report_text_stream(const report_choices *c);

/* Applies one option of a command to its settings; 0, or -1 with a message. */
typedef int (*option_apply_fn)(int opt, const char *arg, void *settings, verdict_error *err);
#define OPTIONS_HELP (-1)  /* -h or --help was given */
#define OPTIONS_ERROR (-2) /* with a message in err */
/* The getopt_long loop every command shares: unknown options and missing values are
 * reported naming the word and the command's --help. Returns the index of the first
 * operand, OPTIONS_HELP or OPTIONS_ERROR. */
int walk_options(int argc, char **argv, const char *short_options, const struct option *long_options,
                 const char *command, option_apply_fn apply, void *settings, verdict_error *err);

/* True when some computed comparison triggers the --fail-if rule. */
bool fail_if_triggered(fail_if_rule rule, const analysis_result *analysis);

#endif

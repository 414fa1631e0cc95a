/* Parsers for the options every analysing command shares (--confidence, --margin,
 * --method, --adjust, --fail-if, --seed), with messages that name the value at fault. */
#ifndef VERDICT_CLI_OPTIONS_H
#define VERDICT_CLI_OPTIONS_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/analysis.h"

typedef enum { FAIL_IF_NEVER, FAIL_IF_WORSE, FAIL_IF_NOT_BETTER } fail_if_rule;

/* Exit codes of DESIGN.md's command-line contract. */
enum {
    EXIT_DONE = 0,
    EXIT_INTERNAL = 1,
    EXIT_USAGE = 2,
    EXIT_COMMAND_FAILED = 3,
    EXIT_GATE = 4,
    EXIT_INTERRUPTED = 130
};

/* Each returns 0, or -1 with a message in err naming the option and the value. */
int parse_confidence(const char *text, double *out, char *err, size_t errlen);
int parse_margin(const char *text, double *out, char *err, size_t errlen);
int parse_method(const char *text, comparison_method *out, char *err, size_t errlen);
int parse_adjust(const char *text, adjust_method *out, char *err, size_t errlen);
int parse_fail_if(const char *text, fail_if_rule *out, char *err, size_t errlen);
int parse_u64(const char *option, const char *text, uint64_t *out, char *err, size_t errlen);
int parse_positive_int(const char *option, const char *text, int *out, char *err, size_t errlen);

/* Applies one option of a command to its settings; 0, or -1 with a message. */
typedef int (*option_apply_fn)(int opt, const char *arg, void *settings, char *err,
                               size_t errlen);
#define OPTIONS_HELP (-1)  /* -h or --help was given */
#define OPTIONS_ERROR (-2) /* with a message in err */
/* The getopt_long loop every command shares: unknown options and missing values are
 * reported naming the word and the command's --help. Returns the index of the first
 * operand, OPTIONS_HELP or OPTIONS_ERROR. */
int walk_options(int argc, char **argv, const char *short_options, const struct option *long_options,
                 const char *command, option_apply_fn apply, void *settings, char *err,
                 size_t errlen);

/* True when some computed comparison triggers the --fail-if rule. */
bool fail_if_triggered(fail_if_rule rule, const analysis_result *analysis);

#endif

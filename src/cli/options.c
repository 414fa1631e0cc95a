/* Shared option parsers of the analysing commands. Values are checked strictly:
 * a typo in a confidence level must stop the run, not silently become 0. */
#include "cli/options.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Parses "0.95" or "95%"; percent forms are divided by 100. */
static int parse_fraction(const char *text, double *out)
{
    char *end = NULL;
    errno = 0;
    double value = strtod(text, &end);
    if (end == text || errno == ERANGE || !isfinite(value))
        return -1;
    if (*end == '%') {
        value /= 100.0;
        end++;
    }
    if (*end != '\0')
        return -1;
    *out = value;
    return 0;
}

int parse_confidence(const char *text, double *out, char *err, size_t errlen)
{
    double value;
    if (parse_fraction(text, &value) != 0 || !(value > 0.0 && value < 1.0)) {
        snprintf(err, errlen,
                 "--confidence '%s': must be a level strictly between 0 and 1, such as 0.95 or 95%%",
                 text);
        return -1;
    }
    *out = value;
    return 0;
}

int parse_margin(const char *text, double *out, char *err, size_t errlen)
{
    double value;
    if (parse_fraction(text, &value) != 0 || !(value >= 0.0 && value < 1.0)) {
        snprintf(err, errlen,
                 "--margin '%s': must be a relative margin from 0 to below 100%%, such as 1%% or 0.01",
                 text);
        return -1;
    }
    *out = value;
    return 0;
}

int parse_method(const char *text, comparison_method *out, char *err, size_t errlen)
{
    if (strcmp(text, "wilcoxon") == 0)
        *out = METHOD_WILCOXON;
    else if (strcmp(text, "welch") == 0 || strcmp(text, "t") == 0)
        *out = METHOD_WELCH;
    else if (strcmp(text, "bootstrap") == 0)
        *out = METHOD_BOOTSTRAP;
    else {
        snprintf(err, errlen, "--method '%s': expected wilcoxon, welch or bootstrap", text);
        return -1;
    }
    return 0;
}

int parse_adjust(const char *text, adjust_method *out, char *err, size_t errlen)
{
    if (strcmp(text, "holm") == 0)
        *out = ADJUST_HOLM;
    else if (strcmp(text, "bh") == 0 || strcmp(text, "BH") == 0)
        *out = ADJUST_BH;
    else if (strcmp(text, "none") == 0)
        *out = ADJUST_NONE;
    else {
        snprintf(err, errlen, "--adjust '%s': expected holm, bh or none", text);
        return -1;
    }
    return 0;
}

int parse_fail_if(const char *text, fail_if_rule *out, char *err, size_t errlen)
{
    if (strcmp(text, "worse") == 0)
        *out = FAIL_IF_WORSE;
    else if (strcmp(text, "not-better") == 0)
        *out = FAIL_IF_NOT_BETTER;
    else {
        snprintf(err, errlen, "--fail-if '%s': expected worse or not-better", text);
        return -1;
    }
    return 0;
}

int parse_u64(const char *option, const char *text, uint64_t *out, char *err, size_t errlen)
{
    char *end = NULL;
    errno = 0;
    unsigned long long value = strtoull(text, &end, 10);
    if (end == text || *end != '\0' || errno == ERANGE || text[0] == '-') {
        snprintf(err, errlen, "%s '%s': expected a non-negative integer", option, text);
        return -1;
    }
    *out = (uint64_t)value;
    return 0;
}

int parse_positive_int(const char *option, const char *text, int *out, char *err, size_t errlen)
{
    char *end = NULL;
    errno = 0;
    long value = strtol(text, &end, 10);
    if (end == text || *end != '\0' || errno == ERANGE || value < 1 || value > 1000000000L) {
        snprintf(err, errlen, "%s '%s': expected a positive integer", option, text);
        return -1;
    }
    *out = (int)value;
    return 0;
}

int walk_options(int argc, char **argv, const char *short_options, const struct option *long_options,
                 const char *command, option_apply_fn apply, void *settings, char *err,
                 size_t errlen)
{
    int opt;
    opterr = 0;
    optind = 1;
    while ((opt = getopt_long(argc, argv, short_options, long_options, NULL)) != -1) {
        if (opt == 'h')
            return OPTIONS_HELP;
        if (opt == '?' || opt == ':') {
            snprintf(err, errlen, "%s: unknown option or missing value (see %s --help)",
                     argv[optind - 1], command);
            return OPTIONS_ERROR;
        }
        if (apply(opt, optarg, settings, err, errlen) != 0)
            return OPTIONS_ERROR;
    }
    return optind;
}

bool fail_if_triggered(fail_if_rule rule, const analysis_result *analysis)
{
    for (size_t k = 0; k < analysis->n_comparisons; k++) {
        const analysis_comparison *c = &analysis->comparisons[k];
        verdict_kind kind = c->ok ? c->result.decision.kind : VERDICT_INCONCLUSIVE;
        if (rule == FAIL_IF_WORSE && kind == VERDICT_WORSE)
            return true;
        if (rule == FAIL_IF_NOT_BETTER && kind != VERDICT_BETTER)
            return true;
    }
    return false;
}

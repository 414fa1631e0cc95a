/* Shared option parsers of the analysing commands. Values are checked strictly:
 * a typo in a confidence level must stop the run, not silently become 0. */
#include "cli/options.h"

#include <errno.h>
#include <sched.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "env/proc_text.h"

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

int parse_confidence(const char *text, double *out, verdict_error *err)
{
    double value;
    if (parse_fraction(text, &value) != 0 || !(value > 0.0 && value < 1.0)) {
        error_set(err, ERROR_USAGE, "--confidence '%s': must be a level strictly between 0 and 1, "
                  "such as 0.95 or 95%%", text);
        return -1;
    }
    *out = value;
    return 0;
}

int parse_margin(const char *text, double *out, verdict_error *err)
{
    double value;
    if (parse_fraction(text, &value) != 0 || !(value >= 0.0 && value < 1.0)) {
        error_set(err, ERROR_USAGE, "--margin '%s': must be a relative margin from 0 to below "
                  "100%%, such as 1%% or 0.01", text);
        return -1;
    }
    *out = value;
    return 0;
}

int parse_positive_share(const char *option, const char *text, double *out, verdict_error *err)
{
    double value;
    if (parse_fraction(text, &value) != 0 || !(value > 0.0))
        return error_set(err, ERROR_USAGE, "%s '%s': must be a relative size above 0, such as "
                         "2%% or 0.02", option, text);
    *out = value;
    return 0;
}

int parse_method(const char *text, comparison_method *out, verdict_error *err)
{
    if (strcmp(text, "wilcoxon") == 0)
        *out = METHOD_WILCOXON;
    else if (strcmp(text, "welch") == 0 || strcmp(text, "t") == 0)
        *out = METHOD_WELCH;
    else if (strcmp(text, "bootstrap") == 0)
        *out = METHOD_BOOTSTRAP;
    else if (strcmp(text, "quantile") == 0)
        *out = METHOD_QUANTILE;
    else {
        error_set(err, ERROR_USAGE, "--method '%s': expected wilcoxon, welch, bootstrap or "
                  "quantile", text);
        return -1;
    }
    return 0;
}

int parse_quantile(const char *text, double *out, verdict_error *err)
{
    double value;
    if (parse_fraction(text, &value) != 0 || !(value > 0.0 && value < 1.0)) {
        error_set(err, ERROR_USAGE, "--quantile '%s': must be strictly between 0 and 1, such as "
                  "0.1 or 10%% (the 10th percentile)", text);
        return -1;
    }
    *out = value;
    return 0;
}

int check_quantile_method(bool quantile_set, bool method_set, comparison_method method,
                          verdict_error *err)
{
    if (quantile_set && method_set && method != METHOD_QUANTILE)
        return error_set(err, ERROR_USAGE, "--quantile is the quantile method's; --method %s "
                         "compares no quantile (use --method quantile, or leave --method out)",
                         comparison_method_option(method));
    return 0;
}

int parse_adjust(const char *text, adjust_method *out, verdict_error *err)
{
    if (strcmp(text, "holm") == 0)
        *out = ADJUST_HOLM;
    else if (strcmp(text, "bh") == 0 || strcmp(text, "BH") == 0)
        *out = ADJUST_BH;
    else if (strcmp(text, "none") == 0)
        *out = ADJUST_NONE;
    else {
        error_set(err, ERROR_USAGE, "--adjust '%s': expected holm, bh or none", text);
        return -1;
    }
    return 0;
}

int parse_fail_if(const char *text, fail_if_rule *out, verdict_error *err)
{
    if (strcmp(text, "worse") == 0)
        *out = FAIL_IF_WORSE;
    else if (strcmp(text, "not-better") == 0)
        *out = FAIL_IF_NOT_BETTER;
    else {
        error_set(err, ERROR_USAGE, "--fail-if '%s': expected worse or not-better", text);
        return -1;
    }
    return 0;
}

int parse_u64(const char *option, const char *text, uint64_t *out, verdict_error *err)
{
    char *end = NULL;
    errno = 0;
    unsigned long long value = strtoull(text, &end, 10);
    if (end == text || *end != '\0' || errno == ERANGE || text[0] == '-') {
        error_set(err, ERROR_USAGE, "%s '%s': expected a non-negative integer", option, text);
        return -1;
    }
    *out = (uint64_t)value;
    return 0;
}

int parse_positive_int(const char *option, const char *text, int *out, verdict_error *err)
{
    char *end = NULL;
    errno = 0;
    long value = strtol(text, &end, 10);
    if (end == text || *end != '\0' || errno == ERANGE || value < 1 || value > 1000000000L) {
        error_set(err, ERROR_USAGE, "%s '%s': expected a positive integer (1 to 1000000000)",
                  option, text);
        return -1;
    }
    *out = (int)value;
    return 0;
}

int walk_options(int argc, char **argv, const char *short_options, const struct option *long_options,
                 const char *command, option_apply_fn apply, void *settings, verdict_error *err)
{
    int opt;
    opterr = 0;
    optind = 1;
    while ((opt = getopt_long(argc, argv, short_options, long_options, NULL)) != -1) {
        if (opt == 'h')
            return OPTIONS_HELP;
        if (opt == '?' || opt == ':') {
            error_set(err, ERROR_USAGE, "%s: unknown option or missing value (see %s --help)",
                      argv[optind - 1], command);
            return OPTIONS_ERROR;
        }
        if (apply(opt, optarg, settings, err) != 0)
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

int parse_count(const char *option, const char *text, bool allow_zero, size_t *out,
                verdict_error *err)
{
    if (allow_zero && strcmp(text, "0") == 0) {
        *out = 0;
        return 0;
    }
    int value;
    if (parse_positive_int(option, text, &value, err) != 0)
        return -1;
    *out = (size_t)value;
    return 0;
}

int parse_duration(const char *option, const char *text, double *out, verdict_error *err)
{
    static const struct { const char *suffix; double seconds; } units[] = {
        {"", 1}, {"s", 1}, {"ms", 1e-3}, {"m", 60}, {"min", 60}, {"h", 3600},
    };
    char *end = NULL;
    errno = 0;
    double value = strtod(text, &end);
    for (size_t i = 0; end != text && errno == 0 && i < sizeof units / sizeof units[0]; i++)
        if (strcmp(end, units[i].suffix) == 0 && value > 0 && isfinite(value * units[i].seconds)) {
            *out = value * units[i].seconds;
            return 0;
        }
    error_set(err, ERROR_USAGE, "%s '%s': expected a positive duration such as 30s, 500ms, 5m",
              option, text);
    return -1;
}

int parse_counters(const char *text, experiment_counters *out, verdict_error *err)
{
    if (strcmp(text, "perf") == 0 || strcmp(text, "valgrind") == 0) {
        *out = text[0] == 'p' ? EXPERIMENT_COUNTERS_PERF : EXPERIMENT_COUNTERS_VALGRIND;
        return 0;
    }
    return error_set(err, ERROR_USAGE, "--counters '%s': perf (the default) or valgrind", text);
}

/* The kernel's CPU-list syntax, parsed by env's parser; every CPU must be allowed to us. */
int parse_pin_option(const char *text, cpu_set_t *out, verdict_error *err)
{
    int ids[CPU_SETSIZE];
    cpu_set_t allowed;
    CPU_ZERO(out);
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0)
        CPU_ZERO(&allowed);
    int n = parse_cpu_list(text, ids, CPU_SETSIZE);
    for (int i = 0; i < n && n <= CPU_SETSIZE; i++) {
        if (!CPU_ISSET(ids[i], &allowed)) {
            error_set(err, ERROR_USAGE, "--pin '%s': CPU %d is not one verdict may run on", text,
                      ids[i]);
            return -1;
        }
        CPU_SET(ids[i], out);
    }
    if (n > 0 && n <= CPU_SETSIZE)
        return 0;
    error_set(err, ERROR_USAGE, "--pin '%s': expected a CPU list such as 0, 0-1 or 0,2", text);
    return -1;
}

/* ---- the report group ---- */

const char report_options_help[] =
    "analysing:\n"
    "      --confidence C      confidence level (default 0.95, or the experiment's)\n"
    "      --margin M          equivalence margin (default 1%, or the experiment's)\n"
    "      --method M          wilcoxon (default, signed-rank on blocks; exact counts\n"
    "                          such as instructions: the t test), welch, bootstrap,\n"
    "                          quantile (a low quantile: how fast each runs undisturbed)\n"
    "      --quantile Q        the quantile --method quantile compares, in (0, 1)\n"
    "                          (default 0.1; implies --method quantile)\n"
    "      --adjust A          holm (default), bh or none, for several comparisons\n"
    "      --fail-if RULE      exit 4 when a comparison is worse (worse) or is not better\n"
    "                          (not-better): a CI gate\n"
    "terminal report:\n"
    "      --time-unit U       times in U: ns, us (\xc2\xb5s), ms or s (hyperfine's nanosecond,\n"
    "                          microsecond, millisecond, second); default: per table, the\n"
    "                          unit in which its baseline's mean reads 1 to 999\n"
    "      --style S           auto (default: colour on a terminal unless NO_COLOR is\n"
    "                          set), basic (no colour, no progress line), full (colour\n"
    "                          even when piped), nocolor, color, none (plain)\n"
    "      --sort S            order of the headlines and table rows: auto or command (as\n"
    "                          given, the default), mean-time (best mean first); the\n"
    "                          comparisons keep the baseline first\n"
    "output:\n"
    "      --json FILE         the verdict/1 JSON document\n"
    "      --csv FILE          one row per sample\n"
    "      --markdown FILE     the verdict table as Markdown\n"
    "      --html FILE         a single-file HTML report with charts (works offline)\n"
    "      --svg DIR           every chart as its own .svg file in DIR\n"
    "                          FILE '-' is standard output (one export at most), and the\n"
    "                          text report then goes to stderr; every path is checked\n"
    "                          before anything runs\n";

int report_choice_apply(report_choices *c, int opt, const char *arg, verdict_error *err)
{
    switch (opt) {
    case REPORT_OPT_CONFIDENCE:
        c->confidence_set = true;
        return parse_confidence(arg, &c->confidence, err);
    case REPORT_OPT_MARGIN:
        c->margin_set = true;
        return parse_margin(arg, &c->margin, err);
    case REPORT_OPT_METHOD:
        c->method_set = true;
        if (parse_method(arg, &c->method, err) != 0)
            return -1;
        return check_quantile_method(c->quantile_set, true, c->method, err);
    case REPORT_OPT_QUANTILE:
        c->quantile_set = true;
        if (parse_quantile(arg, &c->quantile, err) != 0)
            return -1;
        return check_quantile_method(true, c->method_set, c->method, err);
    case REPORT_OPT_ADJUST:
        c->adjust_set = true;
        return parse_adjust(arg, &c->adjust, err);
    case REPORT_OPT_FAIL_IF: return parse_fail_if(arg, &c->fail_if, err);
    case REPORT_OPT_JSON: c->exports.json = arg; return 0;
    case REPORT_OPT_CSV: c->exports.csv = arg; return 0;
    case REPORT_OPT_MARKDOWN: c->exports.markdown = arg; return 0;
    case REPORT_OPT_HTML: c->exports.html = arg; return 0;
    case REPORT_OPT_SVG: c->exports.svg_dir = arg; return 0;
    }
    return text_choice_apply(&c->text, opt, arg, err);
}

void report_choices_override(const report_choices *c, analysis_options *o)
{
    if (c->confidence_set)
        o->confidence = c->confidence;
    if (c->margin_set)
        o->margin = c->margin;
    if (c->method_set) {
        o->method = c->method;
        o->method_given = true; /* kept for exact counts too */
    }
    if (c->quantile_set) {
        o->method = METHOD_QUANTILE;
        o->quantile = c->quantile;
        o->method_given = true;
    }
    if (c->adjust_set)
        o->adjust = c->adjust;
}

FILE *report_text_stream(const report_choices *c)
{
    return report_exports_use_stdout(&c->exports) ? stderr : stdout;
}

/* `verdict compare`: analyses samples measured elsewhere (bare numbers, or the files of
 * hyperfine, Go, Google Benchmark, pyperf, criterion and JMH): every variant against the first. */
#include <assert.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/command_list.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "common/error.h"
#include "core/peer_files.h"
#include "core/peer_plan.h"
#include "report/report.h"

#define DEFAULT_SEED 1

typedef struct {
    analysis_options analysis;
    peer_options input;     /* --format, --metric, -C, -d */
    report_exports exports; /* --json, --csv, --markdown, --html */
    fail_if_rule fail_if;
    uint64_t seed;
    bool higher_is_better;
    bool method_set;        /* --method given: --quantile may not override it */
    text_choices text;      /* --time-unit, --style, --sort */
} compare_settings;

/* The peers' metrics read as seconds (hyperfine's and pyperf's time, Go's sec/op, Google
 * Benchmark's times after time_unit): shown in time units like wall. */
static const char *const peer_time_metrics[] = {"time", "sec/op", "real_time", "cpu_time"};

const char cmd_compare_help[] =
    "usage: verdict compare [OPTIONS] FILE [FILE...]\n"
    "\n"
    "Compares samples measured elsewhere: every variant against the first (the baseline).\n"
    "A FILE is told by its content (or --format): bare numbers, one per line ('#' comments\n"
    "and blank lines skipped, a '#' after a number too); a hyperfine --export-json file\n"
    "(every command a variant: one file of two commands is a comparison); Go benchmark\n"
    "output, Google Benchmark, pyperf or JMH (-rf json) JSON, or criterion's sample.json\n"
    "or target/criterion directory (every file a variant, every benchmark a point,\n"
    "matched by name). FILE '-' reads standard input. Values must be positive:\n"
    "comparisons are ratios.\n"
    "\n"
    "options:\n"
    "      --format F          hyperfine, go, gbench, pyperf, criterion, jmh or numbers\n"
    "                          (default: by content)\n"
    "      --metric M          go: ns/op (default, reported as sec/op), B/op, allocs/op,\n"
    "                          MB/s...; gbench: real_time (default), cpu_time, a counter;\n"
    "                          jmh: a secondary metric (default: the primary)\n"
    "  -C, --column N          take column N (1-based) of bare numbers, like ministat\n"
    "  -d, --delimiter D       columns are split at any byte of D (-d , for CSV), like\n"
    "                          ministat (default: white space)\n"
    "      --paired            line i of every file was measured in the same block i\n"
    "      --method M          wilcoxon (default: signed-rank when paired, rank-sum\n"
    "                          otherwise; Go's allocs/op and B/op, exact counts: welch),\n"
    "                          welch (t test on logs), bootstrap (BCa),\n"
    "                          quantile (a low quantile: how fast each runs undisturbed;\n"
    "                          swaps within blocks when paired, permutations otherwise)\n"
    "      --quantile Q        the quantile --method quantile compares, in (0, 1)\n"
    "                          (default 0.1; implies --method quantile)\n"
    "      --confidence C      confidence level, 0.95 or 95% (default 0.95)\n"
    "  -c P                    confidence level in percent, like ministat (-c 99)\n"
    "      --margin M          equivalence margin, 1% or 0.01 (default 1%)\n"
    "      --higher-is-better  bigger values are better (throughput, tps)\n"
    "      --adjust A          several comparisons: holm (default), bh or none\n"
    "      --seed N            seed of the bootstrap and the quantile method (default 1)\n"
    "      --json FILE         write the verdict/1 JSON document\n"
    "      --csv FILE          one row per sample\n"
    "      --markdown FILE     the comparisons as Markdown tables\n"
    "      --html FILE         a single-file HTML report with charts (works offline)\n"
    "                          FILE '-' is standard output (one export at most), and the\n"
    "                          text report then goes to stderr\n"
    "      --fail-if RULE      exit 4 when a comparison is 'worse' (or 'not-better')\n"
    "      --time-unit U       times in U: ns, us, ms or s (default: adaptive per table)\n"
    "      --style S           auto (colour on a terminal unless NO_COLOR), basic,\n"
    "                          full (colour even when piped), nocolor, color, none\n"
    "      --sort S            table rows: auto or command (as given), mean-time\n"
    "  -h, --help              show this help\n"
    "\n"
    "exit status: 0 done (whatever the verdict), 2 bad input, 4 --fail-if triggered.\n";

/* ministat's -c: a level in percent (80, 90, 95, 98, 99, 99.5); "0.95" would be 0.95%, so
 * a level of 1 or below is refused rather than read as a fraction. */
static int parse_percent_confidence(const char *text, double *out, verdict_error *err)
{
    if (strchr(text, '%') != NULL)
        return parse_confidence(text, out, err);
    char *end = NULL;
    double percent = strtod(text, &end);
    if (end == text || *end != '\0' || !(percent > 1.0 && percent < 100.0)) {
        error_set(err, ERROR_USAGE, "-c '%s': a confidence level in percent, like ministat's (-c "
                  "95, -c 99.5); for a fraction use --confidence 0.95", text);
        return -1;
    }
    *out = percent / 100.0;
    return 0;
}

static int parse_format(const char *text, peer_format *out, verdict_error *err)
{
    if (peer_format_parse(text, out) == 0)
        return 0;
    error_set(err, ERROR_USAGE, "--format '%s': one of hyperfine, go, gbench, pyperf, criterion, "
              "jmh, numbers, auto", text);
    return -1;
}

static int parse_delimiters(const char *text, const char **out, verdict_error *err)
{
    if (*text == '\0') {
        error_set(err, ERROR_USAGE, "-d '': give the byte(s) that separate columns, such as -d ,");
        return -1;
    }
    *out = text;
    return 0;
}

static int parse_compare_option(int opt, const char *arg, void *settings, verdict_error *err)
{
    compare_settings *s = settings;
    switch (opt) {
    case 'C': return parse_positive_int("--column", arg, &s->input.layout.column, err);
    case 'd': return parse_delimiters(arg, &s->input.layout.delimiters, err);
    case 'F': return parse_format(arg, &s->input.format, err);
    case 'M': s->input.metric = arg; return 0;
    case 'p': s->analysis.paired = true; return 0;
    case 'm':
        s->method_set = true;
        s->analysis.method_given = true;
        if (parse_method(arg, &s->analysis.method, err) != 0)
            return -1;
        return check_quantile_method(s->analysis.quantile > 0, true, s->analysis.method, err);
    case 'Q':
        if (parse_quantile(arg, &s->analysis.quantile, err) != 0)
            return -1;
        if (!s->method_set)
            s->analysis.method = METHOD_QUANTILE;
        s->analysis.method_given = true;
        return check_quantile_method(true, s->method_set, s->analysis.method, err);
    case 'c': return parse_percent_confidence(arg, &s->analysis.confidence, err);
    case 'K': return parse_confidence(arg, &s->analysis.confidence, err);
    case 'g': return parse_margin(arg, &s->analysis.margin, err);
    case 'H': s->higher_is_better = true; return 0;
    case 'a': return parse_adjust(arg, &s->analysis.adjust, err);
    case 's': return parse_u64("--seed", arg, &s->seed, err);
    case 'j': s->exports.json = arg; return 0;
    case 'v': s->exports.csv = arg; return 0;
    case 'k': s->exports.markdown = arg; return 0;
    case 't': s->exports.html = arg; return 0;
    case 'f': return parse_fail_if(arg, &s->fail_if, err);
    }
    int rc = text_choice_apply(&s->text, opt, arg, err);
    if (rc <= 0)
        return rc;
    error_set(err, ERROR_USAGE, "unknown option (see verdict compare --help)");
    return -1;
}

/* Returns the index of the first file argument, -1 after --help, or -2 on error. */
static int parse_compare_args(int argc, char **argv, compare_settings *s, verdict_error *err)
{
    static const struct option long_options[] = {
        {"column", required_argument, NULL, 'C'}, {"paired", no_argument, NULL, 'p'},
        {"delimiter", required_argument, NULL, 'd'}, {"format", required_argument, NULL, 'F'},
        {"metric", required_argument, NULL, 'M'},
        {"method", required_argument, NULL, 'm'}, {"confidence", required_argument, NULL, 'K'},
        {"quantile", required_argument, NULL, 'Q'},
        {"margin", required_argument, NULL, 'g'}, {"higher-is-better", no_argument, NULL, 'H'},
        {"adjust", required_argument, NULL, 'a'}, {"seed", required_argument, NULL, 's'},
        {"json", required_argument, NULL, 'j'},   {"fail-if", required_argument, NULL, 'f'},
        {"csv", required_argument, NULL, 'v'},    {"markdown", required_argument, NULL, 'k'},
        {"html", required_argument, NULL, 't'},   TEXT_LONG_OPTIONS,
        {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0},
    };
    int first = walk_options(argc, argv, "C:c:d:h", long_options, "verdict compare",
                             parse_compare_option, s, err);
    if (first == OPTIONS_HELP)
        return -1;
    if (first == OPTIONS_ERROR)
        return -2;
    if (argc - optind < 1) {
        error_set(err, ERROR_USAGE, "compare needs files to compare (see verdict compare --help)");
        return -2;
    }
    return optind;
}

static int read_all_files(char **paths, size_t n, const peer_options *o, peer_file *files,
                          verdict_error *err)
{
    for (size_t i = 0; i < n; i++)
        if (peer_file_read(paths[i], o, &files[i], err) != 0)
            return -1;
    return 0;
}

/* How to get more values out of the tool that wrote the file. */
static const char *more_values_hint(peer_format format)
{
    switch (format) {
    case PEER_GO: return " (go test -count 10)";
    case PEER_GBENCH: return " (--benchmark_repetitions=10)";
    case PEER_HYPERFINE: return " (hyperfine --runs 10)";
    default: return "";
    }
}

static int check_counts(char **paths, const peer_file *files, const peer_plan *plan,
                        verdict_error *err)
{
    for (size_t k = 0; k < plan->n_columns; k++) {
        const peer_column *c = &plan->columns[k];
        const sample_series *v = &c->series->samples;
        if (v->n >= 2 || c->series->failed.n > 0) /* failed runs: the report says why */
            continue;
        const char *name = c->series->point ? c->series->point : c->series->variant;
        char line[48] = "";
        if (v->lines[0] > 0)
            snprintf(line, sizeof line, " (line %zu)", v->lines[0]);
        error_set(err, ERROR_USAGE, "%s: %s%sonly 1 value%s; a comparison needs at least 2%s",
                  paths[c->file], name ? name : "", name ? " has " : "", line,
                  more_values_hint(files[c->file].format));
        return -1;
    }
    return 0;
}

/* --paired: within each point, every column as long as the point's baseline. */
static int check_paired_lengths(char **paths, const peer_plan *plan, verdict_error *err)
{
    size_t base = 0;
    for (size_t k = 1; k < plan->n_columns; k++) {
        const peer_column *b = &plan->columns[base], *c = &plan->columns[k];
        if (strcmp(c->point, b->point) != 0) {
            base = k;
            continue;
        }
        if (c->series->samples.n != b->series->samples.n) {
            error_set(err, ERROR_USAGE, "--paired needs the same number of values in every file: "
                      "%s has %zu, %s has %zu%s%s", paths[b->file], b->series->samples.n,
                      paths[c->file], c->series->samples.n, b->series->point ? " of " : "",
                      b->series->point ? b->series->point : "");
            return -1;
        }
    }
    return 0;
}

typedef struct {
    report_variant *variants;
    report_point *points;
    analysis_series *series;
    report_sample *samples;
    const char **metric_names; /* one per series: a sample holds its series' metric */
    size_t n_variants, n_points, n_series, n_samples;
    char **paths;              /* the files read, for their readers' warnings */
    const peer_file *files;
    size_t n_files;
} compare_model;

/* Short names for the report: file names without directories when they are unique. */
static const char *display_name(char **paths, size_t n, size_t i)
{
    const char *base = strrchr(paths[i], '/') ? strrchr(paths[i], '/') + 1 : paths[i];
    for (size_t j = 0; j < n; j++) {
        const char *other = strrchr(paths[j], '/') ? strrchr(paths[j], '/') + 1 : paths[j];
        if (j != i && strcmp(base, other) == 0)
            return paths[i];
    }
    return *base ? base : paths[i];
}

static int allocate_model(const peer_plan *plan, compare_model *m)
{
    m->n_variants = plan->n_variants;
    m->n_points = plan->n_points;
    m->n_series = plan->n_columns;
    m->n_samples = 0;
    for (size_t k = 0; k < plan->n_columns; k++)
        m->n_samples += plan->columns[k].series->samples.n + plan->columns[k].series->failed.n;
    m->variants = calloc(m->n_variants, sizeof *m->variants);
    m->points = calloc(m->n_points, sizeof *m->points);
    m->series = calloc(m->n_series, sizeof *m->series);
    m->samples = calloc(m->n_samples ? m->n_samples : 1, sizeof *m->samples);
    m->metric_names = calloc(m->n_series, sizeof *m->metric_names);
    return m->variants && m->points && m->series && m->samples && m->metric_names ? 0 : -1;
}

/* The failed runs of a column, after its others: in the samples, never in the series. */
static size_t add_failed_runs(const peer_column *c, const char **metric_name,
                              report_sample *samples, size_t j)
{
    const sample_series *f = &c->series->failed;
    for (size_t i = 0; i < f->n; i++, j++)
        samples[j] = (report_sample){
            .variant = c->variant, .point = c->point, .block = -1,
            .seq = (long)(c->series->samples.n + i), /* after the others: unique */
            .metric_names = metric_name, .metric_values = &f->values[i], .n_metrics = 1,
            .exit_code = c->series->failed_exits[i]};
    return j;
}

static int build_model(char **paths, const peer_plan *plan, const compare_settings *s,
                       compare_model *m)
{
    if (allocate_model(plan, m) != 0)
        return -1;
    for (size_t i = 0; i < plan->n_variants; i++)
        m->variants[i] = (report_variant){.name = plan->variants[i],
                                          .file = paths[plan->variant_files[i]]};
    for (size_t i = 0; i < plan->n_points; i++)
        m->points[i] = (report_point){.id = plan->points[i]};
    size_t j = 0;
    for (size_t k = 0; k < plan->n_columns; k++) {
        const peer_column *c = &plan->columns[k];
        const sample_series *v = &c->series->samples;
        m->metric_names[k] = c->metric;
        m->series[k] = (analysis_series){
            .point = c->point, .metric = c->metric, .variant = c->variant, .values = v->values,
            .n = v->n, .higher_is_better = s->higher_is_better || c->higher_is_better,
            .exact_counts = c->series->exact_counts};
        for (size_t i = 0; i < v->n; i++, j++)
            m->samples[j] = (report_sample){
                .variant = c->variant, .point = c->point,
                .block = s->analysis.paired ? (long)i : -1, .seq = (long)i,
                .metric_names = &m->metric_names[k], .metric_values = &v->values[i],
                .n_metrics = 1};
        j = add_failed_runs(c, &m->metric_names[k], m->samples, j);
    }
    assert(j == m->n_samples);
    return 0;
}

static void free_model(compare_model *m)
{
    free(m->variants);
    free(m->points);
    free(m->series);
    free(m->samples);
    free(m->metric_names);
}

/* Whether file f was given before (a file against itself): its warnings are said once. */
static bool given_before(char **paths, size_t f)
{
    for (size_t g = 0; g < f; g++)
        if (strcmp(paths[g], paths[f]) == 0)
            return true;
    return false;
}

/* Benchmarks found in only some files, and entries a reader left out (errored, skipped,
 * without the metric), are named in the report's warnings. */
static int add_plan_warnings(const compare_model *m, const peer_plan *plan,
                             analysis_result *result)
{
    for (size_t i = 0; i < plan->n_warnings; i++)
        if (analysis_add_warning(result, "missing-benchmark", "", "", plan->warnings[i]) != 0)
            return -1;
    for (size_t f = 0; f < m->n_files; f++)
        for (size_t i = 0; !given_before(m->paths, f) && i < m->files[f].n_warnings; i++) {
            char message[1024];
            snprintf(message, sizeof message, "%s: %s", m->paths[f], m->files[f].warnings[i]);
            if (analysis_add_warning(result, "left-out", "", "", message) != 0)
                return -1;
        }
    return 0;
}

/* EXIT_DONE, EXIT_GATE (--fail-if), or -1 with err set (the caller turns its kind into the
 * exit status). */
static int report_comparisons(const compare_settings *s, const peer_plan *plan,
                              compare_model *m, verdict_error *err)
{
    analysis_result result;
    if (analysis_run(m->series, m->n_series, &s->analysis, &result, err) != 0)
        return -1;
    int rc = add_plan_warnings(m, plan, &result) == 0 ? EXIT_DONE : error_no_memory(err);
    report_input in = {
        .experiment_name = "compare", .seed = s->seed, .has_seed = true,
        .options = &s->analysis, .variants = m->variants, .n_variants = m->n_variants,
        .points = m->points, .n_points = m->n_points, .samples = m->samples,
        .n_samples = m->n_samples, .series = m->series, .n_series = m->n_series,
        .analysis = &result,
    };
    FILE *text = report_exports_use_stdout(&s->exports) ? stderr : stdout;
    in.text_style = text_choices_style(&s->text, text);
    in.text_style.time_metrics = peer_time_metrics;
    in.text_style.n_time_metrics = sizeof peer_time_metrics / sizeof *peer_time_metrics;
    if (rc == EXIT_DONE)
        report_write_text(&in, text);
    if (rc == EXIT_DONE && report_write_exports(&in, &s->exports, err) != 0)
        rc = -1;
    else if (rc == EXIT_DONE && fail_if_triggered(s->fail_if, &result))
        rc = EXIT_GATE;
    analysis_result_free(&result);
    return rc;
}

/* Reads the files, matches them into one comparison and reports it: as report_comparisons. */
static int compare_files(const compare_settings *s, char **paths, size_t n, peer_file *files,
                         const char **names, verdict_error *err)
{
    if (read_all_files(paths, n, &s->input, files, err) != 0)
        return -1;
    for (size_t i = 0; i < n; i++)
        names[i] = display_name(paths, n, i);
    peer_plan plan;
    if (peer_plan_build(files, names, n, &plan, err) != 0)
        return -1;
    compare_model model = {.paths = paths, .files = files, .n_files = n};
    int rc = -1;
    bool usable = check_counts(paths, files, &plan, err) == 0 &&
                  (!s->analysis.paired || check_paired_lengths(paths, &plan, err) == 0);
    if (usable && build_model(paths, &plan, s, &model) != 0) {
        rc = error_no_memory(err);
    } else if (usable) {
        rc = report_comparisons(s, &plan, &model, err);
    }
    free_model(&model);
    peer_plan_free(&plan);
    return rc;
}

int cmd_compare(int argc, char **argv)
{
    compare_settings s = {
        .analysis = {.method = METHOD_WILCOXON, .confidence = 0.95, .margin = 0.01,
                     .adjust = ADJUST_HOLM},
        .input = {.format = PEER_AUTO},
        .seed = DEFAULT_SEED,
    };
    verdict_error err = {0};
    int first = parse_compare_args(argc, argv, &s, &err);
    if (first == -1) {
        cli_help_write(cmd_compare_help, stdout);
        return EXIT_DONE;
    }
    if (first < 0 || report_exports_check(&s.exports, &err) != 0) {
        fprintf(stderr, "verdict compare: %s\n", err.message);
        return EXIT_USAGE;
    }
    s.analysis.seed = s.seed;
    size_t n = (size_t)(argc - first);
    peer_file *files = calloc(n, sizeof *files);
    const char **names = calloc(n, sizeof *names);
    int rc = files == NULL || names == NULL
                 ? error_no_memory(&err)
                 : compare_files(&s, argv + first, n, files, names, &err);
    if (rc < 0) {
        fprintf(stderr, "verdict compare: %s\n", err.message);
        rc = error_exit_status(err.kind);
    }
    for (size_t i = 0; files && i < n; i++)
        peer_file_free(&files[i]);
    free(files);
    free(names);
    return rc;
}

/* `verdict compare`: analyses samples measured elsewhere (one number per line, or a
 * column) and prints the comparison of every file against the first. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "core/sample_file.h"
#include "report/report.h"

#define DEFAULT_SEED 1

typedef struct {
    analysis_options analysis;
    int column;
    report_exports exports; /* --json, --csv, --markdown, --html */
    fail_if_rule fail_if;
    uint64_t seed;
    bool higher_is_better;
} compare_settings;

static void compare_usage(FILE *out)
{
    fputs(
        "usage: verdict compare [OPTIONS] FILE FILE [FILE...]\n"
        "\n"
        "Compares samples measured elsewhere: every FILE against the first (the baseline).\n"
        "A file holds one number per line ('#' comments and blank lines are skipped);\n"
        "FILE '-' reads standard input. Values must be positive: comparisons are ratios.\n"
        "\n"
        "options:\n"
        "  -C, --column N          take whitespace-separated column N (1-based), like ministat\n"
        "      --paired            line i of every file was measured in the same block i\n"
        "      --method M          wilcoxon (default: signed-rank when paired, rank-sum\n"
        "                          otherwise), welch (t test on logs), bootstrap (BCa)\n"
        "      --confidence C      confidence level, 0.95 or 95% (default 0.95)\n"
        "      --margin M          equivalence margin, 1% or 0.01 (default 1%)\n"
        "      --higher-is-better  bigger values are better (throughput, tps)\n"
        "      --adjust A          several comparisons: holm (default), bh or none\n"
        "      --seed N            seed of the bootstrap (default 1)\n"
        "      --json FILE         write the verdict/1 JSON document ('-' for stdout;\n"
        "                          the text report then goes to stderr)\n"
        "      --csv FILE          one row per sample\n"
        "      --markdown FILE     the comparisons as Markdown tables\n"
        "      --html FILE         a single-file HTML report with charts (works offline)\n"
        "      --fail-if RULE      exit 4 when a comparison is 'worse' (or 'not-better')\n"
        "  -h, --help              show this help\n"
        "\n"
        "exit status: 0 done (whatever the verdict), 2 bad input, 4 --fail-if triggered.\n",
        out);
}

static int parse_compare_option(int opt, const char *arg, void *settings, char *err, size_t errlen)
{
    compare_settings *s = settings;
    switch (opt) {
    case 'C': return parse_positive_int("--column", arg, &s->column, err, errlen);
    case 'p': s->analysis.paired = true; return 0;
    case 'm': return parse_method(arg, &s->analysis.method, err, errlen);
    case 'c': return parse_confidence(arg, &s->analysis.confidence, err, errlen);
    case 'g': return parse_margin(arg, &s->analysis.margin, err, errlen);
    case 'H': s->higher_is_better = true; return 0;
    case 'a': return parse_adjust(arg, &s->analysis.adjust, err, errlen);
    case 's': return parse_u64("--seed", arg, &s->seed, err, errlen);
    case 'j': s->exports.json = arg; return 0;
    case 'v': s->exports.csv = arg; return 0;
    case 'k': s->exports.markdown = arg; return 0;
    case 't': s->exports.html = arg; return 0;
    case 'f': return parse_fail_if(arg, &s->fail_if, err, errlen);
    }
    snprintf(err, errlen, "unknown option (see verdict compare --help)");
    return -1;
}

/* Returns the index of the first file argument, -1 after --help, or -2 on error. */
static int parse_compare_args(int argc, char **argv, compare_settings *s, char *err, size_t errlen)
{
    static const struct option long_options[] = {
        {"column", required_argument, NULL, 'C'}, {"paired", no_argument, NULL, 'p'},
        {"method", required_argument, NULL, 'm'}, {"confidence", required_argument, NULL, 'c'},
        {"margin", required_argument, NULL, 'g'}, {"higher-is-better", no_argument, NULL, 'H'},
        {"adjust", required_argument, NULL, 'a'}, {"seed", required_argument, NULL, 's'},
        {"json", required_argument, NULL, 'j'},   {"fail-if", required_argument, NULL, 'f'},
        {"csv", required_argument, NULL, 'v'},    {"markdown", required_argument, NULL, 'k'},
        {"html", required_argument, NULL, 't'},
        {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0},
    };
    int first = walk_options(argc, argv, "C:h", long_options, "verdict compare",
                             parse_compare_option, s, err, errlen);
    if (first == OPTIONS_HELP)
        return -1;
    if (first == OPTIONS_ERROR)
        return -2;
    if (argc - optind < 2) {
        snprintf(err, errlen, "compare needs at least two files (see verdict compare --help)");
        return -2;
    }
    return optind;
}

static int read_all_files(char **paths, size_t n, int column, sample_series *series, char *err,
                          size_t errlen)
{
    for (size_t i = 0; i < n; i++) {
        if (sample_file_read(paths[i], column, &series[i], err, errlen) != 0)
            return -1;
        if (series[i].n < 2) {
            snprintf(err, errlen, "%s: only 1 value (line %zu); a comparison needs at least 2",
                     paths[i], series[i].lines[0]);
            return -1;
        }
    }
    return 0;
}

static int check_paired_lengths(char **paths, size_t n, const sample_series *series, char *err,
                                size_t errlen)
{
    for (size_t i = 1; i < n; i++)
        if (series[i].n != series[0].n) {
            snprintf(err, errlen,
                     "--paired needs the same number of values in every file: %s has %zu, %s has %zu",
                     paths[0], series[0].n, paths[i], series[i].n);
            return -1;
        }
    return 0;
}

typedef struct {
    report_variant *variants;
    analysis_series *series;
    report_sample *samples;
    const char **metric_names;
    size_t n_files, n_samples;
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

static int build_model(char **paths, size_t n, const sample_series *data, bool paired,
                       bool higher_is_better, compare_model *m)
{
    m->n_files = n;
    m->n_samples = 0;
    for (size_t i = 0; i < n; i++)
        m->n_samples += data[i].n;
    m->variants = calloc(n, sizeof *m->variants);
    m->series = calloc(n, sizeof *m->series);
    m->samples = calloc(m->n_samples, sizeof *m->samples);
    m->metric_names = calloc(1, sizeof *m->metric_names);
    if (!m->variants || !m->series || !m->samples || !m->metric_names)
        return -1;
    m->metric_names[0] = "value";
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const char *name = display_name(paths, n, i);
        m->variants[i] = (report_variant){.name = name, .file = paths[i]};
        m->series[i] = (analysis_series){.point = "default", .metric = "value", .variant = name,
                                         .values = data[i].values, .n = data[i].n,
                                         .higher_is_better = higher_is_better};
        for (size_t j = 0; j < data[i].n; j++, k++)
            m->samples[k] = (report_sample){
                .variant = name, .point = "default", .block = paired ? (long)j : -1,
                .seq = (long)j, .metric_names = m->metric_names,
                .metric_values = &data[i].values[j], .n_metrics = 1};
    }
    return 0;
}

static void free_model(compare_model *m)
{
    free(m->variants);
    free(m->series);
    free(m->samples);
    free(m->metric_names);
}

static int report_comparisons(const compare_settings *s, compare_model *m, char *err,
                              size_t errlen)
{
    analysis_result result;
    if (analysis_run(m->series, m->n_files, &s->analysis, &result, err, errlen) != 0)
        return EXIT_INTERNAL;
    report_point point = {.id = "default"};
    report_input in = {
        .experiment_name = "compare", .seed = s->seed, .has_seed = true,
        .options = &s->analysis, .variants = m->variants, .n_variants = m->n_files,
        .points = &point, .n_points = 1, .samples = m->samples, .n_samples = m->n_samples,
        .series = m->series, .n_series = m->n_files, .analysis = &result,
    };
    bool json_to_stdout = s->exports.json && strcmp(s->exports.json, "-") == 0;
    report_write_text(&in, json_to_stdout ? stderr : stdout);
    int rc = EXIT_DONE;
    if (report_write_exports(&in, &s->exports, err, errlen) != 0)
        rc = EXIT_INTERNAL;
    else if (fail_if_triggered(s->fail_if, &result))
        rc = EXIT_GATE;
    analysis_result_free(&result);
    return rc;
}

int cmd_compare(int argc, char **argv)
{
    compare_settings s = {
        .analysis = {.method = METHOD_WILCOXON, .confidence = 0.95, .margin = 0.01,
                     .adjust = ADJUST_HOLM},
        .seed = DEFAULT_SEED,
    };
    char err[512] = "";
    int first = parse_compare_args(argc, argv, &s, err, sizeof err);
    if (first == -1) {
        compare_usage(stdout);
        return EXIT_DONE;
    }
    if (first < 0) {
        fprintf(stderr, "verdict compare: %s\n", err);
        return EXIT_USAGE;
    }
    s.analysis.seed = s.seed;
    size_t n = (size_t)(argc - first);
    sample_series *data = calloc(n, sizeof *data);
    compare_model model = {0};
    int rc = EXIT_USAGE;
    if (data == NULL) {
        snprintf(err, sizeof err, "out of memory");
        rc = EXIT_INTERNAL;
    } else if (read_all_files(argv + first, n, s.column, data, err, sizeof err) == 0 &&
               (!s.analysis.paired || check_paired_lengths(argv + first, n, data, err, sizeof err) == 0)) {
        if (build_model(argv + first, n, data, s.analysis.paired, s.higher_is_better, &model) != 0) {
            snprintf(err, sizeof err, "out of memory");
            rc = EXIT_INTERNAL;
        } else {
            rc = report_comparisons(&s, &model, err, sizeof err);
        }
    }
    if (rc == EXIT_USAGE || rc == EXIT_INTERNAL)
        fprintf(stderr, "verdict compare: %s\n", err);
    free_model(&model);
    for (size_t i = 0; data && i < n; i++)
        sample_series_free(&data[i]);
    free(data);
    return rc;
}

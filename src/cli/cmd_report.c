/* `verdict report STORE`: re-analyses an experiment's stored samples (with other
 * confidence, margin or exports if asked) exactly as `verdict run` reported them. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/experiment_report.h"
#include "cli/options.h"
#include "core/experiment.h"
#include "store/store.h"

static void report_usage(FILE *out)
{
    fputs(
        "usage: verdict report STORE [OPTIONS]\n"
        "\n"
        "Re-analyses the experiment kept in STORE (written by verdict run) and prints the\n"
        "same report; with options, analyses it differently or exports it.\n"
        "\n"
        "options:\n"
        "      --json FILE         the verdict/1 JSON document ('-' for stdout)\n"
        "      --csv FILE          one row per sample\n"
        "      --markdown FILE     the verdict table as Markdown\n"
        "      --html FILE         a single-file HTML report with charts (works offline)\n"
        "      --svg DIR           every chart as its own .svg file in DIR\n"
        "      --confidence C      confidence level (default: the experiment's)\n"
        "      --margin M          equivalence margin (default: the experiment's)\n"
        "      --method M          wilcoxon (default), welch or bootstrap\n"
        "      --adjust A          holm (default), bh or none\n"
        "      --fail-if worse     exit 4 when a comparison is worse\n"
        "  -h, --help              show this help\n",
        out);
}

typedef struct {
    experiment_report_options report;
    bool confidence_set, margin_set, method_set, adjust_set;
    double confidence, margin;
    comparison_method method;
    adjust_method adjust;
    const char *store_path;
} report_settings;

static int apply_report_option(int opt, const char *arg, void *settings, char *err, size_t errlen)
{
    report_settings *s = settings;
    switch (opt) {
    case 'j': s->report.exports.json = arg; return 0;
    case 'v': s->report.exports.csv = arg; return 0;
    case 'm': s->report.exports.markdown = arg; return 0;
    case 'H': s->report.exports.html = arg; return 0;
    case 'G': s->report.exports.svg_dir = arg; return 0;
    case 'c': s->confidence_set = true; return parse_confidence(arg, &s->confidence, err, errlen);
    case 'g': s->margin_set = true; return parse_margin(arg, &s->margin, err, errlen);
    case 'M': s->method_set = true; return parse_method(arg, &s->method, err, errlen);
    case 'a': s->adjust_set = true; return parse_adjust(arg, &s->adjust, err, errlen);
    case 'f': return parse_fail_if(arg, &s->report.fail_if, err, errlen);
    }
    snprintf(err, errlen, "unknown option (see verdict report --help)");
    return -1;
}

static int parse_report_args(int argc, char **argv, report_settings *s, char *err, size_t errlen)
{
    static const struct option options[] = {
        {"json", required_argument, NULL, 'j'}, {"csv", required_argument, NULL, 'v'},
        {"markdown", required_argument, NULL, 'm'}, {"confidence", required_argument, NULL, 'c'},
        {"html", required_argument, NULL, 'H'}, {"svg", required_argument, NULL, 'G'},
        {"margin", required_argument, NULL, 'g'}, {"method", required_argument, NULL, 'M'},
        {"adjust", required_argument, NULL, 'a'}, {"fail-if", required_argument, NULL, 'f'},
        {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0},
    };
    int first = walk_options(argc, argv, "h", options, "verdict report",
                             apply_report_option, s, err, errlen);
    if (first == OPTIONS_HELP)
        return 1;
    if (first == OPTIONS_ERROR)
        return -1;
    if (argc - optind != 1) {
        snprintf(err, errlen, "report needs exactly one store (see verdict report --help)");
        return -1;
    }
    s->store_path = argv[optind];
    return 0;
}

static void apply_report_overrides(const report_settings *s, experiment_report_options *o)
{
    o->exports = s->report.exports;
    o->fail_if = s->report.fail_if;
    if (s->confidence_set)
        o->analysis.confidence = s->confidence;
    if (s->margin_set)
        o->analysis.margin = s->margin;
    if (s->method_set)
        o->analysis.method = s->method;
    if (s->adjust_set)
        o->analysis.adjust = s->adjust;
    if (o->exports.json && strcmp(o->exports.json, "-") == 0)
        o->text = stderr;
}

/* Reads the experiment back from the text stored with its results. */
static int load_stored_experiment(store *db, int64_t *id, experiment *e, const char *path,
                                  char *err, size_t errlen)
{
    store_experiment stored;
    if (store_latest_experiment(db, id, err, errlen) != 0 ||
        store_get_experiment(db, *id, &stored, err, errlen) != 0)
        return -1;
    char name[4096];
    snprintf(name, sizeof name, "%s (experiment %s as stored)", path, stored.name);
    if (experiment_parse(name, stored.text, stored.text_length, e, err, errlen) != 0)
        return -1;
    if (!e->has_seed)
        e->seed = experiment_plan_hash(e) % 1000000000u;
    return 0;
}

int cmd_report(int argc, char **argv)
{
    report_settings s;
    memset(&s, 0, sizeof s);
    char err[1024] = "";
    int parsed = parse_report_args(argc, argv, &s, err, sizeof err);
    if (parsed == 1) {
        report_usage(stdout);
        return EXIT_DONE;
    }
    if (parsed != 0) {
        fprintf(stderr, "verdict report: %s\n", err);
        return EXIT_USAGE;
    }
    store *db = NULL;
    experiment e;
    int64_t id = 0;
    int rc = EXIT_USAGE;
    memset(&e, 0, sizeof e);
    if (access(s.store_path, R_OK) != 0) {
        snprintf(err, sizeof err, "%s: no such store", s.store_path);
    } else if (store_open(s.store_path, &db, err, sizeof err) == 0 &&
               load_stored_experiment(db, &id, &e, s.store_path, err, sizeof err) == 0) {
        experiment_report_options o;
        experiment_report_defaults(&e, &o);
        apply_report_overrides(&s, &o);
        err[0] = '\0';
        rc = experiment_report(db, id, &e, &o, err, sizeof err);
        experiment_free(&e);
    }
    if (rc != EXIT_DONE && rc != EXIT_GATE)
        fprintf(stderr, "verdict report: %s\n", err);
    if (db)
        store_close(db);
    return rc;
}

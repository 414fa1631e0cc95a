/* `verdict report STORE`: re-analyses the experiment a store keeps (a file's, or one the
 * command line described) from the text stored with it, exactly as its run reported it. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/experiment_run.h"
#include "cli/options.h"
#include "core/experiment.h"
#include "store/store.h"
#include "targets/targets.h"

typedef struct {
    report_choices report;
    const char *store_path;
} report_settings;

static void report_usage(FILE *out)
{
    fprintf(out,
        "usage: verdict report STORE [OPTIONS]\n"
        "\n"
        "Re-analyses the experiment kept in STORE (written by verdict run, or by verdict and\n"
        "verdict kernel with --store) and prints the same report; with options, analyses it\n"
        "differently or exports it. Nothing is run.\n"
        "\n"
        "%s"
        "  -h, --help              show this help\n"
        "\n"
        "exit status: 0 done, 1 internal failure, 2 usage or no such store, 4 --fail-if.\n",
        report_options_help);
}

static int apply_report_option(int opt, const char *arg, void *settings, char *err, size_t errlen)
{
    report_settings *s = settings;
    int rc = report_choice_apply(&s->report, opt, arg, err, errlen);
    if (rc <= 0)
        return rc;
    snprintf(err, errlen, "unknown option (see verdict report --help)");
    return -1;
}

static int parse_report_args(int argc, char **argv, report_settings *s, char *err, size_t errlen)
{
    static const struct option options[] = {
        REPORT_LONG_OPTIONS, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0},
    };
    memset(s, 0, sizeof *s);
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
    if (targets_parse_experiment(name, stored.text, stored.text_length, e, err, errlen) != 0)
        return -1;
    /* the seed the run settled: from the plan when the text has none */
    e->seed = stored.seed;
    return 0;
}

int cmd_report(int argc, char **argv)
{
    report_settings s;
    char err[2048] = "";
    int parsed = parse_report_args(argc, argv, &s, err, sizeof err);
    if (parsed == 1) {
        report_usage(stdout);
        return EXIT_DONE;
    }
    if (parsed != 0) {
        fprintf(stderr, "verdict report: %s\n", err);
        return EXIT_USAGE;
    }
    if (access(s.store_path, R_OK) != 0) {
        fprintf(stderr, "verdict report: %s: no such store\n", s.store_path);
        return EXIT_USAGE;
    }
    store *db = NULL;
    experiment e;
    int64_t id = 0;
    int rc = EXIT_USAGE;
    experiment_init(&e);
    if (store_open(s.store_path, &db, err, sizeof err) == 0 &&
        load_stored_experiment(db, &id, &e, s.store_path, err, sizeof err) == 0)
        rc = cli_report("verdict report", db, id, &e, &s.report);
    else
        fprintf(stderr, "verdict report: %s\n", err);
    experiment_free(&e);
    if (db)
        store_close(db);
    return rc;
}

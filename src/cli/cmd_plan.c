/* `verdict plan EXPERIMENT`: from the runs its store holds (or a short pilot run into a store
 * of its own), the variance components, the costs and the cheapest layouts and blocks. */
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/command_list.h"
#include "cli/commands.h"
#include "cli/experiment_run.h"
#include "cli/options.h"
#include "common/error.h"
#include "lab/lab_builds.h"
#include "lab/lab_plan.h"
#include "lab/lab_store.h"
#include "report/output_file.h"
#include "targets/targets.h"

typedef struct {
    const char *experiment_path, *store_path, *cache_dir, *json;
    double detect, half_width, power, relink_seconds;
    size_t pilot;             /* 0: no pilot */
} plan_settings;

enum { PLAN_OPT_DETECT = 0x3000, PLAN_OPT_HALF_WIDTH, PLAN_OPT_POWER, PLAN_OPT_RELINK,
       PLAN_OPT_PILOT, PLAN_OPT_STORE, PLAN_OPT_CACHE, PLAN_OPT_JSON };

const char cmd_plan_help[] =
    "usage: verdict plan EXPERIMENT.yaml (--detect X | --half-width Y) [OPTIONS]\n"
    "\n"
    "Plans the experiment from the runs its store holds: per comparison the noise of a\n"
    "block's log ratio and, with layout twins, the spread of layouts; the cost of a run\n"
    "and of a relink; then the cheapest layouts and blocks per point that reach the\n"
    "target (Kalibera and Jones's repetitions; docs/statistics.md, \"Planning an\n"
    "experiment\"), its expected duration, and the lines for the experiment file.\n"
    "\n"
    "      --detect X          detect a change of X (2% or 0.02) in every comparison\n"
    "      --power P           ... with this chance, 50% to below 100% (default 80%)\n"
    "      --half-width Y      or: intervals of half-width Y\n"
    "      --store STORE       where the runs are (default: EXPERIMENT without .yaml + .db)\n"
    "      --pilot N           when the store holds no complete block: run N blocks per\n"
    "                          point first, into EXPERIMENT.pilot.db (resumed if there)\n"
    "      --relink DURATION   a layout's relink (default 10s; PostgreSQL 15 took 12s,\n"
    "                          a small program 0.06s; verdict run says \"relinked N\n"
    "                          outputs in S s\" as it makes each layout)\n"
    "      --cache DIR         where a pilot's builds live (see verdict run --help)\n"
    "      --json FILE         the plan as JSON (docs/json-schema.md), - for stdout\n"
    "  -h, --help              show this help\n"
    "\n"
    "The target holds for each comparison at the experiment's confidence shared by its\n"
    "comparisons (Bonferroni), less the share kept for --more.\n"
    "exit status: 0 done, 1 internal failure, 2 usage, a target not above 0, an\n"
    "experiment with one variant or nothing stored (without --pilot), 3 a pilot run failed.\n";

static int apply_plan_option(int opt, const char *arg, void *settings, verdict_error *err)
{
    plan_settings *s = settings;
    switch (opt) {
    case PLAN_OPT_DETECT:
        return parse_positive_share("--detect", arg, &s->detect, err);
    case PLAN_OPT_HALF_WIDTH:
        return parse_positive_share("--half-width", arg, &s->half_width, err);
    case PLAN_OPT_POWER:
        if (parse_positive_share("--power", arg, &s->power, err) != 0)
            return -1;
        return s->power >= 0.5 && s->power < 1
                   ? 0 : error_set(err, ERROR_USAGE, "--power '%s': must be from 50%% to below "
                                   "100%%", arg);
    case PLAN_OPT_RELINK:
        return parse_duration("--relink", arg, &s->relink_seconds, err);
    case PLAN_OPT_PILOT:
        return parse_count("--pilot", arg, false, &s->pilot, err);
    case PLAN_OPT_STORE:
    case PLAN_OPT_CACHE:
    case PLAN_OPT_JSON:
        *(opt == PLAN_OPT_STORE ? &s->store_path
                                : opt == PLAN_OPT_CACHE ? &s->cache_dir : &s->json) = arg;
        return 0;
    default:
        return error_set(err, ERROR_USAGE, "unknown option (see verdict plan --help)");
    }
}

/* 0 with settings, 1 after --help, -1 with a message. */
static int parse_plan_args(int argc, char **argv, plan_settings *s, verdict_error *err)
{
    static const struct option options[] = {
        {"detect", required_argument, NULL, PLAN_OPT_DETECT},
        {"half-width", required_argument, NULL, PLAN_OPT_HALF_WIDTH},
        {"power", required_argument, NULL, PLAN_OPT_POWER},
        {"relink", required_argument, NULL, PLAN_OPT_RELINK},
        {"pilot", required_argument, NULL, PLAN_OPT_PILOT},
        {"store", required_argument, NULL, PLAN_OPT_STORE},
        {"cache", required_argument, NULL, PLAN_OPT_CACHE},
        {"json", required_argument, NULL, PLAN_OPT_JSON},
        {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0},
    };
    *s = (plan_settings){.power = 0.8, .relink_seconds = NAN};
    int first = walk_options(argc, argv, "h", options, "verdict plan", apply_plan_option, s,
                             err);
    if (first == OPTIONS_HELP)
        return 1;
    if (first == OPTIONS_ERROR)
        return -1;
    if (argc - optind != 1)
        return error_set(err, ERROR_USAGE, "plan needs exactly one experiment file (see "
                         "verdict plan --help)");
    if ((s->detect > 0) == (s->half_width > 0))
        return error_set(err, ERROR_USAGE, "give one target: --detect X or --half-width Y");
    s->experiment_path = argv[optind];
    return 0;
}

/* "dir/exp.db" -> "dir/exp.pilot.db": the pilot never mixes with the experiment's runs; it
 * is a file beside the experiment when the runs are on a server. */
static char *pilot_store_path(const char *store_path, const char *experiment_path)
{
    char *beside = store_is_postgres(store_path) ? lab_default_store_path(experiment_path) : NULL;
    if (beside)
        store_path = beside;
    size_t n = strlen(store_path);
    if (n > 3 && strcmp(store_path + n - 3, ".db") == 0)
        n -= 3;
    char *out = malloc(n + sizeof ".pilot.db");
    if (out)
        snprintf(out, n + sizeof ".pilot.db", "%.*s.pilot.db", (int)n, store_path);
    free(beside);
    return out;
}

/* The pilot: the experiment cut to N blocks per point, run (or resumed) into its store. */
static int run_pilot(const plan_settings *s, experiment *e, const char *pilot_path)
{
    char *default_cache = s->cache_dir ? NULL : lab_default_cache_dir();
    report_choices quiet;
    memset(&quiet, 0, sizeof quiet);
    e->adaptive = false;
    e->repetitions = s->pilot;
    fprintf(stderr, "verdict plan: nothing of %s is stored: running a pilot of %zu blocks per "
            "point into %s\n", e->name, s->pilot, pilot_path);
    cli_run run = {.program = "verdict plan", .e = e, .store_path = pilot_path,
                   .build_logs = true, .log_prefix = pilot_path,
                   .cache_dir = s->cache_dir ? s->cache_dir : default_cache,
                   .target = {.randomize_env = true}, .report = &quiet, .no_report = true};
    int rc = cli_run_experiment(&run);
    free(default_cache);
    return rc;
}

/* Plans from the store at path; *nothing says it holds no complete block of e. */
static int plan_from(const plan_settings *s, const experiment *e, const char *path, bool pilot,
                     bool *nothing, verdict_error *err)
{
    store *db = NULL;
    int64_t id;
    lab_plan plan;
    memset(&plan, 0, sizeof plan);
    *nothing = true;
    if (access(path, R_OK) != 0 && !store_is_postgres(path))
        return error_set(err, ERROR_BAD_INPUT, "%s: no store at %s: run `verdict run %s` "
                         "first (a few blocks will do), or give --pilot N", e->path, path,
                         e->path);
    if (store_open_read_only(path, &db, err) != 0)
        return -1;
    lab_plan_options o = {.target = {.change = s->detect > 0 ? s->detect : s->half_width,
                                     .half_width = s->half_width > 0, .power = s->power},
                          .relink_seconds = s->relink_seconds, .store_name = path,
                          .pilot = pilot};
    int rc = store_find_experiment(db, e->name, &id, err) == 0 ? 0 : -1;
    if (rc != 0)
        error_set(err, ERROR_BAD_INPUT, "%s: %s holds no run of %s: run `verdict run %s` "
                  "first, or give --pilot N", e->path, path, e->name, e->path);
    else
        rc = lab_plan_compute(db, id, e, &o, &plan, err);
    *nothing = rc != 0 && plan.report.n_rows == 0;
    if (rc == 0 && s->json)
        rc = plan_report_write_json(&plan.report, s->json, err);
    if (rc == 0)
        plan_report_write_text(&plan.report, s->json && strcmp(s->json, "-") == 0 ? stderr
                                                                                  : stdout);
    lab_plan_free(&plan);
    store_close(db);
    return rc;
}

static int plan_file(const plan_settings *s, verdict_error *err)
{
    experiment e;
    if (targets_load_experiment(s->experiment_path, &e, err) != 0)
        return error_exit_status(err->kind);
    char *default_store = s->store_path ? NULL : lab_default_store_path(s->experiment_path);
    const char *path = s->store_path ? s->store_path : default_store;
    char *pilot_path = path ? pilot_store_path(path, s->experiment_path) : NULL;
    bool nothing = false;
    if (pilot_path == NULL)
        error_no_memory(err);
    else if (e.n_variants < 2)
        error_set(err, ERROR_USAGE, "%s: one variant (%s): a plan is for comparing a "
                  "candidate with a baseline", e.path, e.variants[0].name);
    else
        plan_from(s, &e, path, false, &nothing, err);
    int rc = err->kind == ERROR_NONE ? EXIT_DONE : error_exit_status(err->kind);
    if (rc != EXIT_DONE && nothing && s->pilot > 0) {
        error_clear(err);
        rc = run_pilot(s, &e, pilot_path);
        if (rc == EXIT_DONE && plan_from(s, &e, pilot_path, true, &nothing, err) != 0)
            rc = error_exit_status(err->kind);
    }
    free(default_store);
    free(pilot_path);
    experiment_free(&e);
    return rc;
}

int cmd_plan(int argc, char **argv)
{
    plan_settings settings;
    verdict_error err = {0};
    int parsed = parse_plan_args(argc, argv, &settings, &err);
    if (parsed == 1) {
        cli_help_write(cmd_plan_help, stdout);
        return EXIT_DONE;
    }
    /* a --json that cannot be written is said now, before any pilot */
    bool usable = parsed == 0 && (settings.json == NULL || output_check(settings.json, &err) == 0);
    int rc = usable ? plan_file(&settings, &err) : EXIT_USAGE;
    if (rc != EXIT_DONE && err.kind != ERROR_NONE)
        fprintf(stderr, "verdict plan: %s\n", err.message);
    return rc;
}

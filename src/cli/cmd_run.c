/* `verdict run EXPERIMENT`: loads the file with every target it may name, then runs (or
 * resumes) it into its store and reports from the store, as any experiment is. */
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/command_list.h"
#include "cli/commands.h"
#include "cli/experiment_run.h"
#include "cli/options.h"
#include "build/build.h"
#include "cli/progress.h"
#include "common/error.h"
#include "core/run_counters.h"
#include "core/plan_looks.h"
#include "common/strbuf.h"
#include "lab/lab_builds.h"
#include "lab/lab_estimate.h"
#include "lab/lab_store.h"
#include "report/plan_json.h"
#include "stats/level_text.h"
#include "targets/targets.h"

typedef struct {
    const char *experiment_path, *store_path, *cache_dir;
    bool dry_run;
    report_choices report;
    const char *machine;
    double lease_seconds;
    size_t more;
    const char *sign;
} run_settings;

const char cmd_run_help[] =
    "usage: verdict run EXPERIMENT.yaml [OPTIONS]\n"
    "\n"
    "Runs the experiment described by the file (docs/experiments.md): every point of its\n"
    "parameters, in shuffled order, with all variants in randomized complete blocks.\n"
    "Every sample is committed to the store as soon as it is measured; running the same\n"
    "file against the same store again resumes where it stopped.\n"
    "\n"
    "options:\n"
    "      --store STORE       results store: a SQLite file (default: EXPERIMENT without\n"
    "                          .yaml + .db) or a PostgreSQL URI (postgresql://...), which\n"
    "                          workers on other machines join (docs/fleet.md)\n"
    "      --machine NAME      this machine's name in a fleet (default: the host name)\n"
    "      --lease DURATION    machines: share: a claimed block is retaken by another\n"
    "                          worker when not renewed for this long (default 120s)\n"
    "      --cache DIR         where builds of sources live (default: $VERDICT_CACHE,\n"
    "                          else ~/.cache/verdict; see verdict cache --help)\n"
    "      --more N            extend the stored experiment by N blocks per point and\n"
    "                          run them: one more look at the data, at a level that\n"
    "                          keeps the error rate (docs/statistics.md, \"Running more\");\n"
    "                          an adaptive plan needs reserve_for_more, and gets looks\n"
    "                          of its own\n"
    "      --sign KEY          sign what workers run with KEY (verdict key new KEY;\n"
    "                          docs/security.md, \"Whom a fleet trusts\")\n"
    "      --dry-run           check the file (keys, paths, sources, patches,\n"
    "                          placeholders) and print the plan: points, units, blocks,\n"
    "                          runs, each build's key, cached or to be made, and the\n"
    "                          adaptive looks with their boundaries; nothing is built\n"
    "                          or run. With --json FILE (- for stdout) the plan as\n"
    "                          JSON (docs/json-schema.md, \"The plan\"). A plan that\n"
    "                          can never decide is warned about, here and at the start\n"
    "                          of a run, with the blocks that could\n"
    "@report-options\n"
    "  -h, --help              show this help\n"
    "\n"
    "exit status: 0 done, 1 internal failure (e.g. the store cannot be written),\n"
    "2 bad experiment file or usage, 3 a build or a run failed, 4 --fail-if triggered,\n"
    "130 interrupted (what was measured is stored; run again to resume).\n";

static int apply_run_option(int opt, const char *arg, void *settings, verdict_error *err)
{
    run_settings *s = settings;
    if (opt == 'k') {
        s->dry_run = true;
        return 0;
    }
    if (opt == 's' || opt == 'C') {
        *(opt == 's' ? &s->store_path : &s->cache_dir) = arg;
        return 0;
    }
    if (opt == 'M') {
        s->machine = arg;
        return cli_check_machine_name(arg, err);
    }
    if (opt == 'L')
        return cli_parse_lease(arg, &s->lease_seconds, err);
    if (opt == 'm')
        return parse_count("--more", arg, false, &s->more, err);
    if (opt == 'S') {
        s->sign = arg;
        return 0;
    }
    int rc = report_choice_apply(&s->report, opt, arg, err);
    if (rc <= 0)
        return rc;
    error_set(err, ERROR_USAGE, "unknown option (see verdict run --help)");
    return -1;
}

/* 0 with settings, 1 after --help, -1 with a message. */
static int parse_run_args(int argc, char **argv, run_settings *s, verdict_error *err)
{
    static const struct option options[] = {
        {"store", required_argument, NULL, 's'}, {"cache", required_argument, NULL, 'C'},
        {"dry-run", no_argument, NULL, 'k'}, {"machine", required_argument, NULL, 'M'},
        {"lease", required_argument, NULL, 'L'}, {"more", required_argument, NULL, 'm'},
        {"sign", required_argument, NULL, 'S'}, REPORT_LONG_OPTIONS,
        {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0},
    };
    memset(s, 0, sizeof *s);
    int first = walk_options(argc, argv, "h", options, "verdict run", apply_run_option, s,
                             err);
    if (first == OPTIONS_HELP)
        return 1;
    if (first == OPTIONS_ERROR)
        return -1;
    if (argc - optind != 1) {
        error_set(err, ERROR_USAGE, "run needs exactly one experiment file (see verdict run "
                  "--help)");
        return -1;
    }
    s->experiment_path = argv[optind];
    return 0;
}

static void print_summary(const experiment *e, const lab_outcome *o, store *db,
                          int64_t experiment_id, FILE *out)
{
    (void)db;
    (void)experiment_id;
    cli_print_run_summary(e, o, "variants", out);
}

/* --dry-run: what the file asks for, and which builds it would make (cache: NULL when
 * nothing is built from a source). */
static void print_plan(const experiment *e, const char *cache, FILE *out)
{
    size_t units = experiment_unit_count(e), points = experiment_point_count(e);
    fprintf(out, "%s: ok: %zu variants", e->path, e->n_variants);
    if (units != e->n_variants)
        fprintf(out, " in %zu units (layouts)", units);
    fprintf(out, ", %zu point%s, ", points, points == 1 ? "" : "s");
    if (e->adaptive)
        fprintf(out, "%zu to %zu blocks", e->min_blocks, e->max_blocks);
    else
        fprintf(out, "%zu blocks", e->repetitions);
    fprintf(out, " of %zu runs", units * points);
    if (e->machines != MACHINES_ONE)
        fprintf(out, " (machines: %s: %s)", experiment_machines_name(e->machines),
                e->machines == MACHINES_SURVEY ? "on every machine" : "split among machines");
    fputs("; metrics:", out);
    for (size_t m = 0; m < e->n_metrics; m++)
        fprintf(out, " %s", e->metrics[m].name);
    fputc('\n', out);
    if (e->counters == EXPERIMENT_COUNTERS_VALGRIND && e->target->counters)
        fprintf(out, "  counters: valgrind: every run under cachegrind; expect each run to "
                "take about %dx longer than without it (20 to 100x)\n",
                RUN_COUNTERS_CACHEGRIND_SLOWDOWN);
    if (e->profile)
        fprintf(out, "  profile: %s: every unit once more per block under perf record, "
                "never a timed sample (docs/profiles.md)\n", experiment_profile_event(e));
    if (e->target->describe_plan) {
        strbuf note = STRBUF_INIT;
        e->target->describe_plan(e, &note);
        fputs(strbuf_text(&note), out);
        strbuf_free(&note);
    }
    for (size_t v = 0; v < e->n_variants; v++)
        if (e->variants[v].build_key)
            fprintf(out, "  variant %s: build %.16s %s\n", e->variants[v].name,
                    e->variants[v].build_key,
                    build_is_cached(cache, e->variants[v].build_key) ? "cached"
                                                                     : "to be made");
}

/* --dry-run: how long the runs to go should take, from what the store measured. */
static void print_estimate(const experiment *e, const lab_estimate *est, FILE *out)
{
    char left[32], bound[32];
    size_t to_go = est->runs_planned - est->runs_stored;
    if (est->extensions > 0)
        fprintf(out, "  extended (--more) to %zu blocks per point: %zu runs in all\n",
                est->blocks, est->runs_planned);
    fprintf(out, "  duration: ");
    if (isfinite(est->seconds_left)) {
        progress_format_duration(est->seconds_left, left, sizeof left);
        fprintf(out, "%s%s for %zu runs to go and %zu warmups (a run took %.3g s on "
                "average over the %zu stored)", e->adaptive ? "at most " : "about ", left,
                to_go, est->warmup_runs, est->mean_run_seconds, est->runs_stored);
    } else if (est->runs_stored > 0) {
        fprintf(out, "unknown: the %zu runs stored keep no time (counters: valgrind)",
                est->runs_stored);
    } else {
        fprintf(out, "unknown until runs are measured (nothing of %s is stored yet; the "
                "progress line gives an ETA once they begin)", e->name);
    }
    if (isfinite(est->seconds_bound)) {
        progress_format_duration(est->seconds_bound, bound, sizeof bound);
        fprintf(out, "; at most %s with every run at its timeout", bound);
    }
    fputs("; builds and setup not included\n", out);
}

/* --dry-run: the looks of an adaptive plan, each with its boundary. */
static void print_looks(const experiment *e, const plan_looks *p, FILE *out)
{
    fprintf(out, "  looks (spending: %s", spending_name(e->spending));
    if (p->comparisons > 1)
        fprintf(out, "; %zu comparisons share each look's level", p->comparisons);
    fputs("):\n", out);
    for (size_t k = 0; k < p->n_looks; k++) {
        const plan_look *l = &p->looks[k];
        char level[64];
        level_text(spending_look_confidence(&l->level), 4, level, sizeof level);
        fprintf(out, "    %zu blocks: information %.3f, alpha spent %.4g, |z| >= %.3f (%s%%)",
                l->blocks, l->level.fraction, l->level.alpha_spent, l->level.z, level);
        if (!l->can_decide)
            fprintf(out, "; cannot decide: the smallest p-value with %zu blocks is %.3g",
                    l->blocks, l->smallest_p);
        fputc('\n', out);
    }
}

/* Before a plan runs: a warning when none of its looks can reach its adjusted level. */
static void warn_undecidable(const experiment *e, const analysis_options *o,
                             const plan_looks *p, FILE *out)
{
    if (p->decides_somewhere)
        return;
    const plan_look *last = &p->looks[p->n_looks - 1];
    fprintf(out, "verdict run: warning: %s can never decide: with %zu blocks the smallest "
            "p-value of %s is %.3g, above the %.3g the most significant of its %zu "
            "comparison%s may use", e->path, last->blocks,
            comparison_method_name(p->method, o->paired), last->smallest_p,
            last->comparison_alpha, p->comparisons, p->comparisons == 1 ? "" : "s");
    if (p->blocks_needed)
        fprintf(out, "; %zu blocks or more could", p->blocks_needed);
    fputs(" (docs/statistics.md, \"Alpha spending\")\n", out);
}

static int dry_run(const run_settings *s, experiment *e)
{
    verdict_error err;
    error_clear(&err);
    char *default_cache = s->cache_dir ? NULL : lab_default_cache_dir();
    const char *cache = s->cache_dir ? s->cache_dir : default_cache;
    int rc = EXIT_DONE;
    if (run_counters_check(e, &err) != 0 ||
        (experiment_has_sources(e) && cache && lab_builds_prepare(e, cache, &err) != 0)) {
        fprintf(stderr, "verdict run: %s\n", err.message);
        rc = error_exit_status(err.kind);
    } else {
        char *default_store = s->store_path ? NULL : lab_default_store_path(e->path);
        FILE *out = report_exports_use_stdout(&s->report.exports) ? stderr : stdout;
        analysis_options o = cli_analysis_of(e, &s->report);
        plan_looks looks;
        lab_estimate est;
        print_plan(e, cache, out);
        lab_estimate_duration(s->store_path ? s->store_path : default_store, e, &est);
        lab_looks_apply(&est.looks, e); /* an extended plan's looks are its own */
        print_estimate(e, &est, out);
        if (plan_looks_of(e, &o, &looks, &err) == 0) {
            if (e->adaptive)
                print_looks(e, &looks, out);
            warn_undecidable(e, &o, &looks, stderr);
        }
        if (err.kind == ERROR_NONE && s->report.exports.json)
            report_write_plan_json(e, &o, &looks, s->report.exports.json, &err);
        if (err.kind != ERROR_NONE) {
            fprintf(stderr, "verdict run: %s\n", err.message);
            rc = error_exit_status(err.kind);
        }
        free(default_store);
    }
    free(default_cache);
    return rc;
}

static int run_file(const run_settings *s, const lab_signing_key *key)
{
    experiment e;
    verdict_error err = {0};
    if (targets_load_experiment(s->experiment_path, &e, &err) != 0) {
        fprintf(stderr, "verdict run: %s\n", err.message);
        return EXIT_USAGE;
    }
    if (s->dry_run) {
        int rc = dry_run(s, &e);
        experiment_free(&e);
        return rc;
    }
    analysis_options o = cli_analysis_of(&e, &s->report);
    plan_looks looks;
    if (plan_looks_of(&e, &o, &looks, &err) == 0)
        warn_undecidable(&e, &o, &looks, stderr);
    error_clear(&err);
    char *default_store = s->store_path ? NULL : lab_default_store_path(s->experiment_path);
    char *default_cache = s->cache_dir ? NULL : lab_default_cache_dir();
    cli_run run = {.program = "verdict run", .e = &e,
                   .store_path = s->store_path ? s->store_path : default_store,
                   .build_logs = true, .cache_dir = s->cache_dir ? s->cache_dir : default_cache,
                   .target = {.randomize_env = true}, .report = &s->report,
                   .summary = print_summary, .machine = s->machine,
                   .lease_seconds = s->lease_seconds, .more = s->more,
                   .sign_path = s->sign, .sign_key = key};
    /* a server's store: in-place builds log beside the experiment file instead */
    char *log_prefix = lab_default_store_path(s->experiment_path);
    run.log_prefix = log_prefix;
    int rc = EXIT_INTERNAL;
    if (run.cache_dir == NULL && experiment_has_sources(&e))
        fprintf(stderr, "verdict run: no directory for builds: give --cache DIR or set "
                        "VERDICT_CACHE (HOME is not set)\n");
    else if (run.store_path)
        rc = cli_run_experiment(&run);
    free(default_store);
    free(default_cache);
    free(log_prefix);
    experiment_free(&e);
    return rc;
}

int cmd_run(int argc, char **argv)
{
    run_settings settings;
    verdict_error err = {0};
    int parsed = parse_run_args(argc, argv, &settings, &err);
    if (parsed == 1) {
        cli_help_write(cmd_run_help, stdout);
        return EXIT_DONE;
    }
    if (parsed != 0) {
        fprintf(stderr, "verdict run: %s\n", err.message);
        return EXIT_USAGE;
    }
    /* a lost or wrong key is said before anything is read, built, stored or run */
    lab_signing_key key = {0};
    if (settings.sign && lab_signing_key_load(settings.sign, &key, &err) != 0) {
        fprintf(stderr, "verdict run: %s\n", err.message);
        return error_exit_status(err.kind);
    }
    int rc = run_file(&settings, settings.sign ? &key : NULL);
    lab_signing_key_free(&key);
    return rc;
}

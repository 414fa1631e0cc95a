/* `verdict calibrate`: an A/A self-test of this machine. N experiments of R blocks compare a
 * command with itself; the report is how often each method calls them different, and why. */
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/calibrate_run.h"
#include "cli/command_list.h"
#include "cli/calibration_state.h"
#include "cli/commands.h"
#include "cli/experiment_run.h"
#include "cli/options.h"
#include "common/error.h"
#include "core/command_words.h"
#include "env/machine.h"
#include "lab/lab_store.h"
#include "report/output_file.h"
#include "stats/calibration.h"
#include "version.h"

#define DEFAULT_EXPERIMENTS 20
#define DEFAULT_RUNS 20
/* The built-in workload's run: inside issue 27's 20-50 ms, long enough for a process's
 * start to be a small part of it, short enough for 20 x 20 blocks in about half a minute. */
#define BUILTIN_SECONDS 0.030

typedef struct {
    size_t experiments, runs;
    uint64_t seed, rounds;
    bool has_seed;
    calibration_method method;
    const char *json_path, *store_path, *machine, *command;
} calibrate_settings;

const char cmd_calibrate_help[] =
    "usage: verdict calibrate [OPTIONS] [-- COMMAND ARGS...]\n"
    "\n"
    "An A/A self-test of this machine: N experiments of R blocks each run one command as\n"
    "both variants, as `verdict COMMAND COMMAND` would, and count how often each method\n"
    "calls the two different. Reports the false-positive rate with its exact interval\n"
    "(about 5% is right at 95% confidence), the noise (CV of the runs, the share of slow\n"
    "runs, the lag-1 autocorrelation, the order effect within a block) and which method\n"
    "has the narrowest intervals here. The workload is verdict's own CPU-bound spin loop\n"
    "(about 30 ms a run), or the command given.\n"
    "\n"
    "options:\n"
    "      --experiments N   A/A experiments (default 20)\n"
    "  -r, --runs R          blocks per experiment, at least 2 (default 20)\n"
    "      --seed S          the first experiment's seed (experiment i has S + i - 1);\n"
    "                        default: a fresh one\n"
    "      --method M        the method whose calls give the rate: wilcoxon (default),\n"
    "                        welch, bootstrap or quantile (all four are reported)\n"
    "      --command CMD     the workload, a command line (or give it after --)\n"
    "      --rounds N        the built-in spin loop's rounds (default: about 30 ms here)\n"
    "      --json FILE       write the verdict-calibration/1 document ('-' for stdout;\n"
    "                        the text then goes to stderr)\n"
    "      --store STORE     keep the experiments there (a SQLite file or a PostgreSQL\n"
    "                        URI; default: nothing kept) and record the calibration with\n"
    "                        this machine's facts (fact 'calibration'); the same store\n"
    "                        and seed resume an interrupted calibration\n"
    "      --machine NAME    the machine's name in the store (default: the host name)\n"
    "  -h, --help            show this help\n"
    "\n"
    "Every calibration is kept as this machine's last in $VERDICT_STATE (default\n"
    "~/.local/state/verdict), where verdict env shows it.\n"
    "docs/calibrate.md says how to read the report.\n"
    "exit status: 0 done (whatever the rate), 1 internal failure, 2 bad options, 3 the\n"
    "command failed, 130 interrupted (the experiments completed are reported).\n";

enum { OPT_EXPERIMENTS = 0x2000, OPT_SEED, OPT_METHOD, OPT_COMMAND, OPT_ROUNDS, OPT_JSON,
       OPT_STORE, OPT_MACHINE };

static int apply_option(int opt, const char *arg, void *settings, verdict_error *err)
{
    calibrate_settings *s = settings;
    switch (opt) {
    case OPT_EXPERIMENTS: return parse_count("--experiments", arg, false, &s->experiments, err);
    case 'r':
        if (parse_count("--runs", arg, false, &s->runs, err) != 0)
            return -1;
        return s->runs >= 2 ? 0 : error_set(err, ERROR_USAGE, "--runs %s: an A/A comparison "
                                            "needs 2 blocks or more", arg);
    case OPT_SEED: s->has_seed = true; return parse_u64("--seed", arg, &s->seed, err);
    case OPT_METHOD: return calibration_method_parse(arg, &s->method, err);
    case OPT_COMMAND: s->command = arg; return 0;
    case OPT_ROUNDS:
        if (parse_u64("--rounds", arg, &s->rounds, err) != 0)
            return -1;
        return s->rounds > 0 ? 0 : error_set(err, ERROR_USAGE, "--rounds %s: must be 1 or more",
                                             arg);
    case OPT_JSON: s->json_path = arg; return 0;
    case OPT_STORE: s->store_path = arg; return 0;
    case OPT_MACHINE: s->machine = arg; return cli_check_machine_name(arg, err);
    }
    return error_set(err, ERROR_INTERNAL, "option %d has no handler", opt);
}

/* What follows the options: nothing, or the command after --; and the options that go
 * together. The words after -- become s->command (owned: *words). 0, or -1 with err. */
static int settle_command(int argc, char **argv, int first, calibrate_settings *s, char **words,
                          verdict_error *err)
{
    if (first < argc && s->command)
        return error_set(err, ERROR_USAGE, "give the command with --command or after --, not "
                         "both");
    if (first < argc && strcmp(argv[first - 1], "--") != 0)
        return error_set(err, ERROR_USAGE, "unexpected argument '%s': a command goes after "
                         "-- (see verdict calibrate --help)", argv[first]);
    if (s->rounds && (s->command || first < argc))
        return error_set(err, ERROR_USAGE, "--rounds sizes the built-in workload: not with a "
                         "command of your own");
    if (s->machine && s->store_path == NULL)
        return error_set(err, ERROR_USAGE, "--machine names this machine in a store: give "
                         "--store too");
    if (first == argc)
        return 0;
    command_words given = {.words = argv + first, .n = (size_t)(argc - first)};
    if ((*words = command_words_join(&given)) == NULL)
        return error_no_memory(err);
    s->command = *words;
    return 0;
}

/* 0, OPTIONS_HELP, or OPTIONS_ERROR with err. */
static int parse_calibrate_args(int argc, char **argv, calibrate_settings *s, char **words,
                                verdict_error *err)
{
    static const struct option long_options[] = {
        {"experiments", required_argument, NULL, OPT_EXPERIMENTS},
        {"runs", required_argument, NULL, 'r'}, {"seed", required_argument, NULL, OPT_SEED},
        {"method", required_argument, NULL, OPT_METHOD},
        {"command", required_argument, NULL, OPT_COMMAND},
        {"rounds", required_argument, NULL, OPT_ROUNDS},
        {"json", required_argument, NULL, OPT_JSON},
        {"store", required_argument, NULL, OPT_STORE},
        {"machine", required_argument, NULL, OPT_MACHINE},
        {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
    int first = walk_options(argc, argv, "+hr:", long_options, "verdict calibrate",
                             apply_option, s, err);
    if (first < 0)
        return first;
    return settle_command(argc, argv, first, s, words, err) == 0 ? 0 : OPTIONS_ERROR;
}

/* The built-in workload: this verdict run as `verdict calibrate --spin ROUNDS`. */
static char *builtin_command(uint64_t rounds, verdict_error *err)
{
    char self[4096], count[32];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
        error_set(err, ERROR_INTERNAL, "/proc/self/exe: cannot find verdict's own executable "
                  "for the built-in workload; give a command (--command)");
        return NULL;
    }
    self[n] = '\0';
    snprintf(count, sizeof count, "%" PRIu64, rounds);
    char *words[] = {self, "calibrate", "--spin", count, NULL};
    command_words w = {.words = words, .n = 4};
    char *line = command_words_join(&w);
    if (line == NULL)
        error_no_memory(err);
    return line;
}

static int spin_main(int argc, char **argv)
{
    uint64_t rounds;
    verdict_error err;
    if (argc != 3 || parse_u64("--spin", argv[2], &rounds, &err) != 0) {
        fprintf(stderr, "verdict calibrate --spin ROUNDS: the built-in workload\n");
        return EXIT_USAGE;
    }
    printf("spin: %" PRIu64 " rounds, checksum %016" PRIx64 "\n", rounds, calibrate_spin(rounds));
    return EXIT_DONE;
}

/* A number for JSON: null when not finite (an unbounded interval, too few values). */
static json_t *number(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}

static json_t *methods_json(const calibration_result *r)
{
    json_t *list = json_array();
    for (size_t m = 0; m < CALIBRATION_METHODS; m++)
        json_array_append_new(list, json_pack(
            "{s:s, s:I, s:I, s:o}", "name", calibration_method_name((calibration_method)m),
            "false_positives", (json_int_t)r->methods[m].false_positives, "compared",
            (json_int_t)r->methods[m].compared, "median_half_width",
            number(r->methods[m].median_half_width)));
    return list;
}

static json_t *noise_json(const calibration_result *r)
{
    return json_pack("{s:o, s:o, s:f, s:f, s:o, s:{s:o, s:[o, o]}}", "cv", number(r->cv),
                     "slow_share", number(r->slow_share), "slow_factor",
                     CALIBRATION_SLOW_FACTOR, "slow_quantile", CALIBRATION_SLOW_QUANTILE,
                     "lag1", number(r->lag1), "order_effect", "estimate",
                     number(expm1(r->order.estimate)), "ci", number(expm1(r->order.ci_low)),
                     number(expm1(r->order.ci_high)));
}

/* The verdict-calibration/1 document, without the machine's facts (stored beside them). */
static json_t *calibration_json(const calibrate_settings *s, const calibrate_runs *runs,
                                const calibration_result *r, bool interrupted)
{
    char when[32];
    time_t now = time(NULL);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    json_t *doc = json_pack(
        "{s:s, s:s, s:s, s:s, s:I, s:I, s:I, s:b, s:I, s:s, s:f, s:I, s:f, s:[f, f], s:o, s:o, "
        "s:o, s:f}", "schema", "verdict-calibration/1", "verdict", VERDICT_VERSION, "date", when,
        "command", s->command, "experiments", (json_int_t)r->experiments,
        "experiments_planned", (json_int_t)s->experiments, "runs", (json_int_t)s->runs,
        "interrupted", interrupted, "seed", (json_int_t)s->seed, "method",
        calibration_method_name(s->method), "confidence", 0.95, "false_positives",
        (json_int_t)r->false_positives, "rate", r->rate, "rate_ci", r->rate_low, r->rate_high,
        "noise", noise_json(r), "methods", methods_json(r), "fastest",
        r->has_fastest ? json_string(calibration_method_name(r->fastest)) : json_null(),
        "elapsed", runs->elapsed);
    if (doc && s->rounds)
        json_object_set_new(doc, "rounds", json_integer((json_int_t)s->rounds));
    return doc;
}

static json_t *facts_json(const machine_facts *facts)
{
    json_t *o = json_object();
    for (size_t i = 0; o && i < facts->n; i++)
        json_object_set_new(o, facts->facts[i].key, json_string(facts->facts[i].value));
    return o;
}

static int write_json(const char *path, json_t *doc, verdict_error *err)
{
    output_file out;
    if (output_open(&out, path, err) != 0)
        return -1;
    if (json_dumpf(doc, out.stream, JSON_INDENT(2)) != 0 || fputc('\n', out.stream) == EOF) {
        output_abandon(&out);
        return error_set(err, ERROR_USAGE, "%s: cannot write the JSON document", path);
    }
    return output_commit(&out, err);
}

static void print_report(FILE *out, const calibrate_settings *s, const calibrate_runs *runs,
                         const calibration_result *r)
{
    fprintf(out, "%zu A/A experiments of %zu blocks of %s in %.1f s (seed %" PRIu64 ")\n",
            r->experiments, s->runs, s->command, runs->elapsed, s->seed);
    fprintf(out, "false positives  %zu of %zu with %s: %.1f%% (95%% interval %.1f%% to "
            "%.1f%%; 5%% expected)\n", r->false_positives, r->experiments,
            calibration_method_name(s->method), r->rate * 100, r->rate_low * 100,
            r->rate_high * 100);
    fprintf(out, "noise            CV %.1f%% · slow runs %.0f%% (above %.1f x the variant's "
            "P10) · lag-1 %+.2f\n", r->cv * 100, r->slow_share * 100, CALIBRATION_SLOW_FACTOR,
            r->lag1);
    fprintf(out, "order effect     the second run of a block %+.2f%% [%+.2f%%, %+.2f%%]\n",
            expm1(r->order.estimate) * 100, expm1(r->order.ci_low) * 100,
            expm1(r->order.ci_high) * 100);
    fputs("method           called  median interval half-width\n", out);
    for (size_t m = 0; m < CALIBRATION_METHODS; m++) {
        const calibration_method_result *x = &r->methods[m];
        fprintf(out, "  %-14s %3zu/%-3zu ", calibration_method_name((calibration_method)m),
                x->false_positives, x->compared);
        if (isfinite(x->median_half_width))
            fprintf(out, "±%.2f%%", x->median_half_width * 100);
        else
            fputs("unbounded (too few blocks for its level)", out);
        fputs(r->has_fastest && r->fastest == m ? "  narrowest: decides fastest here\n" : "\n",
              out);
    }
}

/* The calibration as this machine's fact 'calibration' in the store, beside its facts. */
static int record_calibration(const calibrate_settings *s, machine_facts *facts,
                              const json_t *doc, verdict_error *err)
{
    char machine[256];
    cli_machine_name(s->machine, true, machine, sizeof machine);
    char *text = json_dumps(doc, JSON_COMPACT);
    store *db = NULL;
    int rc = text == NULL || machine_facts_set(facts, LAB_CALIBRATION_FACT, text) != 0
                 ? error_no_memory(err) : store_open(s->store_path, &db, err);
    if (rc == 0)
        rc = lab_record_machine(db, machine, facts, err);
    store_close(db);
    free(text);
    if (rc == 0)
        fprintf(stderr, "verdict calibrate: recorded as machine %s's calibration in %s\n",
                machine, s->store_path);
    return rc;
}

/* The calibration as this machine's last, for `verdict env`: a failure is said, not fatal
 * (the report and the JSON are out already). */
static void keep_calibration(const json_t *doc)
{
    verdict_error err = {0};
    char *path = calibration_state_path();
    if (calibration_state_save(doc, &err) == 0)
        fprintf(stderr, "verdict calibrate: kept as this machine's last calibration in %s "
                "(verdict env shows it)\n", path);
    else
        fprintf(stderr, "verdict calibrate: warning: not kept for verdict env: %s\n",
                err.message);
    free(path);
}

/* Analyses the experiments done, prints, writes the JSON and records it. */
static int report_calibration(const calibrate_settings *s, const calibrate_runs *runs,
                              bool interrupted, verdict_error *err)
{
    calibration_experiment *x = calloc(runs->done, sizeof *x);
    if (x == NULL)
        return error_no_memory(err);
    for (size_t e = 0; e < runs->done; e++)
        x[e] = (calibration_experiment){runs->a + e * runs->runs, runs->b + e * runs->runs,
                                        runs->a_first + e * runs->runs, runs->runs};
    calibration_options o = {.confidence = 0.95, .margin = 0.01, .method = s->method,
                             .seed = s->seed};
    calibration_result r;
    machine_facts facts = {0};
    json_t *doc = NULL;
    int rc = calibration_analyse(x, runs->done, &o, &r, err);
    if (rc == 0)
        rc = machine_facts_collect(&facts, MACHINE_FACTS_WITHOUT_COMPILERS, err);
    if (rc == 0 && (doc = calibration_json(s, runs, &r, interrupted)) == NULL)
        rc = error_no_memory(err);
    if (rc == 0) {
        print_report(s->json_path && strcmp(s->json_path, "-") == 0 ? stderr : stdout, s, runs,
                     &r);
        json_t *whole = json_deep_copy(doc);
        rc = whole == NULL || json_object_set_new(whole, "machine", facts_json(&facts)) != 0
                 ? error_no_memory(err)
                 : s->json_path ? write_json(s->json_path, whole, err) : 0;
        json_decref(whole);
    }
    if (rc == 0 && s->store_path)
        rc = record_calibration(s, &facts, doc, err);
    if (rc == 0)
        keep_calibration(doc);
    json_decref(doc);
    machine_facts_free(&facts);
    free(x);
    return rc;
}

static int calibrate(calibrate_settings *s, verdict_error *err)
{
    char *builtin = NULL;
    if (s->json_path && output_check(s->json_path, err) != 0)
        return -1;
    if (s->command == NULL) {
        s->rounds = s->rounds ? s->rounds : calibrate_spin_rounds_for(BUILTIN_SECONDS);
        if ((s->command = builtin = builtin_command(s->rounds, err)) == NULL)
            return -1;
    }
    s->seed = s->has_seed ? s->seed : cli_fresh_seed();
    calibrate_plan plan = {.command = s->command,
                           .store_path = s->store_path ? s->store_path : ":memory:",
                           .experiments = s->experiments, .runs = s->runs, .seed = s->seed,
                           .progress = true};
    calibrate_runs runs;
    int rc = calibrate_run(&plan, &runs, err);
    bool interrupted = rc != 0 && error_is(err, ERROR_INTERRUPTED);
    if (interrupted)
        fprintf(stderr, "verdict calibrate: interrupted after %zu of %zu experiments%s\n",
                runs.done, s->experiments, runs.done ? ": the report covers them" : "");
    if ((rc == 0 || interrupted) && runs.done > 0) {
        verdict_error why = {0};
        if (report_calibration(s, &runs, interrupted, &why) != 0)
            rc = error_copy(err, &why);
    }
    calibrate_runs_free(&runs);
    free(builtin);
    return rc;
}

int cmd_calibrate(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "--spin") == 0)
        return spin_main(argc, argv);
    calibrate_settings s = {.experiments = DEFAULT_EXPERIMENTS, .runs = DEFAULT_RUNS,
                            .method = CALIBRATION_WILCOXON};
    verdict_error err = {0};
    char *words = NULL;
    int parsed = parse_calibrate_args(argc, argv, &s, &words, &err);
    int rc = EXIT_DONE;
    if (parsed == OPTIONS_HELP)
        cli_help_write(cmd_calibrate_help, stdout);
    else if (parsed != 0)
        rc = EXIT_USAGE;
    else if (calibrate(&s, &err) != 0)
        rc = error_exit_status(err.kind);
    if (rc != EXIT_DONE && !error_is(&err, ERROR_INTERRUPTED))
        fprintf(stderr, "verdict calibrate: %s\n", err.message);
    free(words);
    return rc;
}

/* `verdict bisect EXPERIMENT --good REF --bad REF`: which commit changed the metric, found by
 * statistical bisection of the experiment's git variant, every step stored and resumable. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build/build.h"
#include "cli/bisect_search.h"
#include "cli/command_list.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "cli/stop_signal.h"
#include "common/error.h"
#include "core/run_counters.h"
#include "core/runner.h"
#include "lab/lab_builds.h"
#include "lab/lab_store.h"
#include "report/json_text.h"
#include "report/phrases.h"
#include "stats/level_text.h"
#include "targets/targets.h"

const char cmd_bisect_help[] =
    "usage: verdict bisect EXPERIMENT.yaml --good REF --bad REF [OPTIONS]\n"
    "\n"
    "Finds the commit that changed the experiment's first metric between a good and a bad\n"
    "commit (docs/bisect.md). The experiment has exactly one variant with\n"
    "`source: {git: REPO, ref: REF}`; its ref is replaced by each commit measured (the other\n"
    "variants are not run). The ends are compared first: when they are the same within the\n"
    "margin there is no regression in the range, and nothing more is measured. Then each step\n"
    "builds the commit in the middle of the range left and measures it against both ends of\n"
    "that range in interleaved blocks (the experiment's plan: its looks stop a step once\n"
    "both comparisons are decided), and keeps the half it is not like. Alpha is split over\n"
    "the comparisons that can occur (the ends, and one per halving), so the whole bisection\n"
    "keeps the experiment's confidence. A midpoint unlike both ends is said so (the change\n"
    "came in several commits, or the history is not monotonic); one that neither comparison\n"
    "decides ends the search with the range left, never a guess. A commit that does not\n"
    "build is skipped and named. Every build is cached and every step stored: the same\n"
    "command after Ctrl-C or a kill resumes without building or measuring again.\n"
    "\n"
    "options:\n"
    "      --good REF          a commit without the change (required)\n"
    "      --bad REF           a later commit with it; good must be its ancestor (required)\n"
    "      --all-commits       bisect every commit of good..bad in topological order, not\n"
    "                          only the first-parent chain (merges' own commits included)\n"
    "      --store STORE       results store (default: EXPERIMENT without .yaml + .db); a\n"
    "                          step is one experiment in it, named by its commits\n"
    "      --cache DIR         where builds live (default: $VERDICT_CACHE, else\n"
    "                          ~/.cache/verdict)\n"
    "      --max-steps N       measure at most N midpoints (default: as many as halving\n"
    "                          the range needs)\n"
    "      --allow-dirty       bisect although the repository's work tree has changes\n"
    "                          not committed (untracked files never count)\n"
    "      --json FILE         the bisection as JSON (- for stdout): its steps, the answer,\n"
    "                          the effect and the cost (docs/bisect.md)\n"
    "  -h, --help              show this help\n"
    "\n"
    "exit status: 0 done (found, no change, or undecided: the output says which), 1 internal\n"
    "failure, 2 usage (a ref that is no commit, good not an ancestor of bad, a dirty work\n"
    "tree, a bad experiment file), 3 a build of an end or a run failed, 130 interrupted\n"
    "(what was measured is stored; run the same command again to resume).\n";

typedef struct {
    const char *experiment_path, *store_path, *cache_dir, *json_path;
    bisect_request request;
} bisect_settings;

static int apply_bisect_option(int opt, const char *arg, void *settings, verdict_error *err)
{
    bisect_settings *s = settings;
    switch (opt) {
    case 'g': s->request.good = arg; return 0;
    case 'b': s->request.bad = arg; return 0;
    case 'a': s->request.all_commits = true; return 0;
    case 'd': s->request.allow_dirty = true; return 0;
    case 's': s->store_path = arg; return 0;
    case 'C': s->cache_dir = arg; return 0;
    case 'j': s->json_path = arg; return 0;
    case 'm': return parse_count("--max-steps", arg, false, &s->request.max_steps, err);
    default: break;
    }
    return error_set(err, ERROR_USAGE, "unknown option (see verdict bisect --help)");
}

/* 0 with settings, 1 after --help, -1 with a message. */
static int parse_bisect_args(int argc, char **argv, bisect_settings *s, verdict_error *err)
{
    static const struct option options[] = {
        {"good", required_argument, NULL, 'g'}, {"bad", required_argument, NULL, 'b'},
        {"all-commits", no_argument, NULL, 'a'}, {"allow-dirty", no_argument, NULL, 'd'},
        {"store", required_argument, NULL, 's'}, {"cache", required_argument, NULL, 'C'},
        {"json", required_argument, NULL, 'j'}, {"max-steps", required_argument, NULL, 'm'},
        {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0},
    };
    memset(s, 0, sizeof *s);
    int first = walk_options(argc, argv, "h", options, "verdict bisect", apply_bisect_option,
                             s, err);
    if (first == OPTIONS_HELP)
        return 1;
    if (first == OPTIONS_ERROR)
        return -1;
    if (argc - first != 1)
        return error_set(err, ERROR_USAGE, "bisect needs exactly one experiment file (see "
                         "verdict bisect --help)");
    if (s->request.good == NULL || s->request.bad == NULL)
        return error_set(err, ERROR_USAGE, "bisect needs --good REF and --bad REF");
    s->experiment_path = argv[first];
    return 0;
}

/* The index of the one variant built from a git ref. */
static int git_variant(const experiment *e, size_t *index, verdict_error *err)
{
    size_t found = 0;
    for (size_t v = 0; v < e->n_variants; v++)
        if (e->variants[v].source.path && e->variants[v].source.ref && found++ == 0)
            *index = v;
    if (found == 1)
        return 0;
    return error_set(err, ERROR_USAGE, "%s: bisect needs exactly one variant with source: "
                     "{git: REPOSITORY, ref: REF}; it has %zu", e->path, found);
}

static void put_commit(FILE *out, const char *repo, const char *commit)
{
    char *subject = build_git_subject(repo, commit);
    fprintf(out, "%s %s", commit, subject ? subject : "");
    free(subject);
}

static void put_cost(FILE *out, const bisect_search *s, const bisect_context *b,
                     double seconds)
{
    fprintf(out, "  %zu steps (the ends and %zu midpoint%s; %zu read back from the store), "
            "%zu build%s made and %zu found in the cache, %zu blocks run, %.1f minutes\n",
            s->n_steps + 1, s->n_steps, s->n_steps == 1 ? "" : "s", b->steps_from_store,
            b->builds_made, b->builds_made == 1 ? "" : "s", b->builds_cached, b->blocks_run,
            seconds / 60.0);
}

/* The commits of (lo, hi) that were skipped, named. */
static void put_skipped(FILE *out, const char *repo, const bisect_search *s)
{
    for (size_t i = 1; i < s->n; i++)
        if (s->skipped[i]) {
            fputs("  skipped (does not build): ", out);
            put_commit(out, repo, s->commits[i]);
            fputc('\n', out);
        }
}

static bool skipped_left(const bisect_search *s)
{
    for (size_t i = s->lo + 1; i < s->hi; i++)
        if (s->skipped[i])
            return true;
    return false;
}

static void put_answer(FILE *out, const char *repo, const bisect_search *s)
{
    switch (s->outcome) {
    case BISECT_NO_CHANGE:
        fputs("no regression in the range: bad is the same as good within the margin\n", out);
        return;
    case BISECT_ENDS_UNKNOWN:
        fputs("unknown: the ends could not be told apart nor called the same within the "
              "budget; nothing was bisected (measure more: a larger budget, more blocks)\n", out);
        return;
    case BISECT_FOUND:
    case BISECT_ALL_SKIPPED:
        break;
    default:
        fprintf(out, "unknown: %s; the first bad commit is after %.12s and at or before "
                "%.12s (%zu commits)\n", s->outcome == BISECT_STEP_UNKNOWN
                                             ? "the last midpoint was not decided"
                                             : "the steps allowed are used",
                s->commits[s->lo], s->commits[s->hi], s->hi - s->lo);
        return;
    }
    fputs(skipped_left(s) ? "first bad commit, or one of the skipped commits before it: "
                          : "first bad commit: ", out);
    put_commit(out, repo, s->commits[s->hi]);
    fputc('\n', out);
    for (size_t i = s->lo + 1; i < s->hi; i++)
        fprintf(out, "  or %.12s (skipped: it does not build)\n", s->commits[i]);
    if (!s->effect_ok)
        return;
    phrases_estimate e;
    char kind[64], level[32];
    phrases_estimate_of(s->effect.ratio, s->effect.ci_low, s->effect.ci_high,
                        s->effect.low_open, s->effect.high_open, &e);
    phrases_kind(&s->effect.decision, kind, sizeof kind);
    level_text(s->effect.confidence, 4, level, sizeof level);
    fprintf(out, "  %s %s %s (%s%% CI) against %.12s\n", kind, e.change, e.interval, level,
            s->commits[s->lo]);
}

static json_t *comparison_json(const comparison *c, bool ok)
{
    if (!ok)
        return json_null();
    return json_pack("{s:s, s:f, s:f, s:f, s:f}", "verdict",
                     verdict_kind_name(c->decision.kind), "ratio", c->ratio, "ci_low",
                     c->ci_low, "ci_high", c->ci_high, "confidence", c->confidence);
}

static json_t *steps_json(const bisect_search *s)
{
    json_t *steps = json_array();
    for (size_t i = 0; steps && i < s->n_steps; i++) {
        const bisect_step_record *r = &s->steps[i];
        json_array_append_new(steps, json_pack(
            "{s:s, s:s, s:s, s:s, s:o, s:o, s:I, s:b}", "commit", s->commits[r->mid],
            "good", s->commits[r->lo], "bad", s->commits[r->hi], "class",
            bisect_class_name(r->class_), "against_good",
            comparison_json(&r->vs_good, r->ok_good), "against_bad",
            comparison_json(&r->vs_bad, r->ok_bad), "blocks", (json_int_t)r->blocks,
            "stored", r->from_store));
    }
    return steps;
}

static int write_json(const char *path, const bisect_search *s, const bisect_context *b,
                      double seconds, verdict_error *err)
{
    json_t *skipped = json_array();
    for (size_t i = 1; skipped && i < s->n; i++)
        if (s->skipped[i])
            json_array_append_new(skipped, json_string(s->commits[i]));
    bool named = s->outcome == BISECT_FOUND || s->outcome == BISECT_ALL_SKIPPED;
    json_t *doc = json_pack(
        "{s:s, s:s, s:s, s:s, s:I, s:I, s:f, s:o, s:I, s:o, s:o, s:o, s:o, s:s, s:s, "
        "s:{s:I, s:I, s:I, s:f}}",
        "schema", "verdict-bisect/1", "outcome", bisect_outcome_name(s->outcome), "good",
        s->commits[0], "bad", s->commits[s->n], "commits", (json_int_t)s->n,
        "planned_comparisons", (json_int_t)s->planned, "step_confidence", b->confidence,
        "ends", comparison_json(&s->ends, s->ends_ok), "ends_blocks", (json_int_t)s->ends_blocks,
        "steps", steps_json(s),
        "skipped", skipped ? skipped : json_array(),
        "first_bad", named ? json_string(s->commits[s->hi]) : json_null(),
        "effect", named ? comparison_json(&s->effect, s->effect_ok) : json_null(),
        "after", s->commits[s->lo], "at_or_before", s->commits[s->hi], "cost", "builds_made",
        (json_int_t)b->builds_made, "builds_cached", (json_int_t)b->builds_cached,
        "blocks_run", (json_int_t)b->blocks_run, "minutes", seconds / 60.0);
    if (doc == NULL)
        return error_no_memory(err);
    return json_text_write(doc, path, err);
}

/* The bisection's first line: the range and how alpha is split. */
static void put_plan(FILE *out, const bisect_search *s, const bisect_request *q,
                     const bisect_context *b)
{
    char whole[32], each[32];
    level_text(q->confidence, 4, whole, sizeof whole);
    level_text(b->confidence, 4, each, sizeof each);
    fprintf(out, "bisecting %zu commits (%s) after %.12s up to %.12s: at most %zu "
            "comparisons (the ends and %zu midpoints), each at %s%% so that the bisection "
            "keeps %s%%\n", s->n, q->all_commits ? "all commits" : "first-parent", s->commits[0],
            s->commits[s->n], s->planned, s->planned - 1, each, whole);
}

static int bisect(const bisect_settings *set, const experiment *e, bisect_context *b,
                  verdict_error *err)
{
    const char *repo = e->variants[b->variant].source.path;
    bisect_request q = set->request;
    q.confidence = e->confidence;
    bisect_search s;
    FILE *out = set->json_path && strcmp(set->json_path, "-") == 0 ? stderr : stdout;
    double start = runner_monotonic_seconds();
    int rc = bisect_search_open(repo, &q, &s, err);
    if (rc == 0) {
        b->confidence = 1.0 - (1.0 - q.confidence) / (double)s.planned;
        put_plan(out, &s, &q, b);
        rc = bisect_search_run(b, &q, &s, out, err);
    }
    double seconds = runner_monotonic_seconds() - start;
    if (rc == 0) {
        put_answer(out, repo, &s);
        put_skipped(out, repo, &s);
        put_cost(out, &s, b, seconds);
    }
    if (rc == 0 && set->json_path)
        rc = write_json(set->json_path, &s, b, seconds, err);
    bisect_search_free(&s);
    return rc;
}

static int run_bisect(const bisect_settings *set)
{
    experiment e;
    verdict_error err = {0};
    if (targets_load_experiment(set->experiment_path, &e, &err) != 0) {
        fprintf(stderr, "verdict bisect: %s\n", err.message);
        return EXIT_USAGE;
    }
    char *default_store = set->store_path ? NULL : lab_default_store_path(set->experiment_path);
    char *default_cache = set->cache_dir ? NULL : lab_default_cache_dir();
    bisect_context b = {.experiment_path = set->experiment_path,
                        .store_path = set->store_path ? set->store_path : default_store,
                        .cache_dir = set->cache_dir ? set->cache_dir : default_cache,
                        .stop = stop_signal_flag()};
    int rc = git_variant(&e, &b.variant, &err);
    if (rc == 0 && (b.store_path == NULL || b.cache_dir == NULL))
        rc = error_set(&err, ERROR_USAGE, "no store or no directory for builds: give --store "
                       "FILE and --cache DIR (HOME is not set)");
    if (rc == 0)
        rc = run_counters_check(&e, &err);
    if (rc == 0) {
        stop_signal_install();
        rc = bisect(set, &e, &b, &err);
    }
    if (rc != 0 && error_is(&err, ERROR_INTERRUPTED))
        fprintf(stderr, "verdict bisect: interrupted: every step measured so far is stored in "
                "%s; run the same command again to resume\n", b.store_path);
    else if (rc != 0)
        fprintf(stderr, "verdict bisect: %s\n", err.message);
    free(default_store);
    free(default_cache);
    experiment_free(&e);
    return rc == 0 ? EXIT_DONE : error_exit_status(err.kind);
}

int cmd_bisect(int argc, char **argv)
{
    bisect_settings settings;
    verdict_error err = {0};
    int parsed = parse_bisect_args(argc, argv, &settings, &err);
    if (parsed == 1) {
        cli_help_write(cmd_bisect_help, stdout);
        return EXIT_DONE;
    }
    if (parsed != 0) {
        fprintf(stderr, "verdict bisect: %s\n", err.message);
        return EXIT_USAGE;
    }
    return run_bisect(&settings);
}

/* The one path from an experiment to an exit code: store, engine with progress and stop
 * flag, then the report from the store, whatever the run's ending (done, failed, stopped). */
#include "cli/experiment_run.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/progress.h"
#include "cli/stop_signal.h"
#include "common/error.h"
#include "core/profile.h"
#include "core/run_counters.h"
#include "lab/lab_builds.h"
#include "lab/lab_looks.h"
#include "lab/lab_report.h"
#include "lab/lab_store.h"
#include "stats/level_text.h"

uint64_t cli_fresh_seed(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return ((uint64_t)ts.tv_sec * 1000003u ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32)) %
           1000000000u;
}

analysis_options cli_analysis_of(const experiment *e, const report_choices *c)
{
    analysis_options o = lab_default_analysis(e);
    report_choices_override(c, &o);
    return o;
}

void cli_print_run_summary(const experiment *e, const lab_outcome *o, const char *noun,
                           FILE *out)
{
    fprintf(out, "%zu blocks of %zu %s", o->complete_blocks, e->n_variants, noun);
    if (o->n_points > 1)
        fprintf(out, " over %zu points", o->n_points);
    fprintf(out, " in %.1f s (seed %llu", o->elapsed, (unsigned long long)e->seed);
    if (o->samples_resumed)
        fprintf(out, "; %zu samples resumed from the store", o->samples_resumed);
    char look[64], kept[64];
    if (o->look_confidence >= 1.0 && o->look_alpha > 0) /* 1 - alpha rounded to 1 */
        snprintf(look, sizeof look, "100 - %.3g", o->look_alpha * 100);
    else
        level_text(o->look_confidence, 4, look, sizeof look);
    level_text(e->confidence, 6, kept, sizeof kept);
    if (e->adaptive)
        fprintf(out, "; adaptive: %zu looks taken of %zu planned per point, spending alpha by "
                     "%s (the last taken at %s%% confidence) so the run keeps %s%%",
                o->looks_taken, o->looks_planned, spending_name(e->spending), look, kept);
    fputs(")\n", out);
}

int cli_report(const char *program, store *db, int64_t experiment_id, const experiment *e,
               const report_choices *choices)
{
    FILE *text = report_text_stream(choices);
    lab_report_options o = {.analysis = cli_analysis_of(e, choices), .exports = choices->exports,
                            .text = text,
                            .text_style = text_choices_style(&choices->text, text)};
    analysis_result kept;
    verdict_error err;
    error_clear(&err);
    if (lab_report(db, experiment_id, e, &o, &kept, &err) != 0) {
        fprintf(stderr, "%s: %s\n", program, err.message);
        analysis_result_free(&kept);
        return error_exit_status(err.kind);
    }
    int rc = fail_if_triggered(choices->fail_if, &kept) ? EXIT_GATE : EXIT_DONE;
    analysis_result_free(&kept);
    return rc;
}

/* Without a seed the plan must still be the same on every resume of a store: the seed
 * then comes from the plan; with nothing kept, a fresh one is drawn (and printed). */
static void settle_seed(const cli_run *r)
{
    if (r->e->has_seed)
        return;
    if (strcmp(r->store_path, ":memory:") == 0) {
        r->e->seed = cli_fresh_seed();
        r->e->has_seed = true;
    } else {
        lab_settle_seed(r->e);
    }
}

/* An error that stops the run before anything was measured is not worth a report. */
static bool worth_reporting(const verdict_error *err, const lab_outcome *o)
{
    if (err->kind == ERROR_NONE || err->kind == ERROR_INTERRUPTED)
        return true;
    return err->kind == ERROR_COMMAND_FAILED && o->samples_taken + o->samples_resumed > 0;
}

void cli_machine_name(const char *given, bool fleet, char *out, size_t len)
{
    if (given) {
        snprintf(out, len, "%s", given);
    } else if (!fleet || gethostname(out, len) != 0) {
        out[0] = '\0';
    }
    out[len - 1] = '\0';
}

int cli_check_machine_name(const char *name, verdict_error *err)
{
    size_t n = strlen(name);
    bool ok = n > 0 && n <= 64;
    for (const char *c = name; ok && *c; c++)
        ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
             *c == '.' || *c == '_' || *c == '-';
    if (ok)
        return 0;
    error_set(err, ERROR_USAGE, "--machine '%s': a machine's name is 1 to 64 letters, digits, "
              "'.', '_' or '-'", name);
    return -1;
}

int cli_parse_lease(const char *text, double *out, verdict_error *err)
{
    if (parse_duration("--lease", text, out, err) != 0)
        return -1;
    if (*out > 0)
        return 0;
    error_set(err, ERROR_USAGE, "--lease '%s': must be a duration above 0, such as 30s", text);
    return -1;
}

/* A token no other worker has: which machine, which process, and when it started. */
static void worker_token(const char *machine, char *out, size_t len)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    snprintf(out, len, "%s/%ld/%lld.%09ld", machine[0] ? machine : "local", (long)getpid(),
             (long long)ts.tv_sec, ts.tv_nsec);
}

/* The blocks the plan has now: its extensions read, and --more recorded as one more. */
static int apply_extensions(const cli_run *r, store *db, int64_t experiment_id, bool existing,
                            verdict_error *err)
{
    lab_looks looks;
    if (lab_looks_load(db, experiment_id, r->e, &looks, err) != 0)
        return -1;
    if (r->more > 0 && !existing)
        return error_set(err, ERROR_USAGE, "--more: %s has nothing stored yet in %s to extend; "
                         "run it first", r->e->name, r->store_path);
    if (r->more > 0 && lab_looks_extend(db, experiment_id, r->e, r->more, &looks, err) != 0)
        return -1;
    lab_looks_apply(&looks, r->e);
    if (r->more > 0) {
        char level[64];
        level_text(lab_looks_confidence(&looks, r->e, r->e->confidence, 0), 4, level,
                   sizeof level);
        fprintf(stderr, "verdict: extending %s from %zu to %zu blocks per point: look %zu, "
                "at %s%% confidence\n", r->e->name, looks.from_blocks, looks.blocks,
                looks.extensions + 1, level);
    }
    return 0;
}

/* --sign: the experiment as this run registered and extended it, signed with the key. */
static int sign_stored(const cli_run *r, store *db, int64_t experiment_id, verdict_error *err)
{
    if (r->sign_key == NULL)
        return 0;
    if (lab_sign_experiment(db, experiment_id, r->e, r->sign_key, err) != 0)
        return -1;
    fprintf(stderr, "%s: signed %s with %s (Ed25519 key %.16s...)\n", r->program, r->e->name,
            r->sign_path, r->sign_key->public_hex);
    return 0;
}

int cli_run_engine(const cli_run *r, store *db, int64_t experiment_id, lab_outcome *out,
                   verdict_error *err)
{
    progress_line progress;
    progress_init(&progress, stderr);
    if (!text_style_wants_progress(r->report->text.style)) /* --style basic, color, none */
        progress.enabled = false;
    char machine[256], worker[512];
    cli_machine_name(r->machine, r->e->machines != MACHINES_ONE, machine, sizeof machine);
    worker_token(machine, worker, sizeof worker);
    const char *logs = store_is_postgres(r->store_path) ? r->log_prefix : r->store_path;
    lab_config c = {.e = r->e, .db = db, .experiment_id = experiment_id,
                    .build_logs = r->build_logs ? logs : NULL,
                    .cache_dir = r->cache_dir, .target = r->target,
                    .analysis = cli_analysis_of(r->e, r->report), .progress = progress_update,
                    .progress_context = &progress, .notes = stderr,
                    .stop = stop_signal_flag(), .machine = machine, .worker = worker,
                    .lease_seconds = r->lease_seconds > 0 ? r->lease_seconds
                                                          : CLI_DEFAULT_LEASE_SECONDS};
    stop_signal_install();
    int rc = lab_run(&c, out, err);
    progress_clear(&progress);
    return rc;
}

/* Last on the terminal after Ctrl-C: what is kept and how to go on. */
static void say_interrupted(const cli_run *r, const lab_outcome *o)
{
    size_t kept = o->samples_taken + o->samples_resumed;
    if (strcmp(r->store_path, ":memory:") == 0) {
        fprintf(stderr, "%s: interrupted after %zu samples: the report above covers them; "
                "nothing was kept (give --store FILE to be able to resume)\n", r->program,
                kept);
        return;
    }
    char *shown = store_display_name(r->store_path);
    fprintf(stderr, "%s: interrupted: %zu samples are stored in %s; run the same command "
            "again to resume where it stopped\n", r->program, kept,
            shown ? shown : r->store_path);
    free(shown);
}

int cli_run_experiment(const cli_run *r)
{
    store *db = NULL;
    int64_t experiment_id = 0;
    bool existing = false;
    verdict_error err;
    lab_outcome outcome;
    memset(&outcome, 0, sizeof outcome);
    error_clear(&err);
    /* a bad --json is said now, not after the whole run */
    if (report_exports_check(&r->report->exports, &err) != 0) {
        fprintf(stderr, "%s: %s\n", r->program, err.message);
        return EXIT_USAGE;
    }
    /* counters this machine cannot count: said before anything is built or run */
    if (run_counters_check(r->e, &err) != 0 ||
        (r->e->profile && profile_check(experiment_profile_event(r->e), &err) != 0)) {
        fprintf(stderr, "%s: %s\n", r->program, err.message);
        return error_exit_status(err.kind);
    }
    /* the builds' content keys are part of the plan: known before the store is opened */
    if (r->cache_dir && lab_builds_prepare(r->e, r->cache_dir, &err) != 0) {
        fprintf(stderr, "%s: %s\n", r->program, err.message);
        return error_exit_status(err.kind);
    }
    settle_seed(r);
    if (lab_open_store(r->store_path, r->e, &db, &experiment_id, &existing, &err) != 0 ||
        apply_extensions(r, db, experiment_id, existing, &err) != 0 ||
        sign_stored(r, db, experiment_id, &err) != 0) {
        fprintf(stderr, "%s: %s\n", r->program, err.message);
        store_close(db);
        return error_exit_status(err.kind);
    }
    cli_run_engine(r, db, experiment_id, &outcome, &err);
    if (err.kind != ERROR_NONE && err.kind != ERROR_INTERRUPTED)
        fprintf(stderr, "%s: %s\n", r->program, err.message);
    int rc = error_exit_status(err.kind);
    if (r->no_report) {
        if (err.kind == ERROR_NONE && r->summary)
            r->summary(r->e, &outcome, db, experiment_id, stdout);
    } else if (worth_reporting(&err, &outcome)) {
        FILE *text = report_text_stream(r->report);
        if (r->summary)
            r->summary(r->e, &outcome, db, experiment_id, text);
        int report_rc = cli_report(r->program, db, experiment_id, r->e, r->report);
        if (rc == EXIT_DONE || report_rc == EXIT_INTERNAL)
            rc = report_rc;
    }
    if (err.kind == ERROR_INTERRUPTED)
        say_interrupted(r, &outcome);
    store_close(db);
    return rc;
}

/* `verdict worker --store URI`: joins the fleet's experiments kept in a store (machines:
 * survey or share) signed by a key it trusts, works on each until nothing is left here. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/command_list.h"
#include "cli/commands.h"
#include "cli/experiment_run.h"
#include "cli/options.h"
#include "common/array.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "lab/lab_builds.h"
#include "lab/lab_signature.h"
#include "store/store.h"
#include "targets/targets.h"

typedef struct {
    const char *store, *machine, *directory, *cache_dir, *only;
    double lease_seconds;
    lab_trust trust;      /* --trust: the keys whose signed experiments it runs */
    bool trust_any;       /* --trust-any-experiment: whatever the store holds */
} worker_settings;

const char cmd_worker_help[] =
    "usage: verdict worker --store STORE --trust KEY.pub [OPTIONS]\n"
    "\n"
    "Joins the experiments of a fleet kept in STORE (a PostgreSQL URI, docs/fleet.md) and\n"
    "works on each until nothing is left for this machine: with 'machines: survey' it runs\n"
    "the whole plan here; with 'machines: share' it claims blocks one at a time, each\n"
    "measured whole on one machine and committed with all its samples. Register an\n"
    "experiment with 'verdict run EXPERIMENT.yaml --store STORE'. A killed worker loses\n"
    "nothing: run it again (or let another worker retake its block when the lease ends).\n"
    "\n"
    "options:\n"
    "      --store STORE       the fleet's store (required)\n"
    "      --machine NAME      this machine's name (default: the host name)\n"
    "      --trust KEY.pub     run only experiments signed by this key (repeatable; a\n"
    "                          directory: each *.pub in it); others are skipped, named\n"
    "      --trust-any-experiment  run whatever the store holds: anyone who can write\n"
    "                          to the store can run commands on this machine\n"
    "      --experiment NAME   only this experiment (default: every fleet experiment)\n"
    "      --dir DIR           where the experiments' files are: relative paths in the\n"
    "                          stored text are relative to DIR (default: the current\n"
    "                          directory)\n"
    "      --cache DIR         where builds of sources live (default: $VERDICT_CACHE,\n"
    "                          else ~/.cache/verdict)\n"
    "      --lease DURATION    machines: share: how long a claimed block stays this\n"
    "                          worker's without a renewal (every run renews it; default\n"
    "                          120s)\n"
    "  -h, --help              show this help\n"
    "\n"
    "exit status: 0 nothing left to do, 1 internal failure (the store), 2 usage, an\n"
    "experiment this verdict may not join (another version or build), 3 a build or a run\n";

static int apply_worker_option(int opt, const char *arg, void *settings, verdict_error *err)
{
    worker_settings *s = settings;
    switch (opt) {
    case 's': s->store = arg; return 0;
    case 'd': s->directory = arg; return 0;
    case 'C': s->cache_dir = arg; return 0;
    case 'e': s->only = arg; return 0;
    case 'A': s->trust_any = true; return 0;
    case 'T': return lab_trust_add(&s->trust, arg, err);
    case 'M': s->machine = arg; return cli_check_machine_name(arg, err);
    case 'L': return cli_parse_lease(arg, &s->lease_seconds, err);
    default:
        error_set(err, ERROR_USAGE, "unknown option (see verdict worker --help)");
        return -1;
    }
}

static int parse_worker_args(int argc, char **argv, worker_settings *s, verdict_error *err)
{
    static const struct option options[] = {
        {"store", required_argument, NULL, 's'},   {"machine", required_argument, NULL, 'M'},
        {"dir", required_argument, NULL, 'd'},     {"cache", required_argument, NULL, 'C'},
        {"lease", required_argument, NULL, 'L'},   {"experiment", required_argument, NULL, 'e'},
        {"trust", required_argument, NULL, 'T'},
        {"trust-any-experiment", no_argument, NULL, 'A'},
        {"help", no_argument, NULL, 'h'},          {NULL, 0, NULL, 0},
    };
    memset(s, 0, sizeof *s);
    s->directory = ".";
    int first = walk_options(argc, argv, "h", options, "verdict worker", apply_worker_option,
                             s, err);
    if (first == OPTIONS_HELP)
        return 1;
    if (first == OPTIONS_ERROR)
        return -1;
    if (first < argc) {
        error_set(err, ERROR_USAGE, "unexpected argument '%s' (see verdict worker --help)",
                  argv[first]);
        return -1;
    }
    if (s->store == NULL) {
        error_set(err, ERROR_USAGE, "worker needs --store STORE, the fleet's store (see verdict "
                  "worker --help)");
        return -1;
    }
    /* no silent trust: the store decides what runs here, so its writers must be chosen */
    if (s->trust.n == 0 && !s->trust_any) {
        error_set(err, ERROR_USAGE, "worker needs --trust KEY.pub (run only experiments signed "
                  "by that key) or --trust-any-experiment (anyone who can write to this store "
                  "can run commands on this machine, as its user); see docs/security.md, "
                  "\"Whom a fleet trusts\"");
        return -1;
    }
    return 0;
}

/* The experiments as stored, copied out of the store's callback. */
typedef struct {
    int64_t id;
    char *name, *text, *build;
    size_t length;
    uint64_t plan_hash;
    char *refused;        /* why it is not run here (no trusted signature), or NULL */
} stored_experiment;

typedef struct {
    stored_experiment *items;
    size_t n, capacity;
} stored_list;

static int collect_experiment(void *context, int64_t id, const store_experiment *e)
{
    stored_list *l = context;
    if (array_reserve((void **)&l->items, &l->capacity, l->n + 1, sizeof *l->items) != 0)
        return -1;
    stored_experiment *x = &l->items[l->n];
    *x = (stored_experiment){.id = id, .name = strdup(e->name), .length = e->text_length,
                             .text = malloc(e->text_length + 1), .plan_hash = e->plan_hash,
                             .build = strdup(e->tool_build ? e->tool_build : "")};
    if (x->name == NULL || x->text == NULL || x->build == NULL) {
        free(x->name);
        free(x->text);
        free(x->build);
        return -1;
    }
    memcpy(x->text, e->text, e->text_length);
    x->text[e->text_length] = '\0';
    l->n++;
    return 0;
}

static void stored_list_free(stored_list *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->items[i].name);
        free(l->items[i].text);
        free(l->items[i].build);
        free(l->items[i].refused);
    }
    free(l->items);
}

/* Each experiment's signatures checked against the trusted keys, as the store holds it now:
 * the text checked is the text this worker then runs. */
static int check_signatures(const worker_settings *s, store *db, stored_list *l,
                            verdict_error *err)
{
    for (size_t i = 0; i < l->n; i++) {
        stored_experiment *x = &l->items[i];
        if (s->only && strcmp(s->only, x->name) != 0)
            continue;
        store_experiment stored = {.name = x->name, .text = x->text, .text_length = x->length,
                                   .plan_hash = x->plan_hash, .tool_build = x->build};
        verdict_error why = {0};
        if (lab_check_signature(&s->trust, db, x->id, &stored, &why) == 0)
            continue;
        if (!error_is(&why, ERROR_BAD_INPUT))
            return error_copy(err, &why);
        if ((x->refused = strdup(why.message)) == NULL)
            return error_no_memory(err);
    }
    return 0;
}

static int list_experiments(const worker_settings *s, stored_list *out, verdict_error *err)
{
    store *db = NULL;
    memset(out, 0, sizeof *out);
    if (store_open(s->store, &db, err) != 0)
        return -1;
    int rc = store_for_each_experiment(db, collect_experiment, out, err);
    if (rc > 0 || (rc < 0 && err->kind == ERROR_NONE))
        rc = error_no_memory(err);
    if (rc == 0 && !s->trust_any)
        rc = check_signatures(s, db, out, err);
    store_close(db);
    return rc == 0 ? 0 : -1;
}

static void print_worker_summary(const experiment *e, const lab_outcome *o, store *db,
                                 int64_t experiment_id, FILE *out)
{
    (void)db;
    (void)experiment_id;
    fprintf(out, "verdict worker: %s (machines: %s): %zu samples taken here in %.1f s",
            e->name, experiment_machines_name(e->machines), o->samples_taken, o->elapsed);
    if (e->machines == MACHINES_SHARE)
        fprintf(out, ", %zu blocks (%zu retaken from a stopped worker, %zu lost to another)",
                o->complete_blocks, o->blocks_retaken, o->blocks_lost);
    else if (o->samples_resumed)
        fprintf(out, "; %zu were stored before", o->samples_resumed);
    fputs("; nothing left for this machine\n", out);
}

/* Runs one stored experiment on this machine; its exit code (EXIT_DONE when skipped). */
static int work_on(const worker_settings *s, const char *name, const char *text, size_t length,
                   const char *cache)
{
    experiment e;
    verdict_error err = {0};
    char label[1024];
    char *shown = store_display_name(s->store);
    snprintf(label, sizeof label, "%s (experiment %s as stored)", shown ? shown : "store", name);
    free(shown);
    if (targets_parse_experiment_in(label, text, length, s->directory, &e, &err) != 0) {
        fprintf(stderr, "verdict worker: %s\n", err.message);
        return error_exit_status(err.kind);
    }
    int rc = EXIT_DONE;
    if (e.machines == MACHINES_ONE) {
        if (s->only)
            fprintf(stderr, "verdict worker: %s is not a fleet's experiment (it has no "
                    "'machines: survey' or 'machines: share'); nothing to do\n", name);
    } else {
        report_choices none = {0};
        /* in-place build lines log beside the experiment's files, as with verdict run */
        strbuf logs = STRBUF_INIT;
        strbuf_appendf(&logs, "%s/%s", s->directory, name);
        cli_run run = {.program = "verdict worker", .e = &e, .store_path = s->store,
                       .build_logs = true, .log_prefix = strbuf_text(&logs), .cache_dir = cache,
                       .target = {.randomize_env = true}, .report = &none,
                       .summary = print_worker_summary, .machine = s->machine,
                       .lease_seconds = s->lease_seconds, .no_report = true};
        rc = strbuf_status(&logs) == 0 ? cli_run_experiment(&run)
                                       : error_exit_status(ERROR_NO_MEMORY);
        strbuf_free(&logs);
    }
    experiment_free(&e);
    return rc;
}

static int work_on_all(const worker_settings *s, const stored_list *l)
{
    char *default_cache = s->cache_dir ? NULL : lab_default_cache_dir();
    const char *cache = s->cache_dir ? s->cache_dir : default_cache;
    int worst = EXIT_DONE;
    size_t matched = 0;
    for (size_t i = 0; i < l->n && worst != EXIT_INTERRUPTED; i++) {
        const stored_experiment *x = &l->items[i];
        if (s->only && strcmp(s->only, x->name) != 0)
            continue;
        matched++;
        int rc = EXIT_DONE;
        if (x->refused) {
            fprintf(stderr, "verdict worker: skipped %s\n", x->refused);
            rc = s->only ? EXIT_USAGE : EXIT_DONE; /* the one asked for was refused */
        } else {
            rc = work_on(s, x->name, x->text, x->length, cache);
        }
        if (rc != EXIT_DONE && (worst == EXIT_DONE || rc == EXIT_INTERRUPTED))
            worst = rc;
    }
    if (s->only && matched == 0) {
        char *shown = store_display_name(s->store);
        fprintf(stderr, "verdict worker: %s: no experiment named %s\n", shown ? shown : "store",
                s->only);
        free(shown);
        worst = EXIT_USAGE;
    }
    free(default_cache);
    return worst;
}

int cmd_worker(int argc, char **argv)
{
    worker_settings s;
    verdict_error err = {0};
    int parsed = parse_worker_args(argc, argv, &s, &err);
    if (parsed == 1) {
        lab_trust_free(&s.trust);
        cli_help_write(cmd_worker_help, stdout);
        return EXIT_DONE;
    }
    int rc = EXIT_USAGE;
    stored_list l = {0};
    if (parsed != 0)
        fprintf(stderr, "verdict worker: %s\n", err.message);
    else if (list_experiments(&s, &l, &err) != 0) {
        fprintf(stderr, "verdict worker: %s\n", err.message);
        rc = error_exit_status(err.kind);
    } else {
        rc = work_on_all(&s, &l);
    }
    stored_list_free(&l);
    lab_trust_free(&s.trust);
    return rc;
}

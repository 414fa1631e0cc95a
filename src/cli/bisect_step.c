/* A step of verdict bisect as an experiment of its own: the file's git variant once per
 * commit, run by the engine into the store (so it resumes), then analysed from the store. */
#include "cli/bisect_step.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "cli/experiment_run.h"
#include "common/strbuf.h"
#include "core/analysis.h"
#include "lab/lab_builds.h"
#include "lab/lab_report.h"
#include "lab/lab_store.h"
#include "lab/results.h"
#include "targets/targets.h"

/* The variant's name and ref become the commit's. */
static int name_variant(experiment_variant *v, const char *commit, verdict_error *err)
{
    char *name = strndup(commit, BISECT_SHORT), *ref = strdup(commit);
    if (name == NULL || ref == NULL) {
        free(name);
        free(ref);
        return error_no_memory(err);
    }
    free(v->name);
    free(v->source.ref);
    v->name = name;
    v->source.ref = ref;
    return 0;
}

/* One more copy of the file's git variant at commit, appended to e. */
static int add_commit(const bisect_context *b, experiment *e, const char *commit,
                      verdict_error *err)
{
    experiment other;
    if (targets_load_experiment(b->experiment_path, &other, err) != 0)
        return -1;
    assert(b->variant < other.n_variants);
    int rc = experiment_move_variant(e, &other, b->variant, err);
    experiment_free(&other);
    return rc == 0 ? name_variant(&e->variants[e->n_variants - 1], commit, err) : -1;
}

/* The step's name: the commits it measures, so that a rerun finds it in the store. */
static int name_step(experiment *e, const char *const *commits, size_t n, verdict_error *err)
{
    strbuf name = STRBUF_INIT;
    strbuf_appendf(&name, "%s: bisect %.*s against", e->name, BISECT_SHORT, commits[0]);
    for (size_t i = 1; i < n; i++)
        strbuf_appendf(&name, "%s %.*s", i > 1 ? "," : "", BISECT_SHORT, commits[i]);
    /* the text stored with it says what it is; the file's own bytes follow */
    strbuf text = STRBUF_INIT;
    strbuf_appendf(&text, "# verdict bisect: %s\n", strbuf_text(&name));
    strbuf_append_bytes(&text, e->text, e->text_length);
    if (strbuf_status(&name) || strbuf_status(&text)) {
        strbuf_free(&name);
        strbuf_free(&text);
        return error_no_memory(err);
    }
    free(e->name);
    free(e->text);
    e->name = strbuf_detach(&name);
    e->text_length = strlen(strbuf_text(&text));
    e->text = strbuf_detach(&text);
    return 0;
}

/* The file with only its git variant, once per commit. */
static int step_experiment(const bisect_context *b, const char *const *commits, size_t n,
                           experiment *e, verdict_error *err)
{
    if (targets_load_experiment(b->experiment_path, e, err) != 0)
        return -1;
    experiment first;
    int rc = targets_load_experiment(b->experiment_path, &first, err);
    if (rc == 0) {
        while (e->n_variants > 0)
            experiment_remove_variant(e, e->n_variants - 1);
        rc = experiment_move_variant(e, &first, b->variant, err);
        experiment_free(&first);
    }
    if (rc == 0)
        rc = name_variant(&e->variants[0], commits[0], err);
    for (size_t i = 1; rc == 0 && i < n; i++)
        rc = add_commit(b, e, commits[i], err);
    if (rc == 0)
        rc = name_step(e, commits, n, err);
    e->confidence = b->confidence;
    return rc;
}

static void count_build(void *context, const experiment_variant *v, bool cached, double seconds)
{
    (void)v, (void)seconds;
    bisect_context *b = context;
    if (cached)
        b->builds_cached++;
    else
        b->builds_made++;
}

int bisect_build(bisect_context *b, const char *commit, verdict_error *err)
{
    experiment e;
    int rc = step_experiment(b, &commit, 1, &e, err);
    if (rc == 0)
        rc = lab_builds_prepare(&e, b->cache_dir, err);
    if (rc == 0)
        rc = lab_builds_ensure(&e, b->cache_dir, b->store_path, b->stop, stderr, count_build,
                               b, NULL, err);
    experiment_free(&e);
    return rc;
}

/* The step's comparisons on the first metric, from the store's analysis. */
static int read_back(store *db, int64_t id, const experiment *e, bisect_measured *out,
                     verdict_error *err)
{
    lab_results r;
    analysis_result a;
    analysis_options o = lab_default_analysis(e);
    int rc = lab_analyse(db, id, e, &o, &r, &a, err);
    for (size_t k = 0; rc == 0 && k < a.n_comparisons; k++) {
        const analysis_comparison *c = &a.comparisons[k];
        const analysis_series *cand = &r.series[c->candidate];
        long v = experiment_variant_index(e, cand->variant);
        if (strcmp(cand->metric, e->metrics[0].name) != 0 || v < 1)
            continue;
        out->ok[v - 1] = c->ok;
        out->against[v - 1] = c->result;
        if (cand->n > out->blocks)
            out->blocks = cand->n;
    }
    lab_results_free(&r);
    analysis_result_free(&a);
    return rc;
}

/* Every comparison decided: nothing more to measure. */
static bool decided(const bisect_measured *m)
{
    for (size_t i = 0; i + 1 < m->n_commits; i++)
        if (!m->ok[i] || m->against[i].decision.kind == VERDICT_INCONCLUSIVE)
            return false;
    return true;
}

static int measure(bisect_context *b, experiment *e, bisect_measured *out, verdict_error *err)
{
    static const report_choices no_choices = {0};
    store *db = NULL;
    int64_t id = 0;
    bool existing = false;
    lab_outcome outcome = {0};
    lab_settle_seed(e);
    if (lab_open_store(b->store_path, e, &db, &id, &existing, err) != 0)
        return -1;
    /* a step stored without a decision (or with nothing yet) is resumed by the engine */
    int rc = 0;
    if (existing && read_back(db, id, e, out, err) != 0)
        error_clear(err);
    else
        out->from_store = existing && decided(out);
    if (rc == 0 && !out->from_store) {
        cli_run run = {.program = "verdict bisect", .e = e, .store_path = b->store_path,
                       .build_logs = true, .cache_dir = b->cache_dir,
                       .target = {.randomize_env = true}, .report = &no_choices};
        memset(out, 0, sizeof *out);
        out->n_commits = e->n_variants;
        rc = cli_run_engine(&run, db, id, &outcome, err);
        b->blocks_run += outcome.complete_blocks;
        if (rc == 0)
            rc = read_back(db, id, e, out, err);
    }
    if (out->from_store)
        b->steps_from_store++;
    store_close(db);
    return rc;
}

int bisect_compare(bisect_context *b, const char *const *commits, size_t n,
                   bisect_measured *out, verdict_error *err)
{
    assert(n >= 2 && n <= BISECT_MAX_COMMITS);
    experiment e;
    memset(out, 0, sizeof *out);
    out->n_commits = n;
    int rc = step_experiment(b, commits, n, &e, err);
    if (rc == 0)
        rc = lab_builds_prepare(&e, b->cache_dir, err);
    if (rc == 0)
        rc = measure(b, &e, out, err);
    experiment_free(&e);
    return rc;
}

/* Analysis of an experiment's stored results: intervals widened for the adaptive looks the
 * plan allowed, the warnings of the run and of the machine added, then every writer called. */
#include "lab/lab_report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/strbuf.h"
#include "core/metrics.h"
#include "core/target.h"
#include "lab/lab_looks.h"
#include "lab/lab_profiles.h"
#include "lab/results.h"
#include "report/phrases.h"
#include "stats/descriptive.h"

/* Runs shorter than this mostly measure starting a process. */
#define TOO_SHORT_SECONDS 0.005

analysis_options lab_default_analysis(const experiment *e)
{
    return (analysis_options){.method = e->method, .paired = true,
                              .confidence = e->confidence, .margin = e->margin,
                              .adjust = ADJUST_HOLM, .seed = e->seed, .quantile = e->quantile,
                              .method_given = e->method_given};
}

/* Disturbed runs per (point, variant), from the samples' taint. */
static int warn_disturbed(const experiment *e, const lab_results *r, analysis_result *a)
{
    int rc = 0;
    if (metric_counts_only(e)) /* other work delays a run, it does not change its counts */
        return 0;
    for (size_t p = 0; p < r->n_points; p++)
        for (size_t v = 0; v < r->n_variants; v++) {
            size_t cell = p * r->n_variants + v;
            if (r->disturbed[cell] == 0)
                continue;
            strbuf m = STRBUF_INIT;
            strbuf_appendf(&m, "%s: %zu of %zu runs were disturbed by the machine (e.g. %s)",
                           r->variants[v].name, r->disturbed[cell], r->runs[cell],
                           r->disturbance[cell] ? r->disturbance[cell] : "");
            rc |= strbuf_status(&m) ? -1 : analysis_add_warning(a, "disturbed-runs",
                                                                 r->points[p].id,
                                                                 r->variants[v].name,
                                                                 strbuf_text(&m));
            strbuf_free(&m);
        }
    return rc;
}

/* Process runs under a few milliseconds measure mostly the process's start. */
static int warn_too_short(const experiment *e, const lab_results *r, analysis_result *a)
{
    if (!e->target->measures_processes)
        return 0;
    int rc = 0;
    for (size_t s = 0; s < r->n_series; s++) {
        const analysis_series *x = &r->series[s];
        double median;
        if (strcmp(x->metric, "wall") != 0 || x->n == 0 ||
            stats_median(x->values, x->n, &median) != STATS_OK || !(median < TOO_SHORT_SECONDS))
            continue;
        strbuf m = STRBUF_INIT;
        strbuf_appendf(&m, "%s: runs last %.2g ms; starting a process costs about a "
                       "millisecond, so it is a large part of what is measured (loop the work "
                       "inside the command)", x->variant, median * 1e3);
        rc |= strbuf_status(&m) ? -1 : analysis_add_warning(a, "too-short", x->point, x->variant,
                                                             strbuf_text(&m));
        strbuf_free(&m);
    }
    return rc;
}

/* A machine of a fleet whose runs all failed has nothing to pool: said, not averaged in. */
static int warn_failed_machines(const lab_results *r, analysis_result *a)
{
    int rc = 0;
    for (size_t m = 0; r->n_machines > 1 && m < r->n_machines; m++) {
        const report_machine *x = &r->machines[m];
        if (x->samples == 0 || x->failed < x->samples)
            continue;
        strbuf w = STRBUF_INIT;
        strbuf_appendf(&w, "machine %s: all its %zu runs failed; it is reported, not pooled "
                       "with the others", x->name, x->samples);
        rc |= strbuf_status(&w) ? -1 : analysis_add_warning(a, "machine-failed", "", "",
                                                             strbuf_text(&w));
        strbuf_free(&w);
    }
    return rc;
}

static int add_run_warnings(const experiment *e, const lab_results *r, analysis_result *a)
{
    int rc = 0;
    for (size_t i = 0; i < r->n_warnings; i++) {
        const lab_warning *w = &r->warnings[i];
        rc |= analysis_add_warning(a, w->code, w->point, w->variant, w->message);
    }
    return rc | warn_disturbed(e, r, a) | warn_too_short(e, r, a) | warn_failed_machines(r, a);
}

/* The blocks of the furthest look any point reached: its level is the report's. A point that
 * stopped earlier was decided at a stricter level, and the same data keep that verdict at a
 * looser one. */
static size_t last_look_blocks(const lab_results *r)
{
    size_t blocks = 0;
    for (size_t i = 0; i < r->n_series; i++)
        if (r->series[i].n > blocks)
            blocks = r->series[i].n;
    return blocks;
}

int lab_analyse(store *db, int64_t experiment_id, const experiment *e,
                const analysis_options *o, lab_results *r, analysis_result *a,
                verdict_error *err)
{
    lab_looks looks;
    memset(a, 0, sizeof *a);
    memset(r, 0, sizeof *r);
    if (lab_looks_load(db, experiment_id, e, &looks, err) != 0 ||
        lab_results_load(db, experiment_id, e, r, err) != 0)
        return -1;
    analysis_options options = *o;
    options.confidence = lab_looks_confidence(&looks, e, o->confidence, last_look_blocks(r));
    return analysis_run(r->series, r->n_series, &options, a, err);
}

int lab_report(store *db, int64_t experiment_id, const experiment *e,
               const lab_report_options *o, analysis_result *kept, verdict_error *err)
{
    lab_results r;
    lab_looks looks;
    lab_profiles profiles = {0};
    int rc = lab_analyse(db, experiment_id, e, &o->analysis, &r, kept, err);
    if (rc == 0)
        rc = lab_looks_load(db, experiment_id, e, &looks, err);
    if (rc == 0 && add_run_warnings(e, &r, kept) != 0)
        rc = error_no_memory(err);
    /* each function's interval at the experiment's level: a description of where the
     * change went, not a family of decisions (docs/profiles.md) */
    if (rc == 0 && e->profile)
        rc = lab_profiles_load(db, experiment_id, r.series, kept, o->analysis.confidence,
                               &profiles, err);
    if (rc == 0) {
        report_input in = {
            .experiment_name = e->name, .seed = e->seed, .has_seed = e->has_seed,
            .options = &o->analysis, .environment = r.facts, .n_environment = r.n_facts,
            .from_runs = true, .builds = r.builds, .n_builds = r.n_builds,
            .variants = r.variants, .n_variants = r.n_variants, .points = r.points,
            .n_points = r.n_points, .samples = r.samples, .n_samples = r.n_samples,
            .series = r.series, .n_series = r.n_series, .analysis = kept,
            .machines = r.machines, .n_machines = r.n_machines,
            .looks = looks.planned_looks > 1 ? looks.planned_looks : 0,
            .reserve_for_more = e->reserve_for_more,
            .planned_blocks = looks.planned_blocks,
            .extensions = looks.extensions, .extended_from = looks.from_blocks,
            .extended_to = looks.blocks, .text_style = o->text_style,
            .profiles = e->profile ? profiles.comparisons : NULL,
            .profile_event = experiment_profile_event(e)};
        if (phrases_add_disagreements(&in, kept) != 0)
            rc = error_no_memory(err);
        if (rc == 0 && o->text)
            report_write_text(&in, o->text);
        if (rc == 0 && report_write_exports(&in, &o->exports, err) != 0)
            rc = -1;
    }
    lab_profiles_free(&profiles);
    lab_results_free(&r);
    return rc;
}

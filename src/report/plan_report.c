/* Writes the planner's result: a short text for the terminal, or a JSON document; the
 * numbers are the planner's, the writers only format them. */
#include "report/plan_report.h"

#include <jansson.h>
#include <math.h>
#include <stdint.h>

#include "report/json_text.h"
#include "report/output_file.h"

/* A log-scale sd as the relative spread a reader thinks in: 0.0198 is "2.0%". */
static double as_percent(double sd_log)
{
    return 100.0 * expm1(sd_log);
}

static void write_target(const plan_report *p, FILE *out)
{
    if (p->target.half_width)
        fprintf(out, "target: an interval of half-width %.3g%%", 100.0 * p->target.change);
    else
        fprintf(out, "target: detect a change of %.3g%% with power %.0f%%",
                100.0 * p->target.change, 100.0 * p->target.power);
    fprintf(out, " at %.3g%% over %zu comparison%s (each at alpha %.3g: Bonferroni, %.0f%% of "
            "alpha kept for --more)\n", 100.0 * p->confidence, p->comparisons,
            p->comparisons == 1 ? "" : "s", p->target.alpha, 100.0 * p->reserve_for_more);
    fprintf(out, "costs: a run %.3g s (%s)", p->run_seconds,
            p->run_from_starts ? "the median time between the starts of runs"
                               : "the mean wall time of the runs");
    if (p->twins)
        fprintf(out, ", a relink %.3g s (%s)", p->relink_seconds,
                p->relink_assumed ? "assumed; give --relink DURATION" : "--relink");
    fputc('\n', out);
}

static void write_rows(const plan_report *p, FILE *out)
{
    fprintf(out, "\n%-32s %7s %8s %10s %10s %15s\n", "comparison", "blocks", "layouts",
            "sigma_run", "sigma_lay", "alone: K x b");
    for (size_t i = 0; i < p->n_rows; i++) {
        const plan_report_row *r = &p->rows[i];
        char name[256], layout[32];
        snprintf(name, sizeof name, "%s%s%s %s %s/%s", r->point, *r->machine ? "@" : "",
                 r->machine, r->metric, r->candidate, r->baseline);
        if (isnan(r->components.sd_layout))
            snprintf(layout, sizeof layout, "-");
        else
            snprintf(layout, sizeof layout, "%.2f%%", as_percent(r->components.sd_layout));
        /* σ_run: one run's noise, σ_d/√2, the component of the nested design */
        fprintf(out, "%-32s %7zu %8zu %9.2f%% %10s %7zu x %zu\n", name, r->blocks_measured,
                r->layouts_measured, as_percent(r->components.sd_pair / sqrt(2.0)), layout,
                r->alone.layouts, r->alone.blocks);
    }
}

/* The machines' spread is reported, not planned: the fleet's machines are given. */
static void write_fleet(const plan_report *p, FILE *out)
{
    for (size_t i = 0; i < p->n_fleet; i++) {
        const plan_report_fleet *f = &p->fleet[i];
        fprintf(out, "between machines: %s %s %s/%s: sigma_machine %.2f%% over %zu machines "
                "(the pooled change's se is at least sigma_machine/sqrt(machines), however "
                "many blocks)\n", f->point, f->metric, f->candidate, f->baseline,
                as_percent(f->tau), f->machines);
    }
}

static void write_allocation(const plan_report *p, FILE *out)
{
    const plan_allocation *a = &p->allocation;
    fprintf(out, "\nallocation: %zu blocks per point", a->blocks);
    if (a->layouts > 1) {
        fprintf(out, ", %zu layouts per variant", a->layouts);
        if (a->kj_blocks != SIZE_MAX && a->kj_blocks <= a->blocks)
            fprintf(out, " (Kalibera-Jones: %zu blocks per layout)", a->kj_blocks);
        else if (a->kj_blocks != SIZE_MAX) /* the layouts' floor reaches the target sooner */
            fprintf(out, " (Kalibera-Jones's %zu blocks per layout are more than these "
                    "layouts need)", a->kj_blocks);
        else
            fprintf(out, " (no layout spread seen: the fewest layouts that can decide)");
    }
    fprintf(out, "; standard error of a log ratio %.3g\n", a->se);
    double units = (double)p->variants * (double)a->layouts;
    double t = p->expected_seconds;
    fprintf(out, "expected: %.3g %s (%zu point%s x %zu blocks x %.0f runs x %.3g s",
            t < 120 ? t : t / 60.0, t < 120 ? "s" : "min", p->points, p->points == 1 ? "" : "s",
            a->blocks, units, p->run_seconds);
    if (a->layouts > 1)
        fprintf(out, " + %.0f relinks x %.3g s", units, p->relink_seconds);
    fputs("; builds and warm-ups not included)\n", out);
    fprintf(out, "in the experiment file:\n  repetitions: %zu\n", a->blocks);
    if (p->twins)
        fprintf(out, "  layouts: %zu\n", a->layouts);
}

void plan_report_write_text(const plan_report *p, FILE *out)
{
    fprintf(out, "verdict plan: %s (%s%s)\n", p->experiment, p->pilot ? "a pilot in " : "",
            p->store);
    write_target(p, out);
    write_rows(p, out);
    write_fleet(p, out);
    write_allocation(p, out);
}

/* NaN (not estimated) and SIZE_MAX (unbounded) become null. */
static json_t *real_or_null(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}

static json_t *count_or_null(size_t n)
{
    return n == SIZE_MAX ? json_null() : json_integer((json_int_t)n);
}

static json_t *allocation_json(const plan_allocation *a)
{
    return json_pack("{s:o, s:o, s:o, s:o}", "layouts", count_or_null(a->layouts), "blocks",
                     count_or_null(a->blocks), "kj_blocks",
                     a->layouts > 1 ? count_or_null(a->kj_blocks) : json_null(), "se",
                     real_or_null(a->se));
}

static json_t *target_json(const plan_report *p)
{
    return json_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:o}",
                     "kind", p->target.half_width ? "half_width" : "detect",
                     "change", real_or_null(p->target.change),
                     "power", p->target.half_width ? json_null() : json_real(p->target.power),
                     "confidence", real_or_null(p->confidence),
                     "comparisons", count_or_null(p->comparisons),
                     "reserve_for_more", real_or_null(p->reserve_for_more),
                     "alpha", real_or_null(p->target.alpha));
}

static json_t *row_json(const plan_report_row *r)
{
    json_t *o = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o}",
                          "blocks", count_or_null(r->blocks_measured),
                          "layouts", count_or_null(r->layouts_measured),
                          "sd_pair", real_or_null(r->components.sd_pair),
                          "sd_run", real_or_null(r->components.sd_pair / sqrt(2.0)),
                          "sd_layout", real_or_null(r->components.sd_layout),
                          "alone", allocation_json(&r->alone));
    if (o && (json_text_set(o, "point", r->point) || json_text_set(o, "metric", r->metric) ||
              json_text_set(o, "machine", r->machine) ||
              json_text_set(o, "baseline", r->baseline) ||
              json_text_set(o, "candidate", r->candidate))) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *fleet_json(const plan_report *p)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < p->n_fleet; i++) {
        const plan_report_fleet *f = &p->fleet[i];
        json_t *o = json_pack("{s:o, s:o}", "machines", count_or_null(f->machines), "sd_machine",
                              real_or_null(f->tau));
        if (o && (json_text_set(o, "point", f->point) || json_text_set(o, "metric", f->metric) ||
                  json_text_set(o, "baseline", f->baseline) ||
                  json_text_set(o, "candidate", f->candidate))) {
            json_decref(o);
            o = NULL;
        }
        if (o == NULL || json_array_append_new(a, o) != 0) {
            json_decref(a);
            a = NULL;
        }
    }
    return a;
}

static json_t *lines_json(const plan_report *p)
{
    char line[64];
    json_t *a = json_array();
    snprintf(line, sizeof line, "repetitions: %zu", p->allocation.blocks);
    if (a && json_array_append_new(a, json_string(line)) == 0 && p->twins) {
        snprintf(line, sizeof line, "layouts: %zu", p->allocation.layouts);
        json_array_append_new(a, json_string(line));
    }
    return a;
}

static json_t *plan_json(const plan_report *p)
{
    json_t *rows = json_array();
    for (size_t i = 0; rows && i < p->n_rows; i++)
        if (json_array_append_new(rows, row_json(&p->rows[i])) != 0) {
            json_decref(rows);
            rows = NULL;
        }
    json_t *costs = json_pack("{s:o, s:s, s:o, s:b}", "run_seconds",
                              real_or_null(p->run_seconds), "run_seconds_from",
                              p->run_from_starts ? "starts" : "wall", "relink_seconds",
                              p->twins ? real_or_null(p->relink_seconds) : json_null(),
                              "relink_assumed", p->twins && p->relink_assumed);
    json_t *doc = json_pack("{s:s}", "schema", "verdict-plan/1");
    if (doc && (json_text_set(doc, "experiment", p->experiment) ||
                json_text_set(doc, "store", p->store))) {
        json_decref(doc);
        doc = NULL;
    }
    json_t *rest = json_pack("{s:b, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
                             "pilot", p->pilot, "target", target_json(p), "costs", costs,
                             "points", count_or_null(p->points),
                             "variants", count_or_null(p->variants),
                             "comparisons", rows, "fleet", fleet_json(p),
                             "allocation", allocation_json(&p->allocation),
                             "expected_seconds", real_or_null(p->expected_seconds),
                             "lines", lines_json(p));
    if (doc && (rest == NULL || json_object_update(doc, rest) != 0)) {
        json_decref(doc);
        doc = NULL;
    }
    json_decref(rest);
    return doc;
}

int plan_report_write_json(const plan_report *p, const char *path, verdict_error *err)
{
    json_t *doc = plan_json(p);
    if (doc == NULL)
        return error_no_memory(err);
    output_file out;
    int rc = output_open(&out, path, err);
    if (rc == 0 && (json_dumpf(doc, out.stream, JSON_INDENT(1) | JSON_PRESERVE_ORDER) != 0 ||
                    fputc('\n', out.stream) == EOF)) {
        output_abandon(&out);
        rc = error_set(err, ERROR_INTERNAL, "%s: cannot write the plan's JSON", path);
    } else if (rc == 0) {
        rc = output_commit(&out, err);
    }
    json_decref(doc);
    return rc;
}

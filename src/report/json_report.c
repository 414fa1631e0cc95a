/* Writes the verdict/1 JSON document (docs/json-schema.md) with jansson.
 * Field names here are a public contract: add fields, never rename them. */
#include "report/report.h"

#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "report/output_file.h"
#include "stats/verdict_rules.h"
#include "version.h"

/* JSON has no NaN or infinity: such values are written as null. */
static json_t *number_or_null(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}

static json_t *string_array(const char *const *words, size_t n)
{
    json_t *array = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(array, json_string(words[i]));
    return array;
}

/* The compared metrics, each once, in the order the series name them. */
static json_t *metrics_json(const report_input *in)
{
    json_t *array = json_array();
    for (size_t i = 0; i < in->n_series; i++) {
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = strcmp(in->series[j].metric, in->series[i].metric) == 0;
        if (!seen)
            json_array_append_new(array, json_pack("{s:s, s:s}", "name", in->series[i].metric,
                                                   "better", in->series[i].higher_is_better
                                                                 ? "higher" : "lower"));
    }
    return array;
}

static json_t *experiment_json(const report_input *in)
{
    const analysis_options *o = in->options;
    return json_pack("{s:s, s:o, s:f, s:f, s:o, s:b, s:s, s:s}",
                     "name", in->experiment_name,
                     "seed", in->has_seed ? json_integer((json_int_t)in->seed) : json_null(),
                     "confidence", o->confidence, "margin", o->margin,
                     "metrics", metrics_json(in), "paired", o->paired,
                     "method", o->method == METHOD_WILCOXON ? "wilcoxon"
                               : o->method == METHOD_WELCH  ? "welch" : "bootstrap",
                     "adjust", adjust_method_name(o->adjust));
}

static json_t *environment_json(const report_input *in)
{
    json_t *env = json_object();
    for (size_t i = 0; i < in->n_environment; i++)
        json_object_set_new(env, in->environment[i].key, json_string(in->environment[i].value));
    return env;
}

static json_t *builds_json(const report_input *in)
{
    json_t *array = json_array();
    for (size_t i = 0; i < in->n_builds; i++) {
        const report_build *b = &in->builds[i];
        json_array_append_new(array, json_pack(
            "{s:s, s:I, s:o, s:o, s:o}", "variant", b->variant, "layout", (json_int_t)b->layout,
            "key", b->key[0] ? json_string(b->key) : json_null(),
            "sha256", b->sha256[0] ? json_string(b->sha256) : json_null(),
            "binary", b->binary[0] ? json_string(b->binary) : json_null()));
    }
    return array;
}

static json_t *variants_json(const report_input *in)
{
    json_t *array = json_array();
    for (size_t i = 0; i < in->n_variants; i++) {
        const report_variant *v = &in->variants[i];
        json_t *item = json_pack("{s:s}", "name", v->name);
        if (v->file)
            json_object_set_new(item, "file", json_string(v->file));
        if (v->argv)
            json_object_set_new(item, "command", string_array(v->argv, v->argc));
        json_array_append_new(array, item);
    }
    return array;
}

static json_t *points_json(const report_input *in)
{
    json_t *array = json_array();
    for (size_t i = 0; i < in->n_points; i++) {
        const report_point *p = &in->points[i];
        json_t *params = json_object();
        for (size_t k = 0; k < p->n_params; k++)
            json_object_set_new(params, p->param_names[k], json_string(p->param_values[k]));
        json_array_append_new(array, json_pack("{s:s, s:o}", "id", p->id, "params", params));
    }
    return array;
}

static json_t *samples_json(const report_input *in)
{
    json_t *array = json_array();
    for (size_t i = 0; i < in->n_samples; i++) {
        const report_sample *s = &in->samples[i];
        json_t *metrics = json_object();
        for (size_t k = 0; k < s->n_metrics; k++)
            json_object_set_new(metrics, s->metric_names[k], number_or_null(s->metric_values[k]));
        json_t *item = json_pack(
            "{s:s, s:s, s:o, s:I, s:o, s:i, s:b}", "variant", s->variant, "point", s->point,
            "block", s->block >= 0 ? json_integer(s->block) : json_null(),
            "seq", (json_int_t)s->seq, "metrics", metrics, "exit", s->exit_code,
            "tainted", s->tainted);
        if (s->tainted && s->taint_reason)
            json_object_set_new(item, "taint_reason", json_string(s->taint_reason));
        if (in->from_runs) { /* samples verdict measured carry the design's factors */
            json_object_set_new(item, "layout", json_integer(s->layout));
            json_object_set_new(item, "machine", s->machine && s->machine[0]
                                                     ? json_string(s->machine) : json_null());
        }
        if (s->has_interference) {
            json_object_set_new(item, "started", number_or_null(s->started));
            json_object_set_new(item, "interference",
                                json_pack("{s:o, s:o, s:o}", "steal", number_or_null(s->steal),
                                          "other_busy", number_or_null(s->other_busy),
                                          "load1", number_or_null(s->load1)));
        }
        json_array_append_new(array, item);
    }
    return array;
}

static json_t *summaries_json(const report_input *in)
{
    json_t *array = json_array();
    for (size_t i = 0; i < in->n_series; i++) {
        const stats_summary *s = &in->analysis->summaries[i];
        json_array_append_new(array, json_pack(
            "{s:s, s:s, s:s, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
            "variant", in->series[i].variant, "point", in->series[i].point,
            "metric", in->series[i].metric,
            "n", (json_int_t)s->n, "median", number_or_null(s->median),
            "mean", number_or_null(s->mean), "stddev", number_or_null(s->stddev),
            "cv", number_or_null(s->cv), "mad", number_or_null(s->mad),
            "min", number_or_null(s->min), "max", number_or_null(s->max)));
    }
    return array;
}

/* Across layout twins: K, the layout spread, the per-layout locations and what comparing
 * the two first binaries alone would have said, for contrast. Without twins: layouts 1. */
static void add_layouts_json(json_t *item, const analysis_comparison *c)
{
    const analysis_layouts *l = &c->layouts;
    if (!c->across_layouts) {
        json_object_set_new(item, "layouts", json_integer(1));
        json_object_set_new(item, "layout_spread", json_null());
        json_object_set_new(item, "binary_estimate", number_or_null(c->result.ratio));
        return;
    }
    json_t *base = json_array(), *cand = json_array();
    for (size_t k = 0; k < l->n_baseline; k++)
        json_array_append_new(base, number_or_null(exp(l->baseline_locations[k])));
    for (size_t k = 0; k < l->n_candidate; k++)
        json_array_append_new(cand, number_or_null(exp(l->candidate_locations[k])));
    json_object_set_new(item, "layouts", json_integer((json_int_t)l->n_candidate));
    json_object_set_new(item, "baseline_layouts", json_integer((json_int_t)l->n_baseline));
    json_object_set_new(item, "layout_spread", number_or_null(l->spread));
    json_object_set_new(item, "layout_locations", json_pack("{s:o, s:o}", "baseline", base,
                                                            "candidate", cand));
    json_object_set_new(item, "binary_estimate", number_or_null(l->binary_estimate));
    json_object_set_new(item, "binary", json_pack(
        "{s:[o,o], s:o, s:s, s:b}", "ci", number_or_null(l->binary_low),
        number_or_null(l->binary_high), "p_value", number_or_null(l->binary_p), "verdict",
        verdict_kind_name(l->binary_kind), "within_layout_noise", l->binary_within_noise));
    json_object_set_new(item, "needed_layouts", l->needed_layouts >= 0
                                                    ? json_integer(l->needed_layouts)
                                                    : json_null());
}

static json_t *comparison_json(const report_input *in, const analysis_comparison *c)
{
    const analysis_series *b = &in->series[c->baseline], *x = &in->series[c->candidate];
    const comparison *r = &c->result;
    json_t *item = json_pack("{s:s, s:s, s:s, s:s, s:s, s:[I,I]}",
                             "baseline", b->variant, "candidate", x->variant, "point", b->point,
                             "metric", b->metric, "better", b->higher_is_better ? "higher" : "lower",
                             "n", (json_int_t)b->n, (json_int_t)x->n);
    if (!c->ok) {
        json_object_set_new(item, "verdict", json_string("inconclusive"));
        json_object_set_new(item, "error", json_string(c->error));
        return item;
    }
    json_object_set_new(item, "method", json_string(r->method_name));
    json_object_set_new(item, "paired", json_boolean(r->paired));
    json_object_set_new(item, "exact", json_boolean(r->exact));
    json_object_set_new(item, "estimate", number_or_null(r->ratio));
    json_object_set_new(item, "ci", json_pack("[o,o]", number_or_null(r->ci_low),
                                              number_or_null(r->ci_high)));
    json_object_set_new(item, "ci_open", json_pack("[b,b]", r->low_open, r->high_open));
    json_object_set_new(item, "confidence", json_real(r->confidence));
    json_object_set_new(item, "achieved_confidence", number_or_null(r->achieved_confidence));
    json_object_set_new(item, "p_value", number_or_null(r->p_value));
    json_object_set_new(item, "p_adjusted", number_or_null(c->p_adjusted));
    json_object_set_new(item, "statistic", number_or_null(r->statistic));
    json_object_set_new(item, "df", number_or_null(r->df));
    json_object_set_new(item, "verdict", json_string(verdict_kind_name(r->decision.kind)));
    json_object_set_new(item, "negligible", json_boolean(r->decision.negligible));
    json_object_set_new(item, "resolution_limited", json_boolean(r->resolution_limited));
    json_object_set_new(item, "rounding_allowance", number_or_null(r->relative_step));
    json_object_set_new(item, "zeros_set_aside", json_integer((json_int_t)r->set_aside));
    json_object_set_new(item, "needed_blocks", r->decision.needed_blocks >= 0
                                                   ? json_integer(r->decision.needed_blocks)
                                                   : json_null());
    add_layouts_json(item, c);
    return item;
}

static json_t *comparisons_json(const report_input *in)
{
    json_t *array = json_array();
    for (size_t k = 0; k < in->analysis->n_comparisons; k++)
        json_array_append_new(array, comparison_json(in, &in->analysis->comparisons[k]));
    return array;
}

static json_t *overall_json(const report_input *in)
{
    json_t *array = json_array();
    for (size_t i = 0; i < in->analysis->n_overall; i++) {
        const analysis_overall *o = &in->analysis->overall[i];
        json_array_append_new(array, json_pack(
            "{s:s, s:s, s:s, s:I, s:o, s:[o,o], s:f, s:s, s:b}", "baseline", o->baseline,
            "candidate", o->candidate, "metric", o->metric, "points", (json_int_t)o->n_points,
            "estimate", number_or_null(o->ratio), "ci", number_or_null(o->ci_low),
            number_or_null(o->ci_high), "confidence", o->confidence,
            "verdict", verdict_kind_name(o->decision.kind), "negligible", o->decision.negligible));
    }
    return array;
}

static json_t *warnings_json(const report_input *in)
{
    json_t *array = json_array();
    for (size_t i = 0; i < in->analysis->n_warnings; i++) {
        const analysis_warning *w = &in->analysis->warnings[i];
        json_array_append_new(array, json_pack("{s:s, s:s, s:s, s:s}", "code", w->code,
                                               "variant", w->variant, "point", w->point,
                                               "message", w->message));
    }
    return array;
}

static json_t *document_json(const report_input *in)
{
    json_t *doc = json_pack("{s:s, s:{s:s, s:s}, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
                            "schema", "verdict/1", "tool", "name", "verdict", "version",
                            VERDICT_VERSION, "experiment", experiment_json(in),
                            "environment", environment_json(in), "variants", variants_json(in),
                            "points", points_json(in), "samples", samples_json(in),
                            "summaries", summaries_json(in), "comparisons",
                            comparisons_json(in), "overall", overall_json(in),
                            "warnings", warnings_json(in));
    if (doc && in->from_runs)
        json_object_set_new(doc, "builds", builds_json(in));
    return doc;
}

int report_write_json(const report_input *in, const char *path, char *err, size_t errlen)
{
    json_t *doc = document_json(in);
    if (doc == NULL) {
        snprintf(err, errlen, "cannot build the JSON document (out of memory)");
        return -1;
    }
    output_file out;
    int rc = output_open(&out, path, err, errlen);
    if (rc == 0) {
        size_t flags = JSON_INDENT(1) | JSON_REAL_PRECISION(17) | JSON_PRESERVE_ORDER;
        if (json_dumpf(doc, out.stream, flags) != 0 || fputc('\n', out.stream) == EOF) {
            snprintf(err, errlen, "%s: cannot write JSON", path);
            output_abandon(&out);
            rc = -1;
        } else {
            rc = output_commit(&out, err, errlen);
        }
    }
    json_decref(doc);
    return rc;
}

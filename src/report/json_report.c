/* Writes the verdict/1 JSON document (docs/json-schema.md) with jansson. Field names
 * here are a public contract: add fields, never rename them. Text goes through json_text.h. */
#include "report/report.h"

#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "report/json_text.h"
#include "report/phrases.h"
#include "report/profile_json.h"
#include "report/report_query.h"
#include "stats/verdict_rules.h"
#include "version.h"

/* JSON has no NaN or infinity: such values are written as null. */
static json_t *number_or_null(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}

/* Sets the named text fields of item (NULL-terminated name/value pairs); -1 when out of
 * memory. Every untrusted string goes through here or json_text_set_key: see json_text.h. */
static int set_texts(json_t *item, const char *const *pairs)
{
    int rc = item ? 0 : -1;
    for (size_t i = 0; rc == 0 && pairs[i] != NULL; i += 2)
        rc = json_text_set(item, pairs[i], pairs[i + 1]);
    return rc;
}

/* An object holding the text fields first, then the fields of rest (whose reference is
 * taken), in the documented order. NULL when out of memory. */
static json_t *texts_then(const char *const *pairs, json_t *rest)
{
    json_t *item = json_object();
    int rc = rest != NULL ? set_texts(item, pairs) : -1;
    if (rc == 0)
        rc = json_object_update(item, rest);
    json_decref(rest);
    if (rc != 0) {
        json_decref(item);
        return NULL;
    }
    return item;
}

/* Appends item to array, or notes the failure in *rc (the document is then refused as a
 * whole rather than written without the item). */
static void append(json_t *array, json_t *item, int item_rc, int *rc)
{
    if (item_rc != 0 || item == NULL || json_array_append_new(array, item) != 0)
        *rc = -1;
    if (item_rc != 0 && item != NULL)
        json_decref(item);
}

/* The compared metrics, each once, in the order the series name them. */
static json_t *metrics_json(const report_input *in, int *rc)
{
    json_t *array = json_array();
    for (size_t i = 0; array && i < in->n_series; i++) {
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = strcmp(in->series[j].metric, in->series[i].metric) == 0;
        if (seen)
            continue;
        const char *texts[] = {"name", in->series[i].metric, NULL};
        append(array, texts_then(texts, json_pack("{s:s}", "better",
                                                  in->series[i].higher_is_better ? "higher"
                                                                                 : "lower")),
               0, rc);
    }
    return array;
}

static json_t *experiment_json(const report_input *in, int *rc)
{
    const analysis_options *o = in->options;
    const char *texts[] = {"name", in->experiment_name, NULL};
    json_t *item = texts_then(texts, json_pack(
        "{s:o, s:f, s:f, s:o, s:b, s:s, s:s}",
        "seed", in->has_seed ? json_integer((json_int_t)in->seed) : json_null(),
        "confidence", o->confidence, "margin", o->margin, "metrics", metrics_json(in, rc),
        "paired", o->paired,
        "method", comparison_method_option(o->method),
        "adjust", adjust_method_name(o->adjust)));
    char note[PHRASES_SENTENCE];
    phrases_method_note(o, note, sizeof note);
    if (item != NULL && o->method == METHOD_QUANTILE &&
        (json_object_set_new(item, "quantile", json_real(o->quantile > 0
                                                             ? o->quantile
                                                             : COMPARISON_DEFAULT_QUANTILE)) != 0 ||
         json_text_set(item, "method_note", note) != 0))
        *rc = -1;
    /* the looks: the share of alpha kept for --more, and the extensions taken (their
     * level is each comparison's "confidence") */
    if (item != NULL &&
        (json_object_set_new(item, "reserve_for_more", json_real(in->reserve_for_more)) != 0 ||
         json_object_set_new(item, "extensions", json_integer((json_int_t)in->extensions)) != 0 ||
         json_object_set_new(item, "blocks_per_point",
                             in->extended_to ? json_integer((json_int_t)in->extended_to)
                                             : json_null()) != 0))
        *rc = -1;
    if (item == NULL)
        *rc = -1;
    return item;
}

static json_t *environment_json(const report_input *in, int *rc)
{
    json_t *env = json_object();
    for (size_t i = 0; env && i < in->n_environment; i++)
        if (json_text_set_key(env, in->environment[i].key,
                              json_text_string(in->environment[i].value)) != 0)
            *rc = -1;
    return env;
}

static json_t *builds_json(const report_input *in, int *rc)
{
    json_t *array = json_array();
    for (size_t i = 0; array && i < in->n_builds; i++) {
        const report_build *b = &in->builds[i];
        json_t *item = json_object();
        int item_rc = json_text_set(item, "variant", b->variant);
        item_rc |= json_object_set_new(item, "layout", json_integer((json_int_t)b->layout));
        const char *fields[] = {"key", b->key, "sha256", b->sha256, "binary", b->binary};
        for (size_t f = 0; item && f < 6; f += 2)
            item_rc |= fields[f + 1][0] ? json_text_set(item, fields[f], fields[f + 1])
                                        : json_object_set_new(item, fields[f], json_null());
        append(array, item, item_rc, rc);
    }
    return array;
}

static json_t *variant_json(const report_variant *v)
{
    json_t *item = json_object();
    const char *texts[] = {"name", v->name, v->file ? "file" : NULL, v->file, NULL};
    if (set_texts(item, texts) != 0 ||
        (v->argv && json_text_set_words(item, "command", v->argv, v->argc) != 0)) {
        json_decref(item);
        return NULL;
    }
    return item;
}

static json_t *variants_json(const report_input *in, int *rc)
{
    json_t *array = json_array();
    for (size_t i = 0; array && i < in->n_variants; i++)
        append(array, variant_json(&in->variants[i]), 0, rc);
    return array;
}

static json_t *points_json(const report_input *in, int *rc)
{
    json_t *array = json_array();
    for (size_t i = 0; array && i < in->n_points; i++) {
        const report_point *p = &in->points[i];
        json_t *params = json_object(), *item = json_object();
        int item_rc = params && item ? 0 : -1;
        for (size_t k = 0; item_rc == 0 && k < p->n_params; k++)
            item_rc = json_text_set_key(params, p->param_names[k],
                                        json_text_string(p->param_values[k]));
        const char *texts[] = {"id", p->id, NULL};
        if (item_rc == 0)
            item_rc = set_texts(item, texts);
        if (item_rc == 0)
            item_rc = json_object_set(item, "params", params);
        json_decref(params);
        append(array, item, item_rc, rc);
    }
    return array;
}

static int sample_extras(json_t *item, const report_sample *s, bool from_runs)
{
    int rc = 0;
    if (s->tainted && s->taint_reason)
        rc |= json_text_set(item, "taint_reason", s->taint_reason);
    if (from_runs) { /* samples verdict measured carry the design's factors */
        rc |= json_object_set_new(item, "layout", json_integer(s->layout));
        rc |= s->machine && s->machine[0] ? json_text_set(item, "machine", s->machine)
                                          : json_object_set_new(item, "machine", json_null());
    }
    if (s->has_interference) {
        rc |= json_object_set_new(item, "started", number_or_null(s->started));
        rc |= json_object_set_new(item, "interference",
                                  json_pack("{s:o, s:o, s:o}", "steal", number_or_null(s->steal),
                                            "other_busy", number_or_null(s->other_busy),
                                            "load1", number_or_null(s->load1)));
    }
    return rc;
}

static json_t *sample_json(const report_sample *s, bool from_runs, int *item_rc)
{
    json_t *metrics = json_object();
    for (size_t k = 0; metrics && k < s->n_metrics; k++)
        *item_rc |= json_text_set_key(metrics, s->metric_names[k],
                                      number_or_null(s->metric_values[k]));
    const char *texts[] = {"variant", s->variant, "point", s->point, NULL};
    json_t *item = texts_then(texts, json_pack(
        "{s:o, s:I, s:o, s:i, s:b, s:b}", "block",
        s->block >= 0 ? json_integer(s->block) : json_null(), "seq", (json_int_t)s->seq,
        "metrics", metrics, "exit", s->exit_code, "timed_out", s->timed_out, "tainted",
        s->tainted));
    if (item == NULL || sample_extras(item, s, from_runs) != 0)
        *item_rc = -1;
    return item;
}

static json_t *samples_json(const report_input *in, int *rc)
{
    json_t *array = json_array();
    for (size_t i = 0; array && i < in->n_samples; i++) {
        int item_rc = 0;
        json_t *item = sample_json(&in->samples[i], in->from_runs, &item_rc);
        append(array, item, item_rc, rc);
    }
    return array;
}

static json_t *summaries_json(const report_input *in, int *rc)
{
    json_t *array = json_array();
    for (size_t i = 0; array && i < in->n_series; i++) {
        const stats_summary *s = &in->analysis->summaries[i];
        const char *machine = in->n_machines > 1 ? in->series[i].machine : NULL;
        const char *texts[] = {"variant", in->series[i].variant, "point", in->series[i].point,
                               "metric", in->series[i].metric, machine ? "machine" : NULL,
                               machine, NULL};
        append(array, texts_then(texts, json_pack(
                   "{s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
                   "n", (json_int_t)s->n, "median", number_or_null(s->median),
                   "mean", number_or_null(s->mean), "stddev", number_or_null(s->stddev),
                   "cv", number_or_null(s->cv), "mad", number_or_null(s->mad),
                   "min", number_or_null(s->min), "max", number_or_null(s->max))),
               0, rc);
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

static int comparison_numbers(json_t *item, const analysis_comparison *c)
{
    const comparison *r = &c->result;
    json_t *numbers = json_pack(
        "{s:s, s:b, s:b, s:o, s:[o,o], s:[b,b], s:f, s:o, s:o, s:o, s:o, s:o, s:s, s:b, s:b,"
        " s:o, s:I, s:o}",
        "method", r->method_name, "paired", r->paired, "exact", r->exact,
        "estimate", number_or_null(r->ratio),
        "ci", number_or_null(r->ci_low), number_or_null(r->ci_high),
        "ci_open", r->low_open, r->high_open, "confidence", r->confidence,
        "achieved_confidence", number_or_null(r->achieved_confidence),
        "p_value", number_or_null(r->p_value), "p_adjusted", number_or_null(c->p_adjusted),
        "statistic", number_or_null(r->statistic), "df", number_or_null(r->df),
        "verdict", verdict_kind_name(r->decision.kind), "negligible", r->decision.negligible,
        "resolution_limited", r->resolution_limited,
        "rounding_allowance", number_or_null(r->relative_step),
        "zeros_set_aside", (json_int_t)r->set_aside,
        "needed_blocks", r->decision.needed_blocks >= 0 ? json_integer(r->decision.needed_blocks)
                                                        : json_null());
    int rc = numbers != NULL ? json_object_update(item, numbers) : -1;
    json_decref(numbers);
    /* inconclusive for a too wide interval: the smallest change it could have found */
    if (rc == 0)
        rc = json_object_set_new(item, "minimum_detectable_effect",
                                 number_or_null(query_detectable_effect(r)));
    return rc;
}

/* The quantile method's: "quantile" compared and the shift function, each decile's
 * {q, baseline, candidate, ratio}. */
static int add_quantile_json(json_t *item, const analysis_comparison *c)
{
    if (!c->has_shift_function)
        return 0;
    json_t *deciles = json_array();
    int rc = deciles ? 0 : -1;
    for (size_t k = 0; rc == 0 && k < ANALYSIS_DECILES; k++) {
        const analysis_decile *d = &c->shift_function[k];
        rc = json_array_append_new(deciles, json_pack(
            "{s:f, s:o, s:o, s:o}", "q", d->q, "baseline", number_or_null(d->baseline),
            "candidate", number_or_null(d->candidate), "ratio", number_or_null(d->ratio)));
    }
    if (rc == 0)
        rc = json_object_set_new(item, "quantile", json_real(c->result.quantile));
    if (rc == 0)
        return json_object_set_new(item, "shift_function", deciles);
    json_decref(deciles);
    return -1;
}

/* JSON escapes the text itself (json_text_set). */
static void write_raw(FILE *out, const char *text)
{
    fputs(text, out);
}

/* item["summary"]: the verdict in the words of the other reports, "worse: B is 3.1% slower
 * than A" (report/phrases.c). 0, or -1 out of memory. */
static int set_summary(json_t *item, const report_input *in, const analysis_comparison *c)
{
    phrases_comparison p;
    phrases_of_comparison(in, c, &p);
    char *text = NULL;
    size_t length = 0;
    FILE *out = open_memstream(&text, &length);
    if (out == NULL)
        return -1;
    fprintf(out, "%s: ", p.kind_word);
    phrases_write_words(out, &p, write_raw);
    int rc = fclose(out) == 0 ? json_text_set(item, "summary", text) : -1;
    free(text);
    return rc;
}

static json_t *comparison_json(const report_input *in, const analysis_comparison *c)
{
    const analysis_series *b = &in->series[c->baseline], *x = &in->series[c->candidate];
    const char *texts[] = {"baseline", b->variant, "candidate", x->variant, "point", b->point,
                           "metric", b->metric, NULL};
    json_t *item = texts_then(texts, json_pack("{s:s, s:[I,I]}", "better",
                                               b->higher_is_better ? "higher" : "lower", "n",
                                               (json_int_t)b->n, (json_int_t)x->n));
    int rc = item != NULL ? 0 : -1;
    if (rc == 0 && !c->ok) {
        char why[2048];
        query_comparison_error(in, c, why, sizeof why);
        rc |= json_object_set_new(item, "verdict", json_string("inconclusive"));
        rc |= json_text_set(item, "error", why);
    } else if (rc == 0) {
        rc = comparison_numbers(item, c);
    }
    if (rc == 0)
        rc = set_summary(item, in, c);
    if (rc != 0) {
        json_decref(item);
        return NULL;
    }
    if (c->ok)
        add_layouts_json(item, c);
    if ((c->ok && add_quantile_json(item, c) != 0) || profile_json_add(item, in, c) != 0) {
        json_decref(item);
        return NULL;
    }
    if (in->n_machines > 1) /* a fleet's comparison is one machine's */
        json_text_set(item, "machine", analysis_comparison_machine(in->series, c));
    return item;
}

/* A comparison pooled over a fleet's machines: "machine": null, how many, where a new
 * machine is expected (prediction_interval), the spread between machines. */
static json_t *pooled_json(const analysis_fleet *f)
{
    const char *texts[] = {"baseline", f->baseline, "candidate", f->candidate, "point",
                           f->point, "metric", f->metric, NULL};
    json_t *item = texts_then(texts, json_pack(
        "{s:s, s:o, s:I, s:s}", "better", f->higher_is_better ? "higher" : "lower",
        "machine", json_null(), "machines", (json_int_t)f->n_machines,
        "method", "random-effects (REML, Hartung-Knapp)"));
    if (item == NULL)
        return NULL;
    json_t *numbers = !f->ok ? json_pack("{s:s, s:s}", "verdict", "inconclusive", "error",
                                         f->error ? f->error : "not pooled")
                             : json_pack(
        "{s:o, s:[o,o], s:f, s:o, s:o, s:[o,o], s:o, s:o, s:s, s:b, s:I, s:I}",
        "estimate", number_or_null(f->ratio), "ci", number_or_null(f->ci_low),
        number_or_null(f->ci_high), "confidence", f->confidence,
        "p_value", number_or_null(f->p_value), "p_adjusted", number_or_null(f->p_adjusted),
        "prediction_interval", number_or_null(f->predict_low), number_or_null(f->predict_high),
        "tau", number_or_null(f->tau), "i2", number_or_null(f->i2),
        "verdict", verdict_kind_name(f->decision.kind), "negligible", f->decision.negligible,
        "machines_better", (json_int_t)f->n_better, "machines_worse", (json_int_t)f->n_worse);
    int rc = numbers ? json_object_update(item, numbers) : -1;
    json_decref(numbers);
    if (rc != 0) {
        json_decref(item);
        return NULL;
    }
    return item;
}

static json_t *comparisons_json(const report_input *in, int *rc)
{
    json_t *array = json_array();
    for (size_t k = 0; array && k < in->analysis->n_comparisons; k++)
        append(array, comparison_json(in, &in->analysis->comparisons[k]), 0, rc);
    for (size_t k = 0; array && k < in->analysis->n_fleet; k++)
        append(array, pooled_json(&in->analysis->fleet[k]), 0, rc);
    return array;
}

static json_t *overall_json(const report_input *in, int *rc)
{
    json_t *array = json_array();
    for (size_t i = 0; array && i < in->analysis->n_overall; i++) {
        const analysis_overall *o = &in->analysis->overall[i];
        const char *texts[] = {"baseline", o->baseline, "candidate", o->candidate, "metric",
                               o->metric, NULL};
        append(array, texts_then(texts, json_pack(
                   "{s:I, s:o, s:[o,o], s:f, s:s, s:b}", "points", (json_int_t)o->n_points,
                   "estimate", number_or_null(o->ratio), "ci", number_or_null(o->ci_low),
                   number_or_null(o->ci_high), "confidence", o->confidence,
                   "verdict", verdict_kind_name(o->decision.kind),
                   "negligible", o->decision.negligible)),
               0, rc);
    }
    return array;
}

static json_t *warnings_json(const report_input *in, int *rc)
{
    json_t *array = json_array();
    for (size_t i = 0; array && i < in->analysis->n_warnings; i++) {
        const analysis_warning *w = &in->analysis->warnings[i];
        json_t *item = json_object();
        char message[2048];
        query_warning_message(in, w, message, sizeof message);
        const char *texts[] = {"code", w->code, "variant", w->variant, "point", w->point,
                               "message", message, NULL};
        append(array, item, set_texts(item, texts), rc);
    }
    return array;
}

/* NULL when out of memory: a document missing an entry is never written. */
static json_t *document_json(const report_input *in)
{
    int rc = 0;
    json_t *doc = json_pack(
        "{s:s, s:{s:s, s:s}, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
        "schema", "verdict/1", "tool", "name", "verdict", "version", VERDICT_VERSION,
        "experiment", experiment_json(in, &rc), "environment", environment_json(in, &rc),
        "variants", variants_json(in, &rc), "points", points_json(in, &rc),
        "samples", samples_json(in, &rc), "summaries", summaries_json(in, &rc),
        "comparisons", comparisons_json(in, &rc), "overall", overall_json(in, &rc),
        "warnings", warnings_json(in, &rc));
    if (doc && in->from_runs) {
        json_t *builds = builds_json(in, &rc);
        if (builds == NULL || json_object_set_new(doc, "builds", builds) != 0)
            rc = -1;
    }
    if (rc != 0) {
        json_decref(doc);
        return NULL;
    }
    return doc;
}

int report_write_json(const report_input *in, const char *path, verdict_error *err)
{
    return json_text_write(document_json(in), path, err);
}

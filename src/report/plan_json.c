/* `verdict run --dry-run --json`: the plan's points, units and blocks, and each look's
 * information, alpha spent and boundary (docs/json-schema.md, "The plan"). */
#include "report/plan_json.h"

#include <jansson.h>
#include <math.h>

#include "report/json_text.h"
#include "stats/comparison.h"

static json_t *finite_or_null(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}

static json_t *look_json(const plan_look *l)
{
    return json_pack("{s:I, s:f, s:f, s:o, s:f, s:f, s:f, s:b}", "blocks",
                     (json_int_t)l->blocks, "information", l->level.fraction, "alpha_spent",
                     l->level.alpha_spent, "z", finite_or_null(l->level.z), "nominal_alpha",
                     l->level.nominal_alpha, "comparison_alpha", l->comparison_alpha,
                     "smallest_p", l->smallest_p, "can_decide", l->can_decide);
}

static json_t *looks_json(const plan_looks *p)
{
    json_t *array = json_array();
    for (size_t k = 0; array && k < p->n_looks; k++)
        if (json_array_append_new(array, look_json(&p->looks[k])) != 0) {
            json_decref(array);
            return NULL;
        }
    return array;
}

static json_t *variants_json(const experiment *e)
{
    json_t *array = json_array();
    for (size_t v = 0; array && v < e->n_variants; v++)
        if (json_array_append_new(array, json_text_string(e->variants[v].name)) != 0) {
            json_decref(array);
            return NULL;
        }
    return array;
}

static json_t *plan_json(const experiment *e, const analysis_options *o, const plan_looks *p)
{
    json_t *doc = json_pack(
        "{s:s, s:o, s:o, s:I, s:I, s:b, s:o, s:o, s:o, s:f, s:s, s:b, s:s, s:I, s:o, s:b, s:o}",
        "schema", "verdict-dry-run/1", "experiment", json_text_string(e->name), "variants",
        variants_json(e), "units", (json_int_t)experiment_unit_count(e), "points",
        (json_int_t)experiment_point_count(e), "adaptive", e->adaptive, "spending",
        e->adaptive ? json_string(spending_name(e->spending)) : json_null(), "min_blocks",
        json_integer((json_int_t)(e->adaptive ? e->min_blocks : e->repetitions)),
        "max_blocks", json_integer((json_int_t)experiment_blocks(e)), "confidence",
        o->confidence, "method", comparison_method_name(p->method, o->paired), "paired",
        o->paired, "adjust", adjust_method_name(o->adjust), "comparisons",
        (json_int_t)p->comparisons, "looks", looks_json(p), "can_decide",
        p->decides_somewhere, "blocks_needed",
        p->blocks_needed ? json_integer((json_int_t)p->blocks_needed) : json_null());
    return doc;
}

int report_write_plan_json(const experiment *e, const analysis_options *o,
                           const plan_looks *looks, const char *path, verdict_error *err)
{
    return json_text_write(plan_json(e, o, looks), path, err);
}

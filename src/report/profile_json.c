/* A comparison's profile in the JSON report: comparisons[].profile (per function: shares,
 * change and interval), comparisons[].profile_stacks (per stack, for flame graphs) and
 * the sentence the other reports print. */
#include "report/profile_json.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "report/json_text.h"
#include "report/phrases.h"

/* JSON has no NaN: an interval that could not be computed is null. */
static json_t *real_or_null(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}

static json_t *symbol_json(const profile_symbol_change *s)
{
    json_t *item = json_pack(
        "{s:o, s:o, s:o, s:[o,o], s:o, s:[o,o], s:o, s:o, s:o}",
        "share_baseline", real_or_null(s->self.share_baseline),
        "share_candidate", real_or_null(s->self.share_candidate),
        "change", real_or_null(s->self.change),
        "ci", real_or_null(s->self.change_low), real_or_null(s->self.change_high),
        "seconds", real_or_null(s->self.seconds),
        "seconds_ci", real_or_null(s->self.seconds_low), real_or_null(s->self.seconds_high),
        "children_share_baseline", real_or_null(s->children_baseline),
        "children_share_candidate", real_or_null(s->children_candidate),
        "only_in", !s->in_candidate ? json_string("baseline")
                   : !s->in_baseline ? json_string("candidate") : json_null());
    if (item && (json_text_set(item, "symbol", s->symbol) != 0 ||
                 json_text_set(item, "dso", s->dso) != 0)) {
        json_decref(item);
        return NULL;
    }
    return item;
}

static json_t *stack_json(const profile_stack_change *s)
{
    const profile_change *c = &s->change;
    json_t *item = json_pack("{s:o, s:o, s:o, s:o}",
                             "baseline_seconds", real_or_null(c->baseline_seconds),
                             "candidate_seconds", real_or_null(c->candidate_seconds),
                             "change_low", real_or_null(c->seconds_low),
                             "change_high", real_or_null(c->seconds_high));
    if (item && json_text_set(item, "stack", s->stack) != 0) {
        json_decref(item);
        return NULL;
    }
    return item;
}

/* JSON escapes the text itself (json_text_set). */
static void write_raw(FILE *out, const char *text)
{
    fputs(text, out);
}

static int set_summary(json_t *item, const report_input *in, const analysis_comparison *c,
                       const profile_comparison *p)
{
    phrases_profile words;
    phrases_of_profile(p, &words);
    char *text = NULL;
    size_t length = 0;
    FILE *out = open_memstream(&text, &length);
    if (out == NULL)
        return -1;
    phrases_write_profile(out, &words, in->series[c->baseline].variant,
                          in->series[c->candidate].variant, write_raw);
    int rc = fclose(out) == 0 ? json_text_set(item, "profile_summary", text) : -1;
    free(text);
    return rc;
}

int profile_json_add(json_t *item, const report_input *in, const analysis_comparison *c)
{
    if (in->profiles == NULL)
        return 0;
    size_t k = (size_t)(c - in->analysis->comparisons);
    assert(k < in->analysis->n_comparisons);
    const profile_comparison *p = &in->profiles[k];
    json_t *symbols = json_array(), *stacks = json_array();
    int rc = symbols && stacks ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < p->n_symbols; i++)
        rc = json_array_append_new(symbols, symbol_json(&p->symbols[i]));
    for (size_t i = 0; rc == 0 && i < p->n_stacks; i++)
        rc = json_array_append_new(stacks, stack_json(&p->stacks[i]));
    if (rc == 0)
        rc = json_object_set_new(item, "profile_blocks", json_integer((json_int_t)p->n_blocks));
    if (rc == 0)
        rc = json_object_set_new(item, "profile_confidence", real_or_null(p->symbol_confidence));
    if (rc == 0 && in->profile_event)
        rc = json_object_set_new(item, "profile_event", json_string(in->profile_event));
    if (rc == 0)
        rc = set_summary(item, in, c, p);
    rc |= json_object_set_new(item, "profile", symbols);
    rc |= json_object_set_new(item, "profile_stacks", stacks);
    return rc == 0 ? 0 : -1;
}

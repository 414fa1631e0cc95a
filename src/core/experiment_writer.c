/* Writes an experiment built on the command line as the experiment file that says the same,
 * so that the store holds a text `verdict report` can read back like any other. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/strbuf.h"
#include "common/utf8.h"
#include "core/experiment.h"
#include "core/experiment_writer.h"
#include "core/target.h"
#include "core/yaml_reader.h"

void experiment_write_scalar(strbuf *b, const char *text)
{
    strbuf_append(b, "\"");
    for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
        if (*c == '"' || *c == '\\')
            strbuf_appendf(b, "\\%c", *c);
        else if (*c < 0x20 || *c == 0x7f)
            strbuf_appendf(b, "\\x%02x", *c);
        else
            strbuf_append_bytes(b, c, 1);
    }
    strbuf_append(b, "\"");
}

void experiment_write_number(strbuf *b, double value)
{
    /* the shortest of the two forms that reads back as the same double: 0.95, not
     * 0.94999999999999996 */
    char text[64];
    snprintf(text, sizeof text, "%.15g", value);
    if (strtod(text, NULL) != value)
        snprintf(text, sizeof text, "%.17g", value);
    strbuf_append(b, text);
}

static void write_duration(strbuf *b, const char *key, double seconds)
{
    if (seconds > 0) {
        strbuf_appendf(b, "%s: ", key);
        experiment_write_number(b, seconds);
        strbuf_append(b, "s\n");
    }
}

static void write_budget(strbuf *b, const experiment *e)
{
    if (e->has_seed)
        strbuf_appendf(b, "seed: %llu\n", (unsigned long long)e->seed);
    if (e->adaptive) {
        if (e->looks != NULL) {
            strbuf_append(b, "adaptive: {looks: [");
            for (size_t k = 0; k < e->n_looks; k++)
                strbuf_appendf(b, "%s%zu", k ? ", " : "", e->looks[k]);
            strbuf_append(b, "]");
        } else {
            strbuf_appendf(b, "adaptive: {min_blocks: %zu, max_blocks: %zu", e->min_blocks,
                           e->max_blocks);
        }
        if (e->spending != STOPPING_DEFAULT_SPENDING)
            strbuf_appendf(b, ", spending: %s", spending_name(e->spending));
        if (e->max_seconds > 0) {
            strbuf_append(b, ", max_time: ");
            experiment_write_number(b, e->max_seconds);
            strbuf_append(b, "s");
        }
        strbuf_append(b, "}\n");
    } else {
        strbuf_appendf(b, "repetitions: %zu\n", e->repetitions);
    }
    strbuf_appendf(b, "warmup: %zu\n", e->warmup);
    write_duration(b, "timeout", e->timeout);
    strbuf_append(b, "confidence: ");
    experiment_write_number(b, e->confidence);
    strbuf_append(b, "\nmargin: ");
    experiment_write_number(b, e->margin);
    strbuf_append(b, "\n");
    if (e->method != METHOD_WILCOXON || e->method_given)
        strbuf_appendf(b, "method: %s\n", comparison_method_option(e->method));
    if (e->method == METHOD_QUANTILE && e->quantile > 0) {
        strbuf_append(b, "quantile: ");
        experiment_write_number(b, e->quantile);
        strbuf_append(b, "\n");
    }
    if (experiment_reserve_given(e)) {
        strbuf_append(b, "reserve_for_more: ");
        experiment_write_number(b, e->reserve_for_more);
        strbuf_append(b, "\n");
    }
    if (e->on_failure == FAILURE_RECORD)
        strbuf_append(b, "on_failure: record\n");
    else if (e->on_failure == FAILURE_RETRY)
        strbuf_appendf(b, "on_failure: {retry: %d}\n", e->retries);
}

static void write_parameters(strbuf *b, const experiment *e)
{
    if (e->n_parameters == 0)
        return;
    strbuf_append(b, "parameters:\n");
    for (size_t i = 0; i < e->n_parameters; i++) {
        strbuf_append(b, "  ");
        experiment_write_scalar(b, e->parameters[i].name);
        strbuf_append(b, ": [");
        for (size_t j = 0; j < e->parameters[i].n_values; j++) {
            strbuf_append(b, j ? ", " : "");
            experiment_write_scalar(b, e->parameters[i].values[j]);
        }
        strbuf_append(b, "]\n");
    }
}

static void write_variant(strbuf *b, const experiment *e, const experiment_variant *v)
{
    strbuf_append(b, "  ");
    experiment_write_scalar(b, v->name);
    strbuf_append(b, ": {");
    const char *sep = "";
    if (v->command && v->shell) {
        strbuf_append(b, "command: ");   /* a shell line is one string */
        experiment_write_scalar(b, v->command[0]);
        strbuf_append(b, ", shell: true");
        sep = ", ";
    } else if (v->command) {
        strbuf_append(b, "command: [");
        for (size_t i = 0; i < v->n_command; i++) {
            strbuf_append(b, i ? ", " : "");
            experiment_write_scalar(b, v->command[i]);
        }
        strbuf_append(b, "]");
        sep = ", ";
    }
    if (e->target->write_variant_keys)
        e->target->write_variant_keys(b, v, sep);
    strbuf_append(b, "}\n");
}

static void write_metrics(strbuf *b, const experiment *e)
{
    strbuf_append(b, "metrics:\n");
    for (size_t m = 0; m < e->n_metrics; m++) {
        const experiment_metric *x = &e->metrics[m];
        strbuf_append(b, "  - {name: ");
        experiment_write_scalar(b, x->name);
        if (x->regex) {
            strbuf_append(b, ", regex: ");
            experiment_write_scalar(b, x->regex);
        }
        strbuf_appendf(b, ", better: %s}\n", x->higher_is_better ? "higher" : "lower");
    }
}

static void write_helper(strbuf *b, const char *key, const experiment_helper *h)
{
    if (h->line == NULL)
        return;
    strbuf_appendf(b, "%s: ", key);
    experiment_write_scalar(b, h->line);
    strbuf_append(b, "\n");
}

char *experiment_to_yaml(const experiment *e)
{
    strbuf b = STRBUF_INIT;
    strbuf_append(&b, "# written by verdict for an experiment given on the command line\n");
    strbuf_append(&b, "name: ");
    experiment_write_scalar(&b, e->name);
    strbuf_appendf(&b, "\ntarget: %s\n", e->target->name);
    if (e->target->write_keys)
        e->target->write_keys(&b, e);
    write_budget(&b, e);
    if (e->counters != EXPERIMENT_COUNTERS_PERF)
        strbuf_appendf(&b, "counters: %s\n", experiment_counters_name(e->counters));
    if (e->profile)
        strbuf_appendf(&b, "profile: true\nprofile_event: %s\n", experiment_profile_event(e));
    write_parameters(&b, e);
    strbuf_append(&b, "variants:\n");
    for (size_t v = 0; v < e->n_variants; v++)
        write_variant(&b, e, &e->variants[v]);
    write_metrics(&b, e);
    write_helper(&b, "setup", &e->setup);
    write_helper(&b, "teardown", &e->teardown);
    write_helper(&b, "prepare", &e->prepare);
    return strbuf_detach(&b);
}

int experiment_set_written_text(experiment *e)
{
    free(e->text);
    e->text = experiment_to_yaml(e);
    e->text_length = e->text ? strlen(e->text) : 0;
    return e->text ? 0 : -1;
}

char *experiment_literal_template(const char *text)
{
    strbuf out = STRBUF_INIT;
    for (const char *c = text; *c; c++) {
        if (*c == '{' || *c == '}')
            strbuf_append_bytes(&out, c, 1);
        strbuf_append_bytes(&out, c, 1);
    }
    return strbuf_detach(&out);
}

const char *experiment_unwritable(const char *text, bool is_key)
{
    size_t length = strlen(text);
    if (is_key && length == 0)
        return "is empty";
    if (!utf8_valid(text, length))
        return "is not UTF-8 text";
    if (is_key && length >= YAML_KEY_MAX)
        return "is longer than 4095 bytes (give it a shorter name)";
    return NULL;
}

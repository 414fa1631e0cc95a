/* libFuzzer target for the experiment-file loader with every target: any bytes must give
 * either a model that satisfies the loader's promises, or an error message, never a crash. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/experiment.h"
#include "core/metrics.h"
#include "common/error.h"
#include "targets/command_target.h"
#include "targets/command_variant.h"
#include "targets/kernel_target.h"
#include "targets/postgres_options.h"
#include "targets/postgres_target.h"
#include "targets/targets.h"

/* A metric the loader accepted: the target's builtin, an extraction, or a counter of a
 * target whose runs are counted (instructions, ipc:k), as counted by e->counters. */
static bool known_metric(const experiment *e, const experiment_metric *m)
{
    if (m->regex != NULL || target_find_metric(e->target, m->name) != NULL)
        return true;
    perf_counters_metric counter;
    verdict_error quiet = {0};
    bool counted = e->target->counters &&
                   metric_counter_parse(m->name, e->counters, &counter, &quiet) == 0;
    error_clear(&quiet);
    return counted;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A command, and its own keys (prepare, conclude, input, output) only as given: an input or
 * an output file is an absolute path, a helper is a line or words, never both. */
static void check_command_variant(const experiment_variant *v)
{
    if (v->n_command == 0 || v->command[v->n_command] != NULL)
        abort();
    if (v->shell && v->n_command != 1)
        abort();
    const command_variant *c = command_variant_of(v);
    if (c == NULL)
        return;
    if ((c->input && c->input[0] != '/') || (c->output == RUN_OUTPUT_FILE &&
                                              (c->output_path == NULL || c->output_path[0] != '/')))
        abort();
    if ((c->prepare.line && c->prepare.words.n) || (c->conclude.line && c->conclude.words.n))
        abort();
}

/* No command and no build line: exactly one of bindir, source or conninfo. */
static void check_postgres_variant(const experiment_variant *v)
{
    const postgres_variant *pg = postgres_variant_of(v);
    if (v->command != NULL || v->n_command != 0 || v->shell || pg == NULL || v->build != NULL)
        abort();
    if ((pg->bindir != NULL) + (v->source.path != NULL) + (pg->conninfo != NULL) != 1)
        abort();
    for (size_t i = 0; i < pg->n_settings; i++)
        if (pg->settings[i].name == NULL || pg->settings[i].value == NULL)
            abort();
}

static void check_variant(const experiment *e, const experiment_variant *v)
{
    if (v->name == NULL)
        abort();
    if (e->target == &postgres_target) {
        check_postgres_variant(v);
    } else if (e->target == &kernel_target) {
        if (v->command != NULL || v->n_command != 0 || v->build != NULL || v->options == NULL)
            abort(); /* the kernel, named by the variant, is what runs */
    } else {
        check_command_variant(v);
    }
    for (size_t i = 0; i < v->n_env; i++)
        if (v->env[i].name == NULL || v->env[i].value == NULL)
            abort();
}

/* The target's own top-level keys, there exactly when the target has some. */
static void check_target_options(const experiment *e)
{
    if (e->target == &postgres_target) {
        const postgres_options *pg = postgres_options_of(e);
        if (pg == NULL || !pg->has_workload || pg->n_workload == 0 ||
            pg->workload[pg->n_workload] != NULL || pg->cache_dir == NULL || pg->scale < 1)
            abort();
    } else if (e->target == &kernel_target) {
        const kernel_options *k = e->target_options;
        if (k == NULL || k->module == NULL || k->module[0] != '/' || !(k->sample_seconds > 0))
            abort();
    } else if (e->target != &command_target || e->target_options != NULL) {
        abort();
    }
}

/* A template the loader accepted must substitute at point p, as words and as a shell line:
 * a variant's own text with the variant (its {tree}), a shared text without any. */
static void check_template(const experiment *e, const experiment_variant *v, size_t p,
                           const char *text)
{
    verdict_error err = {0};
    if (text == NULL)
        return;
    char *word = experiment_substitute_variant(e, v, 0, p, text, &err);
    char *line = experiment_substitute_variant_shell(e, v, 0, p, text, &err);
    if (word == NULL || line == NULL)
        abort();
    free(word);
    free(line);
}

/* A variant built from a source has a tree once prepared: give it one, as the lab would. */
static void prepare_tree(experiment_variant *v)
{
    if (v->source.path && v->tree == NULL && (v->tree = strdup("/fuzz/tree")) == NULL)
        abort();
}

/* Every placeholder the loader accepted must substitute at every point it checks. */
static void check_points(experiment *e)
{
    size_t points = experiment_point_count(e);
    if (points == 0)
        abort();
    for (size_t p = 0; p < points && p < 4; p++) {
        char *id = experiment_point_id(e, p);
        if (id == NULL)
            abort();
        free(id);
        for (size_t i = 0; i < e->n_variants; i++) {
            experiment_variant *v = &e->variants[i];
            prepare_tree(v);
            for (size_t w = 0; w < v->n_command; w++)
                check_template(e, v, p, v->command[w]);
            for (size_t j = 0; j < v->n_env; j++)
                check_template(e, v, p, v->env[j].value);
            check_template(e, v, p, v->cwd);
            check_template(e, v, p, v->build);
        }
        check_template(e, NULL, p, e->setup.line);
        check_template(e, NULL, p, e->teardown.line);
        check_template(e, NULL, p, e->prepare.line);
        if (e->target == &kernel_target)
            check_template(e, NULL, p, ((const kernel_options *)e->target_options)->arg);
        if (e->target == &postgres_target)
            for (size_t w = 0; w < postgres_options_of(e)->n_workload; w++)
                check_template(e, NULL, p, postgres_options_of(e)->workload[w]);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    experiment e;
    verdict_error err = {0};
    if (targets_parse_experiment("fuzz.yaml", (const char *)data, size, &e, &err) == 0) {
        if (e.n_variants < 1 || e.n_metrics < 1 || e.name == NULL || e.text_length != size ||
            e.target == NULL)
            abort();
        if (e.adaptive ? (e.min_blocks < 1 || e.min_blocks > e.max_blocks) : e.repetitions < 1)
            abort();
        if (!(e.confidence > 0 && e.confidence < 1) || !(e.margin >= 0 && e.margin < 1))
            abort();
        for (size_t i = 0; i < e.n_parameters; i++)
            if (e.parameters[i].n_values == 0)
                abort();
        for (size_t i = 0; i < e.n_variants; i++)
            check_variant(&e, &e.variants[i]);
        for (size_t m = 0; m < e.n_metrics; m++)
            if (e.metrics[m].name == NULL || !known_metric(&e, &e.metrics[m]))
                abort(); /* a builtin of the target, an extraction, or a counter it counts */
        check_target_options(&e);
        check_points(&e);
        (void)experiment_plan_hash(&e);
        (void)experiment_text_hash(&e);
        experiment_free(&e);
    } else if (strncmp(err.message, "fuzz.yaml", 9) != 0 || e.variants != NULL ||
               e.target_options != NULL) {
        abort(); /* every error names the file, and nothing is left allocated */
    }
    return 0;
}

/* libFuzzer target for the experiment-file loader: any bytes must give either a model
 * that satisfies the loader's promises, or an error message, and never a crash or leak. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/experiment.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_variant(const experiment *e, const experiment_variant *v)
{
    if (e->target == TARGET_POSTGRES) {
        /* no command: exactly one of bindir, source (which fills bindir) or conninfo */
        if (v->n_command != 0 || (v->bindir != NULL) + (v->conninfo != NULL) != 1 ||
            (v->source != NULL && (v->bindir == NULL || v->build == NULL)))
            abort();
    } else if (v->name == NULL || v->n_command == 0 || v->command[v->n_command] != NULL ||
               v->bindir || v->conninfo || v->n_pg_settings) {
        abort();
    }
    if (v->shell && v->n_command != 1)
        abort();
    for (size_t i = 0; i < v->n_env; i++)
        if (v->env[i].name == NULL || v->env[i].value == NULL)
            abort();
}

/* Every placeholder the loader accepted must substitute at every point it checks. */
static void check_points(const experiment *e)
{
    size_t points = experiment_point_count(e);
    if (points == 0)
        abort();
    char err[256];
    for (size_t p = 0; p < points && p < 4; p++) {
        char *id = experiment_point_id(e, p);
        if (id == NULL)
            abort();
        free(id);
        for (size_t i = 0; i < e->n_variants; i++) {
            for (size_t w = 0; w < e->variants[i].n_command; w++) {
                char *word = experiment_substitute(e, p, e->variants[i].command[w], err,
                                                   sizeof err);
                if (word == NULL)
                    abort();
                free(word);
            }
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    experiment e;
    char err[512];
    err[0] = '\0';
    if (experiment_parse("fuzz.yaml", (const char *)data, size, &e, err, sizeof err) == 0) {
        if (e.n_variants < 1 || e.n_metrics < 1 || e.name == NULL || e.text_length != size)
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
        if ((e.target == TARGET_POSTGRES) != (e.workload != NULL) ||
            (e.workload && (e.n_workload == 0 || e.workload[e.n_workload] != NULL)))
            abort();
        check_points(&e);
        (void)experiment_plan_hash(&e);
        (void)experiment_text_hash(&e);
        experiment_free(&e);
    } else if (strncmp(err, "fuzz.yaml", 9) != 0 || e.variants != NULL) {
        abort(); /* every error names the file, and nothing is left allocated */
    }
    return 0;
}

/* Private to the experiment loader (experiment*.c): the state of one file being read, and
 * the readers its parts share (top-level keys, parameters, variants, metrics). */
#ifndef VERDICT_CORE_EXPERIMENT_INTERNAL_H
#define VERDICT_CORE_EXPERIMENT_INTERNAL_H

#include <libfyaml.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/experiment.h"
#include "core/experiment_loader.h"
#include "core/target.h"

/* A variant's generic keys before the top-level defaults are applied to them. */
typedef struct {
    yaml_field command;
    bool has_command, has_shell, shell;
    bool has_cwd;
    struct fy_node *layouts_node; /* where the variant's own 'layouts' was given, or NULL */
} variant_draft;

struct experiment_loader {
    yaml_reader r;
    experiment *e;
    const target_table *targets;
    struct fy_node *root;
    yaml_field command;            /* top-level, resolved once everything else is read */
    bool has_command, has_variants, has_repetitions, has_adaptive, shell;
    experiment_env *env;           /* top-level env, copied into every variant */
    size_t n_env;
    char *cwd;
    variant_draft *draft;          /* the variant being read */
    const char *base;              /* the file's directory; NULL: the current directory */
    struct fy_node *target_key;    /* where 'target' was given, or NULL */
    struct fy_node *machines_key;  /* where 'machines' was given, or NULL */
    struct fy_node *profile_key;   /* where 'profile' or 'profile_event' was given, or NULL */
    struct fy_node *reserve_key;   /* where 'reserve_for_more' was given, or NULL */
    struct fy_node *method_key;    /* where 'method' was given, or NULL */
    struct fy_node *quantile_key;  /* where 'quantile' was given, or NULL */
};

/* experiment_keys.c */
int loader_check_placeholders(experiment_loader *l, struct fy_node *where, const char *text,
                              const char *context, loader_text_owner owner);
/* The target (of any in the table) whose top-level or variant keys include key, or NULL. */
const target_kind *loader_owner_of(const experiment_loader *l, const char *key, bool variant);

/* experiment_parameters.c */
int loader_read_parameters(experiment_loader *l, const yaml_field *f, void *target);

/* experiment_variants.c */
int loader_read_env(experiment_loader *l, const yaml_field *f, const char *owner,
                    experiment_env **list, size_t *n);
int loader_read_variants(experiment_loader *l, const yaml_field *f, void *target);
void loader_free_variant(const experiment *e, experiment_variant *v);

/* experiment_sources.c: a variant's source and patches */
int loader_read_source(experiment_loader *l, const yaml_field *f, experiment_variant *v);
int loader_read_patches(experiment_loader *l, const yaml_field *f, experiment_variant *v);
int loader_check_source(experiment_loader *l, const yaml_field *f, const experiment_variant *v);
void loader_free_source(experiment_source *s);

/* experiment_layouts.c: layout twins */
int loader_read_top_layouts(experiment_loader *l, const yaml_field *f, void *target);
int loader_read_variant_layouts(experiment_loader *l, const yaml_field *f, void *target);
int loader_finish_layouts(experiment_loader *l, const yaml_field *f, experiment_variant *v,
                          const variant_draft *d);
int loader_check_layouts(experiment_loader *l);

/* experiment_metrics.c: metrics, the budget and the failure policy */
int loader_read_metrics(experiment_loader *l, const yaml_field *f, void *target);
int loader_read_adaptive(experiment_loader *l, const yaml_field *f, void *target);
int loader_read_repetitions(experiment_loader *l, const yaml_field *f, void *target);
int loader_read_on_failure(experiment_loader *l, const yaml_field *f, void *target);
int loader_default_metric(experiment_loader *l);

/* experiment_points.c */
uint64_t experiment_hash_start(void);

#endif

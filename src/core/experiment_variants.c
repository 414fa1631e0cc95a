/* The variants of an experiment file: their generic keys (command, shell, build, cwd, env,
 * source, patches), inherited from the top level, and the target's keys, read by it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/experiment_internal.h"

/* ---- env ---- */

static int read_env_entry(experiment_loader *l, const yaml_field *v, const char *owner,
                          experiment_env **list, size_t *n, size_t first_own)
{
    char context[160];
    if (strchr(v->key, '=') != NULL)
        return yaml_fail(&l->r, v->key_node, "environment variable name '%s' holds '='", v->key);
    for (size_t i = first_own; i < *n; i++)
        if (strcmp((*list)[i].name, v->key) == 0)
            return yaml_fail(&l->r, v->key_node, "environment variable %s is set twice", v->key);
    size_t length;
    const char *value = yaml_scalar(v->value, &length);
    if (value == NULL || memchr(value, '\0', length) != NULL)
        return yaml_fail_field(&l->r, v, "environment variable %s needs a plain value (quote "
                               "it: %s: \"...\")", v->key, v->key);
    char *copy = strndup(value, length);
    snprintf(context, sizeof context, "%s env %.40s", owner, v->key);
    int rc = copy ? loader_check_placeholders(l, v->value, copy, context, LOADER_VARIANT_TEXT) : -1;
    if (rc == 0 && loader_set_pair(list, n, v->key, copy) != 0)
        rc = yaml_fail(&l->r, v->key_node, "out of memory");
    free(copy);
    return rc;
}

/* Entries from first_own on are this mapping's own: earlier ones were inherited and may be
 * overridden, but a mapping may not set one name twice. */
int loader_read_env(experiment_loader *l, const yaml_field *f, const char *owner, experiment_env **list,
                    size_t *n)
{
    if (loader_need_mapping(l, f, "NAME: value") != 0)
        return -1;
    size_t first_own = *n;
    void *iter = NULL;
    struct fy_node_pair *pair;
    while ((pair = fy_node_mapping_iterate(f->value, &iter)) != NULL) {
        yaml_field v;
        if (loader_read_key(l, pair, &v) != 0 ||
            read_env_entry(l, &v, owner, list, n, first_own) != 0)
            return -1;
    }
    return 0;
}

/* ---- commands ---- */

static int take_words(experiment_loader *l, const yaml_field *f, experiment_variant *v, command_words *w)
{
    v->command = w->words;
    v->n_command = w->n;
    w->words = NULL;
    w->n = 0;
    return v->command ? 0 : yaml_fail_field(&l->r, f, "out of memory");
}

static int read_command(experiment_loader *l, const yaml_field *f, bool shell, experiment_variant *v,
                        const char *context)
{
    command_words w = {NULL, 0};
    int rc;
    if (loader_is_sequence(f) && shell)
        rc = yaml_fail_field(&l->r, f, "with shell: true, 'command' must be one string (a "
                             "shell line), not a list");
    else
        rc = loader_read_words(l, f, shell, "command", context, LOADER_VARIANT_TEXT, &w);
    if (rc == 0)
        rc = take_words(l, f, v, &w);
    command_words_free(&w);
    return rc;
}

/* ---- the generic keys of a variant ---- */

static int refused(experiment_loader *l, const yaml_field *f, const char *why)
{
    return loader_refuse_key(l, f, why);
}

static int variant_command(experiment_loader *l, const yaml_field *f, void *target)
{
    (void)target;
    if (l->e->target->no_command)
        return refused(l, f, l->e->target->no_command);
    l->draft->command = *f;
    l->draft->has_command = true;
    return 0;
}

static int variant_shell(experiment_loader *l, const yaml_field *f, void *target)
{
    (void)target;
    if (l->e->target->no_command)
        return refused(l, f, l->e->target->no_command);
    l->draft->has_shell = true;
    return yaml_bool(&l->r, f, &l->draft->shell);
}

static int variant_build(experiment_loader *l, const yaml_field *f, void *target)
{
    experiment_variant *v = target;
    char context[96];
    if (l->e->target->no_build)
        return refused(l, f, l->e->target->no_build);
    snprintf(context, sizeof context, "variant %.40s's build", v->name);
    return loader_read_template(l, f, context, LOADER_VARIANT_TEXT, &v->build);
}

static int variant_cwd(experiment_loader *l, const yaml_field *f, void *target)
{
    experiment_variant *v = target;
    char context[96];
    if (l->e->target->no_process)
        return refused(l, f, l->e->target->no_process);
    snprintf(context, sizeof context, "variant %.40s's cwd", v->name);
    l->draft->has_cwd = true;
    return loader_read_template(l, f, context, LOADER_VARIANT_TEXT, &v->cwd);
}

static int variant_env(experiment_loader *l, const yaml_field *f, void *target)
{
    experiment_variant *v = target;
    char owner[64];
    if (l->e->target->no_process)
        return refused(l, f, l->e->target->no_process);
    snprintf(owner, sizeof owner, "variant %.40s's", v->name);
    return loader_read_env(l, f, owner, &v->env, &v->n_env);
}

static int variant_source(experiment_loader *l, const yaml_field *f, void *target)
{
    return loader_read_source(l, f, target);
}

static int variant_patches(experiment_loader *l, const yaml_field *f, void *target)
{
    return loader_read_patches(l, f, target);
}

static const experiment_key generic_variant_keys[] = {
    {"command", variant_command, 1}, {"shell", variant_shell, 1}, {"build", variant_build, 1},
    {"cwd", variant_cwd, 1},         {"env", variant_env, 1},     {"source", variant_source, 1},
    {"patches", variant_patches, 1},
};

enum { MAX_VARIANT_KEYS = 48 };

/* The generic keys and the target's, in one table; keys of other targets are named as
 * such rather than as unknown. */
static size_t variant_key_table(const experiment_loader *l, experiment_key *table)
{
    size_t n = 0;
    for (size_t i = 0; i < sizeof generic_variant_keys / sizeof *generic_variant_keys; i++)
        table[n++] = generic_variant_keys[i];
    const target_kind *k = l->e->target;
    for (size_t i = 0; i < k->n_variant_keys && n < MAX_VARIANT_KEYS; i++)
        table[n++] = k->variant_keys[i];
    return n;
}

static int check_foreign_keys(experiment_loader *l, const yaml_field *f, const char *owner)
{
    void *iter = NULL;
    struct fy_node_pair *pair;
    while ((pair = fy_node_mapping_iterate(f->value, &iter)) != NULL) {
        yaml_field key;
        if (loader_read_key(l, pair, &key) != 0)
            return -1;
        const target_kind *k = loader_owner_of(l, key.key, true);
        bool own = false;
        for (size_t i = 0; i < l->e->target->n_variant_keys; i++)
            own |= strcmp(l->e->target->variant_keys[i].key, key.key) == 0;
        if (k && !own)
            return yaml_fail(&l->r, key.key_node, "'%s' is only allowed with 'target: %s'%s",
                             key.key, k->name, owner);
    }
    return 0;
}

/* ---- variants ---- */

static int finish_variant(experiment_loader *l, const yaml_field *f, experiment_variant *v,
                          variant_draft *d)
{
    char context[96];
    const target_kind *k = l->e->target;
    if (!d->has_cwd && l->cwd && (v->cwd = strdup(l->cwd)) == NULL)
        return yaml_fail(&l->r, f->key_node, "out of memory");
    if (k->no_command == NULL) {
        bool shell = d->has_shell ? d->shell : l->shell;
        v->shell = shell;
        int rc;
        if (d->has_command) {
            snprintf(context, sizeof context, "variant %.40s's command", v->name);
            rc = read_command(l, &d->command, shell, v, context);
        } else if (l->has_command) {
            snprintf(context, sizeof context, "the top-level command (used by variant %.40s)",
                     v->name);
            rc = read_command(l, &l->command, shell, v, context);
        } else {
            rc = yaml_fail(&l->r, f->key_node, "variant %s has no command (and there is no "
                           "top-level 'command' to inherit)", v->name);
        }
        if (rc != 0)
            return -1;
    }
    if (loader_check_source(l, f, v) != 0)
        return -1;
    return k->finish_variant ? k->finish_variant(l, f, v) : 0;
}

static experiment_variant *new_variant(experiment_loader *l, const yaml_field *f)
{
    experiment *e = l->e;
    experiment_variant *grown = realloc(e->variants, (e->n_variants + 1) * sizeof *grown);
    if (grown == NULL)
        return NULL;
    e->variants = grown;
    experiment_variant *v = &e->variants[e->n_variants++];
    memset(v, 0, sizeof *v);
    int line, column;
    yaml_position(f->key_node, &line, &column);
    v->line = line;
    v->name = strdup(f->key);
    for (size_t i = 0; v->name && i < l->n_env; i++)
        if (loader_set_pair(&v->env, &v->n_env, l->env[i].name, l->env[i].value) != 0)
            return NULL;
    return v->name ? v : NULL;
}

static int read_variant_keys(experiment_loader *l, const yaml_field *f, experiment_variant *v,
                             variant_draft *d)
{
    const target_kind *k = l->e->target;
    if (loader_is_mapping(f)) {
        char where[64];
        experiment_key table[MAX_VARIANT_KEYS];
        snprintf(where, sizeof where, " in variant %.40s", v->name);
        if (check_foreign_keys(l, f, where) != 0)
            return -1;
        return loader_walk(l, f->value, table, variant_key_table(l, table), where, v);
    }
    if (yaml_is_null(f->value))
        return 0; /* "A:" with nothing: inherits everything from the top level */
    if (k->variant_scalar)
        return k->variant_scalar(l, f, v);
    if (k->no_command)
        return yaml_fail_field(&l->r, f, "with 'target: %s' variant %s is a mapping, not a "
                               "command", k->name, v->name);
    d->command = *f; /* "A: ./prog {n}" or "A: [./prog, '{n}']" is the command itself */
    d->has_command = true;
    return 0;
}

static int read_variant(experiment_loader *l, const yaml_field *f)
{
    for (size_t i = 0; i < l->e->n_variants; i++)
        if (strcmp(l->e->variants[i].name, f->key) == 0)
            return yaml_fail(&l->r, f->key_node, "duplicate variant '%s'", f->key);
    experiment_variant *v = new_variant(l, f);
    if (v == NULL)
        return yaml_fail(&l->r, f->key_node, "out of memory");
    variant_draft d = {.has_command = false};
    l->draft = &d;
    int rc = read_variant_keys(l, f, v, &d);
    if (rc == 0)
        rc = finish_variant(l, f, v, &d);
    l->draft = NULL;
    return rc;
}

int loader_read_variants(experiment_loader *l, const yaml_field *f, void *target)
{
    (void)target;
    l->has_variants = true;
    if (loader_need_mapping(l, f, "variant name: {command: ...}") != 0)
        return -1;
    void *iter = NULL;
    struct fy_node_pair *pair;
    while ((pair = fy_node_mapping_iterate(f->value, &iter)) != NULL) {
        yaml_field v;
        if (loader_read_key(l, pair, &v) != 0 || read_variant(l, &v) != 0)
            return -1;
    }
    if (l->e->n_variants == 0)
        return yaml_fail_field(&l->r, f, "'variants' is empty: name at least one variant");
    return 0;
}

void loader_free_variant(const experiment *e, experiment_variant *v)
{
    if (e->target && e->target->free_variant)
        e->target->free_variant(v);
    free(v->name);
    for (size_t i = 0; v->command && i < v->n_command; i++)
        free(v->command[i]);
    free(v->command);
    free(v->build);
    free(v->cwd);
    loader_free_pairs(v->env, v->n_env);
    loader_free_source(&v->source);
    free(v->build_key);
    free(v->tree);
    free(v->install);
}

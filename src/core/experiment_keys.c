/* The experiment loader's generic machinery: the key walker with its "did you mean"
 * messages, and readers of values the targets share (words, templates, paths, pairs). */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/array.h"
#include "common/edit_distance.h"
#include "common/error.h"
#include "core/experiment_internal.h"

experiment *loader_experiment(experiment_loader *l)
{
    return l->e;
}

yaml_reader *loader_reader(experiment_loader *l)
{
    return &l->r;
}

struct fy_node *loader_target_node(experiment_loader *l)
{
    return l->target_key;
}

int loader_refuse_key(experiment_loader *l, const yaml_field *f, const char *why)
{
    return yaml_fail(&l->r, f->key_node, "'%s' is not used with 'target: %s': %s", f->key,
                     l->e->target->name, why);
}

/* ---- keys ---- */

static int unknown_key(experiment_loader *l, const yaml_field *f, const experiment_key *rules,
                       size_t n_rules, const char *where)
{
    const char *closest = NULL;
    size_t best = 3; /* at most two edits away */
    for (size_t i = 0; i < n_rules; i++) {
        size_t d = edit_distance(f->key, rules[i].key);
        if (d < best && d < strlen(f->key)) {
            best = d;
            closest = rules[i].key;
        }
    }
    if (closest)
        return yaml_fail(&l->r, f->key_node, "unknown key '%s'%s (did you mean '%s'?)", f->key,
                         where, closest);
    char known[512] = ""; /* every top-level key of a target fits */
    for (size_t i = 0; i < n_rules; i++)
        snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", i ? ", " : "",
                 rules[i].key);
    return yaml_fail(&l->r, f->key_node, "unknown key '%s'%s (known keys: %s)", f->key, where,
                     known);
}

/* Reads a pair's key, which must be a plain piece of text. */
int loader_read_key(experiment_loader *l, struct fy_node_pair *pair, yaml_field *f)
{
    f->key_node = fy_node_pair_key(pair);
    f->value = fy_node_pair_value(pair);
    if (f->value && fy_node_is_alias(f->value))
        return yaml_fail_field(&l->r, f, "aliases (*name) are not supported in experiment files");
    size_t n = 0;
    const char *key = yaml_scalar(f->key_node, &n);
    if (key == NULL || n == 0)
        return yaml_fail(&l->r, f->key_node ? f->key_node : f->value,
                         "keys must be plain names");
    if (n >= sizeof f->key)
        return yaml_fail(&l->r, f->key_node, "key '%.40s...' is too long (%zu bytes; at most "
                         "%d)", key, n, YAML_KEY_MAX - 1);
    memcpy(f->key, key, n);
    f->key[n] = '\0';
    return 0;
}

bool loader_is_mapping(const yaml_field *f)
{
    return f->value && !fy_node_is_alias(f->value) && fy_node_is_mapping(f->value);
}

bool loader_is_sequence(const yaml_field *f)
{
    return f->value && !fy_node_is_alias(f->value) && fy_node_is_sequence(f->value);
}

int loader_need_mapping(experiment_loader *l, const yaml_field *f, const char *what)
{
    if (loader_is_mapping(f))
        return 0;
    return yaml_fail_field(&l->r, f, "'%s' must be a mapping (%s)", f->key, what);
}

/* Walks a mapping whose keys are fixed: unknown and repeated keys are errors. */
int loader_walk(experiment_loader *l, struct fy_node *map, const experiment_key *rules,
                size_t n_rules, const char *where, void *target)
{
    bool seen[64] = {false};
    if (n_rules > ARRAY_SIZE(seen))
        return yaml_fail(&l->r, map, "internal: more than %zu keys in one table", ARRAY_SIZE(seen));
    for (int pass = 0; pass <= 2; pass++) {
        void *iter = NULL;
        struct fy_node_pair *pair;
        while ((pair = fy_node_mapping_iterate(map, &iter)) != NULL) {
            yaml_field f;
            if (loader_read_key(l, pair, &f) != 0)
                return -1;
            size_t i = 0;
            while (i < n_rules && strcmp(rules[i].key, f.key) != 0)
                i++;
            if (i == n_rules)
                return unknown_key(l, &f, rules, n_rules, where);
            if (rules[i].pass != pass)
                continue;
            if (seen[i])
                return yaml_fail(&l->r, f.key_node, "key '%s' appears twice%s", f.key, where);
            seen[i] = true;
            if (rules[i].handle(l, &f, target) != 0)
                return -1;
        }
    }
    return 0;
}

/* Names the parameters for "unknown placeholder" messages. */
static void parameter_names(const experiment *e, char *out, size_t size)
{
    snprintf(out, size, "%s", e->n_parameters ? "" : "(none)");
    for (size_t i = 0; i < e->n_parameters; i++)
        snprintf(out + strlen(out), size - strlen(out), "%s%s", i ? ", " : "",
                 e->parameters[i].name);
}

int loader_check_placeholders(experiment_loader *l, struct fy_node *where, const char *text,
                              const char *context, loader_text_owner owner)
{
    verdict_error problem = {0};
    char names[256];
    if (experiment_placeholders_check(l->e, text, owner, &problem) == 0)
        return 0;
    parameter_names(l->e, names, sizeof names);
    return yaml_fail(&l->r, where, "%s in %s; parameters are: %s", problem.message, context,
                     names);
}

int loader_read_template(experiment_loader *l, const yaml_field *f, const char *context,
                         loader_text_owner owner, char **out)
{
    if (yaml_string(&l->r, f, "a string", out) != 0)
        return -1;
    return loader_check_placeholders(l, f->value, *out, context, owner);
}

static bool table_has(const experiment_key *keys, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(keys[i].key, key) == 0)
            return true;
    return false;
}

const target_kind *loader_owner_of(const experiment_loader *l, const char *key, bool variant)
{
    for (size_t i = 0; l->targets && i < l->targets->n; i++) {
        const target_kind *k = l->targets->kinds[i];
        if (variant ? table_has(k->variant_keys, k->n_variant_keys, key)
                    : table_has(k->top_keys, k->n_top_keys, key))
            return k;
    }
    return NULL;
}

/* ---- pairs ---- */

int loader_set_pair(experiment_env **list, size_t *n, const char *name, const char *value)
{
    char *copy = strdup(value);
    if (copy == NULL)
        return -1;
    for (size_t i = 0; i < *n; i++) {
        if (strcmp((*list)[i].name, name) == 0) { /* a variant overrides the top level */
            free((*list)[i].value);
            (*list)[i].value = copy;
            return 0;
        }
    }
    experiment_env *grown = realloc(*list, (*n + 1) * sizeof *grown);
    char *name_copy = strdup(name);
    if (grown == NULL || name_copy == NULL) {
        if (grown)
            *list = grown;
        free(copy);
        free(name_copy);
        return -1;
    }
    *list = grown;
    (*list)[*n].name = name_copy;
    (*list)[*n].value = copy;
    (*n)++;
    return 0;
}

void loader_free_pairs(experiment_env *pairs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(pairs[i].name);
        free(pairs[i].value);
    }
    free(pairs);
}

/* ---- words ---- */

/* label names the list in messages: "command" or "pgbench". */
static int command_from_list(experiment_loader *l, const yaml_field *f, command_words *w,
                             const char *label, const char *context, loader_text_owner owner)
{
    void *iter = NULL;
    struct fy_node *item;
    while ((item = fy_node_sequence_iterate(f->value, &iter)) != NULL) {
        size_t n;
        const char *word = yaml_scalar(item, &n);
        if (word == NULL)
            return yaml_fail(&l->r, item, "the words of '%s' must be plain text", label);
        char **grown = realloc(w->words, (w->n + 2) * sizeof *grown);
        if (grown == NULL)
            return yaml_fail(&l->r, item, "out of memory");
        w->words = grown;
        w->words[w->n] = strndup(word, n);
        w->words[w->n + 1] = NULL;
        if (w->words[w->n++] == NULL)
            return yaml_fail(&l->r, item, "out of memory");
        if (loader_check_placeholders(l, item, w->words[w->n - 1], context, owner) != 0)
            return -1;
    }
    if (w->n == 0)
        return yaml_fail_field(&l->r, f, "'%s' is an empty list", label);
    return 0;
}

/* A string is split like a shell would split it, unless it is run by /bin/sh itself. */
static int command_from_string(experiment_loader *l, const yaml_field *f, bool shell, const char *label,
                               command_words *w)
{
    size_t n;
    const char *text = yaml_scalar(f->value, &n);
    char *line = text ? strndup(text, n) : NULL;
    if (line == NULL)
        return yaml_fail_field(&l->r, f, "'%s' must be a list of words or a string", label);
    verdict_error problem = {0};
    int rc = 0;
    if (!shell) {
        rc = command_words_split(line, w, &problem);
    } else if (line[strspn(line, " \t\r\n")] == '\0') {
        error_set(&problem, ERROR_USAGE, "empty command");
        rc = -1;
    } else {
        const char *one[] = {line};
        rc = command_words_copy(one, 1, w);
        error_no_memory(&problem);
    }
    free(line);
    if (rc != 0)
        return yaml_fail_field(&l->r, f, "'%s': %s", label, problem.message);
    return 0;
}

/* A list of words, or a string split like a shell (one word with shell), placeholders
 * checked in each word. */
int loader_read_words(experiment_loader *l, const yaml_field *f, bool shell, const char *label,
                      const char *context, loader_text_owner owner, command_words *w)
{
    if (loader_is_sequence(f))
        return command_from_list(l, f, w, label, context, owner);
    int rc = command_from_string(l, f, shell, label, w);
    /* A string's words all point at the string (list words were checked one by one). */
    for (size_t i = 0; rc == 0 && i < w->n; i++)
        rc = loader_check_placeholders(l, f->value, w->words[i], context, owner);
    return rc;
}

struct fy_node *loader_word_node(const yaml_field *f, size_t i)
{
    struct fy_node *item = loader_is_sequence(f) ? fy_node_sequence_get_by_index(f->value, (int)i)
                                          : NULL;
    return item ? item : f->value;
}

/* ---- paths ---- */

/* Relative paths are relative to the experiment file's directory (the current directory for
 * experiment_parse), and made absolute: a build line changes directory before using them. */
int loader_absolute_path(experiment_loader *l, const yaml_field *f, char **out)
{
    char *path = NULL, cwd[PATH_MAX];
    if (yaml_string(&l->r, f, "a path", &path) != 0)
        return -1;
    if (path[0] == '\0') {
        free(path);
        return yaml_fail_field(&l->r, f, "'%s' is empty", f->key);
    }
    if (path[0] == '/') {
        *out = path;
        return 0;
    }
    const char *base = l->base ? l->base : getcwd(cwd, sizeof cwd);
    if (base == NULL) {
        int rc = yaml_fail_field(&l->r, f, "cannot resolve '%s': %s", path, strerror(errno));
        free(path);
        return rc;
    }
    size_t n = strlen(base) + strlen(path) + 2;
    *out = malloc(n);
    if (*out)
        snprintf(*out, n, "%s%s%s", base, strcmp(base, "/") ? "/" : "", path);
    free(path);
    return *out ? 0 : yaml_fail_field(&l->r, f, "out of memory");
}

/* An absolute path of something that exists (symbolic links resolved). */
int loader_existing_path(experiment_loader *l, const yaml_field *f, const char *what,
                         char **out)
{
    char *path = NULL;
    if (loader_absolute_path(l, f, &path) != 0)
        return -1;
    *out = realpath(path, NULL);
    int rc = *out ? 0 : yaml_fail_field(&l->r, f, "%s '%s': %s", what, path, strerror(errno));
    free(path);
    return rc;
}

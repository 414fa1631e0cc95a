/* Reads an experiment file into the model: walks the YAML keys, checks every value and
 * {placeholder}, fills defaults, and names FILE:LINE:COLUMN for whatever is wrong. */
#include "core/experiment.h"

#include <errno.h>
#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/command_words.h"
#include "core/experiment_internal.h"

/* Guards against files (or fuzzers) that would expand into absurd plans. */
enum { MAX_VALUES_PER_PARAMETER = 100000, MAX_POINTS = 1000000 };

static const char *const builtin_metrics[] = {"wall", "user", "sys", "cpu", "maxrss"};

/* A variant's settings before the top-level defaults are applied to them. */
typedef struct {
    yaml_field command;
    bool has_command, has_shell, shell;
    bool has_cwd;
} variant_draft;

typedef struct {
    yaml_reader r;
    experiment *e;
    struct fy_node *root;
    yaml_field command, variants;  /* top-level, resolved once everything else is read */
    bool has_command, has_variants, has_repetitions, has_adaptive, shell;
    experiment_env *env;           /* top-level env, copied into every variant */
    size_t n_env;
    char *cwd;
    variant_draft *draft;          /* the variant being read */
} loader;

typedef int (*key_handler)(loader *l, const yaml_field *f, void *target);

/* pass: 0 is read first (parameters, which placeholders refer to), 2 last (variants,
 * which inherit the top-level command, shell, env and cwd). */
typedef struct {
    const char *key;
    key_handler handle;
    int pass;
} key_rule;

/* ---- small helpers ---- */

static size_t edit_distance(const char *a, const char *b)
{
    size_t n = strlen(b), row[64];
    if (n >= 64 || strlen(a) >= 64)
        return SIZE_MAX;
    for (size_t j = 0; j <= n; j++)
        row[j] = j;
    for (size_t i = 1; a[i - 1]; i++) {
        size_t diagonal = row[0];
        row[0] = i;
        for (size_t j = 1; j <= n; j++) {
            size_t above = row[j];
            size_t best = diagonal + (a[i - 1] != b[j - 1]);
            if (above + 1 < best)
                best = above + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diagonal = above;
        }
    }
    return row[n];
}

static int unknown_key(loader *l, const yaml_field *f, const key_rule *rules, size_t n_rules,
                       const char *where)
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
    char known[256] = "";
    for (size_t i = 0; i < n_rules; i++)
        snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", i ? ", " : "",
                 rules[i].key);
    return yaml_fail(&l->r, f->key_node, "unknown key '%s'%s (known keys: %s)", f->key, where,
                     known);
}

/* Reads a pair's key, which must be a plain piece of text. */
static int read_key(loader *l, struct fy_node_pair *pair, yaml_field *f)
{
    f->key_node = fy_node_pair_key(pair);
    f->value = fy_node_pair_value(pair);
    if (f->value && fy_node_is_alias(f->value))
        return yaml_fail_field(&l->r, f, "aliases (*name) are not supported in experiment files");
    f->key = yaml_scalar(f->key_node, NULL);
    if (f->key == NULL || f->key[0] == '\0')
        return yaml_fail(&l->r, f->key_node ? f->key_node : f->value,
                         "keys must be plain names");
    return 0;
}

static bool is_mapping(const yaml_field *f)
{
    return f->value && !fy_node_is_alias(f->value) && fy_node_is_mapping(f->value);
}

static bool is_sequence(const yaml_field *f)
{
    return f->value && !fy_node_is_alias(f->value) && fy_node_is_sequence(f->value);
}

static int need_mapping(loader *l, const yaml_field *f, const char *what)
{
    if (is_mapping(f))
        return 0;
    return yaml_fail_field(&l->r, f, "'%s' must be a mapping (%s)", f->key, what);
}

/* Walks a mapping whose keys are fixed: unknown and repeated keys are errors. */
static int walk_mapping(loader *l, struct fy_node *map, const key_rule *rules, size_t n_rules,
                        const char *where, void *target)
{
    bool seen[32] = {false};
    for (int pass = 0; pass <= 2; pass++) {
        void *iter = NULL;
        struct fy_node_pair *pair;
        while ((pair = fy_node_mapping_iterate(map, &iter)) != NULL) {
            yaml_field f;
            if (read_key(l, pair, &f) != 0)
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

static int check_placeholders(loader *l, struct fy_node *where, const char *text,
                              const char *context)
{
    char problem[128], names[256];
    if (experiment_placeholders_check(l->e, text, problem, sizeof problem) == 0)
        return 0;
    parameter_names(l->e, names, sizeof names);
    return yaml_fail(&l->r, where, "%s in %s; parameters are: %s", problem, context, names);
}

/* A shell line or path that may hold placeholders. */
static int read_template(loader *l, const yaml_field *f, const char *context, char **out)
{
    if (yaml_string(&l->r, f, "a string", out) != 0)
        return -1;
    return check_placeholders(l, f->value, *out, context);
}

/* ---- parameters ---- */

static bool is_identifier(const char *name)
{
    if (!(name[0] == '_' || (name[0] >= 'a' && name[0] <= 'z') ||
          (name[0] >= 'A' && name[0] <= 'Z')))
        return false;
    for (const char *c = name; *c; c++)
        if (!(*c == '_' || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
              (*c >= '0' && *c <= '9')))
            return false;
    return true;
}

static int add_value(loader *l, experiment_parameter *p, struct fy_node *where, char *value)
{
    if (value == NULL)
        return yaml_fail(&l->r, where, "out of memory");
    for (size_t i = 0; i < p->n_values; i++) {
        if (strcmp(p->values[i], value) == 0) {
            free(value);
            return yaml_fail(&l->r, where, "parameter %s lists the value '%s' twice", p->name,
                             p->values[i]);
        }
    }
    if (p->n_values >= MAX_VALUES_PER_PARAMETER) {
        free(value);
        return yaml_fail(&l->r, where, "parameter %s has more than %d values", p->name,
                         MAX_VALUES_PER_PARAMETER);
    }
    char **grown = realloc(p->values, (p->n_values + 1) * sizeof *grown);
    if (grown == NULL) {
        free(value);
        return yaml_fail(&l->r, where, "out of memory");
    }
    p->values = grown;
    p->values[p->n_values++] = value;
    return 0;
}

static int read_value_list(loader *l, experiment_parameter *p, const yaml_field *f)
{
    void *iter = NULL;
    struct fy_node *item;
    while ((item = fy_node_sequence_iterate(f->value, &iter)) != NULL) {
        size_t n;
        const char *text = yaml_scalar(item, &n);
        if (text == NULL)
            return yaml_fail(&l->r, item, "the values of parameter %s must be plain values",
                             p->name);
        if (add_value(l, p, item, strndup(text, n)) != 0)
            return -1;
    }
    if (p->n_values == 0)
        return yaml_fail_field(&l->r, f, "parameter %s has no values", p->name);
    return 0;
}

typedef struct {
    int64_t from, to, step, factor;
    bool has_from, has_to, has_step, has_factor;
} range_spec;

static int range_from(loader *l, const yaml_field *f, void *target)
{
    range_spec *s = target;
    s->has_from = true;
    return yaml_int64(&l->r, f, &s->from);
}

static int range_to(loader *l, const yaml_field *f, void *target)
{
    range_spec *s = target;
    s->has_to = true;
    return yaml_int64(&l->r, f, &s->to);
}

static int range_step(loader *l, const yaml_field *f, void *target)
{
    range_spec *s = target;
    s->has_step = true;
    if (yaml_int64(&l->r, f, &s->step) != 0)
        return -1;
    return s->step > 0 ? 0 : yaml_fail_field(&l->r, f, "'step' must be a positive integer");
}

static int range_factor(loader *l, const yaml_field *f, void *target)
{
    range_spec *s = target;
    s->has_factor = true;
    if (yaml_int64(&l->r, f, &s->factor) != 0)
        return -1;
    return s->factor > 1 ? 0 : yaml_fail_field(&l->r, f, "'factor' must be an integer above 1");
}

static int check_range(loader *l, const yaml_field *f, const range_spec *s)
{
    if (!s->has_from || !s->has_to)
        return yaml_fail_field(&l->r, f, "range for parameter %s needs 'from' and 'to'", f->key);
    if (s->has_step == s->has_factor)
        return yaml_fail_field(&l->r, f, "range for parameter %s needs either 'step' or 'factor'",
                               f->key);
    if (s->from > s->to)
        return yaml_fail_field(&l->r, f, "range for parameter %s goes from %lld down to %lld",
                               f->key, (long long)s->from, (long long)s->to);
    if (s->has_factor && s->from < 1)
        return yaml_fail_field(&l->r, f, "a geometric range (factor) must start at 1 or above");
    return 0;
}

static int expand_range(loader *l, experiment_parameter *p, const yaml_field *f,
                        const range_spec *s)
{
    for (int64_t v = s->from; v <= s->to;) {
        char text[32];
        snprintf(text, sizeof text, "%lld", (long long)v);
        if (add_value(l, p, f->value, strdup(text)) != 0)
            return -1;
        /* Stop before the next value would overflow. */
        if (s->has_step ? v > s->to - s->step : v > s->to / s->factor)
            break;
        v = s->has_step ? v + s->step : v * s->factor;
    }
    return 0;
}

static int read_range(loader *l, experiment_parameter *p, const yaml_field *f)
{
    static const key_rule rules[] = {
        {"from", range_from, 1}, {"to", range_to, 1},
        {"step", range_step, 1}, {"factor", range_factor, 1},
    };
    range_spec s = {0};
    char where[96];
    snprintf(where, sizeof where, " in the range of parameter %.40s", p->name);
    if (walk_mapping(l, f->value, rules, 4, where, &s) != 0 || check_range(l, f, &s) != 0)
        return -1;
    return expand_range(l, p, f, &s);
}

static int read_parameter(loader *l, const yaml_field *f)
{
    experiment *e = l->e;
    if (!is_identifier(f->key))
        return yaml_fail(&l->r, f->key_node,
                         "parameter name '%s' must be letters, digits and _ (not starting "
                         "with a digit)", f->key);
    for (size_t i = 0; i < e->n_parameters; i++)
        if (strcmp(e->parameters[i].name, f->key) == 0)
            return yaml_fail(&l->r, f->key_node, "duplicate parameter '%s'", f->key);
    experiment_parameter *grown = realloc(e->parameters, (e->n_parameters + 1) * sizeof *grown);
    if (grown == NULL)
        return yaml_fail(&l->r, f->key_node, "out of memory");
    e->parameters = grown;
    experiment_parameter *p = &e->parameters[e->n_parameters++];
    memset(p, 0, sizeof *p);
    p->name = strdup(f->key);
    if (p->name == NULL)
        return yaml_fail(&l->r, f->key_node, "out of memory");
    if (is_sequence(f))
        return read_value_list(l, p, f);
    if (is_mapping(f))
        return read_range(l, p, f);
    size_t n;
    const char *single = yaml_scalar(f->value, &n);
    if (single == NULL)
        return yaml_fail_field(&l->r, f, "parameter %s needs a list of values or a range "
                               "{from, to, step|factor}", f->key);
    return add_value(l, p, f->value, strndup(single, n));
}

static int read_parameters(loader *l, const yaml_field *f, void *target)
{
    (void)target;
    if (need_mapping(l, f, "parameter name: list of values or range") != 0)
        return -1;
    void *iter = NULL;
    struct fy_node_pair *pair;
    size_t points = 1;
    while ((pair = fy_node_mapping_iterate(f->value, &iter)) != NULL) {
        yaml_field p;
        if (read_key(l, pair, &p) != 0 || read_parameter(l, &p) != 0)
            return -1;
        points *= l->e->parameters[l->e->n_parameters - 1].n_values;
        if (points > MAX_POINTS)
            return yaml_fail(&l->r, p.key_node, "the parameters make more than %d points",
                             MAX_POINTS);
    }
    return 0;
}

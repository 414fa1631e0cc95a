/* Reads an experiment file into the model: walks the YAML keys, checks every value and
 * {placeholder}, fills defaults, and names FILE:LINE:COLUMN for whatever is wrong. */
#include "core/experiment.h"
#include "core/regex_budget.h"

#include <errno.h>
#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/command_words.h"
#include "core/experiment_internal.h"

/* Guards against files (or fuzzers) that would expand into absurd plans. */
enum { MAX_VALUES_PER_PARAMETER = 100000, MAX_POINTS = 1000000 };

static const char *const builtin_metrics[] = {"wall", "user", "sys", "cpu", "maxrss"};
/* What pgbench reports (src/pg/pgbench_output.h); only tps is better when higher. */
static const char *const pg_metrics[] = {"tps", "latency_avg", "p50", "p95", "p99"};

static const char *const target_names[] = {"command", "postgres"};   /* experiment_target */
static const char *const fresh_names[] = {"run", "point"};           /* pg_fresh_policy */
static const char *const pin_names[] = {"none", "same", "split"};    /* pg_pin_policy */

static const char default_cache_dir[] = "/var/tmp/verdict-pg";

/* A variant's settings before the top-level defaults are applied to them. */
typedef struct {
    yaml_field command;
    bool has_command, has_shell, shell;
    bool has_cwd;
    struct fy_node *source_only;   /* key of configure, cflags or patches, if given */
    char source_only_key[16];
    command_words configure;       /* v->configure split into words */
    uint64_t *patch_hashes;        /* the contents of v->patches */
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
    const char *base;              /* the file's directory; NULL: the current directory */
    struct fy_node *target_key;    /* where 'target' was given, or NULL */
    bool has_workload;
} loader;

typedef int (*key_handler)(loader *l, const yaml_field *f, void *target);

/* pass: 0 is read first (parameters, which placeholders refer to, and target, which decides
 * the keys and metrics allowed), 2 last (variants, which inherit the top-level command,
 * shell, env and cwd, and the postgres cache_dir and settings). */
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
    size_t n = 0;
    const char *key = yaml_scalar(f->key_node, &n);
    if (key == NULL || n == 0)
        return yaml_fail(&l->r, f->key_node ? f->key_node : f->value,
                         "keys must be plain names");
    if (n >= sizeof f->key)
        return yaml_fail(&l->r, f->key_node, "key '%.40s...' is too long", key);
    memcpy(f->key, key, n);
    f->key[n] = '\0';
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

/* Ranges never repeat a value, so only lists pay for the (quadratic) duplicate check. */
static int add_value(loader *l, experiment_parameter *p, struct fy_node *where, char *value,
                     bool check_duplicates)
{
    if (value == NULL)
        return yaml_fail(&l->r, where, "out of memory");
    for (size_t i = 0; check_duplicates && i < p->n_values; i++) {
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
    size_t n = p->n_values;
    if ((n & (n - 1)) == 0) { /* capacity doubles whenever the count reaches a power of two */
        char **grown = realloc(p->values, (n ? 2 * n : 1) * sizeof *grown);
        if (grown == NULL) {
            free(value);
            return yaml_fail(&l->r, where, "out of memory");
        }
        p->values = grown;
    }
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
        if (add_value(l, p, item, strndup(text, n), true) != 0)
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

static uint64_t range_length(const range_spec *s)
{
    if (s->has_step)
        return ((uint64_t)s->to - (uint64_t)s->from) / (uint64_t)s->step + 1;
    uint64_t n = 1;
    for (int64_t v = s->from; v <= s->to / s->factor; v *= s->factor)
        n++;
    return n;
}

static int expand_range(loader *l, experiment_parameter *p, const yaml_field *f,
                        const range_spec *s)
{
    if (range_length(s) > MAX_VALUES_PER_PARAMETER)
        return yaml_fail_field(&l->r, f, "parameter %s has more than %d values", p->name,
                               MAX_VALUES_PER_PARAMETER);
    for (int64_t v = s->from; v <= s->to;) {
        char text[32];
        snprintf(text, sizeof text, "%lld", (long long)v);
        if (add_value(l, p, f->value, strdup(text), false) != 0)
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
    return add_value(l, p, f->value, strndup(single, n), false);
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

/* ---- env and commands ---- */

static int set_env(experiment_env **list, size_t *n, const char *name, const char *value)
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

static int read_env_entry(loader *l, const yaml_field *v, const char *owner,
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
    int rc = copy ? check_placeholders(l, v->value, copy, context) : -1;
    if (rc == 0 && set_env(list, n, v->key, copy) != 0)
        rc = yaml_fail(&l->r, v->key_node, "out of memory");
    free(copy);
    return rc;
}

/* Entries from first_own on are this mapping's own: earlier ones were inherited and may be
 * overridden, but a mapping may not set one name twice. */
static int read_env(loader *l, const yaml_field *f, const char *owner, experiment_env **list,
                    size_t *n)
{
    if (need_mapping(l, f, "NAME: value") != 0)
        return -1;
    size_t first_own = *n;
    void *iter = NULL;
    struct fy_node_pair *pair;
    while ((pair = fy_node_mapping_iterate(f->value, &iter)) != NULL) {
        yaml_field v;
        if (read_key(l, pair, &v) != 0 ||
            read_env_entry(l, &v, owner, list, n, first_own) != 0)
            return -1;
    }
    return 0;
}

static int take_words(loader *l, const yaml_field *f, experiment_variant *v, command_words *w)
{
    v->command = w->words;
    v->n_command = w->n;
    w->words = NULL;
    w->n = 0;
    return v->command ? 0 : yaml_fail_field(&l->r, f, "out of memory");
}

/* label names the list in messages: "command" or "pgbench". */
static int command_from_list(loader *l, const yaml_field *f, command_words *w,
                             const char *label, const char *context)
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
        if (check_placeholders(l, item, w->words[w->n - 1], context) != 0)
            return -1;
    }
    if (w->n == 0)
        return yaml_fail_field(&l->r, f, "'%s' is an empty list", label);
    return 0;
}

/* A string is split like a shell would split it, unless it is run by /bin/sh itself. */
static int command_from_string(loader *l, const yaml_field *f, bool shell, const char *label,
                               command_words *w)
{
    size_t n;
    const char *text = yaml_scalar(f->value, &n);
    char *line = text ? strndup(text, n) : NULL;
    if (line == NULL)
        return yaml_fail_field(&l->r, f, "'%s' must be a list of words or a string", label);
    char problem[256];
    int rc = 0;
    if (!shell) {
        rc = command_words_split(line, w, problem, sizeof problem);
    } else if (line[strspn(line, " \t\r\n")] == '\0') {
        snprintf(problem, sizeof problem, "empty command");
        rc = -1;
    } else {
        const char *one[] = {line};
        rc = command_words_copy(one, 1, w);
        snprintf(problem, sizeof problem, "out of memory");
    }
    free(line);
    if (rc != 0)
        return yaml_fail_field(&l->r, f, "'%s': %s", label, problem);
    return 0;
}

/* A list of words, or a string split like a shell (one word with shell), placeholders
 * checked in each word. */
static int read_words(loader *l, const yaml_field *f, bool shell, const char *label,
                      const char *context, command_words *w)
{
    if (is_sequence(f))
        return command_from_list(l, f, w, label, context);
    int rc = command_from_string(l, f, shell, label, w);
    /* A string's words all point at the string (list words were checked one by one). */
    for (size_t i = 0; rc == 0 && i < w->n; i++)
        rc = check_placeholders(l, f->value, w->words[i], context);
    return rc;
}

static int read_command(loader *l, const yaml_field *f, bool shell, experiment_variant *v,
                        const char *context)
{
    command_words w = {NULL, 0};
    int rc;
    if (is_sequence(f) && shell)
        rc = yaml_fail_field(&l->r, f, "with shell: true, 'command' must be one string (a "
                             "shell line), not a list");
    else
        rc = read_words(l, f, shell, "command", context, &w);
    if (rc == 0)
        rc = take_words(l, f, v, &w);
    command_words_free(&w);
    return rc;
}

/* ---- target postgres: settings, paths and the workload ---- */

static bool is_postgres(const loader *l)
{
    return l->e->target == TARGET_POSTGRES;
}

/* Keys of one target refused under the other, saying why. */
static int postgres_only(loader *l, const yaml_field *f)
{
    return yaml_fail(&l->r, f->key_node, "'%s' is only allowed with 'target: postgres'",
                     f->key);
}

static int command_only(loader *l, const yaml_field *f)
{
    return yaml_fail(&l->r, f->key_node, "'%s' is not used with 'target: postgres': the "
                     "workload (pgbench) is the command", f->key);
}

/* The settings verdict sets itself or that would move files out of a throwaway cluster,
 * refused here too so that the message names the line (src/pg/cluster.c checks again). */
static const char *const reserved_settings[] = {
    "port", "listen_addresses", "unix_socket_directories", "data_directory",
    "config_file", "hba_file", "ident_file",
};

static int check_setting_name(loader *l, const yaml_field *s)
{
    if (strspn(s->key, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.") !=
        strlen(s->key))
        return yaml_fail(&l->r, s->key_node, "setting name '%s' may hold only letters, digits, "
                         "_ and .", s->key);
    for (size_t i = 0; i < sizeof reserved_settings / sizeof reserved_settings[0]; i++)
        if (strcasecmp(s->key, reserved_settings[i]) == 0)
            return yaml_fail(&l->r, s->key_node, "setting '%s' is verdict's to set (each server "
                             "gets a private socket and no TCP)", s->key);
    return 0;
}

/* Values are kept as the text in the file ("off", 256MB) and never substituted. */
static int read_setting(loader *l, const yaml_field *s, experiment_env **list, size_t *n)
{
    if (check_setting_name(l, s) != 0)
        return -1;
    for (size_t i = 0; i < *n; i++)
        if (strcasecmp((*list)[i].name, s->key) == 0) /* PostgreSQL ignores their case */
            return yaml_fail(&l->r, s->key_node, "setting %s is given twice", s->key);
    size_t length;
    const char *value = yaml_scalar(s->value, &length);
    if (value == NULL || (length == 0 && yaml_is_null(s->value)))
        return yaml_fail_field(&l->r, s, "setting %s needs a plain value (quote it: %s: "
                               "\"...\")", s->key, s->key);
    if (memchr(value, '\n', length) || memchr(value, '\r', length))
        return yaml_fail_field(&l->r, s, "the value of setting %s spans lines", s->key);
    char *copy = strndup(value, length);
    int rc = copy ? set_env(list, n, s->key, copy) : -1;
    free(copy);
    return rc == 0 ? 0 : yaml_fail(&l->r, s->key_node, "out of memory");
}

static int read_settings(loader *l, const yaml_field *f, experiment_env **list, size_t *n)
{
    if (need_mapping(l, f, "postgresql.conf name: value") != 0)
        return -1;
    void *iter = NULL;
    struct fy_node_pair *pair;
    while ((pair = fy_node_mapping_iterate(f->value, &iter)) != NULL) {
        yaml_field s;
        if (read_key(l, pair, &s) != 0 || read_setting(l, &s, list, n) != 0)
            return -1;
    }
    return 0;
}

/* Relative paths are relative to the experiment file's directory (the current directory for
 * experiment_parse), and made absolute: a build line changes directory before using them. */
static int absolute_path(loader *l, const yaml_field *f, char **out)
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
static int existing_path(loader *l, const yaml_field *f, const char *what, char **out)
{
    char *path = NULL;
    if (absolute_path(l, f, &path) != 0)
        return -1;
    *out = realpath(path, NULL);
    int rc = *out ? 0 : yaml_fail_field(&l->r, f, "%s '%s': %s", what, path, strerror(errno));
    free(path);
    return rc;
}

/* A patch's identity in a build key is its content: editing it makes a new build. Only
 * regular files of sane size, so that /dev/zero or a FIFO cannot hang the loader. */
static const char *hash_file(const char *path, uint64_t *out)
{
    enum { MAX_PATCH = 64 << 20 };
    struct stat st;
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return strerror(errno);
    const char *why = fstat(fileno(f), &st) != 0 ? "cannot stat"
                      : !S_ISREG(st.st_mode)        ? "not a regular file"
                      : st.st_size > MAX_PATCH      ? "larger than 64 MiB"
                                                    : NULL;
    if (why) {
        fclose(f);
        return why;
    }
    char buf[65536];
    size_t n, total = 0;
    uint64_t h = EXPERIMENT_FNV_OFFSET;
    while (total <= MAX_PATCH && (n = fread(buf, 1, sizeof buf, f)) > 0) {
        h = experiment_fnv1a(h, buf, n);
        total += n;
    }
    int failed = ferror(f);
    fclose(f);
    *out = h;
    return failed ? "read error" : total > MAX_PATCH ? "larger than 64 MiB" : NULL;
}

/* pgbench's options (pgbench --help, PostgreSQL 9.6 to 17), to tell an option's value from
 * a database name. getopt_long accepts unambiguous abbreviations of long names. */
static const char pgbench_short_with_value[] = "bcDfFhIjLMpPRstTU";
static const char *const pgbench_long_with_value[] = {
    "aggregate-interval", "builtin", "client", "define", "file", "fillfactor", "host",
    "index-tablespace", "init-steps", "jobs", "latency-limit", "log-prefix", "max-tries",
    "partition-method", "partitions", "port", "progress", "protocol", "random-seed", "rate",
    "sampling-rate", "scale", "show-script", "tablespace", "time", "transactions", "username",
};
static const char *const pgbench_long_plain[] = {
    "connect", "debug", "exit-on-abort", "failures-detailed", "foreign-keys", "help",
    "initialize", "log", "no-vacuum", "progress-timestamp", "quiet", "report-latencies",
    "report-per-command", "select-only", "skip-some-updates", "unlogged-tables", "vacuum-all",
    "verbose-errors", "version",
};
static const char *const pgbench_connection[] = {"host", "port", "username"};

static const char connection_refused[] =
    "connection options (-h, -p, -U, --host, --port, --username) are not allowed in the "
    "workload: verdict connects pgbench to each variant's server";
static const char argument_refused[] =
    "a database name (or any argument that is not an option) is not allowed in the "
    "workload: verdict supplies the connection";

static bool is_prefix(const char *name, size_t n, const char *of)
{
    return n > 0 && strlen(of) >= n && strncmp(of, name, n) == 0;
}

/* Whether the long option name[0..n) takes a value; unknown or ambiguous names take none
 * (pgbench itself refuses them). */
static bool long_takes_value(const char *name, size_t n)
{
    size_t matches = 0;
    bool takes = false;
    for (size_t i = 0; i < sizeof pgbench_long_with_value / sizeof (char *); i++)
        if (is_prefix(name, n, pgbench_long_with_value[i])) {
            if (strlen(pgbench_long_with_value[i]) == n)
                return true;
            matches++, takes = true;
        }
    for (size_t i = 0; i < sizeof pgbench_long_plain / sizeof (char *); i++)
        if (is_prefix(name, n, pgbench_long_plain[i])) {
            if (strlen(pgbench_long_plain[i]) == n)
                return false;
            matches++;
        }
    return matches == 1 && takes;
}

/* One word where pgbench expects an option: NULL when it is acceptable (*takes_value: the
 * next word is its value), else why not. */
static const char *pgbench_option(const char *word, bool *takes_value)
{
    *takes_value = false;
    if (word[0] != '-' || word[1] == '\0')
        return argument_refused;
    if (word[1] == '-') {
        const char *name = word + 2;
        size_t n = strcspn(name, "=");
        for (size_t i = 0; i < sizeof pgbench_connection / sizeof (char *); i++)
            if (is_prefix(name, n, pgbench_connection[i]))
                return connection_refused;
        *takes_value = name[n] == '\0' && long_takes_value(name, n);
        return NULL;
    }
    for (const char *c = word + 1; *c; c++) {
        if (*c == 'h' || *c == 'p' || *c == 'U')
            return connection_refused;
        if (strchr(pgbench_short_with_value, *c)) {
            *takes_value = c[1] == '\0';
            break;
        }
    }
    return NULL;
}

/* A word with placeholders is checked as each text it becomes. */
typedef struct {
    bool takes_value;
    const char *why;
    char value[64];
} word_check;

static int check_one_value(const char *value, void *context)
{
    word_check *c = context;
    bool takes_value;
    c->why = pgbench_option(value, &takes_value);
    c->takes_value |= takes_value;
    snprintf(c->value, sizeof c->value, "%s", value);
    return c->why ? 1 : 0;
}

static struct fy_node *word_node(const yaml_field *f, size_t i)
{
    struct fy_node *item = is_sequence(f) ? fy_node_sequence_get_by_index(f->value, (int)i)
                                          : NULL;
    return item ? item : f->value;
}

/* "--" ends the options: whatever follows would be a database name. */
static int check_workload_words(loader *l, const yaml_field *f, const command_words *w)
{
    bool value_next = false, options_ended = false;
    for (size_t i = 0; i < w->n; i++) {
        const char *word = w->words[i];
        word_check c = {false, NULL, ""};
        if (value_next) {
            value_next = false;
            continue;
        }
        if (options_ended)
            c.why = argument_refused;
        else if (strcmp(word, "--") == 0)
            options_ended = true;
        else if (experiment_each_substitution(l->e, word, check_one_value, &c) < 0)
            return yaml_fail(&l->r, word_node(f, i), "out of memory");
        if (c.why) {
            char as[96] = "";
            if (!options_ended && strcmp(c.value, word) != 0)
                snprintf(as, sizeof as, " (as '%s')", c.value);
            return yaml_fail(&l->r, word_node(f, i), "pgbench word %zu '%s'%s: %s", i + 1, word,
                             as, c.why);
        }
        value_next = c.takes_value;
    }
    return 0;
}

static int workload_pgbench(loader *l, const yaml_field *f, void *target)
{
    experiment *e = target;
    command_words w = {NULL, 0};
    int rc = read_words(l, f, false, "pgbench", "the workload", &w);
    if (rc == 0)
        rc = check_workload_words(l, f, &w);
    if (rc == 0) {
        e->workload = w.words;
        e->n_workload = w.n;
        w.words = NULL;
        w.n = 0;
    }
    command_words_free(&w);
    return rc;
}

static int top_workload(loader *l, const yaml_field *f, void *target)
{
    static const key_rule rules[] = {{"pgbench", workload_pgbench, 1}};
    if (!is_postgres(l))
        return yaml_fail(&l->r, f->key_node, "'workload' is only allowed with 'target: "
                         "postgres' (with target command, each variant's command is what runs)");
    l->has_workload = true;
    if (need_mapping(l, f, "pgbench: [arguments]") != 0 ||
        walk_mapping(l, f->value, rules, 1, " in 'workload'", target) != 0)
        return -1;
    if (((experiment *)target)->workload == NULL)
        return yaml_fail_field(&l->r, f, "'workload' needs 'pgbench: [arguments]'");
    return 0;
}

/* ---- the postgres mapping ---- */

static int pg_scale(loader *l, const yaml_field *f, void *target)
{
    size_t scale;
    if (yaml_count(&l->r, f, true, &scale) != 0)
        return -1;
    if (scale > INT_MAX)
        return yaml_fail_field(&l->r, f, "'scale' must be at most %d", INT_MAX);
    ((experiment_postgres *)target)->scale = (int)scale;
    return 0;
}

static int pg_settings(loader *l, const yaml_field *f, void *target)
{
    experiment_postgres *pg = target;
    return read_settings(l, f, &pg->settings, &pg->n_settings);
}

static int pg_fresh(loader *l, const yaml_field *f, void *target)
{
    int which;
    if (yaml_choice(&l->r, f, fresh_names, 2, &which) != 0)
        return -1;
    ((experiment_postgres *)target)->fresh = (pg_fresh_policy)which;
    return 0;
}

static int pg_pin(loader *l, const yaml_field *f, void *target)
{
    int which;
    if (yaml_choice(&l->r, f, pin_names, 3, &which) != 0)
        return -1;
    ((experiment_postgres *)target)->pin = (pg_pin_policy)which;
    return 0;
}

static int pg_warm_runs(loader *l, const yaml_field *f, void *target)
{
    size_t runs;
    if (yaml_count(&l->r, f, false, &runs) != 0)
        return -1;
    if (runs > 100)
        return yaml_fail_field(&l->r, f, "'warm_runs' must be at most 100");
    ((experiment_postgres *)target)->warm_runs = runs;
    return 0;
}

static int pg_run_as(loader *l, const yaml_field *f, void *target)
{
    experiment_postgres *pg = target;
    if (yaml_string(&l->r, f, "a user name", &pg->run_as) != 0)
        return -1;
    return pg->run_as[0] ? 0 : yaml_fail_field(&l->r, f, "'run_as' is empty");
}

static int pg_cache_dir(loader *l, const yaml_field *f, void *target)
{
    experiment_postgres *pg = target;
    char *path = NULL;
    if (absolute_path(l, f, &path) != 0)
        return -1;
    free(pg->cache_dir);
    pg->cache_dir = path;
    return 0;
}

static int top_postgres(loader *l, const yaml_field *f, void *target)
{
    static const key_rule rules[] = {
        {"scale", pg_scale, 1}, {"settings", pg_settings, 1}, {"fresh", pg_fresh, 1},
        {"pin", pg_pin, 1},     {"run_as", pg_run_as, 1},     {"cache_dir", pg_cache_dir, 1},
        {"warm_runs", pg_warm_runs, 1},
    };
    if (!is_postgres(l))
        return postgres_only(l, f);
    if (need_mapping(l, f, "scale, settings, fresh, pin, warm_runs, run_as, cache_dir") != 0)
        return -1;
    return walk_mapping(l, f->value, rules, sizeof rules / sizeof *rules, " in 'postgres'",
                        &((experiment *)target)->postgres);
}

/* Read first, so that every other key knows which target it serves. */
static int top_target(loader *l, const yaml_field *f, void *target)
{
    experiment *e = target;
    int which;
    if (yaml_choice(&l->r, f, target_names, 2, &which) != 0)
        return -1;
    e->target = (experiment_target)which;
    l->target_key = f->key_node;
    if (e->target != TARGET_POSTGRES)
        return 0;
    e->postgres.scale = 10;
    e->postgres.fresh = PG_FRESH_RUN;
    e->postgres.pin = PG_PIN_NONE;
    e->postgres.cache_dir = strdup(default_cache_dir);
    return e->postgres.cache_dir ? 0 : yaml_fail_field(&l->r, f, "out of memory");
}

/* ---- variants ---- */

static int variant_command(loader *l, const yaml_field *f, void *target)
{
    (void)target;
    if (is_postgres(l))
        return command_only(l, f);
    l->draft->command = *f;
    l->draft->has_command = true;
    return 0;
}

static int variant_shell(loader *l, const yaml_field *f, void *target)
{
    (void)target;
    if (is_postgres(l))
        return command_only(l, f);
    l->draft->has_shell = true;
    return yaml_bool(&l->r, f, &l->draft->shell);
}

static int variant_build(loader *l, const yaml_field *f, void *target)
{
    experiment_variant *v = target;
    char context[96];
    if (is_postgres(l))
        return yaml_fail(&l->r, f->key_node, "'build' is not used with 'target: postgres': "
                         "give 'source' and verdict builds it (or 'bindir' for a build of yours)");
    snprintf(context, sizeof context, "variant %.40s's build", v->name);
    return read_template(l, f, context, &v->build);
}

static int variant_cwd(loader *l, const yaml_field *f, void *target)
{
    experiment_variant *v = target;
    char context[96];
    snprintf(context, sizeof context, "variant %.40s's cwd", v->name);
    l->draft->has_cwd = true;
    return read_template(l, f, context, &v->cwd);
}

static int variant_env(loader *l, const yaml_field *f, void *target)
{
    experiment_variant *v = target;
    char owner[64];
    snprintf(owner, sizeof owner, "variant %.40s's", v->name);
    return read_env(l, f, owner, &v->env, &v->n_env);
}

/* variants of target postgres: bindir, source (built by verdict) or conninfo */

static int variant_bindir(loader *l, const yaml_field *f, void *target)
{
    if (!is_postgres(l))
        return postgres_only(l, f);
    return absolute_path(l, f, &((experiment_variant *)target)->bindir);
}

/* Checked now, so that a mistyped tree fails here rather than deep inside a build. */
static int variant_source(loader *l, const yaml_field *f, void *target)
{
    experiment_variant *v = target;
    struct stat st;
    if (!is_postgres(l))
        return postgres_only(l, f);
    if (existing_path(l, f, "source", &v->source) != 0)
        return -1;
    char *configure = malloc(strlen(v->source) + sizeof "/configure");
    if (configure == NULL)
        return yaml_fail_field(&l->r, f, "out of memory");
    sprintf(configure, "%s/configure", v->source);
    int found = stat(configure, &st) == 0 && S_ISREG(st.st_mode);
    free(configure);
    if (!found)
        return yaml_fail_field(&l->r, f, "source '%s' has no configure script: give the top "
                               "directory of a PostgreSQL source tree", v->source);
    return 0;
}

static void note_source_only(loader *l, const yaml_field *f)
{
    if (l->draft->source_only == NULL) {
        l->draft->source_only = f->key_node;
        snprintf(l->draft->source_only_key, sizeof l->draft->source_only_key, "%.15s", f->key);
    }
}

static int variant_configure(loader *l, const yaml_field *f, void *target)
{
    experiment_variant *v = target;
    char problem[256];
    if (!is_postgres(l))
        return postgres_only(l, f);
    note_source_only(l, f);
    if (yaml_string(&l->r, f, "a string of ./configure options", &v->configure) != 0)
        return -1;
    if (v->configure[strspn(v->configure, " \t\r\n")] == '\0')
        return 0; /* no options */
    if (command_words_split(v->configure, &l->draft->configure, problem, sizeof problem) != 0)
        return yaml_fail_field(&l->r, f, "'configure': %s", problem);
    return 0;
}

static int variant_cflags(loader *l, const yaml_field *f, void *target)
{
    if (!is_postgres(l))
        return postgres_only(l, f);
    note_source_only(l, f);
    return yaml_string(&l->r, f, "a string", &((experiment_variant *)target)->cflags);
}

static int add_patch(loader *l, struct fy_node *item, experiment_variant *v)
{
    yaml_field p = {.key = "patches", .key_node = NULL, .value = item};
    char **paths = realloc(v->patches, (v->n_patches + 1) * sizeof *paths);
    if (paths)
        v->patches = paths;
    uint64_t *hashes = realloc(l->draft->patch_hashes, (v->n_patches + 1) * sizeof *hashes);
    if (hashes)
        l->draft->patch_hashes = hashes;
    if (paths == NULL || hashes == NULL)
        return yaml_fail(&l->r, item, "out of memory");
    char *path = NULL;
    if (existing_path(l, &p, "patch", &path) != 0)
        return -1;
    v->patches[v->n_patches++] = path;
    const char *why = hash_file(path, &hashes[v->n_patches - 1]);
    return why ? yaml_fail(&l->r, item, "patch '%s': cannot read: %s", path, why) : 0;
}

static int variant_patches(loader *l, const yaml_field *f, void *target)
{
    if (!is_postgres(l))
        return postgres_only(l, f);
    note_source_only(l, f);
    if (!is_sequence(f))
        return yaml_fail_field(&l->r, f, "'patches' must be a list of patch files");
    void *iter = NULL;
    struct fy_node *item;
    while ((item = fy_node_sequence_iterate(f->value, &iter)) != NULL)
        if (add_patch(l, item, target) != 0)
            return -1;
    return 0;
}

static int variant_conninfo(loader *l, const yaml_field *f, void *target)
{
    experiment_variant *v = target;
    if (!is_postgres(l))
        return postgres_only(l, f);
    if (yaml_string(&l->r, f, "a connection string", &v->conninfo) != 0)
        return -1;
    return v->conninfo[0] ? 0 : yaml_fail_field(&l->r, f, "'conninfo' is empty");
}

static int variant_settings(loader *l, const yaml_field *f, void *target)
{
    experiment_variant *v = target;
    if (!is_postgres(l))
        return postgres_only(l, f);
    return read_settings(l, f, &v->pg_settings, &v->n_pg_settings);
}

/* Settings cannot reach a server verdict does not start: refused rather than silently
 * applied to one side of a comparison only. */
static int check_conninfo_variant(loader *l, const yaml_field *f, const experiment_variant *v)
{
    if (v->n_pg_settings)
        return yaml_fail(&l->r, f->key_node, "variant %s connects to a server verdict does not "
                         "start (conninfo): its 'settings' cannot be applied", v->name);
    if (l->e->postgres.n_settings)
        return yaml_fail(&l->r, f->key_node, "variant %s connects to a server verdict does not "
                         "start (conninfo): the postgres 'settings' cannot be applied to it "
                         "(give them to the other variants one by one)", v->name);
    return 0;
}

static int finish_postgres_variant(loader *l, const yaml_field *f, experiment_variant *v,
                                   variant_draft *d)
{
    int given = (v->bindir != NULL) + (v->source != NULL) + (v->conninfo != NULL);
    if (given != 1)
        return yaml_fail(&l->r, f->key_node, "variant %s has %s of bindir, source and "
                         "conninfo: give exactly one (an installed PostgreSQL, a source tree "
                         "verdict builds, or a running server)", v->name,
                         given ? "more than one" : "none");
    if (d->source_only && v->source == NULL)
        return yaml_fail(&l->r, d->source_only, "'%s' of variant %s needs 'source': it "
                         "describes a build from source", d->source_only_key, v->name);
    if (!d->has_cwd && l->cwd && (v->cwd = strdup(l->cwd)) == NULL)
        return yaml_fail(&l->r, f->key_node, "out of memory");
    if (v->conninfo)
        return check_conninfo_variant(l, f, v);
    if (v->source && experiment_source_build(v, l->e->postgres.cache_dir, &d->configure,
                                             d->patch_hashes) != 0)
        return yaml_fail(&l->r, f->key_node, "out of memory");
    return 0;
}

static int finish_variant(loader *l, const yaml_field *f, experiment_variant *v,
                          variant_draft *d)
{
    char context[96];
    if (is_postgres(l))
        return finish_postgres_variant(l, f, v, d);
    bool shell = d->has_shell ? d->shell : l->shell;
    v->shell = shell;
    if (!d->has_cwd && l->cwd && (v->cwd = strdup(l->cwd)) == NULL)
        return yaml_fail(&l->r, f->key_node, "out of memory");
    if (d->has_command) {
        snprintf(context, sizeof context, "variant %.40s's command", v->name);
        return read_command(l, &d->command, shell, v, context);
    }
    if (!l->has_command)
        return yaml_fail(&l->r, f->key_node, "variant %s has no command (and there is no "
                         "top-level 'command' to inherit)", v->name);
    snprintf(context, sizeof context, "the top-level command (used by variant %.40s)", v->name);
    return read_command(l, &l->command, shell, v, context);
}

static experiment_variant *new_variant(loader *l, const yaml_field *f)
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
        if (set_env(&v->env, &v->n_env, l->env[i].name, l->env[i].value) != 0)
            return NULL;
    return v->name ? v : NULL;
}

static int read_variant_keys(loader *l, const yaml_field *f, experiment_variant *v,
                             const key_rule *rules, size_t n_rules, variant_draft *d)
{
    if (is_mapping(f)) {
        char where[64];
        snprintf(where, sizeof where, " in variant %.40s", v->name);
        return walk_mapping(l, f->value, rules, n_rules, where, v);
    }
    if (yaml_is_null(f->value))
        return 0; /* "A:" with nothing: inherits everything from the top level */
    if (is_postgres(l))
        return yaml_fail_field(&l->r, f, "with 'target: postgres' variant %s is a mapping "
                               "(bindir, source or conninfo, settings, env), not a command",
                               v->name);
    d->command = *f; /* "A: ./prog {n}" or "A: [./prog, '{n}']" is the command itself */
    d->has_command = true;
    return 0;
}

static int read_variant(loader *l, const yaml_field *f)
{
    static const key_rule rules[] = {
        {"command", variant_command, 1},     {"shell", variant_shell, 1},
        {"build", variant_build, 1},         {"cwd", variant_cwd, 1},
        {"env", variant_env, 1},             {"bindir", variant_bindir, 1},
        {"source", variant_source, 1},       {"configure", variant_configure, 1},
        {"cflags", variant_cflags, 1},       {"patches", variant_patches, 1},
        {"conninfo", variant_conninfo, 1},   {"settings", variant_settings, 1},
    };
    for (size_t i = 0; i < l->e->n_variants; i++)
        if (strcmp(l->e->variants[i].name, f->key) == 0)
            return yaml_fail(&l->r, f->key_node, "duplicate variant '%s'", f->key);
    experiment_variant *v = new_variant(l, f);
    if (v == NULL)
        return yaml_fail(&l->r, f->key_node, "out of memory");
    variant_draft d = {.has_command = false};
    l->draft = &d;
    int rc = read_variant_keys(l, f, v, rules, sizeof rules / sizeof rules[0], &d);
    if (rc == 0)
        rc = finish_variant(l, f, v, &d);
    command_words_free(&d.configure);
    free(d.patch_hashes);
    l->draft = NULL;
    return rc;
}

static int read_variants(loader *l)
{
    const yaml_field *f = &l->variants;
    if (need_mapping(l, f, "variant name: {command: ...}") != 0)
        return -1;
    void *iter = NULL;
    struct fy_node_pair *pair;
    while ((pair = fy_node_mapping_iterate(f->value, &iter)) != NULL) {
        yaml_field v;
        if (read_key(l, pair, &v) != 0 || read_variant(l, &v) != 0)
            return -1;
    }
    if (l->e->n_variants == 0)
        return yaml_fail_field(&l->r, f, "'variants' is empty: name at least one variant");
    return 0;
}

static int top_variants(loader *l, const yaml_field *f, void *target)
{
    (void)target;
    l->variants = *f;
    l->has_variants = true;
    return read_variants(l);
}

/* ---- metrics ---- */

typedef struct {
    char *name, *regex;
    int better; /* -1 unset, 0 lower, 1 higher */
    struct fy_node *better_node;
} metric_draft;

/* 1 for a builtin that is better when higher (tps), 0 for one better when lower, -1 for
 * a name that is no builtin of this experiment's target. */
static int builtin_direction(const loader *l, const char *name)
{
    for (size_t i = 0; i < sizeof builtin_metrics / sizeof builtin_metrics[0]; i++)
        if (strcmp(name, builtin_metrics[i]) == 0)
            return 0;
    for (size_t i = 0; is_postgres(l) && i < sizeof pg_metrics / sizeof pg_metrics[0]; i++)
        if (strcmp(name, pg_metrics[i]) == 0)
            return strcmp(name, "tps") == 0;
    return -1;
}

static int metric_name(loader *l, const yaml_field *f, void *target)
{
    return yaml_string(&l->r, f, "a name", &((metric_draft *)target)->name);
}

static int metric_regex(loader *l, const yaml_field *f, void *target)
{
    metric_draft *m = target;
    if (yaml_string(&l->r, f, "a POSIX extended regular expression", &m->regex) != 0)
        return -1;
    char why[192];
    regex_t compiled;
    regex_outcome outcome = regex_compile(&compiled, m->regex, 0, why, sizeof why);
    if (outcome == REGEX_OVER_BUDGET)
        return yaml_fail_field(&l->r, f, "metric regex refused: %s", why);
    if (outcome == REGEX_INVALID)
        return yaml_fail_field(&l->r, f, "metric regex '%s' does not compile: %s", m->regex, why);
    size_t groups = compiled.re_nsub;
    regfree(&compiled);
    if (groups == 0)
        return yaml_fail_field(&l->r, f, "metric regex '%s' has no capture group: put the "
                               "number in ( )", m->regex);
    return 0;
}

static int metric_better(loader *l, const yaml_field *f, void *target)
{
    metric_draft *m = target;
    size_t n;
    const char *text = yaml_scalar(f->value, &n);
    m->better_node = f->value;
    if (text && n == 6 && memcmp(text, "higher", 6) == 0)
        m->better = 1;
    else if (text && n == 5 && memcmp(text, "lower", 5) == 0)
        m->better = 0;
    else
        return yaml_fail_field(&l->r, f, "'better' must be higher or lower");
    return 0;
}

static int check_metric(loader *l, struct fy_node *where, const metric_draft *m)
{
    if (m->name == NULL || m->name[0] == '\0')
        return yaml_fail(&l->r, where, "a metric needs a 'name'");
    bool builtin = builtin_direction(l, m->name) >= 0;
    if (builtin && m->regex)
        return yaml_fail(&l->r, where, "'%s' is a builtin metric: give the extraction another "
                         "name", m->name);
    if (!builtin && m->regex == NULL)
        return yaml_fail(&l->r, where, "unknown metric '%s' (builtins: %swall, user, sys, cpu, "
                         "maxrss; or give a 'regex' to extract it)", m->name,
                         is_postgres(l) ? "tps, latency_avg, p50, p95, p99, " : "");
    /* A wrong direction silently turns "better" into "worse": no guessing for extractions. */
    if (!builtin && m->better < 0)
        return yaml_fail(&l->r, where, "metric '%s' needs 'better: higher' or 'better: lower'",
                         m->name);
    for (size_t i = 0; i < l->e->n_metrics; i++)
        if (strcmp(l->e->metrics[i].name, m->name) == 0)
            return yaml_fail(&l->r, where, "duplicate metric '%s'", m->name);
    return 0;
}

static int add_metric(loader *l, struct fy_node *where, metric_draft *m)
{
    experiment *e = l->e;
    if (check_metric(l, where, m) != 0)
        return -1;
    if (m->better < 0)
        m->better = builtin_direction(l, m->name); /* a builtin's own direction */
    experiment_metric *grown = realloc(e->metrics, (e->n_metrics + 1) * sizeof *grown);
    if (grown == NULL)
        return yaml_fail(&l->r, where, "out of memory");
    e->metrics = grown;
    e->metrics[e->n_metrics++] = (experiment_metric){m->name, m->regex, m->better == 1};
    m->name = m->regex = NULL; /* now owned by the experiment */
    return 0;
}

static int read_metric(loader *l, struct fy_node *item)
{
    static const key_rule rules[] = {
        {"name", metric_name, 1}, {"regex", metric_regex, 1}, {"better", metric_better, 1},
    };
    metric_draft m = {NULL, NULL, -1, NULL};
    int rc;
    size_t n;
    const char *text = yaml_scalar(item, &n);
    if (text) {
        m.name = strndup(text, n);
        rc = m.name ? add_metric(l, item, &m) : yaml_fail(&l->r, item, "out of memory");
    } else if (item && !fy_node_is_alias(item) && fy_node_is_mapping(item)) {
        rc = walk_mapping(l, item, rules, 3, " in a metric", &m);
        if (rc == 0)
            rc = add_metric(l, item, &m);
    } else {
        rc = yaml_fail(&l->r, item, "a metric is a builtin name (wall, user, sys, cpu, maxrss) "
                       "or {name: ..., regex: ..., better: higher|lower}");
    }
    free(m.name);
    free(m.regex);
    return rc;
}

static int top_metrics(loader *l, const yaml_field *f, void *target)
{
    (void)target;
    if (!is_sequence(f))
        return read_metric(l, f->value ? f->value : f->key_node);
    void *iter = NULL;
    struct fy_node *item;
    while ((item = fy_node_sequence_iterate(f->value, &iter)) != NULL)
        if (read_metric(l, item) != 0)
            return -1;
    if (l->e->n_metrics == 0)
        return yaml_fail_field(&l->r, f, "'metrics' is an empty list");
    return 0;
}

/* ---- budget and policies ---- */

static int adaptive_min(loader *l, const yaml_field *f, void *target)
{
    return yaml_count(&l->r, f, true, &((experiment *)target)->min_blocks);
}

static int adaptive_max(loader *l, const yaml_field *f, void *target)
{
    return yaml_count(&l->r, f, true, &((experiment *)target)->max_blocks);
}

static int adaptive_time(loader *l, const yaml_field *f, void *target)
{
    return yaml_duration(&l->r, f, &((experiment *)target)->max_seconds);
}

static int top_adaptive(loader *l, const yaml_field *f, void *target)
{
    static const key_rule rules[] = {
        {"min_blocks", adaptive_min, 1}, {"max_blocks", adaptive_max, 1},
        {"max_time", adaptive_time, 1},
    };
    experiment *e = target;
    if (l->has_repetitions)
        return yaml_fail(&l->r, f->key_node, "give either 'repetitions' or 'adaptive', not both");
    l->has_adaptive = true;
    if (need_mapping(l, f, "min_blocks, max_blocks, max_time") != 0 ||
        walk_mapping(l, f->value, rules, 3, " in 'adaptive'", e) != 0)
        return -1;
    if (e->min_blocks > e->max_blocks)
        return yaml_fail_field(&l->r, f, "adaptive min_blocks %zu is above max_blocks %zu",
                               e->min_blocks, e->max_blocks);
    return 0;
}

static int top_repetitions(loader *l, const yaml_field *f, void *target)
{
    experiment *e = target;
    if (l->has_adaptive)
        return yaml_fail(&l->r, f->key_node, "give either 'repetitions' or 'adaptive', not both");
    l->has_repetitions = true;
    e->adaptive = false;
    e->min_blocks = e->max_blocks = 0;
    return yaml_count(&l->r, f, true, &e->repetitions);
}

static int failure_retry(loader *l, const yaml_field *f, void *target)
{
    experiment *e = target;
    size_t retries;
    if (yaml_count(&l->r, f, true, &retries) != 0)
        return -1;
    if (retries > 1000)
        return yaml_fail_field(&l->r, f, "'retry' must be at most 1000");
    e->retries = (int)retries;
    return 0;
}

static int top_on_failure(loader *l, const yaml_field *f, void *target)
{
    static const key_rule rules[] = {{"retry", failure_retry, 1}};
    experiment *e = target;
    size_t n;
    const char *text = yaml_scalar(f->value, &n);
    if (text && n == 5 && memcmp(text, "abort", 5) == 0) {
        e->on_failure = FAILURE_ABORT;
    } else if (text && n == 6 && memcmp(text, "record", 6) == 0) {
        e->on_failure = FAILURE_RECORD;
    } else if (is_mapping(f)) {
        if (walk_mapping(l, f->value, rules, 1, " in 'on_failure'", e) != 0)
            return -1;
        if (e->retries == 0)
            return yaml_fail_field(&l->r, f, "'on_failure' mapping needs 'retry: N'");
        e->on_failure = FAILURE_RETRY;
    } else {
        return yaml_fail_field(&l->r, f, "'on_failure' must be abort, record or {retry: N}");
    }
    return 0;
}

/* ---- the other top-level keys ---- */

static int top_name(loader *l, const yaml_field *f, void *target)
{
    experiment *e = target;
    free(e->name);
    e->name = NULL;
    if (yaml_string(&l->r, f, "a string", &e->name) != 0)
        return -1;
    return e->name[0] ? 0 : yaml_fail_field(&l->r, f, "'name' is empty");
}

static int top_seed(loader *l, const yaml_field *f, void *target)
{
    experiment *e = target;
    e->has_seed = true;
    return yaml_u64(&l->r, f, &e->seed);
}

static int top_parameters(loader *l, const yaml_field *f, void *target)
{
    return read_parameters(l, f, target);
}

static int top_command(loader *l, const yaml_field *f, void *target)
{
    (void)target;
    if (is_postgres(l))
        return command_only(l, f);
    l->command = *f;
    l->has_command = true;
    return 0;
}

static int top_shell(loader *l, const yaml_field *f, void *target)
{
    (void)target;
    if (is_postgres(l))
        return command_only(l, f);
    return yaml_bool(&l->r, f, &l->shell);
}

static int top_env(loader *l, const yaml_field *f, void *target)
{
    (void)target;
    return read_env(l, f, "the top-level", &l->env, &l->n_env);
}

static int top_cwd(loader *l, const yaml_field *f, void *target)
{
    (void)target;
    return read_template(l, f, "the top-level cwd", &l->cwd);
}

static int top_confidence(loader *l, const yaml_field *f, void *target)
{
    return yaml_fraction(&l->r, f, 0, 1, true, "a level such as 0.95 or \"95%\"",
                         &((experiment *)target)->confidence);
}

static int top_margin(loader *l, const yaml_field *f, void *target)
{
    return yaml_fraction(&l->r, f, 0, 1, false, "a fraction such as 0.01 or \"1%\"",
                         &((experiment *)target)->margin);
}

static int top_warmup(loader *l, const yaml_field *f, void *target)
{
    return yaml_count(&l->r, f, false, &((experiment *)target)->warmup);
}

static int top_timeout(loader *l, const yaml_field *f, void *target)
{
    return yaml_duration(&l->r, f, &((experiment *)target)->timeout);
}

static int top_setup(loader *l, const yaml_field *f, void *target)
{
    return read_template(l, f, "'setup'", &((experiment *)target)->setup);
}

static int top_teardown(loader *l, const yaml_field *f, void *target)
{
    return read_template(l, f, "'teardown'", &((experiment *)target)->teardown);
}

static int top_prepare(loader *l, const yaml_field *f, void *target)
{
    return read_template(l, f, "'prepare'", &((experiment *)target)->prepare);
}

static const key_rule top_rules[] = {
    {"name", top_name, 1},           {"seed", top_seed, 1},
    {"repetitions", top_repetitions, 1}, {"adaptive", top_adaptive, 1},
    {"parameters", top_parameters, 0}, {"variants", top_variants, 2},
    {"command", top_command, 1},     {"shell", top_shell, 1},
    {"env", top_env, 1},             {"cwd", top_cwd, 1},
    {"metrics", top_metrics, 1},     {"confidence", top_confidence, 1},
    {"margin", top_margin, 1},       {"warmup", top_warmup, 1},
    {"timeout", top_timeout, 1},     {"on_failure", top_on_failure, 1},
    {"setup", top_setup, 1},         {"teardown", top_teardown, 1},
    {"prepare", top_prepare, 1},     {"target", top_target, 0},
    {"postgres", top_postgres, 1},   {"workload", top_workload, 1},
};

/* ---- whole files ---- */

static void set_defaults(experiment *e)
{
    e->adaptive = true;
    e->min_blocks = 10;
    e->max_blocks = 100;
    e->warmup = 1;
    e->confidence = 0.95;
    e->margin = 0.01;
    e->on_failure = FAILURE_ABORT;
}

/* "examples/spin-demo.yaml" is named "spin-demo" unless the file says otherwise. */
static char *name_from_path(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strcspn(base, ".");
    return n ? strndup(base, n) : strdup("experiment");
}

static int fill_defaults(loader *l)
{
    experiment *e = l->e;
    if (!l->has_variants)
        return yaml_fail(&l->r, l->root, "no variants: add 'variants:' with at least one "
                         "variant and its command");
    if (e->name == NULL && (e->name = name_from_path(e->path)) == NULL)
        return yaml_fail(&l->r, l->root, "out of memory");
    if (is_postgres(l) && !l->has_workload)
        return yaml_fail(&l->r, l->target_key, "'target: postgres' needs 'workload: {pgbench: "
                         "[arguments]}': what pgbench runs against each variant's server");
    if (e->n_metrics == 0) {
        e->metrics = calloc(1, sizeof *e->metrics);
        if (e->metrics == NULL ||
            (e->metrics[0].name = strdup(is_postgres(l) ? "tps" : "wall")) == NULL)
            return yaml_fail(&l->r, l->root, "out of memory");
        e->metrics[0].higher_is_better = is_postgres(l);
        e->n_metrics = 1;
    }
    return 0;
}

static int parse_document(loader *l, struct fy_document *doc)
{
    l->root = fy_document_root(doc);
    if (l->root == NULL || fy_node_is_alias(l->root) || !fy_node_is_mapping(l->root))
        return yaml_fail(&l->r, l->root, "an experiment file is a mapping of keys (name, "
                         "parameters, variants, metrics, ...)");
    if (walk_mapping(l, l->root, top_rules, sizeof top_rules / sizeof top_rules[0], "",
                     l->e) != 0)
        return -1;
    return fill_defaults(l);
}

static void free_env(experiment_env *env, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(env[i].name);
        free(env[i].value);
    }
    free(env);
}

/* directory: what relative paths are relative to (NULL: the current directory). */
static int parse_in(const char *name, const char *text, size_t length, const char *directory,
                    experiment *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    set_defaults(out);
    out->path = strdup(name);
    out->text = malloc(length + 1);
    if (out->path == NULL || out->text == NULL) {
        snprintf(err, errlen, "%s: out of memory", name);
        experiment_free(out);
        return -1;
    }
    memcpy(out->text, text, length);
    out->text[length] = '\0';
    out->text_length = length;
    loader l = {.r = {name, err, errlen}, .e = out, .base = directory};
    yaml_source source;
    int rc = yaml_open(&l.r, text, length, &source);
    if (rc == 0) {
        rc = parse_document(&l, source.document);
        yaml_close(&source);
    }
    free_env(l.env, l.n_env);
    free(l.cwd);
    if (rc != 0)
        experiment_free(out);
    return rc;
}

int experiment_parse(const char *name, const char *text, size_t length, experiment *out,
                     char *err, size_t errlen)
{
    return parse_in(name, text, length, NULL, out, err, errlen);
}

static int read_file(const char *path, char **text, size_t *length, char *err, size_t errlen)
{
    enum { MAX_FILE = 16 << 20 };
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
        return -1;
    }
    char *buf = malloc(MAX_FILE + 1);
    size_t n = buf ? fread(buf, 1, MAX_FILE + 1, f) : 0;
    int failed = buf == NULL || ferror(f);
    fclose(f);
    if (failed || n > MAX_FILE) {
        snprintf(err, errlen, "%s: cannot read: %s", path,
                 failed ? "read error" : "larger than 16 MiB");
        free(buf);
        return -1;
    }
    *text = buf;
    *length = n;
    return 0;
}

/* Braces in a directory name must not read as placeholders once joined with a cwd. */
static char *escape_braces(const char *text)
{
    size_t n = strlen(text), braces = 0;
    for (const char *c = text; *c; c++)
        braces += *c == '{' || *c == '}';
    char *out = malloc(n + braces + 1), *o = out;
    for (const char *c = text; out && *c; c++) {
        if (*c == '{' || *c == '}')
            *o++ = *c;
        *o++ = *c;
    }
    if (out)
        *o = '\0';
    return out;
}

static char *directory_of(const char *path)
{
    char *full = realpath(path, NULL);
    if (full == NULL)
        return NULL;
    char *slash = strrchr(full, '/');
    if (slash == full)
        slash[1] = '\0'; /* a file in / */
    else if (slash)
        *slash = '\0';
    return full;
}

/* Relative working directories are relative to the experiment file, not to wherever
 * verdict happens to be started; a variant without one runs in the file's directory. */
static int resolve_directories(experiment *e)
{
    char *base = escape_braces(e->directory);
    if (base == NULL)
        return -1;
    for (size_t i = 0; i < e->n_variants; i++) {
        experiment_variant *v = &e->variants[i];
        if (v->cwd && v->cwd[0] == '/')
            continue;
        size_t n = strlen(base) + (v->cwd ? strlen(v->cwd) : 0) + 2;
        char *joined = malloc(n);
        if (joined == NULL) {
            free(base);
            return -1;
        }
        snprintf(joined, n, "%s%s%s", base, v->cwd ? "/" : "", v->cwd ? v->cwd : "");
        free(v->cwd);
        v->cwd = joined;
    }
    free(base);
    return 0;
}

int experiment_load(const char *path, experiment *out, char *err, size_t errlen)
{
    char *text = NULL;
    size_t length = 0;
    memset(out, 0, sizeof *out);
    if (read_file(path, &text, &length, err, errlen) != 0)
        return -1;
    /* Known before parsing: source, patches, bindir and cache_dir are resolved against it. */
    char *directory = directory_of(path);
    int rc = directory ? parse_in(path, text, length, directory, out, err, errlen) : -1;
    free(text);
    if (directory == NULL)
        snprintf(err, errlen, "%s: cannot resolve the file's directory: %s", path,
                 strerror(errno));
    if (rc == 0)
        out->directory = directory;
    else
        free(directory);
    if (rc == 0 && resolve_directories(out) != 0) {
        snprintf(err, errlen, "%s: cannot resolve the file's directory: %s", path,
                 strerror(errno));
        experiment_free(out);
        rc = -1;
    }
    return rc;
}

static void free_variant(experiment_variant *v)
{
    free(v->name);
    for (size_t i = 0; v->command && i < v->n_command; i++)
        free(v->command[i]);
    free(v->command);
    free(v->build);
    free(v->cwd);
    free_env(v->env, v->n_env);
    free(v->bindir);
    free(v->source);
    free(v->configure);
    free(v->cflags);
    for (size_t i = 0; i < v->n_patches; i++)
        free(v->patches[i]);
    free(v->patches);
    free(v->conninfo);
    free_env(v->pg_settings, v->n_pg_settings);
}

static void free_postgres(experiment *e)
{
    free_env(e->postgres.settings, e->postgres.n_settings);
    free(e->postgres.run_as);
    free(e->postgres.cache_dir);
    for (size_t i = 0; i < e->n_workload; i++)
        free(e->workload[i]);
    free(e->workload);
}

void experiment_free(experiment *e)
{
    for (size_t i = 0; i < e->n_parameters; i++) {
        free(e->parameters[i].name);
        for (size_t j = 0; j < e->parameters[i].n_values; j++)
            free(e->parameters[i].values[j]);
        free(e->parameters[i].values);
    }
    for (size_t i = 0; i < e->n_variants; i++)
        free_variant(&e->variants[i]);
    for (size_t i = 0; i < e->n_metrics; i++) {
        free(e->metrics[i].name);
        free(e->metrics[i].regex);
    }
    free(e->parameters);
    free(e->variants);
    free(e->metrics);
    free(e->path);
    free(e->directory);
    free(e->text);
    free(e->name);
    free(e->setup);
    free(e->teardown);
    free(e->prepare);
    free_postgres(e);
    memset(e, 0, sizeof *e);
}

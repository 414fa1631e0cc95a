/* Points of an experiment (the cartesian product of its parameters), {placeholder}
 * substitution into words and shell lines, and the plan and text hashes. */
#include "core/experiment.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/hash.h"
#include "common/strbuf.h"
#include "core/experiment_internal.h"
#include "core/plan_hash.h"

size_t experiment_point_count(const experiment *e)
{
    size_t count = 1;
    for (size_t i = 0; i < e->n_parameters; i++)
        count *= e->parameters[i].n_values; /* the loader caps the product */
    return count;
}

void experiment_point_values(const experiment *e, size_t point, size_t *value_index)
{
    for (size_t i = e->n_parameters; i-- > 0;) {
        size_t radix = e->parameters[i].n_values;
        value_index[i] = point % radix;
        point /= radix;
    }
}

/* Short names for the string builder over the code below. */
typedef strbuf text_buffer;

static void put(text_buffer *b, const char *s, size_t n)
{
    strbuf_append_bytes(b, s, n);
}

static void put_string(text_buffer *b, const char *s)
{
    strbuf_append(b, s);
}

/* A parameter value inside a point id: ',', '=' and '\\' get a backslash, so that values
 * holding them cannot make two points one id. Plain values stay as they were. */
static void put_id_value(text_buffer *b, const char *value)
{
    for (const char *c = value; *c; c++) {
        if (*c == ',' || *c == '=' || *c == '\\')
            put(b, "\\", 1);
        put(b, c, 1);
    }
}

static char *finish(text_buffer *b)
{
    return strbuf_detach(b);
}

char *experiment_point_id(const experiment *e, size_t point)
{
    if (e->n_parameters == 0)
        return strdup("default");
    size_t *index = calloc(e->n_parameters, sizeof *index);
    if (index == NULL)
        return NULL;
    experiment_point_values(e, point, index);
    text_buffer b = STRBUF_INIT;
    for (size_t i = 0; i < e->n_parameters; i++) {
        if (i)
            put_string(&b, ",");
        put_string(&b, e->parameters[i].name);
        put_string(&b, "=");
        put_id_value(&b, e->parameters[i].values[index[i]]);
    }
    free(index);
    return finish(&b);
}

static const experiment_parameter *find_parameter(const experiment *e, const char *name,
                                                  size_t length, size_t *which)
{
    for (size_t i = 0; i < e->n_parameters; i++) {
        if (strlen(e->parameters[i].name) == length &&
            memcmp(e->parameters[i].name, name, length) == 0) {
            *which = i;
            return &e->parameters[i];
        }
    }
    return NULL;
}

/* value as one single-quoted shell word (' becomes '\''); with braces_doubled, the word is
 * for a template that experiment_substitute_shell will read, so { and } are doubled. */
static void put_shell_word(text_buffer *b, const char *value, bool braces_doubled)
{
    put_string(b, "'");
    for (const char *v = value; *v; v++) {
        if (*v == '\'')
            put_string(b, "'\\''");
        else if (braces_doubled && (*v == '{' || *v == '}'))
            put(b, (char[2]){*v, *v}, 2);
        else
            put(b, v, 1);
    }
    put_string(b, "'");
}

/* {tree}: the variant's built tree; known (for checking) whether or not it is built yet. */
static bool tree_placeholder(const char *name, size_t length)
{
    return length == strlen(EXPERIMENT_TREE_PLACEHOLDER) &&
           memcmp(name, EXPERIMENT_TREE_PLACEHOLDER, length) == 0;
}

static void put_value(text_buffer *out, const char *value, bool quote)
{
    if (!quote)
        put_string(out, value);
    else
        put_shell_word(out, value, false);
}

/* What one pass of expand works with. index NULL: only check (nothing is written). */
typedef struct {
    const experiment *e;
    const experiment_variant *v; /* the variant whose text it is ({tree}), or NULL */
    size_t layout;               /* and the layout of it that runs */
    const size_t *index;         /* the value index of every parameter at the point */
    bool quote;                  /* each value as one single-quoted shell word */
    bool tree_allowed;           /* checking: {tree} is a placeholder of this text */
    bool names_tree;             /* out: the text named {tree} */
} expansion;

/* {tree}: written when a variant's tree is known; when checking, allowed or refused. */
static int expand_tree(expansion *x, text_buffer *out, verdict_error *problem)
{
    x->names_tree = true;
    if (out == NULL && !x->tree_allowed) {
        error_set(problem, ERROR_USAGE, "{tree} names a variant's built tree, so it belongs in a "
                  "variant's command, cwd or env");
        return -1;
    }
    const char *tree = x->v ? experiment_variant_tree(x->v, x->layout) : NULL;
    if (out && tree == NULL) {
        error_set(problem, ERROR_USAGE, "{tree} names the built tree of a variant with 'source', "
                  "and %s has none", x->v ? x->v->name : "this text");
        return -1;
    }
    if (out)
        put_value(out, tree, x->quote);
    return 0;
}

/* One pass over text: literal runs, "{{" and "}}" as braces, {name} looked up. With out
 * NULL it only checks. */
static int expand(expansion *x, const char *text, text_buffer *out, verdict_error *problem)
{
    for (const char *p = text; *p;) {
        size_t literal = strcspn(p, "{}");
        if (out)
            put(out, p, literal);
        p += literal;
        if (*p == '\0')
            break;
        if (p[0] == p[1]) { /* "{{" or "}}" */
            if (out)
                put(out, p, 1);
            p += 2;
            continue;
        }
        if (*p == '}') {
            error_set(problem, ERROR_USAGE, "unmatched '}' (write }} for a literal brace)");
            return -1;
        }
        const char *close = strchr(p + 1, '}');
        if (close == NULL) {
            error_set(problem, ERROR_USAGE, "unmatched '{' (write {{ for a literal brace)");
            return -1;
        }
        size_t length = (size_t)(close - p - 1), which = 0;
        const experiment_parameter *param = find_parameter(x->e, p + 1, length, &which);
        if (param == NULL && tree_placeholder(p + 1, length)) {
            if (expand_tree(x, out, problem) != 0)
                return -1;
        } else if (param == NULL) {
            error_set(problem, ERROR_USAGE, "unknown placeholder {%.*s}",
                      (int)(length > 60 ? 60 : length), p + 1);
            return -1;
        } else if (out) {
            put_value(out, param->values[x->index[which]], x->quote);
        }
        p = close + 1;
    }
    return 0;
}

int experiment_placeholders_check(const experiment *e, const char *text,
                                  loader_text_owner owner, verdict_error *problem)
{
    expansion x = {.e = e, .tree_allowed = owner == LOADER_VARIANT_TEXT};
    return expand(&x, text, NULL, problem);
}

bool experiment_names_tree(const experiment *e, const char *text)
{
    verdict_error problem = {0};
    expansion x = {.e = e, .tree_allowed = true};
    return text && expand(&x, text, NULL, &problem) == 0 && x.names_tree;
}

static char *substitute(const experiment *e, const experiment_variant *v, size_t layout,
                        size_t point, const char *text, bool quote, verdict_error *err)
{
    if (point >= experiment_point_count(e)) {
        error_set(err, ERROR_USAGE, "point %zu does not exist", point);
        return NULL;
    }
    size_t *index = calloc(e->n_parameters + 1, sizeof *index);
    if (index == NULL) {
        error_no_memory(err);
        return NULL;
    }
    experiment_point_values(e, point, index);
    text_buffer b = STRBUF_INIT;
    expansion x = {.e = e, .v = v, .layout = layout, .index = index, .quote = quote};
    int rc = expand(&x, text, &b, err);
    free(index);
    if (rc != 0) {
        strbuf_free(&b);
        return NULL;
    }
    char *result = finish(&b);
    if (result == NULL)
        error_no_memory(err);
    return result;
}

char *experiment_substitute(const experiment *e, size_t point, const char *text, verdict_error *err)
{
    return substitute(e, NULL, 0, point, text, false, err);
}

char *experiment_substitute_shell(const experiment *e, size_t point, const char *text,
                                  verdict_error *err)
{
    return substitute(e, NULL, 0, point, text, true, err);
}

char *experiment_substitute_variant(const experiment *e, const experiment_variant *v,
                                    size_t layout, size_t point, const char *text,
                                        verdict_error *err)
{
    return substitute(e, v, layout, point, text, false, err);
}

char *experiment_substitute_variant_shell(const experiment *e, const experiment_variant *v,
                                          size_t layout, size_t point, const char *text,
                                          verdict_error *err)
{
    return substitute(e, v, layout, point, text, true, err);
}

/* Marks the parameters that text names (text is known to be well formed). */
static void mark_used(const experiment *e, const char *text, bool *used)
{
    for (const char *p = text; (p = strpbrk(p, "{}")) != NULL;) {
        if (p[0] == p[1]) {
            p += 2;
            continue;
        }
        const char *close = strchr(p + 1, '}');
        size_t which = 0;
        if (*p == '}' || close == NULL)
            return;
        if (find_parameter(e, p + 1, (size_t)(close - p - 1), &which))
            used[which] = true;
        p = close + 1;
    }
}

/* Moves index to the next combination of the used parameters' values (the last fastest);
 * false after the last one. */
static bool next_combination(const experiment *e, const bool *used, size_t *index)
{
    for (size_t i = e->n_parameters; i-- > 0;) {
        if (!used[i])
            continue;
        if (++index[i] < e->parameters[i].n_values)
            return true;
        index[i] = 0;
    }
    return false;
}

int experiment_each_substitution(const experiment *e, const char *text,
                                 int (*visit)(const char *value, void *context), void *context)
{
    size_t *index = calloc(e->n_parameters + 1, sizeof *index);
    bool *used = calloc(e->n_parameters + 1, sizeof *used);
    int rc = index && used ? 0 : -1;
    if (rc == 0)
        mark_used(e, text, used);
    do {
        text_buffer b = STRBUF_INIT;
        verdict_error problem = {0};
        expansion x = {.e = e, .index = index};
        if (rc == 0 && expand(&x, text, &b, &problem) != 0)
            rc = -1;
        char *value = rc == 0 ? finish(&b) : (strbuf_free(&b), NULL);
        if (rc == 0)
            rc = value ? visit(value, context) : -1;
        free(value);
    } while (rc == 0 && next_combination(e, used, index));
    free(index);
    free(used);
    return rc;
}

void loader_put_shell_word(strbuf *b, const char *value)
{
    put_shell_word(b, value, true);
}

/* ---- the plan ---- */

/* FNV-1a (common/hash.h): stable across platforms and releases, good enough to notice that
 * a plan changed (it guards against mistakes, not adversaries). */
uint64_t experiment_hash_start(void)
{
    return HASH_FNV_OFFSET;
}

/* Every field is written as a tag, its length and its bytes, so that no two different
 * plans serialize to the same stream (e.g. ["ab","c"] versus ["a","bc"]). */
void plan_hash_field(uint64_t *state, char tag, const char *text)
{
    uint64_t length = text ? strlen(text) : UINT64_MAX; /* NULL differs from "" */
    *state = hash_fnv1a(*state, &tag, 1);
    for (int shift = 0; shift < 64; shift += 8) { /* byte order fixed, not the host's */
        unsigned char byte = (unsigned char)(length >> shift);
        *state = hash_fnv1a(*state, &byte, 1);
    }
    if (text)
        *state = hash_fnv1a(*state, text, strlen(text));
}

void plan_hash_number(uint64_t *state, char tag, uint64_t value)
{
    char text[32];
    snprintf(text, sizeof text, "%llu", (unsigned long long)value);
    plan_hash_field(state, tag, text);
}

void plan_hash_pairs(uint64_t *state, char tag, const experiment_env *pairs, size_t n)
{
    plan_hash_number(state, tag, n);
    for (size_t i = 0; i < n; i++) {
        plan_hash_field(state, 'k', pairs[i].name);
        plan_hash_field(state, 'v', pairs[i].value);
    }
}

void plan_hash_path(uint64_t *state, char tag, const experiment *e, const char *path)
{
    size_t n = e->directory ? strlen(e->directory) : 0;
    if (e->machines == MACHINES_ONE || path == NULL || n == 0 ||
        strncmp(path, e->directory, n) != 0 || (path[n] != '/' && path[n] != '\0')) {
        plan_hash_field(state, tag, path);
        return;
    }
    strbuf relative = STRBUF_INIT;
    strbuf_appendf(&relative, ".%s", path + n);
    plan_hash_field(state, tag, strbuf_text(&relative));
    strbuf_free(&relative);
}

/* A build from a source is hashed through its content key, once known: moving the tree
 * keeps the plan, an edit in it is a new plan. Variants without a source hash as before. */
static void hash_source(uint64_t *h, const experiment *e, const experiment_variant *v)
{
    if (v->source.path == NULL)
        return;
    if (v->build_key) {
        plan_hash_field(h, 'K', v->build_key);
        return;
    }
    plan_hash_path(h, 'g', e, v->source.path);
    plan_hash_field(h, 'r', v->source.ref);
    plan_hash_number(h, 'n', v->source.n_patches);
    for (size_t i = 0; i < v->source.n_patches; i++)
        plan_hash_path(h, 'p', e, v->source.patches[i]);
}

static void hash_variant(uint64_t *h, const experiment *e, const experiment_variant *v)
{
    plan_hash_field(h, 'V', v->name);
    plan_hash_number(h, 'c', v->n_command);
    for (size_t i = 0; i < v->n_command; i++)
        plan_hash_field(h, 'w', v->command[i]);
    plan_hash_number(h, 's', v->shell);
    plan_hash_field(h, 'b', v->build);
    plan_hash_path(h, 'd', e, v->cwd);
    plan_hash_pairs(h, 'e', v->env, v->n_env);
    hash_source(h, e, v);
    if (v->n_layouts > 1) /* the seeds follow from the experiment's, hashed with it */
        plan_hash_number(h, 'L', v->n_layouts);
    if (e->target && e->target->hash_variant)
        e->target->hash_variant(h, e, v);
}

static void hash_budget(uint64_t *h, const experiment *e)
{
    char seconds[32];
    plan_hash_number(h, 'S', e->has_seed);
    plan_hash_number(h, 's', e->has_seed ? e->seed : 0);
    plan_hash_number(h, 'A', e->adaptive);
    plan_hash_number(h, 'r', e->repetitions);
    plan_hash_number(h, 'n', e->adaptive ? e->min_blocks : 0);
    plan_hash_number(h, 'x', e->adaptive ? e->max_blocks : 0);
    snprintf(seconds, sizeof seconds, "%.17g", e->adaptive ? e->max_seconds : 0.0);
    plan_hash_field(h, 't', seconds);
    plan_hash_number(h, 'W', e->warmup);
    /* absent before spending functions: plans of the growth series keep their hash */
    for (size_t k = 0; e->adaptive && k < e->n_looks; k++)
        plan_hash_number(h, 'K', e->looks[k]);
    if (e->adaptive && e->spending != STOPPING_DEFAULT_SPENDING)
        plan_hash_number(h, 'G', (size_t)e->spending);
    if (experiment_reserve_given(e)) {
        snprintf(seconds, sizeof seconds, "%.17g", e->reserve_for_more);
        plan_hash_field(h, 'R', seconds); /* the levels of every look depend on it */
    }
    if (e->machines != MACHINES_ONE) /* absent before fleets: older plans keep their hash */
        plan_hash_number(h, 'F', (size_t)e->machines);
    if (e->counters != EXPERIMENT_COUNTERS_PERF) /* a run under cachegrind is another run */
        plan_hash_number(h, 'K', (size_t)e->counters);
    if (e->profile) /* profiled runs between the timed ones: another plan (absent without) */
        plan_hash_field(h, 'Z', experiment_profile_event(e));
}

uint64_t experiment_plan_hash(const experiment *e)
{
    uint64_t h = experiment_hash_start();
    plan_hash_field(&h, '#', "verdict-plan/1"); /* bump when the serialization changes */
    plan_hash_number(&h, 'P', e->n_parameters);
    for (size_t i = 0; i < e->n_parameters; i++) {
        plan_hash_field(&h, 'p', e->parameters[i].name);
        plan_hash_number(&h, 'n', e->parameters[i].n_values);
        for (size_t j = 0; j < e->parameters[i].n_values; j++)
            plan_hash_field(&h, 'v', e->parameters[i].values[j]);
    }
    plan_hash_number(&h, 'V', e->n_variants);
    for (size_t i = 0; i < e->n_variants; i++)
        hash_variant(&h, e, &e->variants[i]);
    hash_budget(&h, e);
    plan_hash_number(&h, 'M', e->n_metrics);
    for (size_t i = 0; i < e->n_metrics; i++) {
        plan_hash_field(&h, 'm', e->metrics[i].name);
        plan_hash_field(&h, 'x', e->metrics[i].regex);
        plan_hash_number(&h, 'h', e->metrics[i].higher_is_better);
    }
    /* What runs around the measurements changes what is measured. */
    plan_hash_field(&h, 'u', e->setup.line);
    plan_hash_field(&h, 'd', e->teardown.line);
    plan_hash_field(&h, 'q', e->prepare.line);
    if (e->target && e->target->hash_plan)
        e->target->hash_plan(&h, e);
    return h;
}

uint64_t experiment_text_hash(const experiment *e)
{
    uint64_t h = experiment_hash_start();
    if (e->text)
        h = hash_fnv1a(h, e->text, e->text_length);
    return h;
}

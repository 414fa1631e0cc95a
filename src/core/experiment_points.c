/* Points of an experiment (the cartesian product of its parameters), {placeholder}
 * substitution into words and shell lines, and the plan and text hashes. */
#include "core/experiment_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* A growable string; a failed allocation sticks, so callers check once at the end. */
typedef struct {
    char *text;
    size_t length, capacity;
    bool failed;
} text_buffer;

static void put(text_buffer *b, const char *s, size_t n)
{
    if (b->failed)
        return;
    if (b->length + n + 1 > b->capacity) {
        size_t capacity = b->capacity ? b->capacity : 64;
        while (capacity < b->length + n + 1)
            capacity *= 2;
        char *grown = realloc(b->text, capacity);
        if (grown == NULL) {
            b->failed = true;
            return;
        }
        b->text = grown;
        b->capacity = capacity;
    }
    memcpy(b->text + b->length, s, n);
    b->length += n;
    b->text[b->length] = '\0';
}

static void put_string(text_buffer *b, const char *s)
{
    put(b, s, strlen(s));
}

static char *finish(text_buffer *b)
{
    if (b->failed || b->text == NULL) {
        free(b->text);
        return b->failed ? NULL : strdup("");
    }
    return b->text;
}

char *experiment_point_id(const experiment *e, size_t point)
{
    if (e->n_parameters == 0)
        return strdup("default");
    size_t *index = calloc(e->n_parameters, sizeof *index);
    if (index == NULL)
        return NULL;
    experiment_point_values(e, point, index);
    text_buffer b = {0};
    for (size_t i = 0; i < e->n_parameters; i++) {
        if (i)
            put_string(&b, ",");
        put_string(&b, e->parameters[i].name);
        put_string(&b, "=");
        put_string(&b, e->parameters[i].values[index[i]]);
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

/* One pass over text: literal runs, "{{" and "}}" as braces, {name} looked up. With out
 * NULL it only checks; with quote each value is written as one single-quoted shell word. */
static int expand(const experiment *e, const size_t *index, const char *text, bool quote,
                  text_buffer *out, char *problem, size_t problem_len)
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
            snprintf(problem, problem_len, "unmatched '}' (write }} for a literal brace)");
            return -1;
        }
        const char *close = strchr(p + 1, '}');
        if (close == NULL) {
            snprintf(problem, problem_len, "unmatched '{' (write {{ for a literal brace)");
            return -1;
        }
        size_t length = (size_t)(close - p - 1), which = 0;
        const experiment_parameter *param = find_parameter(e, p + 1, length, &which);
        if (param == NULL) {
            snprintf(problem, problem_len, "unknown placeholder {%.*s}",
                     (int)(length > 60 ? 60 : length), p + 1);
            return -1;
        }
        if (out) {
            const char *value = param->values[index[which]];
            if (!quote) {
                put_string(out, value);
            } else {
                put_string(out, "'");
                for (const char *v = value; *v; v++) /* ' becomes '\'' */
                    put_string(out, *v == '\'' ? "'\\''" : (char[2]){*v, '\0'});
                put_string(out, "'");
            }
        }
        p = close + 1;
    }
    return 0;
}

int experiment_placeholders_check(const experiment *e, const char *text, char *problem,
                                  size_t problem_len)
{
    return expand(e, NULL, text, false, NULL, problem, problem_len);
}

static char *substitute(const experiment *e, size_t point, const char *text, bool quote,
                        char *err, size_t errlen)
{
    if (point >= experiment_point_count(e)) {
        snprintf(err, errlen, "point %zu does not exist", point);
        return NULL;
    }
    size_t *index = calloc(e->n_parameters + 1, sizeof *index);
    if (index == NULL) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    experiment_point_values(e, point, index);
    text_buffer b = {0};
    int rc = expand(e, index, text, quote, &b, err, errlen);
    free(index);
    if (rc != 0) {
        free(b.text);
        return NULL;
    }
    char *result = finish(&b);
    if (result == NULL)
        snprintf(err, errlen, "out of memory");
    return result;
}

char *experiment_substitute(const experiment *e, size_t point, const char *text, char *err,
                            size_t errlen)
{
    return substitute(e, point, text, false, err, errlen);
}

char *experiment_substitute_shell(const experiment *e, size_t point, const char *text,
                                  char *err, size_t errlen)
{
    return substitute(e, point, text, true, err, errlen);
}

/* FNV-1a, 64 bits: simple, stable across platforms and releases, good enough to notice
 * that a plan changed (it guards against mistakes, not adversaries). */
typedef struct {
    uint64_t state;
} plan_hasher;

static void hash_bytes(plan_hasher *h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h->state ^= p[i];
        h->state *= 0x100000001b3ULL;
    }
}

/* Every field is written as a tag, its length and its bytes, so that no two different
 * plans serialize to the same stream (e.g. ["ab","c"] versus ["a","bc"]). */
static void hash_field(plan_hasher *h, char tag, const char *text)
{
    uint64_t length = text ? strlen(text) : UINT64_MAX; /* NULL differs from "" */
    hash_bytes(h, &tag, 1);
    for (int shift = 0; shift < 64; shift += 8) /* byte order fixed, not the host's */
        hash_bytes(h, &(unsigned char){(unsigned char)(length >> shift)}, 1);
    if (text)
        hash_bytes(h, text, strlen(text));
}

static void hash_number(plan_hasher *h, char tag, uint64_t value)
{
    char text[32];
    snprintf(text, sizeof text, "%llu", (unsigned long long)value);
    hash_field(h, tag, text);
}

static void hash_variant(plan_hasher *h, const experiment_variant *v)
{
    hash_field(h, 'V', v->name);
    hash_number(h, 'c', v->n_command);
    for (size_t i = 0; i < v->n_command; i++)
        hash_field(h, 'w', v->command[i]);
    hash_number(h, 's', v->shell);
    hash_field(h, 'b', v->build);
    hash_field(h, 'd', v->cwd);
    hash_number(h, 'e', v->n_env);
    for (size_t i = 0; i < v->n_env; i++) {
        hash_field(h, 'k', v->env[i].name);
        hash_field(h, 'v', v->env[i].value);
    }
}

static void hash_budget(plan_hasher *h, const experiment *e)
{
    char seconds[32];
    hash_number(h, 'S', e->has_seed);
    hash_number(h, 's', e->has_seed ? e->seed : 0);
    hash_number(h, 'A', e->adaptive);
    hash_number(h, 'r', e->repetitions);
    hash_number(h, 'n', e->adaptive ? e->min_blocks : 0);
    hash_number(h, 'x', e->adaptive ? e->max_blocks : 0);
    snprintf(seconds, sizeof seconds, "%.17g", e->adaptive ? e->max_seconds : 0.0);
    hash_field(h, 't', seconds);
    hash_number(h, 'W', e->warmup);
}

uint64_t experiment_plan_hash(const experiment *e)
{
    plan_hasher h = {0xcbf29ce484222325ULL};
    hash_field(&h, '#', "verdict-plan/1"); /* bump when the serialization changes */
    hash_number(&h, 'P', e->n_parameters);
    for (size_t i = 0; i < e->n_parameters; i++) {
        hash_field(&h, 'p', e->parameters[i].name);
        hash_number(&h, 'n', e->parameters[i].n_values);
        for (size_t j = 0; j < e->parameters[i].n_values; j++)
            hash_field(&h, 'v', e->parameters[i].values[j]);
    }
    hash_number(&h, 'V', e->n_variants);
    for (size_t i = 0; i < e->n_variants; i++)
        hash_variant(&h, &e->variants[i]);
    hash_budget(&h, e);
    hash_number(&h, 'M', e->n_metrics);
    for (size_t i = 0; i < e->n_metrics; i++) {
        hash_field(&h, 'm', e->metrics[i].name);
        hash_field(&h, 'x', e->metrics[i].regex);
        hash_number(&h, 'h', e->metrics[i].higher_is_better);
    }
    /* What runs around the measurements changes what is measured. */
    hash_field(&h, 'u', e->setup);
    hash_field(&h, 'd', e->teardown);
    hash_field(&h, 'q', e->prepare);
    return h.state;
}

uint64_t experiment_text_hash(const experiment *e)
{
    plan_hasher h = {0xcbf29ce484222325ULL};
    if (e->text)
        hash_bytes(&h, e->text, e->text_length);
    return h.state;
}

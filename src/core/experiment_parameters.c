/* The parameters of an experiment file: lists of values or integer ranges (step or factor),
 * each name an identifier, the product of their sizes bounded so that no plan explodes. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/experiment_internal.h"

/* Guards against files (or fuzzers) that would expand into absurd plans. */
enum { MAX_VALUES_PER_PARAMETER = 100000, MAX_POINTS = 1000000 };

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

static int add_value(experiment_loader *l, experiment_parameter *p, struct fy_node *where,
                     char *value)
{
    if (value == NULL)
        return yaml_fail(&l->r, where, "out of memory");
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

typedef struct {
    const char *value;
    size_t index;
} listed_value;

static int compare_listed(const void *a, const void *b)
{
    const listed_value *x = a, *y = b;
    int c = strcmp(x->value, y->value);
    return c ? c : (x->index > y->index) - (x->index < y->index);
}

/* A list may not hold a value twice. Sorting finds the first repeat (in the file's order)
 * in O(n log n): comparing each value with all before it took 20 s for 100,000 values. */
static int check_duplicates(experiment_loader *l, const experiment_parameter *p,
                            struct fy_node *const *nodes)
{
    listed_value *sorted = calloc(p->n_values + 1, sizeof *sorted);
    if (sorted == NULL)
        return yaml_fail(&l->r, nodes[0], "out of memory");
    for (size_t i = 0; i < p->n_values; i++)
        sorted[i] = (listed_value){p->values[i], i};
    qsort(sorted, p->n_values, sizeof *sorted, compare_listed);
    size_t repeat = SIZE_MAX, first = 0;
    for (size_t i = 1; i < p->n_values; i++)
        if (strcmp(sorted[i - 1].value, sorted[i].value) == 0 && sorted[i].index < repeat) {
            repeat = sorted[i].index;
            first = sorted[i - 1].index;
        }
    free(sorted);
    if (repeat == SIZE_MAX)
        return 0;
    return yaml_fail(&l->r, nodes[repeat], "parameter %s lists the value '%s' twice", p->name,
                     p->values[first]);
}

static int read_value_list(experiment_loader *l, experiment_parameter *p, const yaml_field *f)
{
    /* Counted before anything is copied: 10^6 values are refused at once. */
    int count = fy_node_sequence_item_count(f->value);
    if (count > MAX_VALUES_PER_PARAMETER)
        return yaml_fail_field(&l->r, f, "parameter %s has %d values, more than %d", p->name,
                               count, MAX_VALUES_PER_PARAMETER);
    if (count <= 0)
        return yaml_fail_field(&l->r, f, "parameter %s has no values", p->name);
    struct fy_node **nodes = calloc((size_t)count, sizeof *nodes);
    if (nodes == NULL)
        return yaml_fail_field(&l->r, f, "out of memory");
    void *iter = NULL;
    struct fy_node *item;
    int rc = 0;
    while (rc == 0 && (item = fy_node_sequence_iterate(f->value, &iter)) != NULL) {
        size_t n;
        const char *text = yaml_scalar(item, &n);
        if (text == NULL)
            rc = yaml_fail(&l->r, item, "the values of parameter %s must be plain values",
                           p->name);
        else if ((rc = add_value(l, p, item, strndup(text, n))) == 0)
            nodes[p->n_values - 1] = item;
    }
    if (rc == 0)
        rc = check_duplicates(l, p, nodes);
    free(nodes);
    return rc;
}

typedef struct {
    int64_t from, to, step, factor;
    bool has_from, has_to, has_step, has_factor;
} range_spec;

static int range_from(experiment_loader *l, const yaml_field *f, void *target)
{
    range_spec *s = target;
    s->has_from = true;
    return yaml_int64(&l->r, f, &s->from);
}

static int range_to(experiment_loader *l, const yaml_field *f, void *target)
{
    range_spec *s = target;
    s->has_to = true;
    return yaml_int64(&l->r, f, &s->to);
}

static int range_step(experiment_loader *l, const yaml_field *f, void *target)
{
    range_spec *s = target;
    s->has_step = true;
    if (yaml_int64(&l->r, f, &s->step) != 0)
        return -1;
    return s->step > 0 ? 0 : yaml_fail_field(&l->r, f, "'step' must be a positive integer");
}

static int range_factor(experiment_loader *l, const yaml_field *f, void *target)
{
    range_spec *s = target;
    s->has_factor = true;
    if (yaml_int64(&l->r, f, &s->factor) != 0)
        return -1;
    return s->factor > 1 ? 0 : yaml_fail_field(&l->r, f, "'factor' must be an integer above 1");
}

static int check_range(experiment_loader *l, const yaml_field *f, const range_spec *s)
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

static int expand_range(experiment_loader *l, experiment_parameter *p, const yaml_field *f,
                        const range_spec *s)
{
    if (range_length(s) > MAX_VALUES_PER_PARAMETER)
        return yaml_fail_field(&l->r, f, "parameter %s has more than %d values", p->name,
                               MAX_VALUES_PER_PARAMETER);
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

static int read_range(experiment_loader *l, experiment_parameter *p, const yaml_field *f)
{
    static const experiment_key rules[] = {
        {"from", range_from, 1}, {"to", range_to, 1},
        {"step", range_step, 1}, {"factor", range_factor, 1},
    };
    range_spec s = {0};
    char where[96];
    snprintf(where, sizeof where, " in the range of parameter %.40s", p->name);
    if (loader_walk(l, f->value, rules, 4, where, &s) != 0 || check_range(l, f, &s) != 0)
        return -1;
    return expand_range(l, p, f, &s);
}

static int read_parameter(experiment_loader *l, const yaml_field *f)
{
    experiment *e = l->e;
    if (!is_identifier(f->key))
        return yaml_fail(&l->r, f->key_node,
                         "parameter name '%s' must be letters, digits and _ (not starting "
                         "with a digit)", f->key);
    if (strcmp(f->key, EXPERIMENT_TREE_PLACEHOLDER) == 0)
        return yaml_fail(&l->r, f->key_node, "a parameter may not be called '%s': {%s} is "
                         "the built tree of a variant's source", f->key, f->key);
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
    if (loader_is_sequence(f))
        return read_value_list(l, p, f);
    if (loader_is_mapping(f))
        return read_range(l, p, f);
    size_t n;
    const char *single = yaml_scalar(f->value, &n);
    if (single == NULL)
        return yaml_fail_field(&l->r, f, "parameter %s needs a list of values or a range "
                               "{from, to, step|factor}", f->key);
    return add_value(l, p, f->value, strndup(single, n));
}

int loader_read_parameters(experiment_loader *l, const yaml_field *f, void *target)
{
    (void)target;
    if (loader_need_mapping(l, f, "parameter name: list of values or range") != 0)
        return -1;
    void *iter = NULL;
    struct fy_node_pair *pair;
    size_t points = 1;
    while ((pair = fy_node_mapping_iterate(f->value, &iter)) != NULL) {
        yaml_field p;
        if (loader_read_key(l, pair, &p) != 0 || read_parameter(l, &p) != 0)
            return -1;
        points *= l->e->parameters[l->e->n_parameters - 1].n_values;
        if (points > MAX_POINTS)
            return yaml_fail(&l->r, p.key_node, "the parameters make more than %d points",
                             MAX_POINTS);
    }
    return 0;
}

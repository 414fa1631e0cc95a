/* Layout twins in the model: the `layouts:` key (top level and per variant), which variants
 * may have them, their seeds, and the units of a block (every layout of every variant). */
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"
#include "core/experiment_internal.h"

static int read_layouts(experiment_loader *l, const yaml_field *f, size_t *out)
{
    size_t k;
    if (yaml_count(&l->r, f, true, &k) != 0)
        return -1;
    if (k > EXPERIMENT_MAX_LAYOUTS)
        return yaml_fail_field(&l->r, f, "layouts: %zu is more than %d; 6 to 10 layouts "
                               "already measure the layout spread", k, EXPERIMENT_MAX_LAYOUTS);
    *out = k;
    return 0;
}

int loader_read_top_layouts(experiment_loader *l, const yaml_field *f, void *target)
{
    return read_layouts(l, f, &((experiment *)target)->layouts);
}

int loader_read_variant_layouts(experiment_loader *l, const yaml_field *f, void *target)
{
    experiment_variant *v = target;
    l->draft->layouts_node = f->key_node;
    return read_layouts(l, f, &v->n_layouts);
}

/* A variant's own layouts, or the top level's when it is built from a source. */
int loader_finish_layouts(experiment_loader *l, const yaml_field *f, experiment_variant *v,
                          const variant_draft *d)
{
    if (d->layouts_node && v->n_layouts > 1 && v->source.path == NULL)
        return yaml_fail(&l->r, d->layouts_node, "variant %s has 'layouts' but no 'source': "
                         "layout twins are links of a build verdict makes", v->name);
    if (d->layouts_node == NULL)
        v->n_layouts = v->source.path && l->e->layouts ? l->e->layouts : 1;
    (void)f;
    return 0;
}

/* Either every variant has layout twins or none: a comparison of K links against one
 * binary cannot tell layout from change. */
int loader_check_layouts(experiment_loader *l)
{
    const experiment *e = l->e;
    const experiment_variant *twins = NULL, *single = NULL;
    for (size_t i = 0; i < e->n_variants; i++) {
        if (e->variants[i].n_layouts > 1 && twins == NULL)
            twins = &e->variants[i];
        if (e->variants[i].n_layouts == 1 && single == NULL)
            single = &e->variants[i];
    }
    if (twins && single)
        return yaml_fail(&l->r, l->root, "variant %s has %zu layouts but %s has one%s: every "
                         "variant needs layout twins (at least 2) to compare across layouts",
                         twins->name, twins->n_layouts, single->name,
                         single->source.path ? "" : " (it has no 'source' to link again)");
    return 0;
}

size_t experiment_variant_layouts(const experiment_variant *v)
{
    return v->n_layouts ? v->n_layouts : 1;
}

const char *experiment_variant_tree(const experiment_variant *v, size_t layout)
{
    return v->n_layouts > 1 && v->layouts ? v->layouts[layout].tree : v->tree;
}

const char *experiment_variant_install(const experiment_variant *v, size_t layout)
{
    return v->n_layouts > 1 && v->layouts ? v->layouts[layout].install : v->install;
}

uint64_t experiment_layout_seed(const experiment *e, size_t k)
{
    /* lld reads the seed as a signed 64-bit number, and 0 and -1 mean "random" and
     * "reverse": keep it positive and above 0. */
    uint64_t seed = hash_mix64(hash_mix64(e->seed ^ 0x6c61796f757473ULL) + k) >> 2;
    return seed ? seed : 1;
}

size_t experiment_unit_count(const experiment *e)
{
    size_t n = 0;
    for (size_t i = 0; i < e->n_variants; i++)
        n += experiment_variant_layouts(&e->variants[i]);
    return n;
}

size_t experiment_unit_variant(const experiment *e, size_t unit, size_t *layout)
{
    size_t v = 0;
    for (; v + 1 < e->n_variants; v++) {
        size_t k = experiment_variant_layouts(&e->variants[v]);
        if (unit < k)
            break;
        unit -= k;
    }
    *layout = unit;
    return v;
}

size_t experiment_unit_index(const experiment *e, size_t variant, size_t layout)
{
    size_t u = 0;
    for (size_t i = 0; i < variant; i++)
        u += experiment_variant_layouts(&e->variants[i]);
    return u + layout;
}

void experiment_free_layouts(experiment_variant *v)
{
    for (size_t k = 0; v->layouts && k < v->n_layouts; k++) {
        free(v->layouts[k].tree);
        free(v->layouts[k].install);
    }
    free(v->layouts);
    v->layouts = NULL;
}

/* A variant's source (issue 13): `source: PATH` (a directory as it is on disk) or
 * `source: {git: REPOSITORY, ref: REF}`, and `patches: [FILE, ...]`, paths made absolute. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/array.h"
#include "core/experiment_internal.h"

/* An existing directory (symbolic links resolved). */
static int directory_path(experiment_loader *l, const yaml_field *f, const char *what,
                          char **out)
{
    struct stat st;
    if (loader_existing_path(l, f, what, out) != 0)
        return -1;
    if (stat(*out, &st) == 0 && S_ISDIR(st.st_mode))
        return 0;
    int rc = yaml_fail_field(&l->r, f, "%s '%s' is not a directory", what, *out);
    free(*out);
    *out = NULL;
    return rc;
}

static int source_git(experiment_loader *l, const yaml_field *f, void *target)
{
    experiment_source *s = target;
    return directory_path(l, f, "the git repository", &s->path);
}

static int source_ref(experiment_loader *l, const yaml_field *f, void *target)
{
    experiment_source *s = target;
    if (yaml_string(&l->r, f, "a commit, branch or tag", &s->ref) != 0)
        return -1;
    return s->ref[0] && s->ref[0] != '-'
               ? 0 : yaml_fail_field(&l->r, f, "'ref' must name a commit, branch or tag");
}

int loader_read_source(experiment_loader *l, const yaml_field *f, experiment_variant *v)
{
    static const experiment_key keys[] = {{"git", source_git, 1}, {"ref", source_ref, 1}};
    if (l->e->target->no_source)
        return loader_refuse_key(l, f, l->e->target->no_source);
    if (!loader_is_mapping(f))
        return directory_path(l, f, "source", &v->source.path);
    char where[80];
    snprintf(where, sizeof where, " in the source of variant %.40s", v->name);
    if (loader_walk(l, f->value, keys, ARRAY_SIZE(keys), where, &v->source) != 0)
        return -1;
    if (v->source.path == NULL || v->source.ref == NULL)
        return yaml_fail_field(&l->r, f, "the source of variant %s needs both 'git' (a "
                               "repository) and 'ref' (a commit, branch or tag)", v->name);
    return 0;
}

static int add_patch(experiment_loader *l, struct fy_node *item, experiment_source *s)
{
    yaml_field p = {.key = "patches", .key_node = NULL, .value = item};
    struct stat st;
    char *path = NULL;
    if (array_reserve((void **)&s->patches, &s->patches_capacity, s->n_patches + 1,
                      sizeof *s->patches) != 0)
        return yaml_fail(&l->r, item, "out of memory");
    if (loader_existing_path(l, &p, "patch", &path) != 0)
        return -1;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
        int rc = yaml_fail(&l->r, item, "patch '%s' is not a file", path);
        free(path);
        return rc;
    }
    s->patches[s->n_patches++] = path;
    return 0;
}

int loader_read_patches(experiment_loader *l, const yaml_field *f, experiment_variant *v)
{
    if (l->e->target->no_source)
        return loader_refuse_key(l, f, l->e->target->no_source);
    if (!loader_is_sequence(f))
        return yaml_fail_field(&l->r, f, "'patches' must be a list of patch files");
    void *iter = NULL;
    struct fy_node *item;
    while ((item = fy_node_sequence_iterate(f->value, &iter)) != NULL)
        if (add_patch(l, item, &v->source) != 0)
            return -1;
    return 0;
}

/* Patches and {tree} need a source; with one, there is a tree to name (but not in the
 * build, which runs in it). */
int loader_check_source(experiment_loader *l, const yaml_field *f, const experiment_variant *v)
{
    const experiment *e = l->e;
    /* The recipe is keyed before the tree has a path, and runs inside the tree. */
    if (experiment_names_tree(e, v->build))
        return yaml_fail(&l->r, f->key_node, "variant %s's build names {tree}, but the build "
                         "runs inside the tree: write . (or $PWD) instead", v->name);
    if (v->source.path)
        return 0;
    if (v->source.n_patches)
        return yaml_fail(&l->r, f->key_node, "variant %s has 'patches' but no 'source' to "
                         "apply them to", v->name);
    bool tree = experiment_names_tree(e, v->cwd);
    for (size_t i = 0; i < v->n_command; i++)
        tree |= experiment_names_tree(e, v->command[i]);
    for (size_t i = 0; i < v->n_env; i++)
        tree |= experiment_names_tree(e, v->env[i].value);
    if (tree)
        return yaml_fail(&l->r, f->key_node, "variant %s names {tree}, the built tree of a "
                         "'source', but has no 'source'", v->name);
    return 0;
}

void loader_free_source(experiment_source *s)
{
    free(s->path);
    free(s->ref);
    for (size_t i = 0; i < s->n_patches; i++)
        free(s->patches[i]);
    free(s->patches);
    memset(s, 0, sizeof *s);
}

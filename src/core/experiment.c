/* Reads an experiment file into the model: the top-level keys and the target's, defaults,
 * relative paths resolved against the file, and FILE:LINE:COLUMN for whatever is wrong. */
#include "core/experiment.h"

#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/array.h"
#include "common/error.h"
#include "core/profile.h"
#include "core/experiment_internal.h"

/* ---- the generic top-level keys ---- */

static int helper_key(experiment_loader *l, const yaml_field *f, const char *context,
                      experiment_helper *out)
{
    if (l->e->target->no_helpers)
        return loader_refuse_key(l, f, l->e->target->no_helpers);
    out->shell = true;
    return loader_read_template(l, f, context, LOADER_SHARED_TEXT, &out->line);
}

static int top_setup(experiment_loader *l, const yaml_field *f, void *target)
{
    return helper_key(l, f, "'setup'", &((experiment *)target)->setup);
}

static int top_teardown(experiment_loader *l, const yaml_field *f, void *target)
{
    return helper_key(l, f, "'teardown'", &((experiment *)target)->teardown);
}

static int top_prepare(experiment_loader *l, const yaml_field *f, void *target)
{
    return helper_key(l, f, "'prepare'", &((experiment *)target)->prepare);
}

static int top_name(experiment_loader *l, const yaml_field *f, void *target)
{
    experiment *e = target;
    free(e->name);
    e->name = NULL;
    if (yaml_string(&l->r, f, "a string", &e->name) != 0)
        return -1;
    return e->name[0] ? 0 : yaml_fail_field(&l->r, f, "'name' is empty");
}

static int top_seed(experiment_loader *l, const yaml_field *f, void *target)
{
    experiment *e = target;
    e->has_seed = true;
    return yaml_u64(&l->r, f, &e->seed);
}

static int top_command(experiment_loader *l, const yaml_field *f, void *target)
{
    (void)target;
    if (l->e->target->no_command)
        return loader_refuse_key(l, f, l->e->target->no_command);
    l->command = *f;
    l->has_command = true;
    return 0;
}

static int top_shell(experiment_loader *l, const yaml_field *f, void *target)
{
    (void)target;
    if (l->e->target->no_command)
        return loader_refuse_key(l, f, l->e->target->no_command);
    return yaml_bool(&l->r, f, &l->shell);
}

static int top_env(experiment_loader *l, const yaml_field *f, void *target)
{
    (void)target;
    if (l->e->target->no_process)
        return loader_refuse_key(l, f, l->e->target->no_process);
    return loader_read_env(l, f, "the top-level", &l->env, &l->n_env);
}

static int top_cwd(experiment_loader *l, const yaml_field *f, void *target)
{
    (void)target;
    if (l->e->target->no_process)
        return loader_refuse_key(l, f, l->e->target->no_process);
    return loader_read_template(l, f, "the top-level cwd", LOADER_VARIANT_TEXT, &l->cwd);
}

static int top_confidence(experiment_loader *l, const yaml_field *f, void *target)
{
    return yaml_fraction(&l->r, f, 0, 1, true, "a level such as 0.95 or \"95%\"",
                         &((experiment *)target)->confidence);
}

static int top_margin(experiment_loader *l, const yaml_field *f, void *target)
{
    return yaml_fraction(&l->r, f, 0, 1, false, "a fraction such as 0.01 or \"1%\"",
                         &((experiment *)target)->margin);
}

/* `method:` names the comparison as --method does; `quantile:` is that method's, and
 * implies it (another method beside it is refused where the two meet, in fill_defaults). */
static int top_method(experiment_loader *l, const yaml_field *f, void *target)
{
    static const comparison_method methods[] = {METHOD_WILCOXON, METHOD_WELCH, METHOD_BOOTSTRAP,
                                                METHOD_QUANTILE};
    const char *names[ARRAY_SIZE(methods)];
    for (size_t i = 0; i < ARRAY_SIZE(methods); i++)
        names[i] = comparison_method_option(methods[i]);
    int which;
    if (yaml_choice(&l->r, f, names, ARRAY_SIZE(names), &which) != 0)
        return -1;
    ((experiment *)target)->method = methods[which];
    l->method_key = f->key_node;
    return 0;
}

static int top_quantile(experiment_loader *l, const yaml_field *f, void *target)
{
    l->quantile_key = f->key_node;
    return yaml_fraction(&l->r, f, 0, 1, true, "a quantile strictly between 0 and 1, such as "
                         "0.1 or \"10%\"", &((experiment *)target)->quantile);
}

/* The quantile method's conditions: `quantile:` only with it (and it implies it), and no
 * layout twins (their comparison is of one location per layout, not of runs). */
static int check_method(experiment_loader *l)
{
    experiment *e = l->e;
    if (l->quantile_key && l->method_key && e->method != METHOD_QUANTILE)
        return yaml_fail(&l->r, l->quantile_key, "'quantile' is the quantile method's, and "
                         "'method: %s' compares no quantile (use 'method: quantile' or leave "
                         "'method' out)", comparison_method_option(e->method));
    if (l->quantile_key)
        e->method = METHOD_QUANTILE;
    e->method_given = l->method_key != NULL || l->quantile_key != NULL;
    for (size_t i = 0; e->method == METHOD_QUANTILE && i < e->n_variants; i++)
        if (e->variants[i].n_layouts > 1)
            return yaml_fail(&l->r, l->method_key ? l->method_key : l->quantile_key,
                             "'method: quantile' does not compare across layout twins "
                             "(variant %s has %zu layouts): use 'method: wilcoxon' or 'welch'",
                             e->variants[i].name, e->variants[i].n_layouts);
    return 0;
}

static int top_reserve(experiment_loader *l, const yaml_field *f, void *target)
{
    l->reserve_key = f->key_node;
    return yaml_fraction(&l->r, f, 0, 0.9, false, "a share of alpha such as 0.2 or \"20%\"",
                         &((experiment *)target)->reserve_for_more);
}

static int top_warmup(experiment_loader *l, const yaml_field *f, void *target)
{
    return yaml_count(&l->r, f, false, &((experiment *)target)->warmup);
}

static int top_timeout(experiment_loader *l, const yaml_field *f, void *target)
{
    if (l->e->target->no_process)
        return loader_refuse_key(l, f, l->e->target->no_process);
    return yaml_duration(&l->r, f, &((experiment *)target)->timeout);
}

const char *experiment_machines_name(machines_mode mode)
{
    return mode == MACHINES_SURVEY ? "survey" : mode == MACHINES_SHARE ? "share" : "one";
}

/* A shared plan splits fixed blocks among machines; adaptive looks would need every
 * machine to see every block as it is taken, so they are refused (checked in fill_defaults). */
static int top_machines(experiment_loader *l, const yaml_field *f, void *target)
{
    static const char *const names[] = {"one", "survey", "share"};
    int which;
    if (yaml_choice(&l->r, f, names, ARRAY_SIZE(names), &which) != 0)
        return -1;
    ((experiment *)target)->machines = (machines_mode)which;
    l->machines_key = f->key_node;
    return 0;
}

const char *experiment_counters_name(experiment_counters counters)
{
    return counters == EXPERIMENT_COUNTERS_VALGRIND ? "valgrind" : "perf";
}

/* Read before the metrics (pass 0): which counters a name can be depends on it. */
static int top_counters(experiment_loader *l, const yaml_field *f, void *target)
{
    static const char *const names[] = {"perf", "valgrind"};
    if (!l->e->target->counters && !l->e->target->counters_key)
        return loader_refuse_key(l, f, "its runs are not counted (docs/metrics.md)");
    int which;
    if (yaml_choice(&l->r, f, names, ARRAY_SIZE(names), &which) != 0)
        return -1;
    if (which == EXPERIMENT_COUNTERS_VALGRIND && l->e->target->no_valgrind != NULL)
        return yaml_fail_field(&l->r, f, "'counters: valgrind' with 'target: %s': %s",
                               l->e->target->name, l->e->target->no_valgrind);
    ((experiment *)target)->counters = (experiment_counters)which;
    ((experiment *)target)->counters_given = true;
    return 0;
}

const char *experiment_profile_event(const experiment *e)
{
    return e->profile_event ? e->profile_event : PROFILE_DEFAULT_EVENT;
}

/* Profiled runs are the target's to make (a command under perf record; docs/profiles.md). */
static int top_profile(experiment_loader *l, const yaml_field *f, void *target)
{
    if (l->e->target->profile == NULL)
        return loader_refuse_key(l, f, "its runs cannot be profiled yet (docs/profiles.md)");
    l->profile_key = f->key_node;
    return yaml_bool(&l->r, f, &((experiment *)target)->profile);
}

static int top_profile_event(experiment_loader *l, const yaml_field *f, void *target)
{
    experiment *e = target;
    l->profile_key = f->key_node;
    free(e->profile_event);
    e->profile_event = NULL;
    if (yaml_string(&l->r, f, "perf's event, such as cpu-clock or cycles", &e->profile_event) != 0)
        return -1;
    if (e->profile_event[0] == '\0' || strspn(e->profile_event, "abcdefghijklmnopqrstuvwxyz"
                                               "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") !=
                                            strlen(e->profile_event))
        return yaml_fail_field(&l->r, f, "'profile_event' is perf's name of an event, such as "
                               "cpu-clock or cycles");
    return 0;
}

/* Read first (pass 0), so that every other key knows which target it serves. */
static int top_target(experiment_loader *l, const yaml_field *f, void *target)
{
    experiment *e = target;
    const char *names[16];
    size_t n = l->targets->n < ARRAY_SIZE(names) ? l->targets->n : ARRAY_SIZE(names);
    for (size_t i = 0; i < n; i++)
        names[i] = l->targets->kinds[i]->name;
    int which;
    if (yaml_choice(&l->r, f, names, n, &which) != 0)
        return -1;
    e->target = l->targets->kinds[which];
    l->target_key = f->key_node;
    return 0;
}

static const experiment_key generic_top_keys[] = {
    {"name", top_name, 1},           {"seed", top_seed, 1},
    {"repetitions", loader_read_repetitions, 1}, {"adaptive", loader_read_adaptive, 1},
    {"parameters", loader_read_parameters, 0}, {"variants", loader_read_variants, 2},
    {"command", top_command, 1},     {"shell", top_shell, 1},
    {"env", top_env, 1},             {"cwd", top_cwd, 1},
    {"metrics", loader_read_metrics, 1}, {"confidence", top_confidence, 1},
    {"margin", top_margin, 1},       {"reserve_for_more", top_reserve, 1},       {"warmup", top_warmup, 1},
    {"timeout", top_timeout, 1},     {"on_failure", loader_read_on_failure, 1},
    {"setup", top_setup, 1},         {"teardown", top_teardown, 1},
    {"prepare", top_prepare, 1},     {"target", top_target, 0},
    {"layouts", loader_read_top_layouts, 1}, {"machines", top_machines, 1},
    {"counters", top_counters, 0},
    {"profile", top_profile, 1},     {"profile_event", top_profile_event, 1},
    {"method", top_method, 1},       {"quantile", top_quantile, 1},
};

enum { MAX_TOP_KEYS = 48 };

/* ---- whole files ---- */

void experiment_init(experiment *e)
{
    memset(e, 0, sizeof *e);
    e->adaptive = true;
    e->min_blocks = 10;
    e->max_blocks = 100;
    e->spending = STOPPING_DEFAULT_SPENDING;
    e->warmup = 1;
    e->confidence = 0.95;
    e->margin = 0.01;
    e->on_failure = FAILURE_ABORT;
}

stopping_rule experiment_stopping_rule(const experiment *e)
{
    stopping_rule rule = stopping_rule_growth(e->min_blocks, e->max_blocks, e->spending);
    rule.looks = e->looks;
    rule.n_looks = e->n_looks;
    rule.reserve = e->adaptive ? e->reserve_for_more : 0.0;
    rule.extensions = e->extended_to;
    rule.n_extensions = e->n_extended;
    return rule;
}

bool experiment_reserve_given(const experiment *e)
{
    return e->reserve_for_more != (e->adaptive ? 0.0 : EXPERIMENT_DEFAULT_RESERVE);
}

int experiment_set_looks(experiment *e, const char *looks, const char *spending,
                         verdict_error *err)
{
    if (spending && spending_from_name(spending, &e->spending, err) != 0)
        return error_prefix(err, "--spending");
    if (looks == NULL)
        return 0;
    free(e->looks);
    e->looks = NULL;
    if (stopping_parse_looks(looks, &e->looks, &e->n_looks, err) != 0)
        return -1;
    e->min_blocks = e->looks[0];
    e->max_blocks = e->looks[e->n_looks - 1];
    return 0;
}

size_t experiment_blocks(const experiment *e)
{
    return (e->adaptive ? e->max_blocks : e->repetitions) + e->more_blocks;
}

/* "examples/spin-demo.yaml" is named "spin-demo" unless the file says otherwise. */
static char *name_from_path(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strcspn(base, ".");
    return n ? strndup(base, n) : strdup("experiment");
}

/* The target is known before the other keys are read: 'target:' itself, read alone. */
static int choose_target(experiment_loader *l)
{
    void *iter = NULL;
    struct fy_node_pair *pair;
    l->e->target = l->targets->kinds[0];
    while ((pair = fy_node_mapping_iterate(l->root, &iter)) != NULL) {
        yaml_field f;
        if (loader_read_key(l, pair, &f) != 0)
            return -1;
        if (strcmp(f.key, "target") == 0)
            return top_target(l, &f, l->e);
    }
    return 0;
}

/* Generic keys and the target's; keys of the other targets are named as such. */
static int check_other_targets_keys(experiment_loader *l)
{
    void *iter = NULL;
    struct fy_node_pair *pair;
    const target_kind *mine = l->e->target;
    while ((pair = fy_node_mapping_iterate(l->root, &iter)) != NULL) {
        yaml_field f;
        if (loader_read_key(l, pair, &f) != 0)
            return -1;
        const target_kind *owner = loader_owner_of(l, f.key, false);
        bool own = false;
        for (size_t i = 0; i < mine->n_top_keys; i++)
            own |= strcmp(mine->top_keys[i].key, f.key) == 0;
        if (owner && !own)
            return yaml_fail(&l->r, f.key_node, "'%s' is only allowed with 'target: %s'", f.key,
                             owner->name);
    }
    return 0;
}

static int walk_top(experiment_loader *l)
{
    experiment_key table[MAX_TOP_KEYS];
    size_t n = 0;
    for (size_t i = 0; i < ARRAY_SIZE(generic_top_keys); i++)
        table[n++] = generic_top_keys[i];
    for (size_t i = 0; i < l->e->target->n_top_keys && n < MAX_TOP_KEYS; i++)
        table[n++] = l->e->target->top_keys[i];
    if (check_other_targets_keys(l) != 0)
        return -1;
    if (l->e->target->begin_file && l->e->target->begin_file(l) != 0)
        return -1;
    return loader_walk(l, l->root, table, n, "", l->e);
}

static int fill_defaults(experiment_loader *l)
{
    experiment *e = l->e;
    if (!l->has_variants)
        return yaml_fail(&l->r, l->root, "no variants: add 'variants:' with at least one "
                         "variant and its command");
    if (e->name == NULL && (e->name = name_from_path(e->path)) == NULL)
        return yaml_fail(&l->r, l->root, "out of memory");
    if (e->target->finish_file && e->target->finish_file(l) != 0)
        return -1;
    if (loader_check_layouts(l) != 0 || check_method(l) != 0)
        return -1;
    /* an adaptive plan's looks spend all of alpha unless the file keeps some for --more:
     * the published boundaries by default, and the plans stored before it could */
    if (e->adaptive && !l->reserve_key)
        e->reserve_for_more = 0;
    if (e->machines == MACHINES_SHARE && e->adaptive)
        return yaml_fail(&l->r, l->machines_key, "'machines: share' needs a fixed "
                         "'repetitions': adaptive looks need every block of a point in one "
                         "place as it is taken");
    if (e->profile && e->machines == MACHINES_SHARE)
        return yaml_fail(&l->r, l->profile_key, "'profile: true' is not made with 'machines: "
                         "share' yet: profile on one machine (docs/profiles.md)");
    if (e->profile_event && !e->profile)
        return yaml_fail(&l->r, l->profile_key, "'profile_event' chooses what profiled runs "
                         "sample: add 'profile: true'");
    return loader_default_metric(l);
}

static int parse_document(experiment_loader *l, struct fy_document *doc)
{
    l->root = fy_document_root(doc);
    if (l->root == NULL || fy_node_is_alias(l->root) || !fy_node_is_mapping(l->root))
        return yaml_fail(&l->r, l->root, "an experiment file is a mapping of keys (name, "
                         "parameters, variants, metrics, ...)");
    if (choose_target(l) != 0 || walk_top(l) != 0)
        return -1;
    return fill_defaults(l);
}

/* directory: what relative paths are relative to (NULL: the current directory). */
static int parse_in(const char *name, const char *text, size_t length, const char *directory,
                    const target_table *targets, experiment *out, verdict_error *err)
{
    experiment_init(out);
    out->reserve_for_more = EXPERIMENT_DEFAULT_RESERVE;
    if (targets == NULL || targets->n == 0) {
        error_set(err, ERROR_INTERNAL, "%s: internal: no targets to read the experiment for", name);
        return -1;
    }
    out->path = strdup(name);
    out->text = malloc(length + 1);
    if (out->path == NULL || out->text == NULL) {
        error_set(err, ERROR_NO_MEMORY, "%s: out of memory", name);
        experiment_free(out);
        return -1;
    }
    memcpy(out->text, text, length);
    out->text[length] = '\0';
    out->text_length = length;
    experiment_loader l = {.r = {name, err}, .e = out, .targets = targets,
                           .base = directory};
    yaml_source source;
    int rc = yaml_open(&l.r, text, length, &source);
    if (rc == 0) {
        rc = parse_document(&l, source.document);
        yaml_close(&source);
    }
    loader_free_pairs(l.env, l.n_env);
    free(l.cwd);
    if (rc != 0)
        experiment_free(out);
    return rc;
}

int experiment_parse(const char *name, const char *text, size_t length,
                     const target_table *targets, experiment *out, verdict_error *err)
{
    return parse_in(name, text, length, NULL, targets, out, err);
}

static int read_file(const char *path, char **text, size_t *length, verdict_error *err)
{
    enum { MAX_FILE = 16 << 20 };
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        error_set(err, ERROR_USAGE, "%s: cannot read: %s", path, strerror(errno));
        return -1;
    }
    char *buf = malloc(MAX_FILE + 1);
    size_t n = buf ? fread(buf, 1, MAX_FILE + 1, f) : 0;
    int failed = buf == NULL || ferror(f);
    fclose(f);
    if (failed || n > MAX_FILE) {
        error_set(err, ERROR_USAGE, "%s: cannot read: %s", path,
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

/* Parses with paths relative to directory (taken: freed on failure, kept on success). */
static int parse_owning_directory(const char *name, const char *text, size_t length,
                                  char *directory, const target_table *targets,
                                  experiment *out, verdict_error *err)
{
    int rc = parse_in(name, text, length, directory, targets, out, err);
    if (rc == 0)
        out->directory = directory;
    else
        free(directory);
    if (rc == 0 && resolve_directories(out) != 0) {
        error_set(err, ERROR_USAGE, "%s: cannot resolve the directory: %s", name, strerror(errno));
        experiment_free(out);
        rc = -1;
    }
    return rc;
}

int experiment_parse_in(const char *name, const char *text, size_t length, const char *directory,
                        const target_table *targets, experiment *out, verdict_error *err)
{
    memset(out, 0, sizeof *out);
    char *full = realpath(directory, NULL);
    if (full == NULL) {
        error_set(err, ERROR_USAGE, "%s: cannot resolve the directory %s: %s", name, directory,
                  strerror(errno));
        return -1;
    }
    return parse_owning_directory(name, text, length, full, targets, out, err);
}

int experiment_load(const char *path, const target_table *targets, experiment *out,
                    verdict_error *err)
{
    char *text = NULL;
    size_t length = 0;
    memset(out, 0, sizeof *out);
    if (read_file(path, &text, &length, err) != 0)
        return -1;
    /* Known before parsing: paths in the file are resolved against it. */
    char *directory = directory_of(path);
    int rc = -1;
    if (directory == NULL)
        error_set(err, ERROR_USAGE, "%s: cannot resolve the file's directory: %s", path,
                  strerror(errno));
    else
        rc = parse_owning_directory(path, text, length, directory, targets, out, err);
    free(text);
    return rc;
}

void experiment_free(experiment *e)
{
    free(e->looks);
    free(e->profile_event);
    for (size_t i = 0; i < e->n_parameters; i++) {
        free(e->parameters[i].name);
        for (size_t j = 0; j < e->parameters[i].n_values; j++)
            free(e->parameters[i].values[j]);
        free(e->parameters[i].values);
    }
    for (size_t i = 0; i < e->n_variants; i++)
        loader_free_variant(e, &e->variants[i]);
    for (size_t i = 0; i < e->n_metrics; i++) {
        free(e->metrics[i].name);
        free(e->metrics[i].regex);
    }
    if (e->target && e->target->free_options)
        e->target->free_options(e);
    free(e->parameters);
    free(e->variants);
    free(e->metrics);
    free(e->path);
    free(e->directory);
    free(e->text);
    free(e->name);
    free(e->setup.line);
    free(e->teardown.line);
    free(e->prepare.line);
    memset(e, 0, sizeof *e);
}

void experiment_remove_variant(experiment *e, size_t v)
{
    assert(v < e->n_variants);
    loader_free_variant(e, &e->variants[v]);
    memmove(&e->variants[v], &e->variants[v + 1],
            (e->n_variants - v - 1) * sizeof e->variants[0]);
    e->n_variants--;
}

int experiment_move_variant(experiment *into, experiment *from, size_t v, verdict_error *err)
{
    assert(v < from->n_variants && into->target == from->target);
    experiment_variant *grown = realloc(into->variants,
                                        (into->n_variants + 1) * sizeof *grown);
    if (grown == NULL)
        return error_no_memory(err);
    into->variants = grown;
    into->variants[into->n_variants++] = from->variants[v];
    memmove(&from->variants[v], &from->variants[v + 1],
            (from->n_variants - v - 1) * sizeof from->variants[0]);
    from->n_variants--;
    return 0;
}

bool experiment_has_sources(const experiment *e)
{
    for (size_t v = 0; v < e->n_variants; v++)
        if (e->variants[v].source.path)
            return true;
    return false;
}

long experiment_variant_index(const experiment *e, const char *name)
{
    for (size_t v = 0; v < e->n_variants; v++)
        if (strcmp(e->variants[v].name, name) == 0)
            return (long)v;
    return -1;
}

long experiment_metric_index(const experiment *e, const char *name)
{
    for (size_t m = 0; m < e->n_metrics; m++)
        if (strcmp(e->metrics[m].name, name) == 0)
            return (long)m;
    return -1;
}

const target_metric *target_find_metric(const target_kind *kind, const char *name)
{
    for (size_t i = 0; kind && i < kind->n_metrics; i++)
        if (strcmp(kind->metrics[i].name, name) == 0)
            return &kind->metrics[i];
    return NULL;
}

/* Metrics (the target's builtins or named extractions with their direction), the budget
 * (repetitions or an adaptive one) and the failure policy of an experiment file. */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/experiment_internal.h"
#include "common/array.h"
#include "common/edit_distance.h"
#include "common/error.h"
#include "core/metrics.h"
#include "core/regex_budget.h"


typedef struct {
    char *name, *regex;
    int better; /* -1 unset, 0 lower, 1 higher */
    struct fy_node *better_node;
} metric_draft;

/* 1 for a builtin of this experiment's target that is better when higher (tps), 0 for one
 * better when lower, -1 for a name that is no builtin of the target. */
static int builtin_direction(const experiment_loader *l, const char *name)
{
    const target_metric *m = target_find_metric(l->e->target, name);
    return m ? m->higher_is_better : -1;
}

/* "wall, user, sys, cpu, maxrss" for the messages. */
static void builtin_names(const experiment_loader *l, char *out, size_t size)
{
    const target_kind *k = l->e->target;
    out[0] = '\0';
    for (size_t i = 0; i < k->n_metrics; i++)
        snprintf(out + strlen(out), size - strlen(out), "%s%s", i ? ", " : "", k->metrics[i].name);
}

/* The target's builtin nearest to a mistyped name (a long list, as PostgreSQL's counters
 * per transaction, is cut short in a message: the suggestion comes first). */
static const char *closest_builtin(const experiment_loader *l, const char *name)
{
    const target_kind *k = l->e->target;
    const char *names[128];
    size_t n = 0;
    for (size_t i = 0; i < k->n_metrics && n < ARRAY_SIZE(names); i++)
        names[n++] = k->metrics[i].name;
    return edit_distance_closest(name, names, n, strlen(name) > 5 ? 2 : 1); /* tps is no sys */
}

static int metric_name(experiment_loader *l, const yaml_field *f, void *target)
{
    return yaml_string(&l->r, f, "a name", &((metric_draft *)target)->name);
}

static int metric_regex(experiment_loader *l, const yaml_field *f, void *target)
{
    metric_draft *m = target;
    if (yaml_string(&l->r, f, "a POSIX extended regular expression", &m->regex) != 0)
        return -1;
    verdict_error why = {0};
    regex_t compiled;
    regex_outcome outcome = regex_compile(&compiled, m->regex, 0, &why);
    if (outcome == REGEX_OVER_BUDGET)
        return yaml_fail_field(&l->r, f, "metric regex refused: %s", why.message);
    if (outcome == REGEX_INVALID)
        return yaml_fail_field(&l->r, f, "metric regex '%s' does not compile: %s", m->regex,
                               why.message);
    size_t groups = compiled.re_nsub;
    regfree(&compiled);
    if (groups == 0)
        return yaml_fail_field(&l->r, f, "metric regex '%s' has no capture group: put the "
                               "number in ( )", m->regex);
    return 0;
}

static int metric_better(experiment_loader *l, const yaml_field *f, void *target)
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

/* A name that is neither builtin nor an extraction: a counter, where the target counts them
 * (1 with its direction in *better), or -1 with the reason, which names every counter. */
static int check_counter(experiment_loader *l, struct fy_node *where, const char *name,
                         const char *builtins, int *better)
{
    perf_counters_metric counter;
    verdict_error why = {0};
    if (metric_counter_parse(name, l->e->counters, &counter, &why) == 0) {
        *better = *better >= 0 ? *better : metric_counter_higher_is_better(&counter);
        return 1;
    }
    size_t length = strcspn(name, ":");
    char base[64];
    snprintf(base, sizeof base, "%.*s", (int)(length < 63 ? length : 63), name);
    bool is_counter = perf_counters_event_find(base) != NULL;
    for (size_t i = 0; i < perf_counters_derived_count(); i++)
        is_counter |= strcmp(base, perf_counters_derived_at(i)->name) == 0;
    if (is_counter) /* a bad modifier, or one that cachegrind cannot count */
        return yaml_fail(&l->r, where, "metric '%s': %s", name, why.message);
    char counters[512];
    perf_counters_names(counters, sizeof counters);
    return yaml_fail(&l->r, where, "unknown metric '%s' (builtins: %s; counters: %s%s)", name,
                     builtins, counters,
                     l->e->target->regex_metrics ? "; or give a 'regex' to extract it" : "");
}

static int check_metric(experiment_loader *l, struct fy_node *where, metric_draft *m)
{
    if (m->name == NULL || m->name[0] == '\0')
        return yaml_fail(&l->r, where, "a metric needs a 'name'");
    bool builtin = builtin_direction(l, m->name) >= 0;
    if (builtin && m->regex)
        return yaml_fail(&l->r, where, "'%s' is a builtin metric: give the extraction another "
                         "name", m->name);
    char names[1024];
    builtin_names(l, names, sizeof names);
    bool counted = l->e->target->counters;
    if (counted && !builtin && m->regex == NULL &&
        check_counter(l, where, m->name, names, &m->better) < 0)
        return -1;
    verdict_error why = {0};
    if (counted && builtin && metric_check_counted_by(m->name, l->e->counters, &why) != 0)
        return yaml_fail(&l->r, where, "%s", why.message);
    if (!builtin && m->regex == NULL && !counted) {
        const char *closest = closest_builtin(l, m->name);
        return yaml_fail(&l->r, where, "unknown metric '%s' (%s%s%sbuiltins: %s%s)", m->name,
                         closest ? "did you mean '" : "", closest ? closest : "",
                         closest ? "'? " : "", names,
                         l->e->target->regex_metrics ? "; or give a 'regex' to extract it" : "");
    }
    if (m->regex && !l->e->target->regex_metrics)
        return yaml_fail(&l->r, where, "metric '%s': 'target: %s' has no output to extract "
                         "numbers from (builtins: %s)", m->name, l->e->target->name, names);
    /* A wrong direction silently turns "better" into "worse": no guessing for extractions. */
    if (!builtin && m->better < 0)
        return yaml_fail(&l->r, where, "metric '%s' needs 'better: higher' or 'better: lower'",
                         m->name);
    for (size_t i = 0; i < l->e->n_metrics; i++)
        if (strcmp(l->e->metrics[i].name, m->name) == 0)
            return yaml_fail(&l->r, where, "duplicate metric '%s'", m->name);
    return 0;
}

static int add_metric(experiment_loader *l, struct fy_node *where, metric_draft *m)
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

static int read_metric(experiment_loader *l, struct fy_node *item)
{
    static const experiment_key rules[] = {
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
        rc = loader_walk(l, item, rules, 3, " in a metric", &m);
        if (rc == 0)
            rc = add_metric(l, item, &m);
    } else {
        char names[1024];
        builtin_names(l, names, sizeof names);
        rc = yaml_fail(&l->r, item, "a metric is a builtin name (%s) or {name: ..., regex: ..., "
                       "better: higher|lower}", names);
    }
    free(m.name);
    free(m.regex);
    return rc;
}

int loader_read_metrics(experiment_loader *l, const yaml_field *f, void *target)
{
    (void)target;
    if (!loader_is_sequence(f))
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

static int adaptive_min(experiment_loader *l, const yaml_field *f, void *target)
{
    return yaml_count(&l->r, f, true, &((experiment *)target)->min_blocks);
}

static int adaptive_max(experiment_loader *l, const yaml_field *f, void *target)
{
    return yaml_count(&l->r, f, true, &((experiment *)target)->max_blocks);
}

static int adaptive_time(experiment_loader *l, const yaml_field *f, void *target)
{
    return yaml_duration(&l->r, f, &((experiment *)target)->max_seconds);
}

static int adaptive_spending(experiment_loader *l, const yaml_field *f, void *target)
{
    static const char *const names[] = {"obrien-fleming", "pocock", "equal"};
    int kind;
    if (yaml_choice(&l->r, f, names, 3, &kind) != 0)
        return -1;
    ((experiment *)target)->spending = (spending_kind)kind;
    return 0;
}

/* looks: [10, 20, 30]: the planned looks' block counts, increasing. */
static int adaptive_looks(experiment_loader *l, const yaml_field *f, void *target)
{
    experiment *e = target;
    if (f->value == NULL || fy_node_get_type(f->value) != FYNT_SEQUENCE)
        return yaml_fail_field(&l->r, f, "'looks' must be a list of block counts, such as "
                               "[10, 20, 30]");
    int count = fy_node_sequence_item_count(f->value);
    if (count <= 0 || count > STOPPING_MAX_LOOKS)
        return yaml_fail_field(&l->r, f, "'looks' lists %d block counts: give 1 to %d", count,
                               STOPPING_MAX_LOOKS);
    free(e->looks);
    e->n_looks = 0;
    if ((e->looks = calloc((size_t)count, sizeof *e->looks)) == NULL)
        return yaml_fail_field(&l->r, f, "out of memory");
    void *iter = NULL;
    struct fy_node *item;
    while ((item = fy_node_sequence_iterate(f->value, &iter)) != NULL) {
        yaml_field one = {.key_node = f->key_node, .value = item};
        snprintf(one.key, sizeof one.key, "looks");
        if (yaml_count(&l->r, &one, true, &e->looks[e->n_looks]) != 0)
            return -1;
        if (e->n_looks > 0 && e->looks[e->n_looks] <= e->looks[e->n_looks - 1])
            return yaml_fail(&l->r, item, "'looks' must increase: %zu follows %zu",
                             e->looks[e->n_looks], e->looks[e->n_looks - 1]);
        e->n_looks++;
    }
    return 0;
}

int loader_read_adaptive(experiment_loader *l, const yaml_field *f, void *target)
{
    static const experiment_key rules[] = {
        {"min_blocks", adaptive_min, 1}, {"max_blocks", adaptive_max, 1},
        {"max_time", adaptive_time, 1},  {"looks", adaptive_looks, 1},
        {"spending", adaptive_spending, 1},
    };
    experiment *e = target;
    if (l->has_repetitions)
        return yaml_fail(&l->r, f->key_node, "give either 'repetitions' or 'adaptive', not both");
    l->has_adaptive = true;
    if (loader_need_mapping(l, f, "min_blocks, max_blocks, max_time, looks, spending") != 0 ||
        loader_walk(l, f->value, rules, 5, " in 'adaptive'", e) != 0)
        return -1;
    if (e->looks != NULL) {
        /* the looks name the first and the last block counts themselves */
        if (fy_node_mapping_lookup_by_string(f->value, "min_blocks", FY_NT) ||
            fy_node_mapping_lookup_by_string(f->value, "max_blocks", FY_NT))
            return yaml_fail_field(&l->r, f, "give either 'looks' or min_blocks and "
                                   "max_blocks, not both: the looks' first and last block "
                                   "counts are the minimum and the maximum");
        e->min_blocks = e->looks[0];
        e->max_blocks = e->looks[e->n_looks - 1];
    }
    if (e->min_blocks > e->max_blocks)
        return yaml_fail_field(&l->r, f, "adaptive min_blocks %zu is above max_blocks %zu",
                               e->min_blocks, e->max_blocks);
    return 0;
}

int loader_read_repetitions(experiment_loader *l, const yaml_field *f, void *target)
{
    experiment *e = target;
    if (l->has_adaptive)
        return yaml_fail(&l->r, f->key_node, "give either 'repetitions' or 'adaptive', not both");
    l->has_repetitions = true;
    e->adaptive = false;
    e->min_blocks = e->max_blocks = 0;
    return yaml_count(&l->r, f, true, &e->repetitions);
}

static int failure_retry(experiment_loader *l, const yaml_field *f, void *target)
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

int loader_read_on_failure(experiment_loader *l, const yaml_field *f, void *target)
{
    static const experiment_key rules[] = {{"retry", failure_retry, 1}};
    experiment *e = target;
    size_t n;
    const char *text = yaml_scalar(f->value, &n);
    if (text && n == 5 && memcmp(text, "abort", 5) == 0) {
        e->on_failure = FAILURE_ABORT;
    } else if (text && n == 6 && memcmp(text, "record", 6) == 0) {
        e->on_failure = FAILURE_RECORD;
    } else if (loader_is_mapping(f)) {
        if (loader_walk(l, f->value, rules, 1, " in 'on_failure'", e) != 0)
            return -1;
        if (e->retries == 0)
            return yaml_fail_field(&l->r, f, "'on_failure' mapping needs 'retry: N'");
        e->on_failure = FAILURE_RETRY;
    } else {
        return yaml_fail_field(&l->r, f, "'on_failure' must be abort, record or {retry: N}");
    }
    return 0;
}

/* Without 'metrics', the target's first builtin (wall for commands, tps for PostgreSQL), and
 * under 'counters: valgrind' the count it is for: instructions. */
int loader_default_metric(experiment_loader *l)
{
    experiment *e = l->e;
    const target_kind *k = e->target;
    if (e->n_metrics > 0)
        return 0;
    bool count = k->counters && e->counters == EXPERIMENT_COUNTERS_VALGRIND;
    e->metrics = calloc(1, sizeof *e->metrics);
    if (e->metrics == NULL || k->n_metrics == 0 ||
        (e->metrics[0].name = strdup(count ? "instructions" : k->metrics[0].name)) == NULL)
        return yaml_fail(&l->r, l->root, "out of memory");
    e->metrics[0].higher_is_better = !count && k->metrics[0].higher_is_better;
    e->n_metrics = 1;
    return 0;
}

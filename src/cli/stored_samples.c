/* Copies samples out of the store's callback into owned memory, and finds them again.
 * Linear lookups are fine: an experiment holds thousands of samples, not millions. */
#include "cli/stored_samples.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static char *copy_text(const char *text)
{
    return text ? strdup(text) : NULL;
}

static int copy_metrics(stored_sample *d, const store_sample *s)
{
    d->n_metrics = s->n_metrics;
    d->metric_names = calloc(s->n_metrics + 1, sizeof *d->metric_names);
    d->metric_values = calloc(s->n_metrics + 1, sizeof *d->metric_values);
    if (d->metric_names == NULL || d->metric_values == NULL)
        return -1;
    for (size_t k = 0; k < s->n_metrics; k++) {
        if ((d->metric_names[k] = strdup(s->metric_names[k])) == NULL)
            return -1;
        d->metric_values[k] = s->metric_values[k];
    }
    return 0;
}

static int keep_sample(void *context, const store_sample *s)
{
    stored_samples *all = context;
    if (all->n == all->capacity) {
        size_t grown = all->capacity ? all->capacity * 2 : 256;
        stored_sample *items = realloc(all->items, grown * sizeof *items);
        if (items == NULL)
            return -1;
        all->items = items;
        all->capacity = grown;
    }
    stored_sample *d = &all->items[all->n++];
    memset(d, 0, sizeof *d);
    d->point = copy_text(s->point);
    d->variant = copy_text(s->variant);
    d->taint_reason = copy_text(s->taint_reason);
    d->block = s->block;
    d->seq = s->seq;
    d->started = s->started;
    d->wall = s->wall;
    d->user = s->user;
    d->sys = s->sys;
    d->maxrss_kib = s->maxrss_kib;
    d->voluntary_switches = s->voluntary_switches;
    d->involuntary_switches = s->involuntary_switches;
    d->exit_code = s->exit_code;
    d->timed_out = s->timed_out;
    d->tainted = s->tainted;
    d->steal = s->steal;
    d->other_busy = s->other_busy;
    d->load1 = s->load1;
    if (d->point == NULL || d->variant == NULL || copy_metrics(d, s) != 0)
        return -1;
    return 0;
}

int stored_samples_load(store *s, int64_t experiment_id, stored_samples *out, char *err,
                        size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (store_for_each_sample(s, experiment_id, keep_sample, out, err, errlen) != 0) {
        stored_samples_free(out);
        return -1;
    }
    return 0;
}

void stored_samples_free(stored_samples *samples)
{
    for (size_t i = 0; i < samples->n; i++) {
        stored_sample *d = &samples->items[i];
        free(d->point);
        free(d->variant);
        free(d->taint_reason);
        for (size_t k = 0; k < d->n_metrics && d->metric_names; k++)
            free(d->metric_names[k]);
        free(d->metric_names);
        free(d->metric_values);
    }
    free(samples->items);
    memset(samples, 0, sizeof *samples);
}

bool stored_metric(const stored_sample *sample, const char *name, double *value)
{
    for (size_t k = 0; k < sample->n_metrics; k++)
        if (strcmp(sample->metric_names[k], name) == 0) {
            *value = sample->metric_values[k];
            return true;
        }
    const struct {
        const char *name;
        double value;
    } builtins[] = {{"wall", sample->wall}, {"user", sample->user}, {"sys", sample->sys},
                    {"cpu", sample->user + sample->sys}, {"maxrss", sample->maxrss_kib}};
    for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++)
        if (strcmp(builtins[i].name, name) == 0) {
            *value = builtins[i].value;
            return true;
        }
    return false;
}

const stored_sample *stored_find(const stored_samples *samples, const char *point,
                                 const char *variant, long block)
{
    for (size_t i = 0; i < samples->n; i++) {
        const stored_sample *s = &samples->items[i];
        if (s->block == block && strcmp(s->point, point) == 0 && strcmp(s->variant, variant) == 0)
            return s;
    }
    return NULL;
}

/* Profiles read back: every profiled run of the experiment parsed from the store's text,
 * the wall of the timed run of the same unit and block attached, then one comparison per
 * comparison of the analysis (core/profile_compare.c). */
#include "lab/lab_profiles.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "lab/lab_series.h"

typedef struct {
    lab_profiles *p;
    verdict_error *err;
} read_context;

static int keep_profile(void *context, const store_profile *row)
{
    read_context *c = context;
    lab_profiles *p = c->p;
    if (array_reserve((void **)&p->runs, &p->runs_capacity, p->n_runs + 1,
                      sizeof *p->runs) != 0)
        return error_no_memory(c->err);
    profile_run *r = &p->runs[p->n_runs];
    *r = (profile_run){.layout = row->layout, .block = row->block, .time = NAN};
    if ((r->point = strdup(row->point)) == NULL || (r->variant = strdup(row->variant)) == NULL ||
        (r->machine = strdup(row->machine ? row->machine : "")) == NULL) {
        free((char *)r->point), free((char *)r->variant);
        return error_no_memory(c->err);
    }
    p->n_runs++; /* its strings are freed with the set from here on */
    if (profile_from_text(row->symbols, row->stacks, &r->data, c->err) != 0)
        return error_prefix(c->err, "the profile of %s, block %ld", row->variant, row->block);
    return 0;
}

/* The time a profile's shares divide: the timed run's CPU time, which is what cpu-clock
 * samples (waiting for the CPU or the disk takes none of them), or its wall where the CPU
 * time is unknown (docs/profiles.md). */
static double measured_time(const store_sample *s)
{
    double cpu = s->user + s->sys;
    return isfinite(cpu) && cpu > 0 ? cpu : s->wall;
}

/* A timed sample: its time given to the profiled run of the same unit and block. */
static int attach_time(void *context, const store_sample *s)
{
    lab_profiles *p = context;
    double time = measured_time(s);
    if (s->block < 0 || !lab_sample_measured(s->exit_code, s->timed_out) || !isfinite(time))
        return 0;
    for (size_t i = 0; i < p->n_runs; i++) {
        profile_run *r = &p->runs[i];
        if (r->block == s->block && r->layout == s->layout && strcmp(r->point, s->point) == 0 &&
            strcmp(r->variant, s->variant) == 0 &&
            strcmp(r->machine, s->machine ? s->machine : "") == 0)
            r->time = time;
    }
    return 0;
}

static int compare_each(const analysis_series *series, const analysis_result *a,
                        double confidence, lab_profiles *p, verdict_error *err)
{
    if ((p->comparisons = calloc(a->n_comparisons + 1, sizeof *p->comparisons)) == NULL)
        return error_no_memory(err);
    for (size_t k = 0; k < a->n_comparisons; k++, p->n_comparisons++) {
        const analysis_comparison *c = &a->comparisons[k];
        const analysis_series *b = &series[c->baseline], *x = &series[c->candidate];
        if (profile_compare(p->runs, p->n_runs, b->point, b->machine, b->variant, x->variant,
                            confidence, &p->comparisons[k], err) != 0)
            return -1;
    }
    return 0;
}

int lab_profiles_load(store *db, int64_t experiment_id, const analysis_series *series,
                      const analysis_result *a, double confidence, lab_profiles *out,
                      verdict_error *err)
{
    memset(out, 0, sizeof *out);
    read_context c = {out, err};
    int rc = store_for_each_profile(db, experiment_id, keep_profile, &c, err);
    if (rc == 0 && out->n_runs > 0)
        rc = store_for_each_sample(db, experiment_id, attach_time, out, err);
    if (rc == 0) /* none stored: every comparison says it has no profile */
        rc = compare_each(series, a, confidence, out, err);
    if (rc != 0)
        lab_profiles_free(out);
    return rc;
}

void lab_profiles_free(lab_profiles *p)
{
    for (size_t i = 0; i < p->n_runs; i++) {
        free((char *)p->runs[i].point);
        free((char *)p->runs[i].variant);
        free((char *)p->runs[i].machine);
        profile_data_free(&p->runs[i].data);
    }
    for (size_t k = 0; k < p->n_comparisons; k++)
        profile_comparison_free(&p->comparisons[k]);
    free(p->runs);
    free(p->comparisons);
    memset(p, 0, sizeof *p);
}

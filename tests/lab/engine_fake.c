/* The engine tests' fake target: measures a scripted value per (point, variant, block),
 * fails and stops where the script says; and the helpers the engine tests share. */
#include "engine_fake.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/array.h"
#include "common/error.h"
#include "common/hash.h"
#include "common/strbuf.h"
#include "lab/lab_report.h"
#include "lab/lab_store.h"

struct target {
    const experiment *e;
    fake_script *s;
    size_t point;
};

static const target_metric fake_metrics[] = {{"value", false}};

static int fake_open(const experiment *e, const target_settings *settings, target **out,
                     verdict_error *err)
{
    (void)settings;
    target *t = calloc(1, sizeof *t);
    if (t == NULL)
        return error_no_memory(err);
    t->e = e;
    t->s = e->target_options;
    t->s->opens++;
    *out = t;
    return 0;
}

static int fake_begin_point(target *t, size_t point, volatile sig_atomic_t *stop,
                            verdict_error *err)
{
    (void)stop;
    t->point = point;
    t->s->begins++;
    if (t->s->fail_begin)
        return error_set(err, ERROR_COMMAND_FAILED, "the fake server did not start");
    return 0;
}

/* A failure is scripted per sample: the first fail_tries tries of each fail. */
static bool scripted_failure(fake_script *s, const target_unit *u)
{
    if ((long)u->variant != s->fail_variant ||
        (s->fail_block_every > 0 && u->block % s->fail_block_every != 0))
        return false;
    long key = ((long)u->point * 100000 + (long)u->variant) * 100000 + u->block;
    if (key != s->current_key) {
        s->current_key = key;
        s->tries_of_current = 0;
    }
    return s->fail_tries < 0 || s->tries_of_current++ < s->fail_tries;
}

static int fake_measure(target *t, const target_unit *u, volatile sig_atomic_t *stop,
                        target_measurement *out, verdict_error *err)
{
    (void)err;
    fake_script *s = t->s;
    if (u->block < 0) {
        s->warmups++;
        out->values[0] = 1;
        return TARGET_MEASURED;
    }
    if (s->before_run)
        s->before_run(s->before_run_context, u);
    if (scripted_failure(s, u)) {
        s->failures++;
        out->exit_code = 9;
        if (s->failures_have_values)
            out->values[0] = out->wall = 5;
        snprintf(out->failure, sizeof out->failure, "variant %zu broke on purpose", u->variant);
        return TARGET_RUN_FAILED;
    }
    s->measured++;
    if (s->stop_after && s->measured == s->stop_after)
        *stop = 1; /* as if Ctrl-C came during this run: it completes, then the run stops */
    /* a wobble of the sample's place in the plan, in [-noise, +noise] */
    uint64_t h = hash_mix64(((uint64_t)u->point << 40) ^ ((uint64_t)u->variant << 20) ^
                            (uint64_t)u->block);
    double wobble = ((double)(h >> 11) / 9007199254740992.0 * 2 - 1) * s->noise;
    out->values[0] = (1 + s->effect * (double)u->variant) * (1 + wobble);
    out->wall = out->values[0];
    out->steal = out->other_busy = out->load1 = NAN;
    return TARGET_MEASURED;
}

static void fake_end_point(target *t)
{
    t->s->ends++;
}

static void fake_close(target *t)
{
    t->s->closes++;
    free(t);
}

static const target_kind fake_target = {
    .name = "fake",
    .metrics = fake_metrics,
    .n_metrics = 1,
    .open = fake_open,
    .begin_point = fake_begin_point,
    .measure = fake_measure,
    .end_point = fake_end_point,
    .close = fake_close,
};

static const target_kind *const fake_kinds[] = {&fake_target};
static const target_table fake_table = {fake_kinds, 1};

/* ---- experiments and runs ---- */

/* An experiment of n_variants variants over points ("n: [...]" or none) with extra keys. */
void make_experiment(experiment *e, size_t n_variants, const char *parameters,
                            const char *extra, fake_script *script)
{
    strbuf text = STRBUF_INIT;
    strbuf_appendf(&text, "name: engine-test\nseed: 11\ntarget: fake\nmetrics: [value]\n%s\n",
                   extra);
    if (parameters)
        strbuf_appendf(&text, "parameters:\n  %s\n", parameters);
    strbuf_append(&text, "variants:\n");
    for (size_t v = 0; v < n_variants; v++)
        strbuf_appendf(&text, "  V%zu: \"true %zu\"\n", v, v);
    verdict_error err = {0};
    int rc = experiment_parse("engine-test.yaml", strbuf_text(&text), text.length, &fake_table,
                              e, &err);
    if (rc != 0)
        fail_msg("%s", err);
    strbuf_free(&text);
    memset(script, 0, sizeof *script);
    script->fail_variant = -1;
    script->current_key = -1;
    e->target_options = script;
}

void open_store(const char *path, const experiment *e, test_store *s)
{
    verdict_error err;
    bool existing;
    if (lab_open_store(path, e, &s->db, &s->experiment_id, &existing, &err) != 0)
        fail_msg("%s", err.message);
}

lab_config test_config(const experiment *e, const test_store *s, volatile sig_atomic_t *stop)
{
    return (lab_config){.e = e, .db = s->db, .experiment_id = s->experiment_id,
                        .analysis = lab_default_analysis(e), .stop = stop};
}

int run(const experiment *e, const test_store *s, lab_outcome *out, verdict_error *err)
{
    volatile sig_atomic_t stop = 0;
    lab_config c = test_config(e, s, &stop);
    int rc = lab_run(&c, out, err);
    if (rc != 0)
        print_message("lab_run: %s\n", err->message);
    return rc;
}

static int keep(void *context, const store_sample *s)
{
    kept_samples *k = context;
    if (array_reserve((void **)&k->items, &k->capacity, k->n + 1, sizeof *k->items) != 0)
        return -1;
    kept_sample *x = &k->items[k->n++];
    snprintf(x->point, sizeof x->point, "%s", s->point);
    snprintf(x->variant, sizeof x->variant, "%s", s->variant);
    snprintf(x->machine, sizeof x->machine, "%s", s->machine ? s->machine : "");
    x->block = s->block;
    x->seq = s->seq;
    x->exit_code = s->exit_code;
    x->value = s->n_metrics ? s->metric_values[0] : NAN;
    return 0;
}

static int by_seq(const void *a, const void *b)
{
    const kept_sample *x = a, *y = b;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

kept_samples read_samples(const test_store *s)
{
    kept_samples k = {NULL, 0, 0};
    verdict_error err = {0};
    assert_int_equal(store_for_each_sample(s->db, s->experiment_id, keep, &k, &err), 0);
    if (k.n > 1)
        qsort(k.items, k.n, sizeof *k.items, by_seq);
    return k;
}

/* Every (point, variant, block) of the plan exactly once. */
void assert_plan_complete(const experiment *e, const kept_samples *k, size_t blocks)
{
    size_t points = experiment_point_count(e), n = points * e->n_variants * blocks;
    assert_int_equal(k->n, n);
    bool *seen = calloc(n, sizeof *seen);
    assert_non_null(seen);
    for (size_t i = 0; i < k->n; i++) {
        size_t p = 0;
        for (; p < points; p++) {
            char *id = experiment_point_id(e, p);
            bool same = strcmp(id, k->items[i].point) == 0;
            free(id);
            if (same)
                break;
        }
        long v = experiment_variant_index(e, k->items[i].variant);
        assert_true(p < points && v >= 0 && k->items[i].block >= 0 &&
                    (size_t)k->items[i].block < blocks);
        size_t cell = (p * e->n_variants + (size_t)v) * blocks + (size_t)k->items[i].block;
        assert_false(seen[cell]);
        seen[cell] = true;
    }
    free(seen);
}

void close_all(experiment *e, test_store *s, kept_samples *k)
{
    free(k->items);
    store_close(s->db);
    experiment_free(e);
}

typedef struct {
    const char *code;
    bool found;
} warning_search;

static int find_warning(void *context, const char *key, const char *value)
{
    warning_search *w = context;
    const char *at = strcmp(key, LAB_WARNINGS_FACT "engine") == 0 ? strstr(value, w->code) : NULL;
    /* a warning line is "code\tpoint\tvariant\tmessage": the code begins a line */
    w->found |= at && (at == value || at[-1] == '\n') && at[strlen(w->code)] == '\t';
    return 0;
}

bool engine_warning_stored(const test_store *s, const char *code)
{
    warning_search w = {code, false};
    verdict_error why = {0};
    assert_int_equal(store_for_each_fact(s->db, s->experiment_id, find_warning, &w, &why), 0);
    return w.found;
}

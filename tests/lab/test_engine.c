/* Tests of the experiment engine (src/lab/engine.c) with a scripted fake target: the plan's
 * order, resume after a stop at every sample, failure policies, adaptive looks, large plans. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/array.h"
#include "common/error.h"
#include "common/hash.h"
#include "common/strbuf.h"
#include "core/schedule.h"
#include "core/target.h"
#include "lab/engine.h"
#include "lab/lab_report.h"
#include "lab/lab_store.h"

/* ---- the fake target: what it does is scripted, what happened is counted ---- */

typedef struct {
    /* script */
    double effect;               /* variant v measures about 1 + effect * v */
    double noise;                /* relative amplitude of a deterministic wobble */
    size_t stop_after;           /* set the stop flag during this measured run (1-based); 0 never */
    long fail_variant;           /* runs of this variant fail ... (-1: none) */
    int fail_tries;              /* ... on their first fail_tries tries per sample (-1: always) */
    bool fail_begin;             /* begin_point fails */
    /* counts */
    size_t opens, closes, begins, ends, warmups, measured, failures;
    int tries_of_current;        /* tries of the sample being taken */
    long current_key;            /* (point, variant, block) of the sample being tried */
} fake_script;

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
        return error_set(err, ERROR_INTERNAL, "out of memory");
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
    if ((long)u->variant != s->fail_variant)
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
    if (scripted_failure(s, u)) {
        s->failures++;
        out->exit_code = 9;
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
static void make_experiment(experiment *e, size_t n_variants, const char *parameters,
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

typedef struct {
    store *db;
    int64_t experiment_id;
} test_store;

static void open_store(const char *path, const experiment *e, test_store *s)
{
    verdict_error err;
    bool existing;
    if (lab_open_store(path, e, &s->db, &s->experiment_id, &existing, &err) != 0)
        fail_msg("%s", err.message);
}

static int run(const experiment *e, const test_store *s, lab_outcome *out, verdict_error *err)
{
    volatile sig_atomic_t stop = 0;
    lab_config c = {.e = e, .db = s->db, .experiment_id = s->experiment_id,
                    .analysis = lab_default_analysis(e), .stop = &stop};
    int rc = lab_run(&c, out, err);
    if (rc != 0)
        print_message("lab_run: %s\n", err->message);
    return rc;
}

/* The stored samples, in measurement order. */
typedef struct {
    char point[64], variant[32];
    long block, seq;
    double value;
    int exit_code;
} kept_sample;

typedef struct {
    kept_sample *items;
    size_t n, capacity;
} kept_samples;

static int keep(void *context, const store_sample *s)
{
    kept_samples *k = context;
    if (array_reserve((void **)&k->items, &k->capacity, k->n + 1, sizeof *k->items) != 0)
        return -1;
    kept_sample *x = &k->items[k->n++];
    snprintf(x->point, sizeof x->point, "%s", s->point);
    snprintf(x->variant, sizeof x->variant, "%s", s->variant);
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

static kept_samples read_samples(const test_store *s)
{
    kept_samples k = {NULL, 0, 0};
    verdict_error err = {0};
    assert_int_equal(store_for_each_sample(s->db, s->experiment_id, keep, &k, &err), 0);
    if (k.n > 1)
        qsort(k.items, k.n, sizeof *k.items, by_seq);
    return k;
}

/* Every (point, variant, block) of the plan exactly once. */
static void assert_plan_complete(const experiment *e, const kept_samples *k, size_t blocks)
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

static void close_all(experiment *e, test_store *s, kept_samples *k)
{
    free(k->items);
    store_close(s->db);
    experiment_free(e);
}

/* ---- the plan ---- */

/* Points in schedule_point_order, blocks one after another, each in its seeded order. */
static void test_plan_order(void **unused)
{
    (void)unused;
    experiment e;
    fake_script script;
    make_experiment(&e, 3, "n: [1, 2, 3]", "repetitions: 4\nwarmup: 1", &script);
    test_store s;
    open_store(":memory:", &e, &s);
    lab_outcome out;
    verdict_error err;
    assert_int_equal(run(&e, &s, &out, &err), 0);
    assert_int_equal(out.samples_taken, 36);
    assert_int_equal(out.complete_blocks, 12);
    assert_int_equal(script.opens, 1);
    assert_int_equal(script.closes, 1);
    assert_int_equal(script.begins, 3);
    assert_int_equal(script.ends, 3);
    assert_int_equal(script.warmups, 9); /* one unmeasured run of every variant per point */
    kept_samples k = read_samples(&s);
    assert_plan_complete(&e, &k, 4);
    size_t point_order[3], block_order[3], i = 0, shuffled = 0;
    schedule_point_order(e.seed, 3, point_order);
    for (size_t p = 0; p < 3; p++) {
        char *id = experiment_point_id(&e, point_order[p]);
        for (size_t b = 0; b < 4; b++) {
            schedule_block_order(e.seed, point_order[p], b, 3, block_order);
            for (size_t u = 0; u < 3; u++, i++) {
                assert_int_equal(k.items[i].seq, (long)i);
                assert_string_equal(k.items[i].point, id);
                assert_int_equal(k.items[i].block, (long)b);
                assert_string_equal(k.items[i].variant, e.variants[block_order[u]].name);
                shuffled += block_order[u] != u;
            }
        }
        free(id);
    }
    assert_true(shuffled > 0);
    close_all(&e, &s, &k);
}

/* ---- resume ---- */

/* Stopped during the k-th run and run again, for every k: the store ends with the same
 * samples, in the same order, as one run that was never stopped. */
static void test_resume_after_every_sample(void **unused)
{
    (void)unused;
    const char *keys = "repetitions: 3\nwarmup: 0";
    experiment e;
    fake_script script;
    make_experiment(&e, 2, "n: [1, 2]", keys, &script);
    test_store ref;
    open_store(":memory:", &e, &ref);
    lab_outcome out;
    verdict_error err;
    assert_int_equal(run(&e, &ref, &out, &err), 0);
    kept_samples expected = read_samples(&ref);
    const size_t n = expected.n;
    assert_int_equal(n, 12);
    for (size_t stop_at = 1; stop_at < n; stop_at++) {
        test_store s;
        open_store(":memory:", &e, &s);
        memset(&script, 0, sizeof script);
        script.fail_variant = -1;
        script.stop_after = stop_at;
        assert_int_equal(run(&e, &s, &out, &err), -1);
        assert_int_equal(err.kind, ERROR_INTERRUPTED);
        assert_int_equal(out.samples_taken, stop_at);
        size_t points_left = 2 - stop_at / 6; /* a point is 6 samples */
        script.stop_after = 0;
        script.begins = script.ends = 0;
        assert_int_equal(run(&e, &s, &out, &err), 0);
        assert_int_equal(out.samples_resumed, stop_at);
        assert_int_equal(out.samples_taken, n - stop_at);
        /* a point whose samples are all stored is not started again */
        assert_int_equal(script.begins, points_left);
        assert_int_equal(script.ends, script.begins);
        kept_samples got = read_samples(&s);
        assert_int_equal(got.n, n);
        for (size_t i = 0; i < n; i++) {
            assert_int_equal(got.items[i].seq, (long)i);
            assert_string_equal(got.items[i].point, expected.items[i].point);
            assert_string_equal(got.items[i].variant, expected.items[i].variant);
            assert_int_equal(got.items[i].block, expected.items[i].block);
        }
        free(got.items);
        store_close(s.db);
    }
    close_all(&e, &ref, &expected);
}

/* A stop requested before anything ran: nothing stored, the point ended in order. */
static void test_stop_at_once(void **unused)
{
    (void)unused;
    experiment e;
    fake_script script;
    make_experiment(&e, 2, NULL, "repetitions: 5", &script);
    test_store s;
    open_store(":memory:", &e, &s);
    volatile sig_atomic_t stop = 1;
    lab_config c = {.e = &e, .db = s.db, .experiment_id = s.experiment_id,
                    .analysis = lab_default_analysis(&e), .stop = &stop};
    lab_outcome out;
    verdict_error err;
    assert_int_equal(lab_run(&c, &out, &err), -1);
    assert_int_equal(err.kind, ERROR_INTERRUPTED);
    assert_int_equal(out.samples_taken, 0);
    assert_int_equal(script.ends, script.begins);
    assert_int_equal(script.closes, script.opens);
    kept_samples k = read_samples(&s);
    assert_int_equal(k.n, 0);
    close_all(&e, &s, &k);
}

/* ---- failures ---- */

static void test_failure_stops_the_run(void **unused)
{
    (void)unused;
    experiment e;
    fake_script script;
    make_experiment(&e, 2, "n: [1, 2]", "repetitions: 3\nwarmup: 0", &script);
    script.fail_variant = 1;
    script.fail_tries = -1;
    test_store s;
    open_store(":memory:", &e, &s);
    lab_outcome out;
    verdict_error err;
    assert_int_equal(run(&e, &s, &out, &err), -1);
    assert_int_equal(err.kind, ERROR_COMMAND_FAILED);
    assert_non_null(strstr(err.message, "broke on purpose"));
    assert_non_null(strstr(err.message, "at n=")); /* the point is named */
    assert_int_equal(script.failures, 1);
    assert_int_equal(script.ends, script.begins); /* the point was ended after the failure */
    kept_samples k = read_samples(&s);
    assert_int_equal(k.n, out.samples_taken);
    assert_true(k.n <= 1); /* at most the other variant's run of the first block */
    close_all(&e, &s, &k);
}

static void test_failures_retried(void **unused)
{
    (void)unused;
    experiment e;
    fake_script script;
    make_experiment(&e, 2, NULL, "repetitions: 4\nwarmup: 0\non_failure: {retry: 2}", &script);
    script.fail_variant = 0;
    script.fail_tries = 2; /* every sample of V0 fails twice, then works */
    test_store s;
    open_store(":memory:", &e, &s);
    lab_outcome out;
    verdict_error err;
    assert_int_equal(run(&e, &s, &out, &err), 0);
    assert_int_equal(script.failures, 8);
    kept_samples k = read_samples(&s);
    assert_plan_complete(&e, &k, 4);
    free(k.items);
    store_close(s.db);

    /* three failures are one too many for two retries */
    open_store(":memory:", &e, &s);
    script.fail_tries = 3;
    script.current_key = -1;
    assert_int_equal(run(&e, &s, &out, &err), -1);
    assert_int_equal(err.kind, ERROR_COMMAND_FAILED);
    k = read_samples(&s);
    close_all(&e, &s, &k);
}

static void test_failures_recorded(void **unused)
{
    (void)unused;
    experiment e;
    fake_script script;
    make_experiment(&e, 2, NULL, "repetitions: 3\nwarmup: 0\non_failure: record", &script);
    script.fail_variant = 1;
    script.fail_tries = -1;
    test_store s;
    open_store(":memory:", &e, &s);
    lab_outcome out;
    verdict_error err;
    assert_int_equal(run(&e, &s, &out, &err), 0);
    kept_samples k = read_samples(&s);
    assert_plan_complete(&e, &k, 3);
    for (size_t i = 0; i < k.n; i++) {
        bool failed = strcmp(k.items[i].variant, "V1") == 0;
        assert_int_equal(k.items[i].exit_code, failed ? 9 : 0);
        assert_true(failed ? isnan(k.items[i].value) : isfinite(k.items[i].value));
    }
    close_all(&e, &s, &k);
}

static void test_point_that_cannot_begin(void **unused)
{
    (void)unused;
    experiment e;
    fake_script script;
    make_experiment(&e, 2, NULL, "repetitions: 3", &script);
    script.fail_begin = true;
    test_store s;
    open_store(":memory:", &e, &s);
    lab_outcome out;
    verdict_error err;
    assert_int_equal(run(&e, &s, &out, &err), -1);
    assert_int_equal(err.kind, ERROR_COMMAND_FAILED);
    assert_non_null(strstr(err.message, "did not start"));
    assert_int_equal(script.measured + script.warmups, 0);
    assert_int_equal(script.closes, 1);
    kept_samples k = read_samples(&s);
    assert_int_equal(k.n, 0);
    close_all(&e, &s, &k);
}

/* ---- adaptive looks ---- */

typedef struct {
    bool budget_spent;
} fact_check;

static int find_budget_warning(void *context, const char *key, const char *value)
{
    fact_check *c = context;
    if (strcmp(key, LAB_WARNINGS_FACT "engine") == 0 && strstr(value, "budget-spent\t"))
        c->budget_spent = true;
    return 0;
}

/* A 20% difference on a quiet fake is decided at the first look; noise far above the
 * margin spends the whole budget, and the warning says so. */
static void test_adaptive_looks(void **unused)
{
    (void)unused;
    experiment e;
    fake_script script;
    make_experiment(&e, 2, "n: [1, 2]", "adaptive: {min_blocks: 10, max_blocks: 40}", &script);
    script.effect = 0.2;
    script.noise = 0.01;
    test_store s;
    open_store(":memory:", &e, &s);
    lab_outcome out;
    verdict_error err;
    assert_int_equal(run(&e, &s, &out, &err), 0);
    assert_int_equal(out.samples_taken, 2 * 10 * 2);
    assert_int_equal(out.looks_taken, 2);
    assert_false(out.budget_spent);
    assert_true(out.look_confidence > 0.95); /* alpha split between the planned looks */
    kept_samples k = read_samples(&s);
    free(k.items);
    store_close(s.db);

    script.effect = 0.005;
    script.noise = 0.5;
    open_store(":memory:", &e, &s);
    assert_int_equal(run(&e, &s, &out, &err), 0);
    assert_int_equal(out.samples_taken, 2 * 40 * 2);
    assert_true(out.budget_spent);
    assert_int_equal(out.looks_taken, 2 * out.looks_planned);
    fact_check c = {false};
    verdict_error why = {0};
    assert_int_equal(store_for_each_fact(s.db, s.experiment_id, find_budget_warning, &c, &why), 0);
    assert_true(c.budget_spent);
    k = read_samples(&s);
    close_all(&e, &s, &k);
}

/* ---- size ---- */

static void test_many_variants(void **unused)
{
    (void)unused;
    const size_t counts[] = {70, 200};
    const size_t blocks[] = {3, 2};
    for (size_t i = 0; i < 2; i++) {
        experiment e;
        fake_script script;
        char keys[64];
        snprintf(keys, sizeof keys, "repetitions: %zu\nwarmup: 0", blocks[i]);
        make_experiment(&e, counts[i], NULL, keys, &script);
        test_store s;
        open_store(":memory:", &e, &s);
        lab_outcome out;
        verdict_error err;
        assert_int_equal(run(&e, &s, &out, &err), 0);
        kept_samples k = read_samples(&s);
        assert_plan_complete(&e, &k, blocks[i]);
        close_all(&e, &s, &k);
    }
}

/* A plan whose samples could not all be numbered is refused before anything runs. */
static void test_plan_too_large(void **unused)
{
    (void)unused;
    experiment e;
    fake_script script;
    make_experiment(&e, 4, NULL, "repetitions: 3", &script);
    e.repetitions = SIZE_MAX / 2;
    test_store s;
    open_store(":memory:", &e, &s);
    lab_outcome out;
    verdict_error err;
    assert_int_equal(run(&e, &s, &out, &err), -1);
    assert_int_equal(err.kind, ERROR_USAGE);
    assert_non_null(strstr(err.message, "more samples than can be stored"));
    assert_int_equal(script.opens, 0);
    kept_samples k = read_samples(&s);
    close_all(&e, &s, &k);
}

/* A store holding another plan under the same name is refused: resuming it would mix. */
static void test_changed_plan_refused(void **unused)
{
    (void)unused;
    char path[] = "/tmp/verdict-engine-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    unlink(path);
    experiment e, changed;
    fake_script script;
    make_experiment(&e, 2, NULL, "repetitions: 3", &script);
    make_experiment(&changed, 2, NULL, "repetitions: 4", &script);
    test_store s;
    open_store(path, &e, &s);
    store_close(s.db);
    verdict_error err;
    bool existing;
    assert_int_equal(lab_open_store(path, &changed, &s.db, &s.experiment_id, &existing, &err), -1);
    assert_true(error_is(&err, ERROR_PLAN_CHANGED)); /* exits 2, as a usage error does */
    assert_null(s.db);
    experiment_free(&e);
    experiment_free(&changed);
    char side[sizeof path + 8];
    unlink(path);
    snprintf(side, sizeof side, "%s-wal", path);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", path);
    unlink(side);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plan_order),
        cmocka_unit_test(test_resume_after_every_sample),
        cmocka_unit_test(test_stop_at_once),
        cmocka_unit_test(test_failure_stops_the_run),
        cmocka_unit_test(test_failures_retried),
        cmocka_unit_test(test_failures_recorded),
        cmocka_unit_test(test_point_that_cannot_begin),
        cmocka_unit_test(test_adaptive_looks),
        cmocka_unit_test(test_many_variants),
        cmocka_unit_test(test_plan_too_large),
        cmocka_unit_test(test_changed_plan_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

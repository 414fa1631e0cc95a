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
#include "lab/results.h"

#include "engine_fake.h"

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

/* An adaptive experiment over two points, a 20% difference on a quiet fake, and its store. */
static void make_adaptive(experiment *e, fake_script *script, test_store *s)
{
    make_experiment(e, 2, "n: [1, 2]", "adaptive: {min_blocks: 10, max_blocks: 40}", script);
    script->effect = 0.2;
    script->noise = 0.01;
    open_store(":memory:", e, s);
}

/* A 20% difference on a quiet fake is decided at the first look; noise far above the
 * margin spends the whole budget, and the warning says so. */
static void test_adaptive_looks(void **unused)
{
    (void)unused;
    experiment e;
    fake_script script;
    test_store s;
    make_adaptive(&e, &script, &s);
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
    assert_true(engine_warning_stored(&s, "budget-spent"));
    k = read_samples(&s);
    close_all(&e, &s, &k);
}

/* What the last look at each point analysed: per comparison, the pairs and the ratio. */
typedef struct {
    char point[64];
    size_t blocks, n_comparisons, n_baseline[4];
    double ratio[4];
} last_look;

typedef struct {
    last_look points[4];
    size_t n;
} last_looks;

static void keep_last_look(void *context, const lab_progress *p)
{
    last_looks *l = context;
    if (p->latest == NULL)
        return;
    size_t i = 0;
    while (i < l->n && strcmp(l->points[i].point, p->point_id) != 0)
        i++;
    assert_true(i < 4);
    l->n += i == l->n;
    last_look *k = &l->points[i];
    snprintf(k->point, sizeof k->point, "%s", p->point_id);
    k->blocks = p->blocks_done;
    k->n_comparisons = p->latest->n_comparisons;
    for (size_t c = 0; c < k->n_comparisons && c < 4; c++) {
        k->n_baseline[c] = p->latest->comparisons[c].result.n_baseline;
        k->ratio[c] = p->latest->comparisons[c].result.ratio;
    }
}

/* A look and the report of the same blocks analyse the same series: with runs that failed
 * (recorded, a wall time still measured) in some blocks, the last look at each point and the
 * report's analysis of the stored samples pair the same blocks and find the same ratio. */
static void test_looks_see_the_reports_series(void **unused)
{
    (void)unused;
    experiment e;
    fake_script script;
    make_experiment(&e, 2, "n: [1, 2]",
                    "on_failure: record\nadaptive: {min_blocks: 10, max_blocks: 40}", &script);
    script.effect = 0.2;
    script.noise = 0.01;
    script.fail_variant = 1;
    script.fail_tries = -1;
    script.fail_block_every = 4;
    script.failures_have_values = true;
    test_store s;
    open_store(":memory:", &e, &s);
    volatile sig_atomic_t stop = 0;
    last_looks looks = {.n = 0};
    lab_config c = test_config(&e, &s, &stop);
    c.progress = keep_last_look;
    c.progress_context = &looks;
    lab_outcome out;
    verdict_error err;
    assert_int_equal(lab_run(&c, &out, &err), 0);
    assert_true(script.failures > 0);
    assert_int_equal(looks.n, 2);

    lab_results r;
    assert_int_equal(lab_results_load(s.db, s.experiment_id, &e, &r, &err), 0);
    analysis_options o = lab_default_analysis(&e);
    o.confidence = out.look_confidence;
    analysis_result a;
    verdict_error why = {0};
    assert_int_equal(analysis_run(r.series, r.n_series, &o, &a, &why), 0);
    for (size_t p = 0; p < looks.n; p++) {
        const last_look *k = &looks.points[p];
        size_t found = 0;
        for (size_t i = 0; i < a.n_comparisons; i++) {
            const analysis_comparison *ac = &a.comparisons[i];
            if (strcmp(r.series[ac->baseline].point, k->point) != 0)
                continue;
            assert_true(found < k->n_comparisons);
            /* blocks 0, 4, 8, ... hold a failure: never a pair, in the look as in the report */
            assert_true(ac->result.n_baseline < k->blocks);
            assert_int_equal(ac->result.n_baseline, k->n_baseline[found]);
            assert_true(ac->result.ratio == k->ratio[found]);
            found++;
        }
        assert_int_equal(found, k->n_comparisons);
    }
    analysis_result_free(&a);
    lab_results_free(&r);
    kept_samples none = {NULL, 0, 0};
    close_all(&e, &s, &none);
}

/* Looks are replayed from the store on resume: a run stopped anywhere and resumed stores
 * the samples an uninterrupted one stores, each point ending at the look that decided it. */
static void test_adaptive_resume_replays_looks(void **unused)
{
    (void)unused;
    experiment e;
    fake_script script;
    test_store ref;
    make_adaptive(&e, &script, &ref);
    lab_outcome out;
    verdict_error err;
    assert_int_equal(run(&e, &ref, &out, &err), 0);
    kept_samples expected = read_samples(&ref);
    const size_t stops[] = {1, 19, 20, 21, 39};
    for (size_t i = 0; i < ARRAY_SIZE(stops); i++) {
        test_store s;
        open_store(":memory:", &e, &s);
        script.stop_after = stops[i];
        script.measured = 0;
        assert_int_equal(run(&e, &s, &out, &err), -1);
        assert_int_equal(err.kind, ERROR_INTERRUPTED);
        script.stop_after = 0;
        assert_int_equal(run(&e, &s, &out, &err), 0);
        assert_int_equal(out.samples_resumed + out.samples_taken, expected.n);
        assert_int_equal(out.looks_taken, 2); /* one per point, replayed or taken */
        kept_samples got = read_samples(&s);
        assert_int_equal(got.n, expected.n);
        for (size_t k = 0; k < got.n; k++) {
            assert_string_equal(got.items[k].point, expected.items[k].point);
            assert_int_equal(got.items[k].block, expected.items[k].block);
        }
        free(got.items);
        store_close(s.db);
    }
    close_all(&e, &ref, &expected);
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
        cmocka_unit_test(test_looks_see_the_reports_series),
        cmocka_unit_test(test_adaptive_resume_replays_looks),
        cmocka_unit_test(test_many_variants),
        cmocka_unit_test(test_plan_too_large),
        cmocka_unit_test(test_changed_plan_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The planner read from a store (src/lab/lab_plan.c) on the fake target's deterministic
 * values: a row per (point, candidate) against the point's baseline, σ_d as the samples
 * give it read back independently, the family's alpha, one allocation for all. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/error.h"
#include "lab/engine.h"
#include "lab/lab_plan.h"
#include "stats/descriptive.h"

#include "engine_fake.h"

#define BLOCKS 12

/* The stored value of (point, variant, block), from the samples read back in seq order. */
static double value_of(const kept_samples *k, const char *point, const char *variant, long b)
{
    for (size_t i = 0; i < k->n; i++)
        if (strcmp(k->items[i].point, point) == 0 && strcmp(k->items[i].variant, variant) == 0 &&
            k->items[i].block == b)
            return k->items[i].value;
    fail_msg("no sample of %s at %s in block %ld", variant, point, b);
    return NAN;
}

/* R's mad() of the log ratios candidate/baseline over the blocks, centred on their median. */
static double expected_sd(const kept_samples *k, const char *point, const char *candidate)
{
    double d[BLOCKS], sd = NAN;
    for (long b = 0; b < BLOCKS; b++)
        d[b] = log(value_of(k, point, candidate, b)) - log(value_of(k, point, "V0", b));
    assert_int_equal(stats_mad(d, BLOCKS, &sd), STATS_OK);
    return sd;
}

static void test_rows_components_and_level(void **unused)
{
    (void)unused;
    experiment e;
    fake_script script;
    make_experiment(&e, 3, "n: [1, 2]", "repetitions: 12\nwarmup: 0", &script);
    script.noise = 0.1;
    script.effect = 0.05;
    test_store s;
    open_store(":memory:", &e, &s);
    lab_outcome out;
    verdict_error err;
    assert_int_equal(run(&e, &s, &out, &err), 0);
    kept_samples k = read_samples(&s);
    lab_plan plan;
    lab_plan_options o = {.target = {.change = 0.05, .power = 0.8},
                          .relink_seconds = NAN, .store_name = ":memory:"};
    assert_int_equal(lab_plan_compute(s.db, s.experiment_id, &e, &o, &plan, &err), 0);
    const plan_report *r = &plan.report;
    /* 2 points x 2 candidates, each against V0 (not V2 against V1) */
    assert_int_equal(r->n_rows, 4);
    assert_int_equal(r->comparisons, 4);
    assert_true(fabs(r->target.alpha - 0.05 * 0.8 / 4) < 1e-15);
    size_t most = 0;
    for (size_t i = 0; i < r->n_rows; i++) {
        const plan_report_row *row = &r->rows[i];
        assert_string_equal(row->baseline, "V0");
        assert_int_equal(row->blocks_measured, BLOCKS);
        assert_int_equal(row->layouts_measured, 1);
        assert_true(isnan(row->components.sd_layout));
        double want = expected_sd(&k, row->point, row->candidate);
        assert_true(want > 0 && fabs(row->components.sd_pair - want) < 1e-12);
        assert_int_equal(row->alone.layouts, 1);
        if (row->alone.blocks > most)
            most = row->alone.blocks;
    }
    /* every comparison shares the plan: the most blocks any needs */
    assert_int_equal(r->allocation.blocks, most);
    assert_true(r->run_seconds > 0 && r->expected_seconds > 0);
    assert_false(r->twins);
    lab_plan_free(&plan);
    close_all(&e, &s, &k);
}

/* A store without a complete block of the experiment is bad input that names --pilot. */
static void test_nothing_stored(void **unused)
{
    (void)unused;
    experiment e;
    fake_script script;
    make_experiment(&e, 2, NULL, "repetitions: 3", &script);
    test_store s;
    open_store(":memory:", &e, &s);
    lab_plan plan;
    verdict_error err;
    lab_plan_options o = {.target = {.change = 0.05, .power = 0.8},
                          .relink_seconds = NAN, .store_name = ":memory:"};
    assert_int_equal(lab_plan_compute(s.db, s.experiment_id, &e, &o, &plan, &err), -1);
    assert_true(error_is(&err, ERROR_BAD_INPUT));
    assert_non_null(strstr(err.message, "--pilot N"));
    assert_int_equal(plan.report.n_rows, 0);
    lab_plan_free(&plan);
    kept_samples k = {0};
    close_all(&e, &s, &k);
}

/* A fleet's store (machines: survey, two machines on one store): a row per machine, and the
 * spread between machines of the pooled comparison beside them. */
static void test_fleet_spread(void **unused)
{
    (void)unused;
    experiment e;
    fake_script script;
    make_experiment(&e, 2, NULL, "repetitions: 8\nwarmup: 0\nmachines: survey", &script);
    script.noise = 0.1;
    test_store s;
    open_store(":memory:", &e, &s);
    const char *machines[] = {"m1", "m2"};
    for (size_t m = 0; m < 2; m++) {
        volatile sig_atomic_t stop = 0;
        lab_config c = test_config(&e, &s, &stop);
        c.machine = machines[m];
        c.worker = machines[m];
        script.effect = 0.3 * (double)m; /* the machines disagree: m2 sees V1 30% slower */
        lab_outcome out;
        verdict_error err;
        assert_int_equal(lab_run(&c, &out, &err), 0);
    }
    lab_plan plan;
    verdict_error err;
    lab_plan_options o = {.target = {.change = 0.05, .power = 0.8},
                          .relink_seconds = NAN, .store_name = ":memory:"};
    assert_int_equal(lab_plan_compute(s.db, s.experiment_id, &e, &o, &plan, &err), 0);
    assert_int_equal(plan.report.n_rows, 2);
    assert_string_equal(plan.report.rows[0].machine, "m1");
    assert_string_equal(plan.report.rows[1].machine, "m2");
    assert_int_equal(plan.report.n_fleet, 1);
    assert_int_equal(plan.report.fleet[0].machines, 2);
    assert_string_equal(plan.report.fleet[0].candidate, "V1");
    /* two log ratios log(1.3) = 0.26 apart, each known to about 0.03: τ near 0.26/√2 */
    assert_true(plan.report.fleet[0].tau > 0.1 && plan.report.fleet[0].tau < 0.3);
    lab_plan_free(&plan);
    kept_samples k = {0};
    close_all(&e, &s, &k);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows_components_and_level),
        cmocka_unit_test(test_nothing_stored),
        cmocka_unit_test(test_fleet_spread),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

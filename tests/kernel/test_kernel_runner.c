/* Unit tests of the kernel runner: load errors, calibration, interleaved order, stops,
 * and that a 20% slower kernel is called worse while identical ones mostly are not. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/kernel_runner.h"
#include "core/schedule.h"

/* Short samples keep the suite fast; paired blocks still see a 20% effect easily. */
#define TEST_SAMPLE_SECONDS 0.002

static const char *module_path(const char *variable)
{
    const char *path = getenv(variable);
    if (path == NULL) {
        fprintf(stderr, "set %s to the test module's path\n", variable);
        exit(1);
    }
    return path;
}

static kernel_module *open_fake(void)
{
    kernel_module *m = NULL;
    char err[512];
    int rc = kernel_module_open(module_path("FAKE_KERNELS"), &m, err, sizeof err);
    if (rc != 0)
        fail_msg("%s", err);
    return m;
}

static void expect_open_error(const char *path, const char *fragment)
{
    kernel_module *m = (kernel_module *)&m; /* must be reset to NULL on failure */
    char err[512] = "";
    assert_int_equal(kernel_module_open(path, &m, err, sizeof err), -1);
    assert_null(m);
    if (strstr(err, fragment) == NULL || strstr(err, path) == NULL)
        fail_msg("message '%s' lacks '%s' or the path", err, fragment);
}

static void test_missing_file(void **unused)
{
    (void)unused;
    expect_open_error("/nonexistent/fake.so", "cannot open");
}

static void test_not_a_shared_object(void **unused)
{
    (void)unused;
    char path[] = "/tmp/verdict-kernel-test-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "not an ELF file\n", 16), 16);
    close(fd);
    expect_open_error(path, "cannot load as a shared object");
    unlink(path);
}

static void test_symbol_missing(void **unused)
{
    (void)unused;
    expect_open_error(module_path("FAKE_KERNELS_NO_EXPORTS"), "does not export verdict_kernel_abi");
}

static void test_abi_mismatch(void **unused)
{
    (void)unused;
    expect_open_error(module_path("FAKE_KERNELS_WRONG_ABI"), "ABI version 999");
}

static void test_kernel_not_found(void **unused)
{
    (void)unused;
    kernel_module *m = open_fake();
    char err[512] = "";
    assert_non_null(kernel_module_find(m, "spin_slow", err, sizeof err));
    assert_null(kernel_module_find(m, "spinn", err, sizeof err));
    assert_non_null(strstr(err, "no kernel 'spinn'"));
    assert_non_null(strstr(err, "spin_same")); /* lists what exists */
    kernel_module_close(m);
}

/* ---- sessions over the fake module ------------------------------------------------ */

typedef struct {
    kernel_module *module;
    const verdict_kernel *kernels[4];
    const char *names[4];
    const char *point_args[2];
    const char *point_ids[2];
    kernel_config config;
} fixture;

static void fixture_init(fixture *f, const char *const *names, size_t n, size_t blocks,
                         uint64_t seed)
{
    char err[512];
    memset(f, 0, sizeof *f);
    f->module = open_fake();
    for (size_t i = 0; i < n; i++) {
        f->kernels[i] = kernel_module_find(f->module, names[i], err, sizeof err);
        assert_non_null(f->kernels[i]);
        f->names[i] = names[i];
    }
    f->point_ids[0] = "default";
    f->config = (kernel_config){
        .kernels = f->kernels, .kernel_names = f->names, .n_kernels = n,
        .point_args = f->point_args, .point_ids = f->point_ids, .n_points = 1,
        .sample_seconds = TEST_SAMPLE_SECONDS, .warmup = 1, .blocks = blocks, .seed = seed,
        .analysis = {.method = METHOD_WILCOXON, .paired = true, .confidence = 0.95,
                     .margin = 0.01, .adjust = ADJUST_HOLM, .seed = seed}};
}

static void run_fixture(fixture *f, volatile sig_atomic_t *stop, kernel_outcome *out)
{
    char err[512] = "";
    if (kernel_run(&f->config, stop, out, err, sizeof err) != 0)
        fail_msg("kernel_run: %s", err);
}

static void test_setup_failure_is_reported(void **unused)
{
    (void)unused;
    fixture f;
    const char *names[] = {"spin", "refusing"};
    fixture_init(&f, names, 2, 3, 1);
    kernel_outcome out;
    char err[512] = "";
    assert_int_equal(kernel_run(&f.config, NULL, &out, err, sizeof err), -1);
    assert_non_null(strstr(err, "refusing"));
    assert_non_null(strstr(err, "refused on purpose"));
    kernel_outcome_free(&out);
    kernel_module_close(f.module);
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median wall time of 7 batches that kept the CPU (as the session's retakes do), so that
 * other processes on a busy machine cannot fail the test. */
static double median_unpreempted(const verdict_kernel *k, void *state, uint64_t n)
{
    double seconds[7];
    size_t taken = 0;
    for (size_t tries = 0; taken < 7 && tries < 100; tries++) {
        kernel_timing t;
        kernel_time_batch_cpu(k, state, n, &t);
        if (!kernel_timing_preempted(&t))
            seconds[taken++] = t.seconds;
    }
    assert_int_equal(taken, 7);
    qsort(seconds, 7, sizeof seconds[0], compare_doubles);
    return seconds[3];
}

/* The calibrated batch must take the target within a factor of two. */
static void test_calibration_reaches_target(void **unused)
{
    (void)unused;
    const double targets[] = {0.002, 0.010};
    kernel_module *m = open_fake();
    char err[512];
    const verdict_kernel *spin = kernel_module_find(m, "spin", err, sizeof err);
    char why[64];
    verdict_kernel_setup s = {.error = why, .error_size = sizeof why};
    assert_int_equal(spin->setup(&s), 0);
    for (size_t t = 0; t < 2; t++) {
        kernel_calibration c;
        kernel_calibrate(spin, s.state, targets[t], &c);
        assert_true(c.iterations > 100);
        assert_false(c.single_call_too_long);
        double median = median_unpreempted(spin, s.state, c.iterations);
        if (median < targets[t] / 2 || median > targets[t] * 2)
            fail_msg("target %g s: %llu calls take %g s", targets[t],
                     (unsigned long long)c.iterations, median);
    }
    spin->teardown(s.state);
    kernel_module_close(m);
}

/* Samples are taken block after block, each block in schedule_block_order's order. */
static void test_interleaving_order(void **unused)
{
    (void)unused;
    fixture f;
    const char *names[] = {"spin", "spin_same", "spin_slow"};
    fixture_init(&f, names, 3, 6, 42);
    f.config.sample_seconds = 0.0005;
    kernel_outcome out;
    run_fixture(&f, NULL, &out);
    assert_int_equal(out.status, KERNEL_DONE);
    assert_int_equal(out.complete_blocks[0], 6);
    assert_int_equal(out.n_samples, 18);
    size_t order[3], differing = 0;
    for (size_t b = 0; b < 6; b++) {
        schedule_block_order(42, 0, b, 3, order);
        for (size_t i = 0; i < 3; i++) {
            const kernel_sample *s = &out.samples[b * 3 + i];
            assert_int_equal(s->block, (long)b);
            assert_int_equal(s->seq, (long)(b * 3 + i));
            assert_int_equal(s->kernel, order[i]);
            differing += order[i] != i;
            if (b * 3 + i > 0)
                assert_true(s->started >= out.samples[b * 3 + i - 1].started);
        }
    }
    assert_true(differing > 0); /* the orders really are shuffled */
    kernel_outcome_free(&out);
    kernel_module_close(f.module);
}

static void stop_after_two_blocks(void *context, const kernel_progress *p)
{
    if (p->blocks_done == 2)
        *(volatile sig_atomic_t *)context = 1;
}

static void test_stop_keeps_complete_blocks(void **unused)
{
    (void)unused;
    fixture f;
    const char *names[] = {"spin", "stateless"};
    volatile sig_atomic_t stop = 0;
    fixture_init(&f, names, 2, 10, 3);
    f.config.sample_seconds = 0.0005;
    f.config.progress = stop_after_two_blocks;
    f.config.progress_context = (void *)&stop;
    kernel_outcome out;
    run_fixture(&f, &stop, &out);
    assert_int_equal(out.status, KERNEL_INTERRUPTED);
    assert_int_equal(out.complete_blocks[0], 2);
    assert_int_equal(out.n_samples, 4);
    kernel_outcome_free(&out);
    kernel_module_close(f.module);
}

/* The setup's bytes per call give gbps series after the ns_per_call ones. */
static void test_gbps_series(void **unused)
{
    (void)unused;
    fixture f;
    const char *names[] = {"sized", "sized"};
    fixture_init(&f, names, 2, 3, 5);
    f.point_args[0] = "4096";
    f.config.sample_seconds = 0.0005;
    kernel_outcome out;
    run_fixture(&f, NULL, &out);
    assert_int_equal(out.settings[0].bytes_per_call, 4096);
    double values[2 * 2 * 3];
    analysis_series series[4];
    assert_int_equal(kernel_point_series(&f.config, &out, 0, values, series), 4);
    assert_string_equal(series[2].metric, "gbps");
    assert_true(series[2].higher_is_better);
    double ns = series[0].values[1], gbps = series[2].values[1];
    assert_true(ns > 0);
    assert_float_equal(gbps, 4096 / ns, 1e-9 * gbps);
    kernel_outcome_free(&out);
    kernel_module_close(f.module);
}

/* Runs baseline against candidate and returns the ns_per_call comparison's verdict. */
static verdict_kind compare_pair(const char *baseline, const char *candidate, size_t blocks,
                                 uint64_t seed, double *ratio)
{
    fixture f;
    const char *names[] = {baseline, candidate};
    fixture_init(&f, names, 2, blocks, seed);
    kernel_outcome out;
    run_fixture(&f, NULL, &out);
    double values[2 * 2 * 64];
    analysis_series series[4];
    size_t n = kernel_point_series(&f.config, &out, 0, values, series);
    analysis_result result;
    char err[256];
    if (analysis_run(series, n, &f.config.analysis, &result, err, sizeof err) != 0)
        fail_msg("analysis: %s", err);
    assert_int_equal(result.n_comparisons, 1);
    assert_true(result.comparisons[0].ok);
    verdict_kind kind = result.comparisons[0].result.decision.kind;
    *ratio = result.comparisons[0].result.ratio;
    analysis_result_free(&result);
    kernel_outcome_free(&out);
    kernel_module_close(f.module);
    return kind;
}

static void test_slower_kernel_is_worse(void **unused)
{
    (void)unused;
    double ratio;
    verdict_kind kind = compare_pair("spin", "spin_slow", 20, 7, &ratio);
    if (kind != VERDICT_WORSE || ratio < 1.08 || ratio > 1.4)
        fail_msg("spin_slow/spin = %.3f, verdict %d; expected worse near 1.2", ratio, (int)kind);
}

/* An A/A check: the same kernel twice. At a 5% error rate 4 or more false claims in 8
 * seeds happen about once in 2500 runs (once in 500 at 7.5%, for a busy VM); a design
 * that lets drift decide (all of A, then all of B) makes many more. */
static void test_identical_kernels_mostly_not_different(void **unused)
{
    (void)unused;
    size_t claims = 0;
    for (uint64_t seed = 1; seed <= 8; seed++) {
        double ratio;
        verdict_kind kind = compare_pair("spin", "spin_same", 12, seed, &ratio);
        if (kind == VERDICT_BETTER || kind == VERDICT_WORSE) {
            claims++;
            fprintf(stderr, "# seed %llu: identical kernels called %s (ratio %.4f)\n",
                    (unsigned long long)seed, kind == VERDICT_BETTER ? "better" : "worse", ratio);
        }
    }
    assert_true(claims <= 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_missing_file),
        cmocka_unit_test(test_not_a_shared_object),
        cmocka_unit_test(test_symbol_missing),
        cmocka_unit_test(test_abi_mismatch),
        cmocka_unit_test(test_kernel_not_found),
        cmocka_unit_test(test_setup_failure_is_reported),
        cmocka_unit_test(test_calibration_reaches_target),
        cmocka_unit_test(test_interleaving_order),
        cmocka_unit_test(test_stop_keeps_complete_blocks),
        cmocka_unit_test(test_gbps_series),
        cmocka_unit_test(test_slower_kernel_is_worse),
        cmocka_unit_test(test_identical_kernels_mostly_not_different),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

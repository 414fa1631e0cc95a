/* Tests of counters as metrics (core/metrics.c's names, core/run_counters.c): what a name is
 * and what valgrind can count, the check before anything runs, and real counts around the
 * runner: page faults of touch_pages (software events), spin under cachegrind. */
#include <limits.h>
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
#include "core/cachegrind.h"
#include "core/experiment.h"
#include "core/metrics.h"
#include "core/run_counters.h"
#include "core/runner.h"
#include "core/target.h"
#include "../env/counters_testing.h"

extern char **environ;

static const char *env_or_fail(const char *variable)
{
    const char *value = getenv(variable);
    if (value == NULL)
        fail_msg("%s is not set (meson test sets it)", variable);
    return value;
}

static void assert_message_has(const verdict_error *err, const char *part)
{
    if (strstr(err->message, part) == NULL)
        fail_msg("'%s' is not in: %s", part, err->message);
}

/* Counts of events are exact counts for the analysis; ratios, clocks and the rest are not. */
static void counts_of_events_are_exact(void **state)
{
    (void)state;
    assert_true(metric_counts_exactly("instructions"));
    assert_true(metric_counts_exactly("instructions:u"));
    assert_true(metric_counts_exactly("branch-misses"));
    assert_true(metric_counts_exactly("page-faults:uk"));
    assert_true(metric_counts_exactly("instructions/tx"));
    assert_true(metric_counts_exactly("branch-misses/query"));
    assert_false(metric_counts_exactly("task-clock/tx"));
    assert_false(metric_counts_exactly("ipc"));
    assert_false(metric_counts_exactly("branch-miss-rate"));
    assert_false(metric_counts_exactly("task-clock"));
    assert_false(metric_counts_exactly("cpu-clock"));
    assert_false(metric_counts_exactly("wall"));
    assert_false(metric_counts_exactly("tps"));
    assert_false(metric_counts_exactly("instructionz"));
}

static void names_are_counters_builtins_or_extractions(void **state)
{
    (void)state;
    metric_def m;
    verdict_error err = {0};
    assert_int_equal(metric_parse("instructions", &m, &err), 0);
    assert_int_equal(m.kind, METRIC_COUNTER);
    assert_int_equal(m.counter.n_parts, 1);
    assert_string_equal(m.counter.name, "instructions:u");
    assert_int_equal(metric_value(&m, &(run_result){0}, &(double){0}, &err), -1);
    assert_true(error_is(&err, ERROR_INTERNAL)); /* never read from the run */
    metric_free(&m);
    assert_int_equal(metric_parse("ipc:uk", &m, &err), 0);
    assert_int_equal(m.counter.n_parts, 2);
    assert_true(metric_counter_higher_is_better(&m.counter));
    metric_free(&m);
    assert_int_equal(metric_parse("page-faults", &m, &err), 0);
    assert_false(metric_counter_higher_is_better(&m.counter));
    metric_free(&m);
    assert_int_equal(metric_parse("wall", &m, &err), 0);
    assert_int_equal(m.kind, METRIC_WALL);
    metric_free(&m);
    assert_int_equal(metric_parse("walltime", &m, &err), -1);
    assert_true(error_is(&err, ERROR_USAGE));
    assert_message_has(&err, "--metric 'walltime': expected wall, user, sys, cpu, maxrss, "
                             "NAME=/REGEX/ or a counter: unknown counter 'walltime'");
    assert_message_has(&err, "counters: instructions, cycles");
    assert_int_equal(metric_parse("x=/no group/", &m, &err), -1);
    assert_message_has(&err, "no capture group");
}

static void expect_valgrind_refuses(const char *name, const char *why)
{
    perf_counters_metric counter;
    verdict_error err = {0};
    if (metric_counter_parse(name, EXPERIMENT_COUNTERS_VALGRIND, &counter, &err) == 0)
        fail_msg("'%s' is accepted under valgrind", name);
    assert_true(error_is(&err, ERROR_USAGE));
    assert_message_has(&err, why);
}

static void valgrind_counts_what_cachegrind_has(void **state)
{
    (void)state;
    perf_counters_metric counter;
    verdict_error err = {0};
    const char *counted[] = {"instructions", "instructions:u", "cache-misses", "branches",
                             "branch-misses", "branch-miss-rate", "L1-dcache-load-misses"};
    for (size_t i = 0; i < sizeof counted / sizeof *counted; i++)
        if (metric_counter_parse(counted[i], EXPERIMENT_COUNTERS_VALGRIND, &counter, &err) != 0)
            fail_msg("%s: %s", counted[i], err.message);
    expect_valgrind_refuses("instructions:k", "cachegrind sees user space only (:u)");
    expect_valgrind_refuses("instructions:uk", "cachegrind sees user space only (:u)");
    expect_valgrind_refuses("page-faults", "cachegrind counts: instructions");
    expect_valgrind_refuses("ipc", "'cycles' cannot be counted under --counters valgrind");
    expect_valgrind_refuses("instrctions", "unknown counter 'instrctions'");
    /* perf takes every name of its table at every level */
    assert_int_equal(metric_counter_parse("page-faults:k", EXPERIMENT_COUNTERS_PERF, &counter,
                                          &err), 0);
    /* time and memory under valgrind are valgrind's */
    assert_int_equal(metric_check_counted_by("maxrss", EXPERIMENT_COUNTERS_VALGRIND, &err), -1);
    assert_message_has(&err, "metric 'maxrss' is not measured under --counters valgrind");
    assert_int_equal(metric_check_counted_by("wall", EXPERIMENT_COUNTERS_PERF, &err), 0);
    assert_int_equal(metric_check_counted_by("instructions", EXPERIMENT_COUNTERS_VALGRIND,
                                             &err), 0);
}

/* ---- the check before anything runs ---- */

static const target_kind counting_target = {.name = "counting", .counters = true};

static void experiment_of(experiment *e, experiment_metric *metrics, size_t n,
                          experiment_counters how)
{
    experiment_init(e);
    e->target = &counting_target;
    e->metrics = metrics;
    e->n_metrics = n;
    e->counters = how;
}

static void the_check_asks_the_machine(void **state)
{
    (void)state;
    experiment_metric metrics[] = {{"wall", NULL, false}, {"instructions", NULL, false},
                                   {"cycles", "cycles: ([0-9]+)", false}};
    experiment e;
    verdict_error err = {0};
    /* the regex metric named like a counter is an extraction: never probed */
    experiment_of(&e, metrics, 1, EXPERIMENT_COUNTERS_PERF);
    assert_int_equal(run_counters_check(&e, &err), 0);
    metrics[1].name = "instructions";
    experiment_of(&e, metrics, 2, EXPERIMENT_COUNTERS_PERF);
    perf_counters_spec instructions = {perf_counters_event_find("instructions"),
                                       PERF_COUNTERS_USER};
    verdict_error probe = {0};
    bool has_pmu = perf_counters_probe(&instructions, &probe) == 0;
    int rc = run_counters_check(&e, &err);
    if (has_pmu) {
        assert_int_equal(rc, 0);
    } else {
        print_message("no PMU here: %s\n", err.message);
        assert_int_equal(rc, -1);
        assert_true(error_is(&err, ERROR_USAGE));
        assert_message_has(&err, "metric instructions: cannot count 'instructions:u'");
        assert_message_has(&err, "--counters valgrind");
    }
    /* under valgrind only valgrind is asked for */
    char *path = strdup(env_or_fail("PATH"));
    setenv("PATH", "/nonexistent", 1);
    experiment_of(&e, metrics, 2, EXPERIMENT_COUNTERS_VALGRIND);
    rc = run_counters_check(&e, &err);
    setenv("PATH", path, 1);
    free(path);
    assert_int_equal(rc, -1);
    assert_message_has(&err, "metric instructions: valgrind is not installed: apt-get install "
                             "valgrind");
}

/* ---- real counts around the runner ---- */

/* Runs argv with its counters around it, as the command target does. */
static int run_counted(run_counters *c, char *const *command, double *values, char *note,
                       size_t note_len, run_result *result)
{
    verdict_error err = {0};
    char *const *argv;
    if (run_counters_begin(c, command, &argv, &err) != 0)
        fail_msg("begin: %s", err.message);
    run_request request = {.argv = argv, .envp = environ};
    if (runner_execute(&request, NULL, result, &err) != 0)
        fail_msg("%s: %s", command[0], err.message);
    int outcome = run_counters_end(c, values, note, note_len, &err);
    if (outcome < 0)
        fail_msg("end: %s", err.message);
    return outcome;
}

static void open_counters(const char *const *names, size_t n, experiment_counters how,
                          metric_def *defs, run_counters **out)
{
    verdict_error err = {0};
    for (size_t i = 0; i < n; i++)
        if (metric_parse(names[i], &defs[i], &err) != 0)
            fail_msg("%s: %s", names[i], err.message);
    if (run_counters_open(defs, n, how, out, &err) != 0)
        fail_msg("open: %s", err.message);
}

static void free_defs(metric_def *defs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        metric_free(&defs[i]);
}

static void without_counters_nothing_is_opened(void **state)
{
    (void)state;
    const char *names[] = {"wall", "maxrss"};
    metric_def defs[2];
    run_counters *c = (run_counters *)&defs; /* anything but NULL */
    open_counters(names, 2, EXPERIMENT_COUNTERS_VALGRIND, defs, &c);
    assert_null(c);
    free_defs(defs, 2);
}

/* Page faults of touch_pages: 1000 pages more are 1000 faults more, and the builtins'
 * places are left to the run's readings. Where perf_event_open is forbidden altogether,
 * said and skipped (failed in CI). */
static void page_faults_are_counted_per_run(void **state)
{
    (void)state;
    if (counting_forbidden()) {
        skip();
        return;
    }
    const char *names[] = {"wall", "page-faults", "task-clock", "page-faults:u"};
    metric_def defs[4];
    run_counters *c = NULL;
    open_counters(names, 4, EXPERIMENT_COUNTERS_PERF, defs, &c);
    assert_non_null(c);
    double faults[2];
    for (int k = 0; k < 2; k++) {
        char pages[16];
        snprintf(pages, sizeof pages, "%d", 1000 * (k + 1));
        char *argv[] = {(char *)env_or_fail("TOUCH_PAGES"), pages, NULL};
        double values[4] = {-1, NAN, NAN, NAN};
        char note[512];
        run_result result;
        assert_int_equal(run_counted(c, argv, values, note, sizeof note, &result),
                         RUN_COUNTERS_COUNTED);
        assert_int_equal(result.exit_code, 0);
        run_result_free(&result);
        assert_true(values[0] == -1); /* not a counter: untouched */
        assert_true(values[1] >= 1000.0 * (k + 1) && values[1] < 1000.0 * (k + 1) + 1000);
        assert_true(values[2] > 0);   /* nanoseconds of CPU */
        assert_true(values[3] <= values[1]);
        faults[k] = values[1];
    }
    assert_true(fabs(faults[1] - faults[0] - 1000) <= 20);
    run_counters_close(c);
    free_defs(defs, 4);
}

static bool valgrind_missing(void);

/* The thread's own work between start and stop (a kernel's batch), span by span: each span's
 * faults are its pages, what the thread does between spans is not counted, and a ratio's
 * parts are shared. Under valgrind there is no such counting: refused. */
static void the_threads_own_work_is_counted_between_start_and_stop(void **state)
{
    (void)state;
    verdict_error err = {0};
    if (counting_forbidden()) {
        skip();
        return;
    }
    const char *names[] = {"wall", "page-faults", "page-faults:k"};
    metric_def defs[3];
    run_counters *c = NULL;
    open_counters(names, 3, EXPERIMENT_COUNTERS_PERF, defs, &c);
    for (size_t span = 1; span <= 3; span++) {
        assert_true(fresh_pages_touch(500)); /* between spans: not counted */
        double values[3] = {-1, NAN, NAN};
        char note[512];
        assert_int_equal(run_counters_start(c, &err), 0);
        assert_true(fresh_pages_touch(1000 * span));
        assert_int_equal(run_counters_stop(c, values, note, sizeof note, &err),
                         RUN_COUNTERS_COUNTED);
        print_message("span %zu: %.0f page faults of %zu pages, %.0f in the kernel\n", span,
                      values[1], 1000 * span, values[2]);
        assert_true(values[0] == -1);
        assert_true(values[1] >= 1000.0 * span && values[1] <= 1000.0 * span + 20);
        assert_true(values[2] < 20); /* user-space writes fault in user mode */
    }
    run_counters_close(c);
    free_defs(defs, 3);
    if (valgrind_missing()) /* valgrind's run_counters_open needs it */
        return;
    const char *counted[] = {"instructions"};
    open_counters(counted, 1, EXPERIMENT_COUNTERS_VALGRIND, defs, &c);
    assert_int_equal(run_counters_start(c, &err), -1);
    assert_true(error_is(&err, ERROR_INTERNAL));
    run_counters_close(c);
    free_defs(defs, 1);
}

static bool valgrind_missing(void)
{
    char path[PATH_MAX];
    verdict_error err;
    if (cachegrind_find_valgrind(path, sizeof path, &err) == 0)
        return false;
    print_message("SKIPPED: %s\n", err.message);
    return true;
}

/* Under cachegrind: a ratio is its parts' quotient exactly, the counts are exact integers,
 * and a run that writes no file is one that was not counted. */
static void cachegrind_counts_around_the_run(void **state)
{
    (void)state;
    if (valgrind_missing()) {
        skip();
        return;
    }
    const char *names[] = {"branches", "branch-misses", "branch-miss-rate", "instructions"};
    metric_def defs[4];
    run_counters *c = NULL;
    open_counters(names, 4, EXPERIMENT_COUNTERS_VALGRIND, defs, &c);
    char *argv[] = {(char *)env_or_fail("SPIN"), "100000", NULL};
    double values[4];
    char note[512];
    run_result result;
    assert_int_equal(run_counted(c, argv, values, note, sizeof note, &result),
                     RUN_COUNTERS_COUNTED);
    assert_int_equal(result.exit_code, 0);
    run_result_free(&result);
    assert_true(values[0] > 100000 && values[1] > 0 && values[1] < values[0]);
    assert_true(values[2] == values[1] / values[0]);
    assert_true(values[3] > 800000 && values[3] == floor(values[3]));
    /* valgrind cannot start this: no file, nothing counted, the note says why */
    char *missing[] = {"/nonexistent/program", NULL};
    assert_int_equal(run_counted(c, missing, values, note, sizeof note, &result),
                     RUN_COUNTERS_FAILED);
    assert_int_not_equal(result.exit_code, 0);
    run_result_free(&result);
    assert_true(isnan(values[0]) && isnan(values[3]));
    if (strstr(note, "cachegrind wrote no output file") == NULL)
        fail_msg("note: %s", note);
    run_counters_close(c);
    free_defs(defs, 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(counts_of_events_are_exact),
        cmocka_unit_test(names_are_counters_builtins_or_extractions),
        cmocka_unit_test(valgrind_counts_what_cachegrind_has),
        cmocka_unit_test(the_check_asks_the_machine),
        cmocka_unit_test(without_counters_nothing_is_opened),
        cmocka_unit_test(page_faults_are_counted_per_run),
        cmocka_unit_test(the_threads_own_work_is_counted_between_start_and_stop),
        cmocka_unit_test(cachegrind_counts_around_the_run),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

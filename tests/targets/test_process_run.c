/* Unit tests of the measured run of a process: /proc/stat snapshots only around runs that
 * could be measured by them, the load average recorded either way, the environment pad. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "targets/process_run.h"

/* Runs argv once through the runner; returns its measurement. */
static target_measurement run_once(process_runner *p, char *const *argv, long seq)
{
    char **envp = process_runner_envp(p, NULL);
    assert_non_null(envp);
    run_request request = {.argv = argv, .envp = envp};
    run_result result;
    target_measurement out;
    memset(&out, 0, sizeof out);
    verdict_error err;
    error_clear(&err);
    assert_int_equal(process_runner_measure(p, &request, seq, NULL, &result, &out, &err), 0);
    assert_int_equal(result.exit_code, 0);
    run_result_free(&result);
    free(envp);
    return out;
}

/* Whatever the machine's speed: the next run is bracketed exactly when some run so far was
 * long enough for /proc/stat to measure it, and then for good. */
static void snapshots_only_once_a_run_could_be_measured(void **state)
{
    (void)state;
    process_runner p;
    target_settings settings = {.randomize_env = true};
    verdict_error err;
    error_clear(&err);
    assert_int_equal(process_runner_open(&p, &settings, 7, false, &err), 0);
    assert_true(p.probe_open); /* /proc is mounted wherever the tests run */
    assert_true(process_runner_brackets_next(&p)); /* nothing known yet */

    char *const quick[] = {"true", NULL};
    target_measurement m = run_once(&p, quick, 1);
    assert_true(isfinite(m.load1));
    bool long_enough = interference_resolvable(p.longest_wall);
    assert_int_equal(process_runner_brackets_next(&p), long_enough);
    m = run_once(&p, quick, 2);
    assert_true(isfinite(m.load1)); /* recorded even when not bracketed */
    if (!long_enough) /* not bracketed: no reading, rather than one from nothing */
        assert_true(isnan(m.steal) && isnan(m.other_busy));

    char *const slow[] = {"sleep", "0.08", NULL}; /* 8 ticks at USER_HZ 100 */
    run_once(&p, slow, 3);
    assert_true(process_runner_brackets_next(&p));
    m = run_once(&p, quick, 4);
    assert_true(process_runner_brackets_next(&p)); /* the slow run is remembered */
    assert_true(isfinite(m.load1));
    process_runner_close(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(snapshots_only_once_a_run_could_be_measured),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

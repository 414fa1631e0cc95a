/* Unit tests for core/runner.c and core/metrics.c under the issue 18 cases: NUL bytes in
 * the output, output beyond the capture limit, a command outliving a SIGKILLed verdict, a
 * missing directory, and captured numbers that are long, hexadecimal or subnormal. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/metrics.h"
#include "common/error.h"
#include "core/runner.h"

extern char **environ;

static int run_shell(const char *script, run_result *out, verdict_error *err)
{
    char *argv[] = {"/bin/sh", "-c", (char *)script, NULL};
    run_request request = {.argv = argv, .envp = environ, .capture_stdout = true};
    return runner_execute(&request, NULL, out, err);
}

static double metric_of(const char *pattern, const run_result *run, verdict_error *err)
{
    metric_def m;
    assert_int_equal(metric_from_regex("x", pattern, false, &m, err), 0);
    double value = NAN;
    if (metric_value(&m, run, &value, err) != 0)
        value = NAN;
    metric_free(&m);
    return value;
}

/* regexec stopped at the first NUL: "no line of the output matches". */
static void nul_bytes_do_not_stop_the_metric_search(void **state)
{
    (void)state;
    run_result run;
    verdict_error err = {0};
    assert_int_equal(run_shell("printf 'binary\\000junk\\nx=42\\n'", &run, &err), 0);
    assert_int_equal(run.stdout_length, 17);
    double value = metric_of("^x=([0-9]+)$", &run, &err);
    if (value != 42.0)
        fail_msg("x = %g: %s", value, err.message);
    run_result_free(&run);
}

/* seq 1 N fills the capture to within ten thousand bytes of the limit, then a line of
 * 20,000 bytes crosses it: "x=1", b's, "23". The old capture dropped the 16 KiB reads that
 * did not fit and appended the small last one, joining "x=1" and "...23": 123, and a text
 * that was not what the command printed. Now the capture is the exact head up to the last
 * whole line, and the metric says the output was cut. */
static void output_beyond_the_limit_keeps_a_contiguous_head(void **state)
{
    (void)state;
    enum { LAST = 8526245 };
    run_result run;
    verdict_error err = {0};
    char script[256];
    snprintf(script, sizeof script,
             "seq 1 %d; printf x=1; head -c 20000 /dev/zero | tr '\\000' b; printf '23\\n'",
             LAST);
    assert_int_equal(run_shell(script, &run, &err), 0);
    assert_true(run.stdout_cut);
    assert_true(run.stdout_length < RUNNER_STDOUT_LIMIT);
    /* The head is exactly seq's output: every line whole, nothing joined. */
    size_t at = 0;
    char line[32];
    for (int i = 1; i <= LAST; i++) {
        int length = snprintf(line, sizeof line, "%d\n", i);
        assert_true(at + (size_t)length <= run.stdout_length);
        if (memcmp(run.stdout_text + at, line, (size_t)length) != 0)
            fail_msg("the capture is not the output's head at byte %zu (line %d)", at, i);
        at += (size_t)length;
    }
    assert_int_equal(at, run.stdout_length);
    assert_int_equal(run.stdout_dropped, 3 + 20000 + 3);
    double value = metric_of("x=([0-9]+)", &run, &err);
    assert_true(isnan(value));
    assert_non_null(strstr(err.message, "were not kept"));
    run_result_free(&run);
}

/* A single line longer than the limit is kept to the limit; a match that reaches the cut
 * may hold a cut number and is refused. */
static void a_number_at_the_cut_is_refused(void **state)
{
    (void)state;
    run_result run;
    verdict_error err = {0};
    assert_int_equal(run_shell("printf x=; head -c 70000000 /dev/zero | tr '\\000' 7", &run, &err),
                     0);
    assert_true(run.stdout_cut);
    assert_int_equal(run.stdout_length, RUNNER_STDOUT_LIMIT - 1);
    assert_true(isnan(metric_of("x=([0-9]+)", &run, &err)));
    assert_non_null(strstr(err.message, "the number may be cut too"));
    run_result_free(&run);
}

static bool process_gone(pid_t pid)
{
    char path[64], text[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return true;
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    const char *paren = strrchr(text, ')');
    return paren != NULL && paren[1] == ' ' && paren[2] == 'Z'; /* a zombie holds nothing */
}

static pid_t read_pid_file(const char *path, double seconds)
{
    for (int tries = 0; tries < (int)(seconds * 100); tries++) {
        FILE *f = fopen(path, "r");
        int pid = 0;
        if (f != NULL && fscanf(f, "%d", &pid) == 1 && pid > 0) {
            fclose(f);
            return (pid_t)pid;
        }
        if (f != NULL)
            fclose(f);
        usleep(10000);
    }
    return 0;
}

/* A stand-in for verdict runs `sleep 600`; it is SIGKILLed; the sleep must go too. It
 * stayed alive under pid 1 before (posix_spawn cannot set the parent-death signal). The
 * waits are generous bounds, not timings: the kernel sends the signal at once. */
static void the_command_dies_with_verdict(void **state)
{
    (void)state;
    char pid_file[] = "/tmp/verdict-runner-pid-XXXXXX";
    int fd = mkstemp(pid_file);
    assert_true(fd >= 0);
    close(fd);
    pid_t verdict = fork();
    assert_true(verdict >= 0);
    if (verdict == 0) {
        char script[128];
        verdict_error err = {0};
        snprintf(script, sizeof script, "echo $$ > %s; exec sleep 600", pid_file);
        run_result run;
        run_shell(script, &run, &err);
        _exit(0);
    }
    pid_t command = read_pid_file(pid_file, 60.0);
    assert_true(command > 0);
    assert_int_equal(kill(verdict, SIGKILL), 0);
    assert_int_equal(waitpid(verdict, NULL, 0), verdict);
    bool gone = false;
    for (int tries = 0; tries < 3000 && !gone; tries++) {
        gone = process_gone(command);
        if (!gone)
            usleep(10000);
    }
    if (!gone)
        kill(command, SIGKILL);
    unlink(pid_file);
    assert_true(gone);
}

static void a_missing_directory_is_named(void **state)
{
    (void)state;
    char *argv[] = {"/bin/true", NULL};
    run_request request = {.argv = argv, .envp = environ, .cwd = "/nonexistent/verdict-dir"};
    run_result run;
    verdict_error err = {0};
    assert_int_equal(runner_execute(&request, NULL, &run, &err), -1);
    assert_non_null(strstr(err.message, "its directory /nonexistent/verdict-dir: No such file"));
    char *missing[] = {"/nonexistent/verdict-program", NULL};
    request = (run_request){.argv = missing, .envp = environ};
    assert_int_equal(runner_execute(&request, NULL, &run, &err), -1);
    assert_non_null(strstr(err.message, "cannot run '/nonexistent/verdict-program': No such file"));
}

static void the_command_runs_in_its_group_with_its_environment(void **state)
{
    (void)state;
    char *argv[] = {"/bin/sh", "-c", "echo \"$VERDICT_TEST $(pwd)\"; ps -o pgid= -p $$", NULL};
    char *envp[] = {"VERDICT_TEST=yes", "PATH=/usr/bin:/bin", NULL};
    run_request request = {.argv = argv, .envp = envp, .cwd = "/tmp", .capture_stdout = true};
    run_result run;
    verdict_error err = {0};
    assert_int_equal(runner_execute(&request, NULL, &run, &err), 0);
    assert_int_equal(run.exit_code, 0);
    assert_non_null(strstr(run.stdout_text, "yes /tmp\n"));
    long group = strtol(strchr(run.stdout_text, '\n') + 1, NULL, 10);
    assert_true(group > 0 && group != (long)getpgrp());
    run_result_free(&run);
}

/* The child's stack is borrowed from verdict's own up to a size. A script without "#!"
 * given 20,000 arguments makes execvpe copy them onto that stack (160 KB of pointers, for
 * /bin/sh): the stack must then be a mapping of its own, and the run works. */
static void a_command_with_many_arguments_gets_a_stack_of_its_own(void **state)
{
    (void)state;
    enum { EXTRA = 20000 };
    char script[] = "/tmp/verdict-no-shebang-XXXXXX";
    int fd = mkstemp(script);
    assert_true(fd >= 0);
    const char text[] = "echo $#\n";
    assert_int_equal(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
    assert_int_equal(fchmod(fd, 0700), 0);
    close(fd);
    char **argv = calloc(EXTRA + 2, sizeof *argv);
    assert_non_null(argv);
    argv[0] = script;
    for (size_t i = 0; i < EXTRA; i++)
        argv[1 + i] = "x";
    char *envp[] = {"PATH=/usr/bin:/bin", NULL};
    run_request request = {.argv = argv, .envp = envp, .capture_stdout = true};
    run_result run;
    verdict_error err = {0};
    assert_int_equal(runner_execute(&request, NULL, &run, &err), 0);
    assert_int_equal(run.exit_code, 0);
    assert_string_equal(run.stdout_text, "20000\n");
    run_result_free(&run);
    /* and a short one borrows again */
    argv[2] = NULL;
    assert_int_equal(runner_execute(&request, NULL, &run, &err), 0);
    assert_string_equal(run.stdout_text, "1\n");
    run_result_free(&run);
    unlink(script);
    free(argv);
}

/* The captured text went through a 128-byte buffer (a long number was cut and misread)
 * and strtod (0x10 read as 16, 1e-308 refused as out of range). */
static void captured_numbers_are_read_as_decimal(void **state)
{
    (void)state;
    run_result run;
    verdict_error err = {0};
    assert_int_equal(run_shell("printf 'a=0.%0200d15\\nb=0x10\\nc=1e-308\\nd=nan\\n' 0", &run,
                               &err), 0);
    double a = metric_of("a=([0-9.]+)", &run, &err);
    assert_true(fabs(a / 1.5e-201 - 1.0) < 1e-12); /* cut to 127 bytes it read as 0 */
    assert_true(isnan(metric_of("b=([^\n]+)", &run, &err)));
    assert_non_null(strstr(err.message, "\"0x10\" is hexadecimal"));
    assert_true(metric_of("c=([^\n]+)", &run, &err) == 1e-308);
    assert_true(isnan(metric_of("d=([^\n]+)", &run, &err)));
    assert_non_null(strstr(err.message, "\"nan\" is not a finite number"));
    run_result_free(&run);
}

static void nul_bytes_in_stderr_do_not_hide_its_tail(void **state)
{
    (void)state;
    run_result run;
    verdict_error err = {0};
    assert_int_equal(run_shell("printf 'start\\000end' >&2", &run, &err), 0);
    assert_string_equal(run.stderr_tail, "start?end");
    run_result_free(&run);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(nul_bytes_do_not_stop_the_metric_search),
        cmocka_unit_test(output_beyond_the_limit_keeps_a_contiguous_head),
        cmocka_unit_test(a_number_at_the_cut_is_refused),
        cmocka_unit_test(the_command_dies_with_verdict),
        cmocka_unit_test(a_missing_directory_is_named),
        cmocka_unit_test(the_command_runs_in_its_group_with_its_environment),
        cmocka_unit_test(captured_numbers_are_read_as_decimal),
        cmocka_unit_test(nul_bytes_in_stderr_do_not_hide_its_tail),
        cmocka_unit_test(a_command_with_many_arguments_gets_a_stack_of_its_own),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

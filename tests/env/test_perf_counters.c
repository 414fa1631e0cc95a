/* Tests of src/env/perf_counters: perf's names and modifiers, the reasons a counter cannot be
 * had, and real counts of real children (page faults, CPU time, a child's child). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "env/perf_counters.h"
#include "counters_testing.h"

extern char **environ;

enum { PAGES = 2000, RUNS = 5 };

static const char *program(const char *variable)
{
    const char *path = getenv(variable);
    if (path == NULL)
        fail_msg("%s is not set (meson test sets it)", variable);
    return path;
}

static perf_counters_spec spec_of(const char *text)
{
    perf_counters_metric metric;
    verdict_error err;
    if (perf_counters_parse(text, &metric, &err) != 0)
        fail_msg("%s: %s", text, err.message);
    assert_int_equal(metric.n_parts, 1);
    return metric.parts[0];
}

static void names_parse_with_their_default_levels(void **state)
{
    (void)state;
    perf_counters_metric m;
    verdict_error err;
    assert_int_equal(perf_counters_parse("instructions", &m, &err), 0);
    assert_null(m.derived);
    assert_string_equal(m.parts[0].event->name, "instructions");
    assert_int_equal(m.parts[0].scope, PERF_COUNTERS_USER); /* rustc-perf's instructions:u */
    assert_string_equal(m.name, "instructions:u");
    assert_int_equal(perf_counters_parse("page-faults", &m, &err), 0);
    assert_int_equal(m.parts[0].scope, PERF_COUNTERS_USER_KERNEL);
    assert_string_equal(m.name, "page-faults:uk");
    assert_int_equal(perf_counters_parse("branch-instructions", &m, &err), 0);
    assert_string_equal(m.name, "branches:u"); /* perf's alias, under the table's name */
    assert_int_equal(perf_counters_parse("L1-dcache-load-misses", &m, &err), 0);
    assert_int_equal(m.parts[0].event->type, 3 /* PERF_TYPE_HW_CACHE */);
    /* every row of the table parses by its name and by its alias */
    for (size_t i = 0; i < perf_counters_event_count(); i++) {
        const perf_counters_event *e = perf_counters_event_at(i);
        assert_int_equal(perf_counters_parse(e->name, &m, &err), 0);
        assert_ptr_equal(m.parts[0].event, e);
        if (e->alias != NULL) {
            assert_int_equal(perf_counters_parse(e->alias, &m, &err), 0);
            assert_ptr_equal(m.parts[0].event, e);
        }
    }
}

static void modifiers_choose_the_levels(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        perf_counters_scope scope;
        const char *name;
    } cases[] = {
        {"cycles:u", PERF_COUNTERS_USER, "cycles:u"},
        {"cycles:k", PERF_COUNTERS_KERNEL, "cycles:k"},
        {"cycles:uk", PERF_COUNTERS_USER_KERNEL, "cycles:uk"},
        {"cycles:ku", PERF_COUNTERS_USER_KERNEL, "cycles:uk"},
        {"page-faults:u", PERF_COUNTERS_USER, "page-faults:u"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        perf_counters_metric m;
        verdict_error err;
        assert_int_equal(perf_counters_parse(cases[i].text, &m, &err), 0);
        assert_int_equal(m.parts[0].scope, cases[i].scope);
        assert_string_equal(m.name, cases[i].name);
    }
    static const char *const refused[] = {"cycles:", "cycles:x", "cycles:uu", "cycles:p",
                                          "cycles:u:k", "cycles:U"};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        perf_counters_metric m;
        verdict_error err;
        assert_int_equal(perf_counters_parse(refused[i], &m, &err), -1);
        assert_true(error_is(&err, ERROR_USAGE));
        assert_non_null(strstr(err.message, "unknown modifier"));
        assert_non_null(strstr(err.message, ":u user space, :k kernel, :uk both"));
    }
}

static void ratios_bring_their_parts(void **state)
{
    (void)state;
    perf_counters_metric m;
    verdict_error err;
    assert_int_equal(perf_counters_parse("ipc", &m, &err), 0);
    assert_non_null(m.derived);
    assert_int_equal(m.n_parts, 2);
    assert_string_equal(m.parts[0].event->name, "instructions");
    assert_string_equal(m.parts[1].event->name, "cycles");
    assert_string_equal(m.name, "ipc:u");
    assert_int_equal(perf_counters_parse("branch-miss-rate:k", &m, &err), 0);
    assert_string_equal(m.parts[0].event->name, "branch-misses");
    assert_string_equal(m.parts[1].event->name, "branches");
    assert_int_equal(m.parts[0].scope, PERF_COUNTERS_KERNEL);
    assert_int_equal(m.parts[1].scope, PERF_COUNTERS_KERNEL);
    assert_true(perf_counters_ratio(3, 4) == 0.75);
    assert_true(isnan(perf_counters_ratio(3, 0)));
}

static void an_unknown_name_lists_those_that_exist(void **state)
{
    (void)state;
    perf_counters_metric m;
    verdict_error err;
    assert_int_equal(perf_counters_parse("instructons", &m, &err), -1);
    assert_true(error_is(&err, ERROR_USAGE));
    assert_non_null(strstr(err.message, "unknown counter 'instructons'"));
    assert_non_null(strstr(err.message, "did you mean 'instructions'?"));
    for (size_t i = 0; i < perf_counters_event_count(); i++)
        if (strstr(err.message, perf_counters_event_at(i)->name) == NULL)
            fail_msg("'%s' is not listed in: %s", perf_counters_event_at(i)->name, err.message);
    for (size_t i = 0; i < perf_counters_derived_count(); i++)
        assert_non_null(strstr(err.message, perf_counters_derived_at(i)->name));
    assert_int_equal(perf_counters_parse("l1-dcache-load-misses:u", &m, &err), -1);
    assert_non_null(strstr(err.message, "did you mean 'L1-dcache-load-misses'?"));
    assert_int_equal(perf_counters_parse("watts", &m, &err), -1);
    assert_null(strstr(err.message, "did you mean"));
    assert_non_null(strstr(err.message, "cpu-migrations"));
    char longer[200];
    memset(longer, 'x', sizeof longer - 1);
    longer[sizeof longer - 1] = '\0';
    assert_int_equal(perf_counters_parse(longer, &m, &err), -1);
    assert_true(error_is(&err, ERROR_USAGE));
}

/* The words for each refusal, from hand-made errno and paranoid values. */
static void refusals_say_why_and_what_to_do(void **state)
{
    (void)state;
    perf_counters_spec instructions = spec_of("instructions"), faults = spec_of("page-faults");
    perf_counters_spec faults_user = spec_of("page-faults:u");
    verdict_error err;
    assert_int_equal(perf_counters_refusal(&instructions, ENOENT, 2, false, &err), -1);
    assert_true(error_is(&err, ERROR_USAGE));
    assert_non_null(strstr(err.message, "'instructions:u'"));
    assert_non_null(strstr(err.message, "no hardware performance counters"));
    /* the way out depends on the target (core/run_counters.c says it): not here */
    assert_null(strstr(err.message, "valgrind"));
    assert_int_equal(perf_counters_refusal(&instructions, EOPNOTSUPP, 2, false, &err), -1);
    assert_non_null(strstr(err.message, "no hardware performance counters"));
    assert_int_equal(perf_counters_refusal(&instructions, ENOENT, 2, true, &err), -1);
    assert_non_null(strstr(err.message, "have no such event"));
    assert_int_equal(perf_counters_refusal(&faults, EACCES, 2, true, &err), -1);
    assert_non_null(strstr(err.message, "/proc/sys/kernel/perf_event_paranoid is 2"));
    assert_non_null(strstr(err.message, "sysctl kernel.perf_event_paranoid=1"));
    assert_non_null(strstr(err.message, "':u'"));
    assert_int_equal(perf_counters_refusal(&faults_user, EACCES, 3, true, &err), -1);
    assert_non_null(strstr(err.message, "perf_event_paranoid is 3"));
    assert_non_null(strstr(err.message, "sysctl kernel.perf_event_paranoid=2"));
    assert_int_equal(perf_counters_refusal(&faults_user, EPERM, 2, true, &err), -1);
    assert_non_null(strstr(err.message, "seccomp")); /* the level allows it: not the sysctl */
    assert_int_equal(perf_counters_refusal(&faults, EACCES, INT_MIN, true, &err), -1);
    assert_non_null(strstr(err.message, "cannot be read"));
    assert_int_equal(perf_counters_refusal(&faults, EMFILE, 2, true, &err), -1);
    assert_true(error_is(&err, ERROR_INTERNAL));
}

static int hardware_present(char *why, size_t len)
{
    perf_counters_spec instructions = spec_of("instructions"), clock = spec_of("task-clock:u");
    verdict_error err;
    if (perf_counters_probe(&clock, &err) != 0)
        fail_msg("task-clock:u cannot be counted here, so nothing can: %s", err.message);
    int rc = perf_counters_probe(&instructions, &err);
    snprintf(why, len, "%s", rc == 0 ? "" : err.message);
    return rc == 0;
}

/* Where the PMU is missing (and task-clock:u, with the same permissions, opens), the reason
 * is the missing PMU. Skipped, visibly, where counters exist. */
static void without_a_pmu_the_probe_says_so(void **state)
{
    (void)state;
    if (counting_forbidden()) {
        skip();
        return;
    }
    char why[ERROR_MESSAGE_SIZE];
    if (hardware_present(why, sizeof why)) {
        print_message("SKIPPED: this machine counts instructions; the hardware test runs\n");
        skip();
        return;
    }
    print_message("probe of instructions:u: %s\n", why);
    assert_non_null(strstr(why, "no hardware performance counters"));
}

static void measure(const char *const *argv, const perf_counters_spec *specs, size_t n,
                    perf_counters_value *values, perf_counters_measurement *out)
{
    verdict_error err;
    *out = (perf_counters_measurement){.values = values};
    if (perf_counters_measure_command((char *const *)argv, specs, n, out, &err) != 0)
        fail_msg("%s: %s", argv[0], err.message);
    assert_true(WIFEXITED(out->status) && WEXITSTATUS(out->status) == 0);
    for (size_t i = 0; i < n; i++)
        assert_false(values[i].partial); /* software events never multiplex */
}

/* Where the PMU exists: instructions grow linearly with spin's rounds. Skipped, visibly,
 * elsewhere (this project's VMs). */
static void with_a_pmu_instructions_are_counted(void **state)
{
    (void)state;
    if (counting_forbidden()) {
        skip();
        return;
    }
    char why[ERROR_MESSAGE_SIZE];
    if (!hardware_present(why, sizeof why)) {
        print_message("SKIPPED: no hardware counters on this machine (%s)\n", why);
        skip();
        return;
    }
    perf_counters_spec specs[] = {spec_of("instructions"), spec_of("cycles")};
    double counts[3];
    for (int k = 1; k <= 3; k++) {
        char rounds[32];
        snprintf(rounds, sizeof rounds, "%d", k * 10000000);
        const char *argv[] = {program("SPIN"), rounds, NULL};
        perf_counters_value values[2];
        perf_counters_measurement out = {.values = values};
        verdict_error err;
        if (perf_counters_measure_command((char *const *)argv, specs, 2, &out, &err) != 0)
            fail_msg("%s", err.message);
        if (values[0].partial)
            fail_msg("instructions:u were multiplexed (ran %llu of %llu ns)",
                     (unsigned long long)values[0].time_running,
                     (unsigned long long)values[0].time_enabled);
        assert_true(values[1].count > 0);
        counts[k - 1] = (double)values[0].count;
    }
    double first = counts[1] - counts[0], second = counts[2] - counts[1];
    print_message("instructions per 10M rounds: %.0f, %.0f\n", first, second);
    assert_true(first > 10000000.0);
    assert_true(fabs(second - first) < 0.01 * first);
}

static double mean_faults(const char *pages, const perf_counters_spec *spec)
{
    double sum = 0;
    for (int run = 0; run < RUNS; run++) {
        const char *argv[] = {program("TOUCH_PAGES"), pages, NULL};
        perf_counters_value value;
        perf_counters_measurement out;
        measure(argv, spec, 1, &value, &out);
        sum += (double)value.count;
    }
    return sum / RUNS;
}

/* page-faults are near exact: touching N more pages adds N faults, within 2%. */
static void page_faults_grow_with_the_pages_touched(void **state)
{
    (void)state;
    if (counting_forbidden()) {
        skip();
        return;
    }
    perf_counters_spec faults = spec_of("page-faults");
    char n[16], twice[16];
    snprintf(n, sizeof n, "%d", PAGES);
    snprintf(twice, sizeof twice, "%d", 2 * PAGES);
    double one = mean_faults(n, &faults), two = mean_faults(twice, &faults);
    print_message("page-faults: %.1f for %d pages, %.1f for %d (difference %.1f)\n", one,
                  PAGES, two, 2 * PAGES, two - one);
    assert_true(one >= PAGES);
    assert_true(fabs((two - one) - PAGES) <= 0.02 * PAGES);
}

static double seconds_of(struct timeval t)
{
    return (double)t.tv_sec + (double)t.tv_usec / 1e6;
}

/* task-clock is the CPU time of the run: close to what wait4 reports (user + system), which
 * also holds the few instructions between fork and exec that the counter leaves out. */
static void task_clock_is_the_cpu_time(void **state)
{
    (void)state;
    if (counting_forbidden()) {
        skip();
        return;
    }
    perf_counters_spec clock = spec_of("task-clock");
    const char *argv[] = {program("SPIN"), "40000000", NULL};
    perf_counters_value value;
    perf_counters_measurement out;
    measure(argv, &clock, 1, &value, &out);
    double counted = (double)value.count / 1e9;
    double used = seconds_of(out.usage.ru_utime) + seconds_of(out.usage.ru_stime);
    print_message("task-clock %.4f s, user+sys %.4f s\n", counted, used);
    assert_true(counted > 0);
    assert_true(fabs(counted - used) <= 0.1 * used + 0.002);
}

/* A child's child is counted (inherit), and several software events read as one group. */
static void a_child_of_the_child_is_counted(void **state)
{
    (void)state;
    if (counting_forbidden()) {
        skip();
        return;
    }
    perf_counters_spec specs[] = {spec_of("page-faults"), spec_of("task-clock"),
                                  spec_of("context-switches")};
    char n[16];
    snprintf(n, sizeof n, "%d", PAGES);
    const char *argv[] = {program("TOUCH_PAGES"), "--in-child", n, NULL};
    perf_counters_value values[3];
    perf_counters_measurement out;
    measure(argv, specs, 3, values, &out);
    print_message("--in-child: page-faults %llu, task-clock %llu ns, context-switches %llu, "
                  "%s\n", (unsigned long long)values[0].count,
                  (unsigned long long)values[1].count, (unsigned long long)values[2].count,
                  out.grouped ? "one group" : "separate events (the kernel refused a group)");
    assert_true(values[0].count >= PAGES);     /* the parent alone faults about 100 times */
    assert_true(values[1].count > 0);
    assert_true(values[2].count >= 1);         /* the parent waits for its child */
    assert_true(values[0].time_enabled > 0 && values[0].time_enabled == values[1].time_enabled);
}

/* A multiplexed counter keeps the count it read (never scaled up) and says it is partial. */
static void values_are_never_scaled(void **state)
{
    (void)state;
    perf_counters_value whole = perf_counters_value_of(500, 1000, 1000);
    assert_int_equal(whole.count, 500);
    assert_false(whole.partial);
    perf_counters_value part = perf_counters_value_of(500, 1000, 600);
    assert_int_equal(part.count, 500);
    assert_true(part.partial);
    assert_true(perf_counters_value_of(0, 0, 0).partial); /* never enabled */
}

/* Opened on the calling thread (pid 0) as a runner whose child cannot wait would: a child
 * started with posix_spawn (clone with CLONE_VFORK) is counted, the thread's own page
 * faults, taken while the counters are open, are not. */
static void the_calling_threads_children_are_counted(void **state)
{
    (void)state;
    if (counting_forbidden()) {
        skip();
        return;
    }
    perf_counters_spec faults = spec_of("page-faults");
    perf_counters_session *session;
    verdict_error err;
    if (perf_counters_open(0, &faults, 1, &session, &err) != 0)
        fail_msg("%s", err.message);
    size_t page = (size_t)sysconf(_SC_PAGESIZE), own = 3 * PAGES;
    volatile char *memory = mmap(NULL, own * page, PROT_READ | PROT_WRITE,
                                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(memory != MAP_FAILED);
    for (size_t i = 0; i < own; i++)
        memory[i * page] = 1;
    char n[16];
    snprintf(n, sizeof n, "%d", PAGES);
    char *argv[] = {(char *)program("TOUCH_PAGES"), n, NULL};
    pid_t pid;
    int status;
    assert_int_equal(posix_spawn(&pid, argv[0], NULL, NULL, argv, environ), 0);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    perf_counters_value value;
    assert_int_equal(perf_counters_read(session, &value, &err), 0);
    perf_counters_close(session);
    munmap((void *)memory, own * page);
    print_message("page-faults of a spawned child, %zu of the thread's own not counted: %llu\n",
                  own, (unsigned long long)value.count);
    assert_true(value.count >= PAGES && value.count < PAGES + PAGES / 2);
    assert_false(value.partial);
}

static double thread_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* A session opened paused (a kernel's batches) counts the thread's own work between enable
 * and disable only, span after span: each span's page faults are its pages, and its
 * task-clock at least its CPU time (a group of the two lost 10-55% of it after the first
 * span); what the thread does while disabled is not counted. */
static void a_paused_session_counts_only_between_enables(void **state)
{
    (void)state;
    if (counting_forbidden()) {
        skip();
        return;
    }
    perf_counters_spec specs[] = {spec_of("page-faults"), spec_of("task-clock")};
    perf_counters_session *session;
    perf_counters_value last[2] = {{0}}, now[2];
    verdict_error err;
    if (perf_counters_open_paused(specs, 2, &session, &err) != 0)
        fail_msg("%s", err.message);
    for (int span = 0; span < 3; span++) {
        assert_true(fresh_pages_touch(PAGES)); /* disabled: not counted */
        assert_int_equal(perf_counters_read(session, now, &err), 0);
        assert_true(now[0].count == last[0].count && now[1].count == last[1].count);
        double begin = thread_seconds();
        assert_int_equal(perf_counters_enable(session, true, &err), 0);
        assert_true(fresh_pages_touch(PAGES));
        assert_int_equal(perf_counters_enable(session, false, &err), 0);
        double cpu = thread_seconds() - begin;
        assert_int_equal(perf_counters_read(session, now, &err), 0);
        double faults = (double)(now[0].count - last[0].count);
        double clock = (double)(now[1].count - last[1].count) / 1e9;
        print_message("span %d: %.0f page faults of %d pages, task-clock %.5f s, CPU %.5f s\n",
                      span, faults, PAGES, clock, cpu);
        assert_true(faults >= PAGES && faults <= PAGES + PAGES / 50);
        /* never less than the thread's CPU clock between the same calls; more by what a VM's
         * clock adds, the time a busy host took from the thread (up to 56% of a 4 ms span
         * here, under a load of 24): no upper bound holds on a busy machine */
        assert_true(clock >= 0.97 * cpu - 0.0001);
        assert_false(now[0].time_running - last[0].time_running <
                     now[0].time_enabled - last[0].time_enabled);
        memcpy(last, now, sizeof last);
    }
    perf_counters_close(session);
}

static void a_program_that_cannot_run_is_named(void **state)
{
    (void)state;
    if (counting_forbidden()) {
        skip();
        return;
    }
    perf_counters_spec clock = spec_of("task-clock");
    const char *argv[] = {"verdict-no-such-program", NULL};
    perf_counters_value value;
    perf_counters_measurement out = {.values = &value};
    verdict_error err;
    assert_int_equal(perf_counters_measure_command((char *const *)argv, &clock, 1, &out, &err),
                     -1);
    assert_true(error_is(&err, ERROR_COMMAND_FAILED));
    assert_non_null(strstr(err.message, "cannot run 'verdict-no-such-program'"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(names_parse_with_their_default_levels),
        cmocka_unit_test(modifiers_choose_the_levels),
        cmocka_unit_test(ratios_bring_their_parts),
        cmocka_unit_test(an_unknown_name_lists_those_that_exist),
        cmocka_unit_test(refusals_say_why_and_what_to_do),
        cmocka_unit_test(without_a_pmu_the_probe_says_so),
        cmocka_unit_test(with_a_pmu_instructions_are_counted),
        cmocka_unit_test(page_faults_grow_with_the_pages_touched),
        cmocka_unit_test(task_clock_is_the_cpu_time),
        cmocka_unit_test(a_child_of_the_child_is_counted),
        cmocka_unit_test(values_are_never_scaled),
        cmocka_unit_test(the_calling_threads_children_are_counted),
        cmocka_unit_test(a_paused_session_counts_only_between_enables),
        cmocka_unit_test(a_program_that_cannot_run_is_named),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

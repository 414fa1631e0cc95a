/* Unit tests of src/env/interference: the /proc/stat and /proc/loadavg parsers on recorded
 * and broken texts, the exact arithmetic of interference_between, and the thresholds. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "env/interference.h"

/* A 2-CPU VM on Linux 6: ten columns, with steal. */
static const char stat_two_cpus[] =
    "cpu  18282 5 7630 113138 585 1 238 40 7 0\n"
    "cpu0 8197 2 3119 58496 26 1 80 15 3 0\n"
    "cpu1 10084 3 4510 54642 559 0 158 25 4 0\n"
    "intr 257071 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
    "ctxt 428191\n"
    "btime 1700000000\n"
    "processes 10119\n";

/* cmocka 1.1 compares floats only; doubles need their own check. */
#define assert_close(a, b, eps) assert_close_at((a), (b), (eps), __FILE__, __LINE__)
static void assert_close_at(double a, double b, double eps, const char *file, int line)
{
    if (!(fabs(a - b) <= eps)) {
        print_error("%.17g != %.17g (within %g)\n", a, b, eps);
        _fail(file, line);
    }
}

static double tick(void)
{
    long t = sysconf(_SC_CLK_TCK);
    return t > 0 ? (double)t : 100.0;
}

static int parse_text(const char *text, cpu_snapshot *out)
{
    memset(out, 0, sizeof *out);
    return parse_proc_stat(text, strlen(text), out);
}

static void parses_two_cpus_with_steal(void **state)
{
    (void)state;
    cpu_snapshot s;
    assert_int_equal(parse_text(stat_two_cpus, &s), 0);
    assert_int_equal(s.ncpu, 2);
    /* busy = user + nice + system + irq + softirq; guest is inside user already */
    assert_int_equal(s.total.busy, 18282 + 5 + 7630 + 1 + 238);
    assert_int_equal(s.total.idle, 113138 + 585);
    assert_int_equal(s.total.steal, 40);
    assert_int_equal(s.cpu_id[0], 0);
    assert_int_equal(s.cpu_id[1], 1);
    assert_int_equal(s.per_cpu[1].busy, 10084 + 3 + 4510 + 0 + 158);
    assert_int_equal(s.per_cpu[1].idle, 54642 + 559);
    assert_int_equal(s.per_cpu[1].steal, 25);
}

static void parses_old_kernels_without_steal(void **state)
{
    (void)state;
    cpu_snapshot s;
    /* Linux 2.4: four columns; Linux 2.6.0: seven (no steal). */
    assert_int_equal(parse_text("cpu 10 20 30 40\ncpu0 10 20 30 40\n", &s), 0);
    assert_int_equal(s.total.busy, 60);
    assert_int_equal(s.total.idle, 40);
    assert_int_equal(s.total.steal, 0);
    assert_int_equal(s.ncpu, 1);
    assert_int_equal(parse_text("cpu 1 2 3 4 5 6 7\ncpu0 1 2 3 4 5 6 7\ncpu1 0 0 0 1 0 0 0\n",
                                &s), 0);
    assert_int_equal(s.total.busy, 1 + 2 + 3 + 6 + 7);
    assert_int_equal(s.total.idle, 4 + 5);
    assert_int_equal(s.total.steal, 0);
    assert_int_equal(s.ncpu, 2);
}

static void offline_cpus_are_absent(void **state)
{
    (void)state;
    cpu_snapshot s;
    assert_int_equal(parse_text("cpu 2 0 2 8 0 0 0 0\ncpu0 1 0 1 4 0 0 0 0\n"
                                "cpu3 1 0 1 4 0 0 0 0\n", &s), 0);
    assert_int_equal(s.ncpu, 2);
    assert_int_equal(s.cpu_id[0], 0);
    assert_int_equal(s.cpu_id[1], 3);
}

static void truncated_lines_are_skipped(void **state)
{
    (void)state;
    cpu_snapshot s;
    /* cpu1 has three columns (cut by a full buffer): not a CPU line. */
    assert_int_equal(parse_text("cpu 10 0 10 80 0 0 0 5\ncpu0 5 0 5 40 0 0 0 2\ncpu1 5 0", &s),
                     0);
    assert_int_equal(s.ncpu, 1);
    assert_int_equal(s.total.steal, 5);
    /* The same text cut inside a number of cpu0: only the columns before it count. */
    assert_int_equal(parse_text("cpu 10 0 10 80 0 0 0 5\ncpu0 5 0 5 40 0 0 0 2", &s), 0);
    assert_int_equal(s.ncpu, 1);
    assert_int_equal(s.per_cpu[0].steal, 2);
    /* Without the aggregate line there is nothing to measure. */
    assert_int_equal(parse_text("cpu0 5 0 5 40 0 0 0 2\ncpu1 5 0 5 40\n", &s), -1);
}

static void garbage_is_refused_without_crashing(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "", "\n\n", "cpu", "cpu\n", "cpu 1 2 3\n", "cpu x y z w\n", "cpu -1 2 3 4\n",
        "cpu 1 2 3 4x\n", "cpu 99999999999999999999 1 2 3\n", "cpux 1 2 3 4\n",
        "intr 1 2 3\nctxt 4\n", "\x01\x02\xff\xfe cpu 1 2 3 4",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cpu_snapshot s;
        assert_int_equal(parse_text(bad[i], &s), -1);
    }
    /* Lengths are respected: no NUL needed, bytes past len never read. */
    char buffer[] = "cpu 1 2 3 4\nXXXX";
    cpu_snapshot s;
    assert_int_equal(parse_proc_stat(buffer, 11, &s), 0);
    assert_int_equal(s.total.idle, 4);
    assert_int_equal(parse_proc_stat(buffer, 6, &s), -1);
    /* A NUL inside the text is just an odd byte. */
    const char with_nul[] = "cpu 1 2 3 4\n\0cpu0 1 2 3 4\ncpu1 1 2 3 4\n";
    assert_int_equal(parse_proc_stat(with_nul, sizeof with_nul - 1, &s), 0);
    assert_int_equal(s.ncpu, 1);
    /* A CPU id too large for any machine is not a CPU line. */
    assert_int_equal(parse_text("cpu 1 2 3 4\ncpu99999999999 1 2 3 4\n", &s), 0);
    assert_int_equal(s.ncpu, 0);
}

static void more_cpus_than_stored_still_count(void **state)
{
    (void)state;
    size_t cap = 64 * (INTERFERENCE_MAX_CPUS + 10) + 64;
    char *text = malloc(cap);
    assert_non_null(text);
    size_t len = (size_t)snprintf(text, cap, "cpu 1 0 1 1 0 0 0 0\n");
    for (int i = 0; i < INTERFERENCE_MAX_CPUS + 10; i++)
        len += (size_t)snprintf(text + len, cap - len, "cpu%d 1 0 1 1 0 0 0 0\n", i);
    cpu_snapshot s;
    assert_int_equal(parse_proc_stat(text, len, &s), 0);
    assert_int_equal(s.ncpu, INTERFERENCE_MAX_CPUS + 10);
    assert_int_equal(s.cpu_id[INTERFERENCE_MAX_CPUS - 1], INTERFERENCE_MAX_CPUS - 1);
    free(text);
}

static void parses_loadavg(void **state)
{
    (void)state;
    cpu_snapshot s;
    const char *text = "1.16 0.53 0.23 2/92 10119\n";
    assert_int_equal(parse_proc_loadavg(text, strlen(text), &s), 0);
    assert_close(s.load1, 1.16, 1e-12);
    assert_close(s.load5, 0.53, 1e-12);
    assert_close(s.load15, 0.23, 1e-12);
    assert_int_equal(parse_proc_loadavg("1.0 2.0", 7, &s), -1);
    assert_int_equal(parse_proc_loadavg("", 0, &s), -1);
    assert_int_equal(parse_proc_loadavg("nan nan nan", 11, &s), -1);
}

/* Two snapshots one second apart on 2 CPUs, counters advanced by whole jiffies. */
static void make_pair(cpu_snapshot *before, cpu_snapshot *after, double seconds, uint64_t busy,
                      uint64_t steal)
{
    memset(before, 0, sizeof *before);
    memset(after, 0, sizeof *after);
    before->ncpu = after->ncpu = 2;
    before->total = (cpu_times){.busy = 1000, .idle = 5000, .steal = 30};
    before->monotonic_ns = 5000000000;
    after->total = (cpu_times){.busy = 1000 + busy, .idle = 5000 + 10, .steal = 30 + steal};
    after->monotonic_ns = before->monotonic_ns + (int64_t)llround(seconds * 1e9);
    after->load1 = 1.25;
}

static void between_is_exact(void **state)
{
    (void)state;
    cpu_snapshot b, a;
    double t = tick();
    /* 1.5 CPU-seconds busy, 0.1 s stolen, the run itself used 1.0 s of CPU. */
    make_pair(&b, &a, 1.0, (uint64_t)llround(1.5 * t), (uint64_t)llround(0.1 * t));
    interference i;
    interference_between(&b, &a, 1.0, &i);
    assert_int_equal(i.ncpu, 2);
    assert_close(i.seconds, 1.0, 1e-12);
    assert_close(i.steal, 0.1 / 2.0, 1e-12);
    assert_close(i.other_busy, (1.5 - 1.0) / 2.0, 1e-12);
    assert_close(i.resolution, 1.0 / t, 1e-12);
    assert_close(i.load1, 1.25, 0.0);
}

static void between_clamps_to_zero_and_one(void **state)
{
    (void)state;
    cpu_snapshot b, a;
    double t = tick();
    interference i;
    make_pair(&b, &a, 1.0, (uint64_t)llround(0.5 * t), 0);
    interference_between(&b, &a, 0.9, &i); /* the run used more than was counted */
    assert_close(i.other_busy, 0.0, 0.0);
    make_pair(&b, &a, 1.0, (uint64_t)llround(3.0 * t), (uint64_t)llround(3.0 * t));
    interference_between(&b, &a, 0.0, &i); /* more than 2 CPUs' capacity */
    assert_close(i.other_busy, 1.0, 0.0);
    assert_close(i.steal, 1.0, 0.0);
}

static void between_is_unknown_when_it_cannot_tell(void **state)
{
    (void)state;
    cpu_snapshot b, a;
    interference i;
    double t = tick();
    /* Shorter than INTERFERENCE_MIN_JIFFIES: NaN, not a number made of rounding. */
    make_pair(&b, &a, (INTERFERENCE_MIN_JIFFIES - 1) / t, 1, 0);
    interference_between(&b, &a, 0.0, &i);
    assert_true(isnan(i.steal) && isnan(i.other_busy) && isnan(i.resolution));
    assert_close(i.load1, 1.25, 0.0); /* the load is still known */
    make_pair(&b, &a, INTERFERENCE_MIN_JIFFIES / t, 1, 0);
    interference_between(&b, &a, 0.0, &i);
    assert_false(isnan(i.steal));
    make_pair(&b, &a, 1.0, 10, 0);
    interference_between(&a, &b, 0.0, &i); /* time runs backwards */
    assert_true(isnan(i.steal));
    make_pair(&b, &a, 1.0, 10, 0);
    a.total.busy = 0; /* counters went backwards */
    interference_between(&b, &a, 0.0, &i);
    assert_true(isnan(i.other_busy));
    make_pair(&b, &a, 1.0, 10, 0);
    a.ncpu = 0;
    interference_between(&b, &a, 0.0, &i);
    assert_true(isnan(i.steal));
    make_pair(&b, &a, 1.0, 10, 0);
    interference_between(&b, &a, NAN, &i); /* run time unknown: steal still known */
    assert_true(isnan(i.other_busy));
    assert_false(isnan(i.steal));
}

static interference reading(double steal, double other_busy, double resolution)
{
    return (interference){.seconds = 1.0, .steal = steal, .other_busy = other_busy,
                          .resolution = resolution, .load1 = 0.0, .ncpu = 2};
}

static void disturbing_above_the_limits(void **state)
{
    (void)state;
    char reason[256];
    interference i = reading(0.20, 0.0, 0.01);
    assert_true(interference_is_disturbing(&i, reason, sizeof reason));
    assert_non_null(strstr(reason, "steal"));
    assert_null(strstr(reason, "other-load"));
    i = reading(0.0, 0.30, 0.01); /* 0.60 CPUs, slack 0.04 CPUs */
    assert_true(interference_is_disturbing(&i, reason, sizeof reason));
    assert_non_null(strstr(reason, "other-load"));
    assert_non_null(strstr(reason, "0.60 CPUs"));
    i = reading(0.20, 0.30, 0.01);
    assert_true(interference_is_disturbing(&i, reason, sizeof reason));
    assert_non_null(strstr(reason, "; other-load"));
}

static void quiet_or_granular_readings_are_not_disturbing(void **state)
{
    (void)state;
    char reason[256] = "stale";
    interference i = reading(0.0, 0.0, 0.01);
    assert_false(interference_is_disturbing(&i, reason, sizeof reason));
    assert_string_equal(reason, "");
    i = reading(0.055, 0.26, 0.01); /* over the limits by less than the counters' rounding */
    assert_false(interference_is_disturbing(&i, reason, sizeof reason));
    i = reading(0.2, 0.5, 0.2); /* 50 ms: one jiffy per CPU is 20%, the steal reading */
    assert_false(interference_is_disturbing(&i, reason, sizeof reason));
    i = reading(NAN, NAN, NAN);
    assert_false(interference_is_disturbing(&i, reason, sizeof reason));
    assert_string_equal(reason, "");
    /* Small and absent reason buffers are safe. */
    char tiny[8];
    i = reading(0.9, 0.9, 0.01);
    assert_true(interference_is_disturbing(&i, tiny, sizeof tiny));
    assert_int_equal(strlen(tiny), sizeof tiny - 1);
    assert_true(interference_is_disturbing(&i, NULL, 0));
}

static void snapshots_of_this_machine(void **state)
{
    (void)state;
    cpu_snapshot b, a;
    assert_int_equal(interference_snapshot(&b), 0);
    struct timespec pause = {0, 100 * 1000 * 1000};
    nanosleep(&pause, NULL);
    assert_int_equal(interference_snapshot(&a), 0);
    assert_true(b.ncpu >= 1);
    assert_true(a.monotonic_ns > b.monotonic_ns);
    assert_true(a.total.busy >= b.total.busy && a.total.steal >= b.total.steal);
    assert_true(a.load1 >= 0.0);
    interference i;
    interference_between(&b, &a, 0.0, &i);
    /* Never assert the machine is quiet: only that readings are shares. */
    assert_true(i.steal >= 0.0 && i.steal <= 1.0);
    assert_true(i.other_busy >= 0.0 && i.other_busy <= 1.0);
}

static uint64_t all_jiffies(const cpu_snapshot *s)
{
    return s->total.busy + s->total.idle + s->total.steal;
}

static void probe_rereads_fresh_counters(void **state)
{
    (void)state;
    interference_probe probe;
    cpu_snapshot b, a;
    assert_int_equal(interference_probe_open(&probe), 0);
    assert_int_equal(interference_probe_snapshot(&probe, &b), 0);
    struct timespec pause = {0, 200 * 1000 * 1000};
    nanosleep(&pause, NULL);
    assert_int_equal(interference_probe_snapshot(&probe, &a), 0);
    /* 200 ms is 20 jiffies per CPU: the counters must have moved (not a stale read). */
    assert_true(all_jiffies(&a) > all_jiffies(&b));
    assert_true(a.monotonic_ns - b.monotonic_ns >= 200 * 1000 * 1000);
    assert_int_equal(a.ncpu, b.ncpu);
    interference_probe_close(&probe);
    interference_probe_close(&probe); /* closing twice is harmless */
    assert_int_equal(probe.stat_fd, -1);
}

/* The load averages are kept for INTERFERENCE_LOADAVG_REFRESH_NS: within it a snapshot does
 * not touch /proc/loadavg (its descriptor closed here proves it), past it it rereads. */
static void probe_keeps_the_load_average_between_rereads(void **state)
{
    (void)state;
    interference_probe probe;
    cpu_snapshot first, again;
    double load1 = NAN;
    assert_int_equal(interference_probe_open(&probe), 0);
    assert_int_equal(interference_probe_snapshot(&probe, &first), 0);
    close(probe.loadavg_fd);
    probe.loadavg_fd = -1;
    assert_int_equal(interference_probe_snapshot(&probe, &again), 0);
    assert_true(again.load1 == first.load1 && again.load15 == first.load15);
    assert_int_equal(interference_probe_load1(&probe, &load1), 0);
    assert_true(load1 == first.load1);
    probe.loadavg_read_ns -= INTERFERENCE_LOADAVG_REFRESH_NS; /* now stale: must reread */
    assert_int_equal(interference_probe_snapshot(&probe, &again), -1);
    assert_int_equal(interference_probe_load1(&probe, &load1), -1);
    interference_probe_close(&probe);
}

/* The rule interference_between applies, stated once: 5 clock ticks or more. */
static void resolvable_from_five_ticks(void **state)
{
    (void)state;
    double tick = 1.0 / (double)sysconf(_SC_CLK_TCK);
    assert_true(interference_resolvable(INTERFERENCE_MIN_JIFFIES * tick));
    assert_true(interference_resolvable(1.0));
    assert_false(interference_resolvable(INTERFERENCE_MIN_JIFFIES * tick * 0.99));
    assert_false(interference_resolvable(0.001));
    assert_false(interference_resolvable(NAN));
    cpu_snapshot before, after;
    interference i;
    make_pair(&before, &after, INTERFERENCE_MIN_JIFFIES * tick * 0.99, 0, 0);
    interference_between(&before, &after, 0.0, &i);
    assert_true(isnan(i.steal) && isnan(i.other_busy));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parses_two_cpus_with_steal),
        cmocka_unit_test(parses_old_kernels_without_steal),
        cmocka_unit_test(offline_cpus_are_absent),
        cmocka_unit_test(truncated_lines_are_skipped),
        cmocka_unit_test(garbage_is_refused_without_crashing),
        cmocka_unit_test(more_cpus_than_stored_still_count),
        cmocka_unit_test(parses_loadavg),
        cmocka_unit_test(between_is_exact),
        cmocka_unit_test(between_clamps_to_zero_and_one),
        cmocka_unit_test(between_is_unknown_when_it_cannot_tell),
        cmocka_unit_test(disturbing_above_the_limits),
        cmocka_unit_test(probe_keeps_the_load_average_between_rereads),
        cmocka_unit_test(resolvable_from_five_ticks),
        cmocka_unit_test(quiet_or_granular_readings_are_not_disturbing),
        cmocka_unit_test(snapshots_of_this_machine),
        cmocka_unit_test(probe_rereads_fresh_counters),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests of src/env's machine facts and noise checks: facts of this machine, the
 * facts container, each check's judgement on hand-made facts, and the helpers. */
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "env/checks.h"
#include "common/error.h"
#include "env/command_output.h"
#include "env/machine.h"
#include "env/proc_text.h"

static const char *const check_codes[] = {"governor", "turbo", "smt", "aslr", "load",
                                          "steal", "other-load", "vm", "timer", "clocksource"};
#define N_CODES (sizeof check_codes / sizeof check_codes[0])

static void facts_of_this_machine_are_complete(void **state)
{
    (void)state;
    static const char *const required[] = {
        "cpu_model", "cpu_flags", "cpus_online", "cpus_physical", "smt", "kernel", "os",
        "governor", "turbo", "aslr", "virtualization", "memory_total", "load1", "load5",
        "load15", "cc", "gcc", "hostname",
    };
    machine_facts facts;
    verdict_error err = {0};
    assert_int_equal(machine_facts_collect(&facts, MACHINE_FACTS_ALL, &err), 0);
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++) {
        const char *value = machine_facts_get(&facts, required[i]);
        if (value == NULL || value[0] == '\0')
            fail_msg("fact '%s' is missing or empty", required[i]);
    }
    for (size_t i = 0; i < facts.n; i++)
        for (size_t j = i + 1; j < facts.n; j++)
            assert_string_not_equal(facts.facts[i].key, facts.facts[j].key);
    /* Values the checks parse have their documented forms. */
    const char *smt = machine_facts_get(&facts, "smt");
    assert_true(strcmp(smt, "on") == 0 || strcmp(smt, "off") == 0 || strcmp(smt, "unknown") == 0);
    assert_true(atoi(machine_facts_get(&facts, "cpus_online")) >= 1);
    machine_facts_free(&facts);
    machine_facts_free(&facts); /* freeing twice is harmless */
}

/* Without compilers: the same facts but cc, gcc and clang, which are never asked. */
static void facts_without_compilers(void **state)
{
    (void)state;
    machine_facts all, some;
    verdict_error err = {0};
    assert_int_equal(machine_facts_collect(&all, MACHINE_FACTS_ALL, &err), 0);
    assert_int_equal(machine_facts_collect(&some, MACHINE_FACTS_WITHOUT_COMPILERS, &err), 0);
    assert_int_equal(some.n + 3, all.n);
    for (size_t i = 0; i < some.n; i++)
        assert_string_equal(some.facts[i].key, all.facts[i].key);
    assert_null(machine_facts_get(&some, "cc"));
    assert_null(machine_facts_get(&some, "clang"));
    assert_non_null(machine_facts_get(&all, "gcc"));
    machine_facts_free(&all);
    machine_facts_free(&some);
}

static void facts_set_replaces_and_get_finds(void **state)
{
    (void)state;
    machine_facts facts = {NULL, 0, 0};
    assert_null(machine_facts_get(&facts, "governor"));
    assert_int_equal(machine_facts_set(&facts, "governor", "powersave"), 0);
    assert_int_equal(machine_facts_set(&facts, "turbo", "on"), 0);
    assert_int_equal(machine_facts_set(&facts, "governor", "performance"), 0);
    assert_int_equal(facts.n, 2);
    assert_string_equal(machine_facts_get(&facts, "governor"), "performance");
    assert_string_equal(facts.facts[1].key, "turbo");
    machine_facts_free(&facts);
}

/* Facts of an ideal bare-metal benchmark machine; tests spoil one at a time. */
static void quiet_facts(machine_facts *facts)
{
    static const char *const pairs[][2] = {
        {"governor", "performance"}, {"turbo", "off"}, {"smt", "off"}, {"aslr", "full"},
        {"load1", "0.10"}, {"cpus_online", "4"}, {"virtualization", "none"},
        {"clocksource", "tsc"},
    };
    *facts = (machine_facts){NULL, 0, 0};
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
        assert_int_equal(machine_facts_set(facts, pairs[i][0], pairs[i][1]), 0);
}

static const interference quiet_sample = {.seconds = 1.0, .steal = 0.0, .other_busy = 0.0,
                                          .resolution = 0.01, .load1 = 0.1, .ncpu = 4};

static check_status status_of(const machine_facts *facts, const interference *sample,
                              double timer, const char *code, const char *message_part)
{
    env_check *checks;
    size_t n;
    verdict_error err = {0};
    assert_int_equal(env_checks_judge(facts, sample, timer, &checks, &n, &err), 0);
    check_status status = CHECK_INFO;
    bool found = false;
    for (size_t i = 0; i < n; i++)
        if (strcmp(checks[i].code, code) == 0) {
            status = checks[i].status;
            found = true;
            if (message_part && strstr(checks[i].message, message_part) == NULL)
                fail_msg("check %s: '%s' lacks '%s'", code, checks[i].message, message_part);
        }
    env_checks_free(checks, n);
    assert_true(found);
    return status;
}

static void one_check_per_code_in_order(void **state)
{
    (void)state;
    machine_facts facts;
    quiet_facts(&facts);
    env_check *checks;
    size_t n;
    verdict_error err = {0};
    assert_int_equal(env_checks_judge(&facts, &quiet_sample, 1e-9, &checks, &n, &err), 0);
    assert_int_equal(n, N_CODES);
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(checks[i].code, check_codes[i]);
        assert_true(checks[i].message[0] != '\0');
        /* On the ideal machine everything passes but aslr, which only informs. */
        assert_int_equal(checks[i].status, i == 3 ? CHECK_INFO : CHECK_PASS);
    }
    env_checks_free(checks, n);
    machine_facts_free(&facts);
}

static void frequency_and_smt_checks(void **state)
{
    (void)state;
    machine_facts f;
    quiet_facts(&f);
    const interference *s = &quiet_sample;
    assert_int_equal(machine_facts_set(&f, "governor", "powersave"), 0);
    assert_int_equal(status_of(&f, s, 1e-9, "governor", "'powersave', not 'performance'"),
                     CHECK_WARN);
    assert_int_equal(machine_facts_set(&f, "governor", "none"), 0);
    assert_int_equal(status_of(&f, s, 1e-9, "governor", NULL), CHECK_INFO);
    assert_int_equal(machine_facts_set(&f, "turbo", "on"), 0);
    assert_int_equal(status_of(&f, s, 1e-9, "turbo", NULL), CHECK_WARN);
    assert_int_equal(machine_facts_set(&f, "turbo", "unknown"), 0);
    assert_int_equal(status_of(&f, s, 1e-9, "turbo", NULL), CHECK_INFO);
    assert_int_equal(machine_facts_set(&f, "smt", "on"), 0);
    assert_int_equal(status_of(&f, s, 1e-9, "smt", "--pin"), CHECK_WARN);
    assert_int_equal(machine_facts_set(&f, "aslr", "off"), 0);
    assert_int_equal(status_of(&f, s, 1e-9, "aslr", "off"), CHECK_INFO);
    machine_facts_free(&f);
}

static void load_vm_timer_and_clocksource_checks(void **state)
{
    (void)state;
    machine_facts f;
    quiet_facts(&f);
    const interference *s = &quiet_sample;
    assert_int_equal(machine_facts_set(&f, "load1", "2.20"), 0); /* 0.55 per CPU */
    assert_int_equal(status_of(&f, s, 1e-9, "load", "0.55 per CPU"), CHECK_WARN);
    assert_int_equal(machine_facts_set(&f, "load1", "1.90"), 0);
    assert_int_equal(status_of(&f, s, 1e-9, "load", NULL), CHECK_PASS);
    assert_int_equal(machine_facts_set(&f, "load1", "unknown"), 0);
    assert_int_equal(status_of(&f, s, 1e-9, "load", NULL), CHECK_INFO);
    assert_int_equal(machine_facts_set(&f, "virtualization", "vm (KVMKVMKVM)"), 0);
    assert_int_equal(status_of(&f, s, 1e-9, "vm", "KVMKVMKVM"), CHECK_INFO);
    assert_int_equal(status_of(&f, s, 4e-3, "timer", "4000000 ns"), CHECK_WARN);
    assert_int_equal(status_of(&f, s, NAN, "timer", NULL), CHECK_INFO);
    assert_int_equal(machine_facts_set(&f, "clocksource", "hpet"), 0);
    assert_int_equal(status_of(&f, s, 1e-9, "clocksource", "slow"), CHECK_WARN);
    machine_facts_free(&f);
    /* Facts missing altogether are "unknown", never a crash. */
    machine_facts empty = {NULL, 0, 0};
    assert_int_equal(status_of(&empty, NULL, NAN, "governor", NULL), CHECK_INFO);
}

static void steal_and_other_load_checks(void **state)
{
    (void)state;
    machine_facts f;
    quiet_facts(&f);
    interference s = quiet_sample;
    assert_int_equal(status_of(&f, NULL, 1e-9, "steal", "not measured"), CHECK_INFO);
    assert_int_equal(status_of(&f, NULL, 1e-9, "other-load", "not measured"), CHECK_INFO);
    s.steal = 0.05; /* 5% over 1 s, slack 1% */
    assert_int_equal(status_of(&f, &s, 1e-9, "steal", "5.0%"), CHECK_WARN);
    s.steal = 0.025; /* within a jiffy of the 2% limit */
    assert_int_equal(status_of(&f, &s, 1e-9, "steal", NULL), CHECK_PASS);
    s.other_busy = 0.05; /* 0.20 CPUs of 4, slack 0.08 */
    assert_int_equal(status_of(&f, &s, 1e-9, "other-load", "0.20 CPUs"), CHECK_WARN);
    s.other_busy = 0.04; /* 0.16 CPUs: within the slack */
    assert_int_equal(status_of(&f, &s, 1e-9, "other-load", NULL), CHECK_PASS);
    s.resolution = NAN;
    assert_int_equal(status_of(&f, &s, 1e-9, "steal", "too short"), CHECK_INFO);
    machine_facts_free(&f);
}

static void checks_run_on_this_machine(void **state)
{
    (void)state;
    machine_facts facts;
    verdict_error err = {0};
    assert_int_equal(machine_facts_collect(&facts, MACHINE_FACTS_ALL, &err), 0);
    env_check *checks;
    size_t n;
    assert_int_equal(env_checks_run(&facts, 0.1, &checks, &n, &err), 0);
    assert_int_equal(n, N_CODES);
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(checks[i].code, check_codes[i]);
        assert_true(checks[i].status == CHECK_PASS || checks[i].status == CHECK_WARN ||
                    checks[i].status == CHECK_INFO);
    }
    /* 0.1 s is 10 jiffies: long enough to measure, whatever the reading. */
    assert_null(strstr(checks[5].message, "not measured"));
    env_checks_free(checks, n);
    assert_int_equal(env_checks_run(&facts, 0.0, &checks, &n, &err), 0);
    assert_int_equal(checks[5].status, CHECK_INFO);
    env_checks_free(checks, n);
    machine_facts_free(&facts);
}

static void command_first_line_captures_and_times_out(void **state)
{
    (void)state;
    char line[64];
    char *echo[] = {"sh", "-c", "printf '  first line \\nsecond\\n'", NULL};
    assert_int_equal(command_first_line(echo, 2000, line, sizeof line), 0);
    assert_string_equal(line, "first line");
    char *absent[] = {"verdict-no-such-program-xyz", "--version", NULL};
    assert_int_equal(command_first_line(absent, 2000, line, sizeof line), -1);
    char *failing[] = {"sh", "-c", "echo oops; exit 3", NULL};
    assert_int_equal(command_first_line(failing, 2000, line, sizeof line), -1);
    char *hung[] = {"sleep", "10", NULL};
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    assert_int_equal(command_first_line(hung, 200, line, sizeof line), -1);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    assert_true((double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9 < 5.0);
    char *chatty[] = {"sh", "-c", "yes | head -c 100000", NULL}; /* more than the buffer */
    assert_int_equal(command_first_line(chatty, 2000, line, sizeof line), 0);
    assert_string_equal(line, "y");
}

/* A NUL ended the line silently ("cc 12" of "cc 12\0 (Debian)"); it is shown as '?'. */
static void command_first_line_shows_nul_bytes(void **state)
{
    (void)state;
    char line[64];
    char *nul[] = {"sh", "-c", "printf 'cc 12\\000 (Debian)\\nnext\\n'", NULL};
    assert_int_equal(command_first_line(nul, 2000, line, sizeof line), 0);
    assert_string_equal(line, "cc 12? (Debian)");
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
    return paren != NULL && paren[1] == ' ' && paren[2] == 'Z';
}

/* A stand-in for `verdict env` waits on a hung program and is SIGKILLed: the program must
 * not stay behind (it did, under pid 1). The loops are bounds, not timings. */
static void command_first_line_child_dies_with_verdict(void **state)
{
    (void)state;
    char pid_file[] = "/tmp/verdict-env-pid-XXXXXX";
    int fd = mkstemp(pid_file);
    assert_true(fd >= 0);
    close(fd);
    pid_t verdict = fork();
    assert_true(verdict >= 0);
    if (verdict == 0) {
        char script[128], line[64];
        snprintf(script, sizeof script, "echo $$ > %s; exec sleep 600", pid_file);
        char *hung[] = {"sh", "-c", script, NULL};
        command_first_line(hung, 600000, line, sizeof line);
        _exit(0);
    }
    int program = 0;
    for (int tries = 0; tries < 6000 && program <= 0; tries++) {
        FILE *f = fopen(pid_file, "r");
        if (f == NULL || fscanf(f, "%d", &program) != 1)
            usleep(10000);
        if (f != NULL)
            fclose(f);
    }
    assert_true(program > 0);
    assert_int_equal(kill(verdict, SIGKILL), 0);
    assert_int_equal(waitpid(verdict, NULL, 0), verdict);
    bool gone = false;
    for (int tries = 0; tries < 3000 && !gone; tries++)
        if (!(gone = process_gone((pid_t)program)))
            usleep(10000);
    if (!gone)
        kill((pid_t)program, SIGKILL);
    unlink(pid_file);
    assert_true(gone);
}

static void cpu_lists_and_words(void **state)
{
    (void)state;
    int ids[8];
    assert_int_equal(parse_cpu_list("0-3,8,10-11\n", ids, 8), 7);
    assert_int_equal(ids[4], 8);
    assert_int_equal(ids[6], 11);
    assert_int_equal(parse_cpu_list("0-1", ids, 1), 2); /* counted beyond what is stored */
    assert_int_equal(parse_cpu_list("", ids, 8), 0);
    assert_int_equal(parse_cpu_list("3-1", ids, 8), -1);
    assert_int_equal(parse_cpu_list("0-", ids, 8), -1);
    assert_int_equal(parse_cpu_list("a", ids, 8), -1);
    assert_int_equal(parse_cpu_list("0-999999999", ids, 8), -1);
    assert_true(has_word("fpu sse4_2 avx2", "sse4_2"));
    assert_true(has_word("fpu sse4_2 avx2", "avx2"));
    assert_false(has_word("fpu sse4_2 avx2", "avx"));
    assert_false(has_word("fpu avx512f", "avx512"));
    assert_false(has_word("", "x"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(facts_of_this_machine_are_complete),
        cmocka_unit_test(facts_without_compilers),
        cmocka_unit_test(facts_set_replaces_and_get_finds),
        cmocka_unit_test(one_check_per_code_in_order),
        cmocka_unit_test(frequency_and_smt_checks),
        cmocka_unit_test(load_vm_timer_and_clocksource_checks),
        cmocka_unit_test(steal_and_other_load_checks),
        cmocka_unit_test(checks_run_on_this_machine),
        cmocka_unit_test(command_first_line_captures_and_times_out),
        cmocka_unit_test(command_first_line_shows_nul_bytes),
        cmocka_unit_test(command_first_line_child_dies_with_verdict),
        cmocka_unit_test(cpu_lists_and_words),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

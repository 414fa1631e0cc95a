/* Unit tests of the targets' own keys in experiment files — postgres (servers, workload,
 * builds from source) and kernel (module, calibration, arg) — and of the command line's
 * experiments written as files (command_experiment, kernel_experiment) and read back. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/error.h"
#include "core/experiment.h"
#include "core/experiment_writer.h"
#include "lab/lab_builds.h"
#include "parse_expect.h"
#include "targets/command_target.h"
#include "targets/kernel_target.h"
#include "targets/postgres_options.h"
#include "targets/postgres_target.h"
#include "targets/targets.h"

/* ---- target postgres ---- */

static const char pg_example[] =
    "name: pg-shared-buffers\n"
    "repetitions: 6\n"
    "target: postgres\n"
    "postgres:\n"
    "  scale: 10\n"
    "  settings: { shared_buffers: 256MB, fsync: \"off\" }\n"
    "parameters:\n"
    "  clients: [2, 4]\n"
    "variants:\n"
    "  A: { bindir: /usr/lib/postgresql/15/bin }\n"
    "  B: { bindir: /usr/lib/postgresql/15/bin, settings: { shared_buffers: 128kB } }\n"
    "workload:\n"
    "  pgbench: [\"-S\", \"-M\", \"prepared\", \"-c\", \"{clients}\", \"-j\", \"{clients}\", "
    "\"-T\", \"3\"]\n"
    "metrics: [tps]\n";

static void test_postgres_example_model(void **state)
{
    (void)state;
    experiment e;
    parse_expect_ok(pg_example, &e);
    assert_ptr_equal(e.target, &postgres_target);
    const postgres_options *pg = postgres_options_of(&e);
    assert_non_null(pg);
    assert_int_equal(pg->scale, 10);
    assert_int_equal(pg->n_settings, 2);
    assert_string_equal(pg->settings[0].name, "shared_buffers");
    assert_string_equal(pg->settings[0].value, "256MB");
    assert_string_equal(pg->settings[1].name, "fsync");
    assert_string_equal(pg->settings[1].value, "off");
    assert_int_equal(pg->fresh, PG_FRESH_RUN);
    assert_int_equal(pg->pin, PG_PIN_NONE);
    assert_null(pg->run_as);
    assert_null(pg->cache_dir); /* the user's own: cluster_default_cache_dir */
    const char *words[] = {"-S", "-M", "prepared", "-c", "{clients}", "-j", "{clients}", "-T",
                           "3"};
    assert_true(pg->has_workload);
    assert_int_equal(pg->n_workload, 9);
    for (size_t i = 0; i < 9; i++)
        assert_string_equal(pg->workload[i], words[i]);
    assert_null(pg->workload[9]);
    assert_int_equal(e.n_variants, 2);
    for (size_t i = 0; i < 2; i++) {
        const experiment_variant *ev = &e.variants[i];
        const postgres_variant *v = postgres_variant_of(ev);
        assert_non_null(v);
        assert_string_equal(v->bindir, "/usr/lib/postgresql/15/bin");
        assert_null(ev->command);
        assert_int_equal(ev->n_command, 0);
        assert_null(ev->source.path);
        assert_null(ev->build);
        assert_null(ev->build_key);
        assert_null(v->conninfo);
    }
    assert_int_equal(postgres_variant_of(&e.variants[0])->n_settings, 0);
    const postgres_variant *b = postgres_variant_of(&e.variants[1]);
    assert_int_equal(b->n_settings, 1);
    assert_string_equal(b->settings[0].name, "shared_buffers");
    assert_string_equal(b->settings[0].value, "128kB");
    assert_int_equal(e.n_metrics, 1);
    assert_string_equal(e.metrics[0].name, "tps");
    assert_null(e.metrics[0].regex);
    assert_true(e.metrics[0].higher_is_better);
    experiment_free(&e);
}

static void test_postgres_keys_and_defaults(void **state)
{
    (void)state;
    experiment e;
    /* target comes last: it is read first anyway */
    parse_expect_ok("variants:\n"
             "  A: {bindir: pg/bin, env: {PGOPTIONS: \"-c jit=off\"}}\n"
             "  B: {conninfo: \"host=/tmp port=5433\"}\n"
             "workload: {pgbench: \"-c 4 -f 'my script.sql@3' --time=5\"}\n"
             "metrics: [tps, latency_avg, p99, wall, {name: x, regex: \"x=([0-9]+)\", "
             "better: lower}]\n"
             "postgres: {scale: 50, fresh: point, pin: split, warm_runs: 2, run_as: bench, "
             "cache_dir: c}\n"
             "target: postgres\n", &e);
    const postgres_options *pg = postgres_options_of(&e);
    const postgres_variant *a = postgres_variant_of(&e.variants[0]);
    const postgres_variant *b = postgres_variant_of(&e.variants[1]);
    char cwd[4096], expected[4200];
    assert_non_null(getcwd(cwd, sizeof cwd));
    snprintf(expected, sizeof expected, "%s/c", cwd);
    assert_string_equal(pg->cache_dir, expected);
    snprintf(expected, sizeof expected, "%s/pg/bin", cwd);
    assert_string_equal(a->bindir, expected);
    assert_string_equal(e.variants[0].env[0].value, "-c jit=off");
    assert_string_equal(b->conninfo, "host=/tmp port=5433");
    assert_null(b->bindir);
    assert_int_equal(pg->scale, 50);
    assert_int_equal(pg->fresh, PG_FRESH_POINT);
    assert_int_equal(pg->pin, PG_PIN_SPLIT);
    assert_int_equal(pg->warm_runs, 2);
    assert_string_equal(pg->run_as, "bench");
    assert_int_equal(pg->n_workload, 5);
    assert_string_equal(pg->workload[3], "my script.sql@3");
    assert_string_equal(pg->workload[4], "--time=5");
    const bool higher[] = {true, false, false, false, false};
    assert_int_equal(e.n_metrics, 5);
    for (size_t i = 0; i < 5; i++)
        assert_int_equal(e.metrics[i].higher_is_better, higher[i]);
    experiment_free(&e);
    /* defaults: scale 10, metrics [tps]; the target command is the default */
    parse_expect_ok("target: postgres\nvariants: {A: {bindir: /b}}\nworkload: {pgbench: [-S]}\n", &e);
    pg = postgres_options_of(&e);
    assert_int_equal(pg->scale, 10);
    assert_int_equal(pg->fresh, PG_FRESH_RUN);
    assert_int_equal(pg->pin, PG_PIN_NONE);
    assert_int_equal(pg->warm_runs, 0);
    assert_null(pg->cache_dir);
    assert_int_equal(e.n_metrics, 1);
    assert_string_equal(e.metrics[0].name, "tps");
    assert_true(e.metrics[0].higher_is_better);
    experiment_free(&e);
    /* without 'target' a file is the command target's, with no postgres options at all */
    parse_expect_ok("variants: {A: ./a}\n", &e);
    assert_ptr_equal(e.target, &command_target);
    assert_null(e.target_options);
    assert_null(e.variants[0].options);
    experiment_free(&e);
}

static void workload_ok(const char *params, const char *words)
{
    char text[512];
    experiment e;
    snprintf(text, sizeof text, "target: postgres\nparameters: {%s}\nvariants: {A: {bindir: "
             "/b}}\nworkload: {pgbench: %s}\n", params, words);
    parse_expect_ok(text, &e);
    experiment_free(&e);
}

static void workload_fails(const char *params, const char *words, const char *expected)
{
    char text[512];
    snprintf(text, sizeof text, "target: postgres\nparameters: {%s}\nvariants: {A: {bindir: "
             "/b}}\nworkload: {pgbench: %s}\n", params, words);
    parse_expect_fails(text, expected);
}

static void test_postgres_workload_words(void **state)
{
    (void)state;
    /* option values are not database names, attached or not, abbreviated or not */
    workload_ok("c: [1]", "[-c, '{c}', -j4, --time, '3', --tim=3, --tra, '9', -Sc, '4']");
    workload_ok("c: [1]", "\"-n -D x=1 -f a.sql@2 -b select-only --progress 1 -P 1 --\"");
    workload_ok("mode: [-S, -N, --select-only]", "['{mode}', -T, '3']");
    const char conn[] = "connection options (-h, -p, -U, --host, --port, --username) are not "
                        "allowed in the workload: verdict connects pgbench to each variant's "
                        "server";
    const char arg[] = "a database name (or any argument that is not an option) is not allowed "
                       "in the workload: verdict supplies the connection";
    char expected[512];
    const struct {
        const char *params, *words;
        int column;
        const char *message;
        bool connection;
    } bad[] = {
        {"c: [1]", "[-c, '4', -h, /tmp]", 31, "pgbench word 3 '-h'", true},
        {"c: [1]", "[-S, -p5433]", 26, "pgbench word 2 '-p5433'", true},
        {"c: [1]", "[-SU, me]", 22, "pgbench word 1 '-SU'", true},
        {"c: [1]", "[--host=/tmp]", 22, "pgbench word 1 '--host=/tmp'", true},
        {"c: [1]", "[--user, me]", 22, "pgbench word 1 '--user'", true},
        {"c: [1]", "[--port, '1']", 22, "pgbench word 1 '--port'", true},
        {"c: [1]", "\"-T 3 bench\"", 21, "pgbench word 3 'bench'", false},
        {"c: [1]", "[-S, --, bench]", 30, "pgbench word 3 'bench'", false},
        {"c: [1]", "[-c, '{c}', '{c}']", 33, "pgbench word 3 '{c}' (as '1')", false},
        {"m: [-S, bench]", "['{m}']", 22, "pgbench word 1 '{m}' (as 'bench')", false},
        {"m: [-S, -h]", "['{m}', x]", 22, "pgbench word 1 '{m}' (as '-h')", true},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(expected, sizeof expected, "spin.yaml:4:%d: %s: %s", bad[i].column,
                 bad[i].message, bad[i].connection ? conn : arg);
        workload_fails(bad[i].params, bad[i].words, expected);
    }
    workload_fails("c: [1]", "[]", "spin.yaml:4:12: 'pgbench' is an empty list");
    workload_fails("c: [1]", "[-c, '{n}']", "spin.yaml:4:26: unknown placeholder {n} in the "
                   "workload; parameters are: c");
}

/* The server's counters: a counter metric alone means perf; valgrind needs -t, autovacuum
 * off, counts only; /tx and /query follow the workload; the mode is in the plan. */
static void test_postgres_counters(void **state)
{
    (void)state;
    experiment e;
    const char *head = "target: postgres\nvariants: {A: {bindir: /b}}\n";
    char text[512];
    snprintf(text, sizeof text, "%sworkload: {pgbench: [-S]}\nmetrics: [instructions/tx, tps]\n",
             head);
    parse_expect_ok(text, &e);
    assert_int_equal(postgres_options_of(&e)->counters, PG_COUNTERS_PERF);
    assert_false(e.metrics[0].higher_is_better);
    experiment_free(&e);
    uint64_t perf = parse_expect_plan_hash(text);
    snprintf(text, sizeof text, "%scounters: valgrind\npostgres: {settings: {autovacuum: "
             "\"off\"}}\nworkload: {pgbench: [-S, -t, 20]}\nmetrics: [instructions/tx]\n", head);
    parse_expect_ok(text, &e);
    assert_int_equal(postgres_options_of(&e)->counters, PG_COUNTERS_VALGRIND);
    experiment_free(&e);
    assert_true(parse_expect_plan_hash(text) != perf);
    snprintf(text, sizeof text, "%scounters: valgrind\npostgres: {settings: {autovacuum: "
             "\"off\"}}\nworkload: {pgbench: \"-S -T5\"}\nmetrics: [instructions/tx]\n", head);
    parse_expect_fails_with(text, "spin.yaml:1:1: 'counters: valgrind' needs a fixed number of "
                            "transactions: give pgbench -t N instead of -T");
    snprintf(text, sizeof text, "%scounters: valgrind\nworkload: {pgbench: [-S]}\n"
             "metrics: [instructions/tx]\n", head);
    parse_expect_fails_with(text, "spin.yaml:1:1: 'counters: valgrind' needs 'settings: "
                            "{autovacuum: \"off\"}'");
    snprintf(text, sizeof text, "%sworkload: {pgbench: [-S]}\nmetrics: [page-faults/query]\n",
             head);
    parse_expect_fails(text, "spin.yaml:1:1: metric 'page-faults/query' divides by the queries "
                       "of a 'queries' workload; a pgbench workload counts per transaction: "
                       "page-faults/tx");
    snprintf(text, sizeof text, "target: postgres\nvariants: {A: {conninfo: x}}\n"
             "workload: {pgbench: [-S]}\nmetrics: [task-clock]\n");
    parse_expect_fails_with(text, "spin.yaml:1:1: variant A connects to a server verdict does "
                            "not start (conninfo): its processes cannot be counted");
}

static void test_postgres_errors(void **state)
{
    (void)state;
    const char *tail = "variants: {A: {bindir: /b}}\nworkload: {pgbench: [-S]}\n";
    char text[512];
    parse_expect_fails("postgres:\n  scale: 5\nvariants: {A: ./a}\n",
                "spin.yaml:1:1: 'postgres' is only allowed with 'target: postgres'");
    parse_expect_fails("target: command\nvariants: {A: ./a}\nworkload: {pgbench: [-S]}\n",
                "spin.yaml:3:1: 'workload' is only allowed with 'target: postgres'");
    parse_expect_fails("variants: {A: {command: ./a, bindir: /b}}\n",
                "spin.yaml:1:30: 'bindir' is only allowed with 'target: postgres' in variant A");
    parse_expect_fails("variants: {A: ./a}\nmetrics: [tps]\n",
                "spin.yaml:2:11: unknown metric 'tps' (builtins: wall, user, sys, cpu, maxrss; "
                "counters: instructions, cycles, branches, branch-misses, cache-references, cache-misses, "
                "L1-dcache-load-misses, task-clock, page-faults, context-switches, cpu-migrations; "
                "ratios: ipc, branch-miss-rate; or give a 'regex' to extract it)");
    /* The keys known to a target are the generic ones and its own. */
    snprintf(text, sizeof text, "target: postgres\nzzz: 1\n%s", tail);
    parse_expect_fails(text, "spin.yaml:2:1: unknown key 'zzz' (known keys: name, seed, "
                             "repetitions, adaptive, parameters, variants, command, shell, env, "
                             "cwd, metrics, confidence, margin, reserve_for_more, warmup, timeout, on_failure, "
                             "setup, teardown, prepare, target, layouts, machines, counters, profile, profile_event, method, quantile, postgres, workload)");
    snprintf(text, sizeof text, "target: postgres\nworklod: {pgbench: [-S]}\n%s", tail);
    parse_expect_fails(text, "spin.yaml:2:1: unknown key 'worklod' (did you mean 'workload'?)");
    parse_expect_fails("target: postgres\nvariants: {A: {bindir: /b, kernel: k}}\n"
                       "workload: {pgbench: [-S]}\n",
                       "spin.yaml:2:28: 'kernel' is only allowed with 'target: kernel' in "
                       "variant A");
    parse_expect_fails("target: kubernetes\nvariants: {A: ./a}\n",
                "spin.yaml:1:9: 'target' must be command, postgres or kernel, not 'kubernetes'");
    parse_expect_fails("target: postgres\nvariants: {A: {bindir: /b}}\n",
                "spin.yaml:1:1: 'target: postgres' needs 'workload: {pgbench: [arguments]}': "
                "what pgbench runs against each variant's server");
    parse_expect_fails("target: postgres\nworkload: {pgbench: [-S, -h, /tmp]}\nvariants: {A: {bindir: "
                "/b}}\n",
                "spin.yaml:2:26: pgbench word 2 '-h': connection options (-h, -p, -U, --host, "
                "--port, --username) are not allowed in the workload: verdict connects pgbench "
                "to each variant's server");
    snprintf(text, sizeof text, "target: postgres\nvariants:\n  A: {bindir: /b, conninfo: "
             "\"port=5\"}\nworkload: {pgbench: [-S]}\n");
    parse_expect_fails(text, "spin.yaml:3:3: variant A has more than one of bindir, source and "
                      "conninfo: give exactly one (an installed PostgreSQL, a source tree "
                      "verdict builds, or a running server)");
    parse_expect_fails("target: postgres\nvariants:\n  A:\nworkload: {pgbench: [-S]}\n",
                "spin.yaml:3:3: variant A has none of bindir, source and conninfo: give exactly "
                "one (an installed PostgreSQL, a source tree verdict builds, or a running "
                "server)");
    parse_expect_fails("target: postgres\nvariants:\n  A: {bindir: /b, command: ./a}\nworkload: "
                "{pgbench: [-S]}\n",
                "spin.yaml:3:19: 'command' is not used with 'target: postgres': the workload "
                "(pgbench) is the command");
    parse_expect_fails("target: postgres\ncommand: ./a\nvariants: {A: {bindir: /b}}\nworkload: "
                "{pgbench: [-S]}\n",
                "spin.yaml:2:1: 'command' is not used with 'target: postgres': the workload "
                "(pgbench) is the command");
    parse_expect_fails("target: postgres\nvariants: {A: pg_ctl start}\nworkload: {pgbench: [-S]}\n",
                "spin.yaml:2:15: with 'target: postgres' variant A is a mapping (bindir, source "
                "or conninfo, settings, env), not a command");
    snprintf(text, sizeof text, "target: postgres\npostgres: {pin: both}\n%s", tail);
    parse_expect_fails(text, "spin.yaml:2:17: 'pin' must be none, same or split, not 'both'");
    snprintf(text, sizeof text, "target: postgres\npostgres: {fresh: always}\n%s", tail);
    parse_expect_fails(text, "spin.yaml:2:19: 'fresh' must be run or point, not 'always'");
    snprintf(text, sizeof text, "target: postgres\npostgres: {scale: 0}\n%s", tail);
    parse_expect_fails(text, "spin.yaml:2:19: 'scale' must be a positive integer, not '0'");
    snprintf(text, sizeof text, "target: postgres\npostgres: {warm_runs: -1}\n%s", tail);
    parse_expect_fails(text, "spin.yaml:2:23: 'warm_runs' must be a non-negative integer, not '-1'");
    snprintf(text, sizeof text, "target: postgres\npostgres: {warm_runs: 101}\n%s", tail);
    parse_expect_fails(text, "spin.yaml:2:23: 'warm_runs' must be at most 100");
    snprintf(text, sizeof text, "target: postgres\npostgres: {settings: {port: 5433}}\n%s", tail);
    parse_expect_fails(text, "spin.yaml:2:23: setting 'port' is verdict's to set (each server gets a "
                      "private socket and no TCP)");
    snprintf(text, sizeof text, "target: postgres\npostgres: {settings: {work_mem: }}\n%s", tail);
    parse_expect_fails(text, "spin.yaml:2:23: setting work_mem needs a plain value (quote it: "
                      "work_mem: \"...\")");
    snprintf(text, sizeof text, "target: postgres\npostgres: {settings: {a: 1, A: 2}}\n%s", tail);
    parse_expect_fails(text, "spin.yaml:2:29: setting A is given twice");
    snprintf(text, sizeof text, "target: postgres\npostgres: {sclae: 1}\n%s", tail);
    parse_expect_fails(text, "spin.yaml:2:12: unknown key 'sclae' in 'postgres' (did you mean "
                      "'scale'?)");
    parse_expect_fails("target: postgres\nvariants:\n  A: {bindir: /b, cflags: -O3}\nworkload: "
                "{pgbench: [-S]}\n",
                "spin.yaml:3:19: 'cflags' of variant A needs 'source': it describes a build "
                "from source");
    parse_expect_fails("target: postgres\nvariants:\n  A: {conninfo: port=5, settings: {a: b}}\n"
                "workload: {pgbench: [-S]}\n",
                "spin.yaml:3:3: variant A connects to a server verdict does not start "
                "(conninfo): its 'settings' cannot be applied");
    parse_expect_fails("target: postgres\nvariants:\n  A: {source: /nonexistent/pg}\n"
                "workload: {pgbench: [-S]}\n",
                "spin.yaml:3:15: source '/nonexistent/pg': No such file or directory");
}

static void write_file(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* Loads dir/exp.yaml, failing the test with the loader's message if it does not load. */
static void load_ok(const char *dir, experiment *e)
{
    char path[512];
    verdict_error err = {0};
    snprintf(path, sizeof path, "%s/exp.yaml", dir);
    if (targets_load_experiment(path, e, &err) != 0)
        fail_msg("unexpected error: %s", err.message);
}

static const char source_experiment[] =
    "target: postgres\n"
    "variants:\n"
    "  A: {bindir: /usr/lib/postgresql/15/bin}\n"
    "  B:\n"
    "    source: \"pg {1}'s\"\n"
    "    configure: --enable-debug --with-extra-version='-x y'\n"
    "    cflags: -O3 -fstrict-aliasing\n"
    "    patches: [one.patch]\n"
    "workload: {pgbench: [-S]}\n";

/* A fake PostgreSQL tree: configure writes the prefix and its arguments where make finds
 * them, and make install makes bin/postgres and a copy of the patched file. */
static void make_fake_tree(const char *dir)
{
    char tree[512];
    snprintf(tree, sizeof tree, "%s/pg {1}'s", dir);
    assert_int_equal(mkdir(tree, 0755), 0);
    write_file(tree, "configure",
               "#!/bin/sh\nprintf '%s\\n' \"$@\" > args\n"
               "printf 'prefix = %s\\n' \"${1#--prefix=}\" > prefix.mk\n");
    write_file(tree, "Makefile",
               "include prefix.mk\nall:\n\ttrue\ninstall:\n\tmkdir -p '$(prefix)/bin'\n"
               "\tcp file.c args '$(prefix)/'\n\tprintf '#!/bin/sh\\n' > '$(prefix)/bin/postgres'\n"
               "\tchmod +x '$(prefix)/bin/postgres'\n");
    write_file(tree, "file.c", "int x = 1;\n");
    snprintf(tree, sizeof tree, "%s/pg {1}'s/configure", dir);
    assert_int_equal(chmod(tree, 0755), 0);
}

/* The build's content key and directories, as verdict run gives them before the plan. */
static void prepare_ok(experiment *e, const char *cache)
{
    verdict_error err;
    if (lab_builds_prepare(e, cache, &err) != 0)
        fail_msg("%s", err.message);
}

static void test_postgres_source_build(void **state)
{
    (void)state;
    char dir[] = "/tmp/verdict-test-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char *real = realpath(dir, NULL);
    make_fake_tree(real);
    write_file(real, "one.patch", "--- a/file.c\n+++ b/file.c\n@@ -1 +1 @@\n-int x = 1;\n"
                                  "+int x = 2;\n");
    write_file(real, "exp.yaml", source_experiment);
    experiment e, f;
    load_ok(real, &e);
    const experiment_variant *eb = &e.variants[1];
    const postgres_variant *b = postgres_variant_of(eb);
    char expected[4096], cache[1024];
    snprintf(expected, sizeof expected, "%s/pg {1}'s", real);
    assert_string_equal(eb->source.path, expected);
    assert_null(eb->source.ref);
    snprintf(expected, sizeof expected, "%s/one.patch", real);
    assert_int_equal(eb->source.n_patches, 1);
    assert_string_equal(eb->source.patches[0], expected);
    assert_string_equal(b->cflags, "-O3 -fstrict-aliasing");
    assert_string_equal(b->configure, "--enable-debug --with-extra-version='-x y'");
    assert_null(b->bindir);
    assert_null(eb->build); /* the target's recipe builds it */
    assert_null(eb->build_key);

    /* prepared: a content key, the build's directories in the cache, a plan of its own */
    snprintf(cache, sizeof cache, "%s/cache", real);
    uint64_t unprepared = experiment_plan_hash(&e);
    prepare_ok(&e, cache);
    assert_int_equal(strspn(eb->build_key, "0123456789abcdef"), 64);
    snprintf(expected, sizeof expected, "%s/builds/%.16s/install", cache, eb->build_key);
    assert_string_equal(eb->install, expected);
    assert_int_not_equal(unprepared, experiment_plan_hash(&e));

    /* A patch's content is part of the key, and of the plan. */
    write_file(real, "one.patch", "--- a/file.c\n+++ b/file.c\n@@ -1 +1 @@\n-int x = 1;\n"
                                  "+int x = 3;\n");
    load_ok(real, &f);
    prepare_ok(&f, cache);
    assert_string_not_equal(eb->build_key, f.variants[1].build_key);
    assert_int_not_equal(experiment_plan_hash(&e), experiment_plan_hash(&f));
    experiment_free(&f);

    /* The cache's place is not: the same content in another cache is the same plan. */
    write_file(real, "one.patch", "--- a/file.c\n+++ b/file.c\n@@ -1 +1 @@\n-int x = 1;\n"
                                  "+int x = 2;\n");
    load_ok(real, &f);
    snprintf(cache, sizeof cache, "%s/other", real);
    prepare_ok(&f, cache);
    assert_string_not_equal(eb->install, f.variants[1].install);
    assert_int_equal(experiment_plan_hash(&e), experiment_plan_hash(&f));
    experiment_free(&f);

    /* A missing patch is named. */
    char moved[1024];
    snprintf(moved, sizeof moved, "%s", source_experiment);
    memcpy(strstr(moved, "[one.patch]"), "[two.patch]", 11);
    write_file(real, "exp.yaml", moved);
    char path[1024];
    verdict_error message = {0};
    snprintf(path, sizeof path, "%s/exp.yaml", real);
    assert_int_equal(targets_load_experiment(path, &f, &message), -1);
    snprintf(expected, sizeof expected, "%s:8:15: patch '%s/two.patch': No such file or "
             "directory", path, real);
    assert_string_equal(message.message, expected);
    experiment_free(&e);

    snprintf(path, sizeof path, "rm -rf '%s'", real);
    assert_int_equal(system(path), 0);
    free(real);
}

static void test_postgres_plan_hash(void **state)
{
    (void)state;
    uint64_t base = parse_expect_plan_hash(pg_example);
    assert_int_equal(base, parse_expect_plan_hash(pg_example));
    char text[2048];
    const struct { const char *from, *to; } edits[] = {
        {"128kB", "256kB"},              /* a variant's setting */
        {"fsync: \"off\"", "fsync: false"}, /* a shared setting */
        {"scale: 10", "scale: 20"},
        {"\"3\"]", "\"4\"]"},            /* a workload word */
        {"15/bin }", "16/bin }"},        /* a bindir */
    };
    for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
        snprintf(text, sizeof text, "%s", pg_example);
        char *at = strstr(text, edits[i].from);
        assert_non_null(at);
        assert_int_equal(strlen(edits[i].from), strlen(edits[i].to));
        memcpy(at, edits[i].to, strlen(edits[i].to));
        if (parse_expect_plan_hash(text) == base)
            fail_msg("edit %zu (%s) kept the plan hash", i, edits[i].to);
    }
    snprintf(text, sizeof text, "%s", pg_example);
    memcpy(strstr(text, "scale: 10\n"), "pin: same\n", 10);
    assert_int_not_equal(base, parse_expect_plan_hash(text));
    /* warm_runs: 0 is the default and keeps the plans made before the key existed */
    const char *after_postgres = strstr(pg_example, "postgres:\n") + strlen("postgres:\n");
    int head = (int)(after_postgres - pg_example);
    snprintf(text, sizeof text, "%.*s  warm_runs: 0\n%s", head, pg_example, after_postgres);
    assert_int_equal(base, parse_expect_plan_hash(text));
    snprintf(text, sizeof text, "%.*s  warm_runs: 1\n%s", head, pg_example, after_postgres);
    assert_int_not_equal(base, parse_expect_plan_hash(text));
    /* The same variants and workload under another cache are the same plan. */
    snprintf(text, sizeof text, "%.*s  cache_dir: /elsewhere\n%s", head, pg_example,
             after_postgres);
    assert_int_equal(base, parse_expect_plan_hash(text));
}

/* libfyaml 0.7.12 can crash cleaning up after malformed complex keys: they are refused
 * before it sees them, while a '?' inside quotes, a comment or a word stays allowed. */

/* ---- target kernel ---- */

static const char kernel_example[] =
    "name: copy-sizes\n"
    "target: kernel\n"
    "kernel: {module: lib/kernels.so, sample_time: 5ms, iterations: 1000, arg: \"size={size}\"}\n"
    "parameters: {size: [64, 4096]}\n"
    "repetitions: 5\n"
    "variants:\n"
    "  A: copy_naive\n"
    "  B: {kernel: copy_fast}\n"
    "metrics: [ns_per_call, gbps]\n";

/* A variant's kernel is private to the target: read it from the file the target writes. */
static bool written_variant_is(const experiment *e, const char *expected)
{
    char *text = experiment_to_yaml(e);
    assert_non_null(text);
    bool found = strstr(text, expected) != NULL;
    if (!found)
        print_error("no '%s' in:\n%s\n", expected, text);
    free(text);
    return found;
}

static void test_kernel_example_model(void **state)
{
    (void)state;
    experiment e;
    parse_expect_ok(kernel_example, &e);
    assert_ptr_equal(e.target, &kernel_target);
    const kernel_options *o = e.target_options;
    assert_non_null(o);
    char cwd[4096], expected[4200];
    assert_non_null(getcwd(cwd, sizeof cwd));
    snprintf(expected, sizeof expected, "%s/lib/kernels.so", cwd);
    assert_string_equal(o->module, expected); /* relative to where the file is read */
    assert_true(o->sample_seconds == 0.005);
    assert_int_equal(o->iterations, 1000);
    assert_string_equal(o->arg, "size={size}");
    verdict_error err = {0};
    char *arg = experiment_substitute(&e, 1, o->arg, &err);
    assert_string_equal(arg, "size=4096");
    free(arg);
    assert_int_equal(e.n_variants, 2);
    for (size_t i = 0; i < 2; i++) {
        assert_null(e.variants[i].command); /* the kernel is what runs */
        assert_int_equal(e.variants[i].n_command, 0);
        assert_null(e.variants[i].build);
        assert_non_null(e.variants[i].options);
    }
    /* the scalar form and the mapping form both name the kernel */
    assert_true(written_variant_is(&e, "\"A\": {kernel: \"copy_naive\"}"));
    assert_true(written_variant_is(&e, "\"B\": {kernel: \"copy_fast\"}"));
    assert_int_equal(e.n_metrics, 2);
    assert_string_equal(e.metrics[0].name, "ns_per_call");
    assert_false(e.metrics[0].higher_is_better);
    assert_string_equal(e.metrics[1].name, "gbps");
    assert_true(e.metrics[1].higher_is_better);
    experiment_free(&e);
}

static void test_kernel_keys_and_defaults(void **state)
{
    (void)state;
    experiment e;
    parse_expect_ok("target: kernel\nkernel: {module: /m.so}\nvariants: {A: k, B: k}\n", &e);
    const kernel_options *o = e.target_options;
    assert_string_equal(o->module, "/m.so");
    assert_true(o->sample_seconds == KERNEL_DEFAULT_SAMPLE_SECONDS);
    assert_int_equal(o->iterations, 0); /* calibrated */
    assert_null(o->arg);
    assert_int_equal(e.n_metrics, 1); /* the first builtin */
    assert_string_equal(e.metrics[0].name, "ns_per_call");
    assert_false(e.metrics[0].higher_is_better);
    assert_true(written_variant_is(&e, "\"B\": {kernel: \"k\"}"));
    experiment_free(&e);
    /* sample_time is a duration: a bare number is seconds, and every unit is read (up to
     * the bound of 1 s: longer ones are refused in test_kernel_errors) */
    const struct { const char *text; double seconds; } durations[] = {
        {"1", 1}, {"250ms", 0.25}, {"0.5s", 0.5}, {"0.015m", 0.015 * 60}, {".5", 0.5},
    };
    for (size_t i = 0; i < sizeof durations / sizeof durations[0]; i++) {
        char text[256];
        snprintf(text, sizeof text, "target: kernel\nkernel: {module: /m.so, sample_time: %s}\n"
                 "variants: {A: k}\n", durations[i].text);
        parse_expect_ok(text, &e);
        if (((const kernel_options *)e.target_options)->sample_seconds != durations[i].seconds)
            fail_msg("sample_time: %s read as %g s", durations[i].text,
                     ((const kernel_options *)e.target_options)->sample_seconds);
        experiment_free(&e);
    }
    /* the arg's braces are placeholders, doubled ones literal */
    parse_expect_ok("target: kernel\nparameters: {n: [8]}\nkernel: {module: /m.so, arg: "
                    "\"{{n}}={n}\"}\nvariants: {A: k}\n", &e);
    verdict_error err = {0};
    char *arg = experiment_substitute(&e, 0, ((const kernel_options *)e.target_options)->arg,
                                      &err);
    assert_string_equal(arg, "{n}=8");
    free(arg);
    experiment_free(&e);
    /* generic keys a kernel experiment shares with the others */
    parse_expect_ok("target: kernel\nkernel: {module: /m.so}\nadaptive: {min_blocks: 4, "
                    "max_blocks: 8}\nwarmup: 0\nseed: 3\nvariants:\n  A: k\n  B:\n    kernel: "
                    "k2\n", &e);
    assert_true(e.adaptive);
    assert_int_equal(e.min_blocks, 4);
    assert_int_equal(e.max_blocks, 8);
    assert_int_equal(e.warmup, 0);
    assert_int_equal(e.seed, 3);
    assert_int_equal(e.variants[1].line, 8);
    assert_true(written_variant_is(&e, "\"B\": {kernel: \"k2\"}"));
    experiment_free(&e);
}

static void test_kernel_load_resolves_module(void **state)
{
    (void)state;
    char dir[] = "/tmp/verdict-test-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char *real = realpath(dir, NULL);
    write_file(real, "exp.yaml", "target: kernel\nkernel: {module: build/k.so}\nvariants: {A: k}\n");
    experiment e;
    load_ok(real, &e);
    char expected[1024];
    snprintf(expected, sizeof expected, "%s/build/k.so", real); /* the file's directory */
    assert_string_equal(((const kernel_options *)e.target_options)->module, expected);
    experiment_free(&e);
    snprintf(expected, sizeof expected, "rm -rf '%s'", real);
    assert_int_equal(system(expected), 0);
    free(real);
}

static void test_kernel_errors(void **state)
{
    (void)state;
    const char *variants = "variants: {A: k}\n";
    char text[512];
    parse_expect_fails("target: kernel\nvariants: {A: k}\n",
                       "spin.yaml:1:1: 'target: kernel' needs 'kernel: {module: PATH}': the "
                       "shared object whose functions are timed");
    snprintf(text, sizeof text, "target: kernel\nkernel: {sample_time: 1ms}\n%s", variants);
    parse_expect_fails(text, "spin.yaml:1:1: 'target: kernel' needs 'kernel: {module: PATH}': "
                             "the shared object whose functions are timed");
    snprintf(text, sizeof text, "target: kernel\nkernel: ./k.so\n%s", variants);
    parse_expect_fails(text, "spin.yaml:2:9: 'kernel' must be a mapping (module, sample_time, "
                             "iterations, arg)");
    snprintf(text, sizeof text, "target: kernel\nkernel: {module: \"\"}\n%s", variants);
    parse_expect_fails(text, "spin.yaml:2:18: 'module' is empty");
    snprintf(text, sizeof text, "target: kernel\nkernel: {modul: /k.so}\n%s", variants);
    parse_expect_fails(text, "spin.yaml:2:10: unknown key 'modul' in 'kernel' (did you mean "
                             "'module'?)");
    snprintf(text, sizeof text, "target: kernel\nkernel: {module: /k.so, module: /j.so}\n%s",
             variants);
    parse_expect_fails(text, "spin.yaml:2:25: key 'module' appears twice in 'kernel'");
    snprintf(text, sizeof text, "target: kernel\nkernel: {module: /k.so, sample_time: soon}\n%s",
             variants);
    parse_expect_fails(text, "spin.yaml:2:38: 'sample_time' must be a positive duration such as "
                             "30s, 500ms, 5m or 1h, not 'soon'");
    snprintf(text, sizeof text, "target: kernel\nkernel: {module: /k.so, sample_time: 0ms}\n%s",
             variants);
    parse_expect_fails(text, "spin.yaml:2:38: 'sample_time' must be a positive duration such as "
                             "30s, 500ms, 5m or 1h, not '0ms'");
    snprintf(text, sizeof text, "target: kernel\nkernel: {module: /k.so, sample_time: 1m}\n%s",
             variants);
    parse_expect_fails(text, "spin.yaml:2:38: 'sample_time' 60 s: a sample time is above 0 and "
                             "at most 1 s (a stop request waits for the sample being taken)");
    snprintf(text, sizeof text, "target: kernel\nkernel: {module: /k.so, iterations: "
             "4398046511105}\n%s", variants);
    parse_expect_fails(text, "spin.yaml:2:37: 'iterations' 4398046511105: calls per sample are "
                             "1 to 4398046511104 (2^42)");
    snprintf(text, sizeof text, "target: kernel\nkernel: {module: /k.so, iterations: -5}\n%s",
             variants);
    parse_expect_fails(text, "spin.yaml:2:37: 'iterations' must be a non-negative integer, not "
                             "'-5'");
    snprintf(text, sizeof text, "target: kernel\nkernel: {module: /k.so, iterations: 1e6}\n%s",
             variants);
    parse_expect_fails(text, "spin.yaml:2:37: 'iterations' must be a non-negative integer, not "
                             "'1e6'");
    snprintf(text, sizeof text, "target: kernel\nparameters: {n: [1]}\nkernel: {module: /k.so, "
             "arg: \"size={m}\"}\n%s", variants);
    parse_expect_fails(text, "spin.yaml:3:30: unknown placeholder {m} in the kernel's arg; "
                             "parameters are: n");
    snprintf(text, sizeof text, "target: kernel\nkernel: {module: /k.so, arg: \"{n\"}\n%s",
             variants);
    parse_expect_fails(text, "spin.yaml:2:30: unmatched '{' (write {{ for a literal brace) in "
                             "the kernel's arg; parameters are: (none)");
    /* what runs is the kernel: command, shell and build are refused, saying why */
    const char *module = "target: kernel\nkernel: {module: /k.so}\n";
    snprintf(text, sizeof text, "%scommand: ./a\n%s", module, variants);
    parse_expect_fails(text, "spin.yaml:3:1: 'command' is not used with 'target: kernel': the "
                             "kernel, a function of the module, is what runs");
    snprintf(text, sizeof text, "%sshell: true\n%s", module, variants);
    parse_expect_fails(text, "spin.yaml:3:1: 'shell' is not used with 'target: kernel': the "
                             "kernel, a function of the module, is what runs");
    snprintf(text, sizeof text, "%svariants:\n  A: {kernel: k, command: [./a]}\n", module);
    parse_expect_fails(text, "spin.yaml:4:18: 'command' is not used with 'target: kernel': the "
                             "kernel, a function of the module, is what runs");
    snprintf(text, sizeof text, "%svariants:\n  A: {kernel: k, build: make}\n", module);
    parse_expect_fails(text, "spin.yaml:4:18: 'build' is not used with 'target: kernel': build "
                             "the module yourself and give it as 'module'");
    snprintf(text, sizeof text, "%ssetup: make\n%s", module, variants);
    parse_expect_fails(text, "spin.yaml:3:1: 'setup' is not used with 'target: kernel': a "
                             "kernel runs inside verdict: prepare its data in the module's "
                             "setup");
    /* an in-process kernel has no environment, directory or time limit of its own */
    const char *no_process = "a kernel runs inside verdict's own process, which has no "
                             "environment, directory or time limit of its own";
    char expected[512];
    snprintf(text, sizeof text, "%stimeout: 5s\n%s", module, variants);
    snprintf(expected, sizeof expected, "spin.yaml:3:1: 'timeout' is not used with 'target: "
             "kernel': %s", no_process);
    parse_expect_fails(text, expected);
    snprintf(text, sizeof text, "%senv: {X: \"1\"}\n%s", module, variants);
    snprintf(expected, sizeof expected, "spin.yaml:3:1: 'env' is not used with 'target: "
             "kernel': %s", no_process);
    parse_expect_fails(text, expected);
    snprintf(text, sizeof text, "%svariants:\n  A: {kernel: k, cwd: /tmp}\n", module);
    snprintf(expected, sizeof expected, "spin.yaml:4:18: 'cwd' is not used with 'target: "
             "kernel': %s", no_process);
    parse_expect_fails(text, expected);
    /* every variant names a kernel */
    snprintf(text, sizeof text, "%svariants:\n  A:\n", module);
    parse_expect_fails(text, "spin.yaml:4:3: variant A names no kernel: give 'A: KERNEL' or "
                             "'A: {kernel: KERNEL}'");
    snprintf(text, sizeof text, "%svariants:\n  A: {}\n", module);
    parse_expect_fails(text, "spin.yaml:4:3: variant A names no kernel: give 'A: KERNEL' or "
                             "'A: {kernel: KERNEL}'");
    snprintf(text, sizeof text, "%svariants:\n  A: [k1, k2]\n", module);
    parse_expect_fails(text, "spin.yaml:4:7: 'A' must be a kernel's name, not a list");
    snprintf(text, sizeof text, "%svariants:\n  A: {kernel: [k]}\n", module);
    parse_expect_fails(text, "spin.yaml:4:16: 'kernel' must be a kernel's name, not a list");
    snprintf(text, sizeof text, "%svariants:\n  A: {kernl: k}\n", module);
    parse_expect_fails(text, "spin.yaml:4:7: unknown key 'kernl' in variant A (did you mean "
                             "'kernel'?)");
    /* metrics: the target's builtins, and no output to read others from */
    snprintf(text, sizeof text, "%s%smetrics: [wall]\n", module, variants);
    parse_expect_fails(text, "spin.yaml:4:11: unknown metric 'wall' (builtins: ns_per_call, "
                             "gbps; counters: instructions, cycles, branches, branch-misses, "
                             "cache-references, cache-misses, L1-dcache-load-misses, "
                             "task-clock, page-faults, context-switches, cpu-migrations; "
                             "ratios: ipc, branch-miss-rate)");
    snprintf(text, sizeof text, "%s%smetrics: [{name: x, regex: \"x=([0-9]+)\", better: lower}]\n",
             module, variants);
    parse_expect_fails(text, "spin.yaml:4:12: metric 'x': 'target: kernel' has no output to "
                             "extract numbers from (builtins: ns_per_call, gbps)");
    /* the other targets' keys are named as theirs */
    snprintf(text, sizeof text, "%sworkload: {pgbench: [-S]}\n%s", module, variants);
    parse_expect_fails(text, "spin.yaml:3:1: 'workload' is only allowed with 'target: "
                             "postgres'");
    snprintf(text, sizeof text, "%svariants: {A: {kernel: k, bindir: /b}}\n", module);
    parse_expect_fails(text, "spin.yaml:3:27: 'bindir' is only allowed with 'target: postgres' "
                           "in variant A");
    parse_expect_fails("kernel: {module: /k.so}\nvariants: {A: ./a}\n",
                       "spin.yaml:1:1: 'kernel' is only allowed with 'target: kernel'");
    parse_expect_fails("variants: {A: {command: ./a, kernel: k}}\n",
                       "spin.yaml:1:30: 'kernel' is only allowed with 'target: kernel' in "
                       "variant A");
    snprintf(text, sizeof text, "%szzz: 1\n%s", module, variants);
    parse_expect_fails(text, "spin.yaml:3:1: unknown key 'zzz' (known keys: name, seed, "
                             "repetitions, adaptive, parameters, variants, command, shell, env, "
                             "cwd, metrics, confidence, margin, reserve_for_more, warmup, timeout, on_failure, "
                             "setup, teardown, prepare, target, layouts, machines, counters, profile, profile_event, method, quantile, kernel)");
}

/* text with its first from replaced by to, in out. */
static void replace_once(char *out, size_t size, const char *text, const char *from,
                         const char *to)
{
    const char *at = strstr(text, from);
    assert_non_null(at);
    int n = snprintf(out, size, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    assert_true(n > 0 && (size_t)n < size);
}

static void test_kernel_plan_hash(void **state)
{
    (void)state;
    uint64_t base = parse_expect_plan_hash(kernel_example);
    assert_int_equal(base, parse_expect_plan_hash(kernel_example));
    char text[1024];
    const struct { const char *from, *to; } edits[] = {
        {"lib/kernels.so", "lib/other.so"}, /* the module */
        {"5ms", "6ms"},                     /* sample_time */
        {"1000", "1001"},                   /* iterations */
        {"size={size}", "n={size}"},        /* arg */
        {"A: copy_naive", "A: copy_slow"},  /* a kernel given as a scalar */
        {"copy_fast", "copy_faster"},       /* a kernel given as a mapping */
    };
    for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
        replace_once(text, sizeof text, kernel_example, edits[i].from, edits[i].to);
        if (parse_expect_plan_hash(text) == base)
            fail_msg("edit %zu (%s) kept the plan hash", i, edits[i].to);
    }
    /* 5ms is 0.005 s however it is written. */
    replace_once(text, sizeof text, kernel_example, "5ms", "0.005");
    assert_int_equal(base, parse_expect_plan_hash(text));
    /* The two ways of naming a kernel are one plan. */
    assert_int_equal(parse_expect_plan_hash("target: kernel\nkernel: {module: /k.so}\n"
                                            "variants: {A: k}\n"),
                     parse_expect_plan_hash("target: kernel\nkernel: {module: /k.so}\n"
                                            "variants: {A: {kernel: k}}\n"));
    /* A kernel experiment is no command experiment that happens to look alike. */
    assert_int_not_equal(parse_expect_plan_hash("target: kernel\nkernel: {module: /k.so}\n"
                                                "variants: {A: k}\nmetrics: [ns_per_call]\n"),
                         parse_expect_plan_hash("variants: {A: k}\n"));
}

/* ---- experiments of the command line, written as files and read back ---- */

/* Both NULL, or the same text. */
static void assert_same_text(const char *a, const char *b, const char *what)
{
    if ((a == NULL) != (b == NULL) || (a && strcmp(a, b) != 0))
        fail_msg("%s: '%s' became '%s'", what, a ? a : "(none)", b ? b : "(none)");
}

static void assert_same_helper(const experiment_helper *a, const experiment_helper *b,
                               const char *what)
{
    assert_same_text(a->line, b->line, what);
    if (b->line)
        assert_true(b->shell); /* a file's helpers are shell lines: what a report needs */
}

static void assert_same_variants(const experiment *a, const experiment *b)
{
    assert_int_equal(a->n_variants, b->n_variants);
    for (size_t i = 0; i < a->n_variants; i++) {
        const experiment_variant *x = &a->variants[i], *y = &b->variants[i];
        assert_string_equal(x->name, y->name);
        assert_int_equal(x->n_command, y->n_command);
        for (size_t w = 0; w < x->n_command; w++)
            assert_string_equal(x->command[w], y->command[w]);
        if (x->command)
            assert_null(y->command[y->n_command]);
        assert_int_equal(x->shell, y->shell);
        assert_same_text(x->build, y->build, "build");
        assert_same_text(x->cwd, y->cwd, "cwd");
        assert_int_equal(x->n_env, y->n_env);
    }
}

static void assert_same_budget(const experiment *a, const experiment *b)
{
    assert_int_equal(a->has_seed, b->has_seed);
    assert_int_equal(a->seed, b->seed);
    assert_int_equal(a->adaptive, b->adaptive);
    assert_int_equal(a->repetitions, b->repetitions);
    assert_int_equal(a->min_blocks, b->min_blocks);
    assert_int_equal(a->max_blocks, b->max_blocks);
    assert_int_equal(a->n_looks, b->n_looks);
    for (size_t k = 0; k < a->n_looks; k++)
        assert_int_equal(a->looks[k], b->looks[k]);
    assert_int_equal(a->spending, b->spending);
    assert_true(a->max_seconds == b->max_seconds);
    assert_int_equal(a->warmup, b->warmup);
    assert_true(a->timeout == b->timeout);
    assert_true(a->confidence == b->confidence);
    assert_true(a->margin == b->margin);
    assert_int_equal(a->on_failure, b->on_failure);
    assert_int_equal(a->retries, b->retries);
    assert_int_equal(a->counters, b->counters);
}

/* Everything of a that its file says is b's too, the plan first; and b written again is the
 * same file, so that a report reading the stored text sees the experiment that ran. */
static void assert_same_experiment(const experiment *a, const experiment *b)
{
    assert_ptr_equal(a->target, b->target);
    assert_string_equal(a->name, b->name);
    assert_int_equal(experiment_plan_hash(a), experiment_plan_hash(b));
    assert_int_equal(a->n_parameters, b->n_parameters);
    for (size_t i = 0; i < a->n_parameters; i++) {
        assert_string_equal(a->parameters[i].name, b->parameters[i].name);
        assert_int_equal(a->parameters[i].n_values, b->parameters[i].n_values);
        for (size_t j = 0; j < a->parameters[i].n_values; j++)
            assert_string_equal(a->parameters[i].values[j], b->parameters[i].values[j]);
    }
    assert_same_variants(a, b);
    assert_same_budget(a, b);
    assert_int_equal(a->n_metrics, b->n_metrics);
    for (size_t m = 0; m < a->n_metrics; m++) {
        assert_string_equal(a->metrics[m].name, b->metrics[m].name);
        assert_same_text(a->metrics[m].regex, b->metrics[m].regex, "metric regex");
        assert_int_equal(a->metrics[m].higher_is_better, b->metrics[m].higher_is_better);
    }
    assert_same_helper(&a->setup, &b->setup, "setup");
    assert_same_helper(&a->teardown, &b->teardown, "teardown");
    assert_same_helper(&a->prepare, &b->prepare, "prepare");
    char *again = experiment_to_yaml(b);
    assert_non_null(again);
    assert_string_equal(again, a->text);
    free(again);
}

/* Builds the command line's experiment, reads its text back and compares the two. */
#define command_round_trip(spec, back) command_round_trip_at(__FILE__, __LINE__, spec, back)
static void command_round_trip_at(const char *file, int line, const command_line_spec *spec,
                                  experiment *back)
{
    experiment e;
    verdict_error err = {ERROR_NONE, ""};
    if (command_experiment(spec, &e, &err) != 0)
        fail_msg("command_experiment: %s", err.message);
    assert_non_null(e.text);
    assert_int_equal(e.text_length, strlen(e.text));
    verdict_error message = {0};
    if (targets_parse_experiment("stored", e.text, e.text_length, back, &message) != 0) {
        print_error("the written text does not read back: %s\n%s\n", message.message, e.text);
        experiment_free(&e);
        _fail(file, line);
    }
    assert_same_experiment(&e, back);
    experiment_free(&e);
}

/* Word w of variant v of e at point 0, substituted: the text the run gets. */
static void assert_runs_as(const experiment *e, size_t v, size_t w, const char *expected)
{
    verdict_error err = {0};
    char *word = experiment_substitute(e, 0, e->variants[v].command[w], &err);
    if (word == NULL)
        fail_msg("variant %zu word %zu: %s", v, w, err.message);
    assert_string_equal(word, expected);
    free(word);
}

/* adaptive: {looks, spending} (issue 27): read, written back the same, in the plan's hash;
 * wrong lists and names refused with the key at fault. */
static void test_adaptive_looks_and_spending(void **state)
{
    (void)state;
    experiment e;
    parse_expect_ok("variants: {A: a, B: b}\nadaptive: {looks: [10, 20, 30, 40, 50], spending: "
                    "obrien-fleming, max_time: 5m}\n", &e);
    assert_true(e.adaptive);
    assert_int_equal(e.n_looks, 5);
    assert_int_equal(e.looks[4], 50);
    assert_int_equal(e.min_blocks, 10);
    assert_int_equal(e.max_blocks, 50);
    assert_int_equal(e.spending, SPENDING_OBRIEN_FLEMING);
    stopping_rule rule = experiment_stopping_rule(&e);
    assert_int_equal(stopping_looks(&rule), 5);
    assert_true(stopping_is_look(&rule, 30));
    assert_false(stopping_is_look(&rule, 15)); /* the growth series' look, not these */
    char *written = experiment_to_yaml(&e);
    assert_non_null(written);
    assert_non_null(strstr(written, "adaptive: {looks: [10, 20, 30, 40, 50], spending: "
                                    "obrien-fleming, max_time: 300s}"));
    free(written);
    uint64_t with_looks = experiment_plan_hash(&e);
    experiment_free(&e);
    /* without looks, the growth series and the default spending, hash as before them */
    parse_expect_ok("variants: {A: a, B: b}\nadaptive: {min_blocks: 10, max_blocks: 50}\n", &e);
    assert_null(e.looks);
    assert_int_equal(e.spending, STOPPING_DEFAULT_SPENDING);
    assert_int_not_equal(with_looks, experiment_plan_hash(&e));
    experiment_free(&e);
    /* the command line's --looks and --spending, written and read back the same */
    const char *commands[] = {"true", "false"};
    command_line_spec spec = {.commands = commands, .n_commands = 2, .looks = "4,8,16",
                              .spending = "equal", .min_runs = 10, .max_runs = 100,
                              .confidence = 0.95, .margin = 0.01};
    experiment back;
    command_round_trip(&spec, &back);
    assert_int_equal(back.n_looks, 3);
    assert_int_equal(back.max_blocks, 16);
    assert_int_equal(back.spending, SPENDING_EQUAL);
    experiment_free(&back);
    verdict_error err = {0};
    spec.looks = "4,x";
    assert_int_equal(command_experiment(&spec, &e, &err), -1);
    assert_non_null(strstr(err.message, "--looks '4,x'"));
    experiment_free(&e);
    spec.looks = NULL;
    spec.spending = "linear";
    assert_int_equal(command_experiment(&spec, &e, &err), -1);
    assert_non_null(strstr(err.message, "--spending"));
    experiment_free(&e);
    parse_expect_fails("variants: {A: a, B: b}\nadaptive: {looks: [10, 30, 20]}\n",
                       "spin.yaml:2:28: 'looks' must increase: 20 follows 30");
    parse_expect_fails("variants: {A: a, B: b}\nadaptive: {looks: [10, 0]}\n",
                       "spin.yaml:2:24: 'looks' must be a positive integer, not '0'");
    parse_expect_fails("variants: {A: a, B: b}\nadaptive: {looks: 10}\n",
                       "spin.yaml:2:19: 'looks' must be a list of block counts, such as "
                       "[10, 20, 30]");
    parse_expect_fails("variants: {A: a, B: b}\nadaptive: {looks: [10, 20], max_blocks: 30}\n",
                       "spin.yaml:2:12: give either 'looks' or min_blocks and max_blocks, not "
                       "both: the looks' first and last block counts are the minimum and the "
                       "maximum");
    parse_expect_fails("variants: {A: a, B: b}\nadaptive: {spending: linear}\n",
                       "spin.yaml:2:22: 'spending' must be obrien-fleming, pocock or equal, "
                       "not 'linear'");
}

static void test_command_line_round_trip(void **state)
{
    (void)state;
    /* names (the command lines) with quotes, backslashes, '#', ':' and braces */
    const char *commands[] = {"/bin/echo 'say \"hi\"' back\\\\slash '#hash' key: {x}",
                              "awk '{print}' /dev/null", "awk '{print}' /dev/null"};
    const char *metrics[] = {"wall", "t=/took ([0-9.]+) s #1/", "maxrss"};
    command_line_spec spec = {
        .commands = commands, .n_commands = 3, .metrics = metrics, .n_metrics = 3,
        .prepare = "sync", .setup = "echo '{x}' >/dev/null # done", .cleanup = "rm -f 'a: b'",
        .runs = 0, .min_runs = 5, .max_runs = 50, .max_seconds = 12.5, .timeout = 1.5,
        .warmup = 2, .seed = 42, .has_seed = true, .confidence = 0.95, .margin = 0.01,
        .ignore_failure = true};
    experiment back;
    command_round_trip(&spec, &back);
    assert_string_equal(back.variants[0].name, commands[0]);
    assert_string_equal(back.variants[1].name, commands[1]);
    assert_string_equal(back.variants[2].name, "awk '{print}' /dev/null #2");
    assert_int_equal(back.variants[0].n_command, 6);
    assert_string_equal(back.variants[0].command[1], "say \"hi\"");
    assert_string_equal(back.variants[0].command[2], "back\\slash");
    assert_string_equal(back.variants[0].command[3], "#hash");
    assert_string_equal(back.variants[0].command[4], "key:");
    /* braces stay literal: doubled in the file, themselves when run */
    assert_string_equal(back.variants[0].command[5], "{{x}}");
    assert_runs_as(&back, 0, 5, "{x}");
    assert_string_equal(back.variants[1].command[1], "{{print}}");
    assert_runs_as(&back, 1, 1, "{print}");
    assert_false(back.variants[0].shell);
    assert_string_equal(back.metrics[1].name, "t");
    assert_string_equal(back.metrics[1].regex, "took ([0-9.]+) s #1");
    assert_true(back.adaptive);
    assert_int_equal(back.min_blocks, 5);
    assert_int_equal(back.max_blocks, 50);
    assert_true(back.max_seconds == 12.5);
    assert_true(back.timeout == 1.5);
    assert_true(back.confidence == 0.95);
    assert_true(back.margin == 0.01);
    assert_int_equal(back.on_failure, FAILURE_RECORD);
    assert_string_equal(back.setup.line, "echo '{{x}}' >/dev/null # done");
    verdict_error err = {0};
    char *setup = experiment_substitute_shell(&back, 0, back.setup.line, &err);
    assert_string_equal(setup, "echo '{x}' >/dev/null # done");
    free(setup);
    assert_string_equal(back.teardown.line, "rm -f 'a: b'");
    experiment_free(&back);

    /* names of the user's, fixed repetitions, no seed yet, metrics better when higher */
    const char *plain[] = {"/bin/true", "/bin/true x"};
    const char *names[] = {"say \"hi\" \\ # : {x}", "a: {b}"};
    const char *higher[] = {"ops=/([0-9]+) ops/", "wall"};
    command_line_spec fixed = {
        .commands = plain, .n_commands = 2, .names = names, .n_names = 2, .metrics = higher,
        .n_metrics = 2, .higher_is_better = true, .runs = 7, .warmup = 0,
        .confidence = 0.9, .margin = 0.02};
    command_round_trip(&fixed, &back);
    assert_string_equal(back.variants[0].name, names[0]);
    assert_string_equal(back.variants[1].name, names[1]);
    assert_false(back.adaptive);
    assert_int_equal(back.repetitions, 7);
    assert_false(back.has_seed);
    assert_true(back.metrics[0].higher_is_better);
    /* wall stays lower-is-better: --higher-is-better is for what an extraction reads */
    assert_false(back.metrics[1].higher_is_better);
    assert_int_equal(back.on_failure, FAILURE_ABORT);
    assert_null(back.setup.line);
    experiment_free(&back);
}

/* `verdict --shell`: each command is one shell line. */
static void test_command_line_round_trip_shell(void **state)
{
    (void)state;
    const char *commands[] = {"echo {x} | wc -c", "printf '%s\\n' a: b # c"};
    command_line_spec spec = {
        .commands = commands, .n_commands = 2, .shell = true, .setup = "echo {y} >&2",
        .runs = 3, .warmup = 1, .confidence = 0.95, .margin = 0.01};
    experiment back;
    command_round_trip(&spec, &back);
    assert_true(back.variants[0].shell);
    assert_int_equal(back.variants[0].n_command, 1);
    assert_string_equal(back.variants[0].command[0], "echo {{x}} | wc -c");
    verdict_error err = {0};
    char *line = experiment_substitute_shell(&back, 0, back.variants[0].command[0], &err);
    assert_string_equal(line, "echo {x} | wc -c");
    free(line);
    experiment_free(&back);
}

/* A command line of any length names its variant, and must read back like a short one. */
static void test_command_line_round_trip_long_name(void **state)
{
    (void)state;
    char long_line[512];
    snprintf(long_line, sizeof long_line, "/bin/echo %0200d", 7);
    const char *commands[] = {long_line, "/bin/true"};
    command_line_spec spec = {.commands = commands, .n_commands = 2, .runs = 3,
                              .confidence = 0.95, .margin = 0.01};
    experiment back;
    command_round_trip(&spec, &back);
    assert_string_equal(back.variants[0].name, long_line);
    experiment_free(&back);
}

/* A name ending in a backslash beside a word holding " ? ": the check for YAML complex
 * keys must see where the name's quoted scalar ends. */
static void test_command_line_round_trip_backslash_name(void **state)
{
    (void)state;
    const char *commands[] = {"/bin/echo 'a ? b' x\\\\", "/bin/true"};
    command_line_spec spec = {.commands = commands, .n_commands = 2, .runs = 3,
                              .confidence = 0.95, .margin = 0.01};
    experiment back;
    command_round_trip(&spec, &back);
    assert_string_equal(back.variants[0].name, commands[0]);
    assert_string_equal(back.variants[0].command[1], "a ? b");
    assert_string_equal(back.variants[0].command[2], "x\\");
    experiment_free(&back);
}

/* What the file format cannot hold (an empty name, bytes that are no UTF-8) is refused on
 * the command line or written so that it reads back: never stored unreadable. */
static void test_command_line_names_the_format_cannot_hold(void **state)
{
    (void)state;
    const char *commands[] = {"/bin/echo a", "/bin/true"};
    const char *empty[] = {"", "b"};
    const char *latin1[] = {"/bin/echo caf\xe9", "/bin/true"};
    const struct { const char *what; const char *const *commands, *const *names; } cases[] = {
        {"an empty --name", commands, empty},
        {"a command that is no UTF-8", latin1, NULL},
    };
    char failures[8192] = ""; /* every case is tried: each names its own fix */
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        command_line_spec spec = {.commands = cases[i].commands, .n_commands = 2,
                                  .names = cases[i].names, .n_names = cases[i].names ? 2 : 0,
                                  .runs = 3, .confidence = 0.95, .margin = 0.01};
        experiment e, back;
        verdict_error err = {ERROR_NONE, ""};
        verdict_error message = {0};
        if (command_experiment(&spec, &e, &err) != 0) {
            experiment_free(&e);
            if (err.kind != ERROR_USAGE)
                snprintf(failures + strlen(failures), sizeof failures - strlen(failures),
                         "\n  %s: refused as %s: %s", cases[i].what,
                         error_kind_name(err.kind), err.message);
            continue;
        }
        int rc = targets_parse_experiment("stored", e.text, e.text_length, &back, &message);
        bool same = rc == 0 && experiment_plan_hash(&e) == experiment_plan_hash(&back);
        if (rc == 0)
            experiment_free(&back);
        experiment_free(&e);
        if (!same)
            snprintf(failures + strlen(failures), sizeof failures - strlen(failures),
                     "\n  %s: accepted, but its stored text %s", cases[i].what,
                     rc ? message.message : "reads back as another plan");
    }
    if (failures[0])
        fail_msg("%s", failures);
}

/* A regex metric named like a builtin is refused on the command line, as in a file, rather
 * than stored as a text no report can read back. */
static void test_command_line_builtin_named_regex(void **state)
{
    (void)state;
    const char *commands[] = {"/bin/true", "/bin/true x"};
    const char *metrics[] = {"wall=/took ([0-9.]+)/"};
    command_line_spec spec = {.commands = commands, .n_commands = 2, .metrics = metrics,
                              .n_metrics = 1, .runs = 3, .confidence = 0.95, .margin = 0.01};
    experiment e, back;
    verdict_error err = {ERROR_NONE, ""};
    int rc = command_experiment(&spec, &e, &err);
    verdict_error message = {0};
    if (rc == 0 && targets_parse_experiment("stored", e.text, e.text_length, &back, &message) == 0)
        experiment_free(&back);
    experiment_free(&e);
    if (rc == 0)
        fail_msg("accepted, its stored text read back: %s", message.message);
    assert_int_equal(err.kind, ERROR_USAGE);
    assert_non_null(strstr(err.message, "wall"));
    assert_non_null(strstr(err.message, "builtin"));
}

/* Counters as metrics: their names and directions, and --counters valgrind, read back. */
static void test_command_line_round_trip_counters(void **state)
{
    (void)state;
    const char *commands[] = {"/bin/true", "/bin/true x"};
    const char *counted[] = {"instructions", "ipc", "page-faults:u", "cycles:lower"};
    command_line_spec spec = {.commands = commands, .n_commands = 2, .metrics = counted,
                              .n_metrics = 4, .runs = 3, .confidence = 0.95, .margin = 0.01};
    experiment back;
    command_round_trip(&spec, &back);
    assert_int_equal(back.counters, EXPERIMENT_COUNTERS_PERF);
    assert_string_equal(back.metrics[0].name, "instructions");
    assert_false(back.metrics[0].higher_is_better);
    assert_true(back.metrics[1].higher_is_better); /* more instructions per cycle */
    assert_string_equal(back.metrics[2].name, "page-faults:u");
    assert_string_equal(back.metrics[3].name, "cycles");
    experiment_free(&back);
    /* under valgrind: instructions unless told, and a ratio of cachegrind's counts */
    spec.counters = EXPERIMENT_COUNTERS_VALGRIND;
    spec.n_metrics = 0;
    command_round_trip(&spec, &back);
    assert_int_equal(back.counters, EXPERIMENT_COUNTERS_VALGRIND);
    assert_int_equal(back.n_metrics, 1);
    assert_string_equal(back.metrics[0].name, "instructions");
    experiment_free(&back);
    const char *simulated[] = {"cache-misses", "branch-miss-rate"};
    spec.metrics = simulated;
    spec.n_metrics = 2;
    command_round_trip(&spec, &back);
    assert_int_equal(back.n_metrics, 2);
    experiment_free(&back);
    /* what valgrind cannot count is refused on the command line already */
    const char *refused[][2] = {{"wall", "is not measured under --counters valgrind"},
                                {"instructions:k", "user space only"},
                                {"ipc", "'cycles' cannot be counted"},
                                {"task-clock", "cachegrind counts: instructions"}};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        experiment e;
        verdict_error err = {0};
        spec.metrics = &refused[i][0];
        spec.n_metrics = 1;
        assert_int_equal(command_experiment(&spec, &e, &err), -1);
        experiment_free(&e);
        assert_int_equal(err.kind, ERROR_USAGE);
        if (strstr(err.message, refused[i][1]) == NULL || strstr(err.message, refused[i][0]) == NULL)
            fail_msg("--metric %s: %s", refused[i][0], err.message);
    }
}

/* The counters key: read before the metrics, written back, part of the plan; refused where
 * the target counts nothing, and metrics it cannot count refused at their line. */
static void test_counters_key(void **state)
{
    (void)state;
    experiment e;
    parse_expect_ok("counters: valgrind\nvariants: {A: ./a}\n", &e);
    assert_int_equal(e.counters, EXPERIMENT_COUNTERS_VALGRIND);
    assert_string_equal(e.metrics[0].name, "instructions");
    experiment_free(&e);
    parse_expect_ok("variants: {A: ./a}\nmetrics: [instructions:u, ipc, task-clock]\n", &e);
    assert_int_equal(e.counters, EXPERIMENT_COUNTERS_PERF);
    assert_false(e.metrics[0].higher_is_better);
    assert_true(e.metrics[1].higher_is_better);
    experiment_free(&e);
    assert_int_not_equal(parse_expect_plan_hash("variants: {A: ./a}\nmetrics: [instructions]\n"),
                         parse_expect_plan_hash("counters: valgrind\nvariants: {A: ./a}\n"
                                                "metrics: [instructions]\n"));
    assert_int_equal(parse_expect_plan_hash("variants: {A: ./a}\n"),
                     parse_expect_plan_hash("counters: perf\nvariants: {A: ./a}\n"));
    parse_expect_fails("counters: valgrind\nvariants: {A: ./a}\nmetrics: [instructions, wall]\n",
                       "spin.yaml:3:25: metric 'wall' is not measured under --counters valgrind: "
                       "a run under cachegrind takes 20 to 100 times as long, and its time and "
                       "memory are valgrind's; measure time in another experiment");
    parse_expect_fails("counters: valgrind\nvariants: {A: ./a}\nmetrics: [cycles]\n",
                       "spin.yaml:3:11: metric 'cycles': 'cycles' cannot be counted under "
                       "--counters valgrind; cachegrind counts: instructions, cache-references, "
                       "cache-misses, L1-dcache-load-misses, branches, branch-misses");
    parse_expect_fails("counters: cachegrind\nvariants: {A: ./a}\n",
                       "spin.yaml:1:11: 'counters' must be perf or valgrind, not "
                       "'cachegrind'");
    parse_expect_fails("target: kernel\nkernel: {module: /k.so}\ncounters: valgrind\n"
                       "variants: {A: k}\n",
                       "spin.yaml:3:11: 'counters: valgrind' with 'target: kernel': a kernel "
                       "runs inside verdict's own process, which verdict does not put under "
                       "valgrind; its counters are perf's: task-clock and page-faults anywhere, "
                       "instructions where the machine has a PMU");
}

#define kernel_round_trip(spec, back) kernel_round_trip_at(__FILE__, __LINE__, spec, back)
static void kernel_round_trip_at(const char *file, int line, const kernel_line_spec *spec,
                                 experiment *back)
{
    experiment e;
    verdict_error err = {ERROR_NONE, ""};
    if (kernel_experiment(spec, &e, &err) != 0)
        fail_msg("kernel_experiment: %s", err.message);
    verdict_error message = {0};
    if (targets_parse_experiment("stored", e.text, e.text_length, back, &message) != 0) {
        print_error("the written text does not read back: %s\n%s\n", message.message, e.text);
        experiment_free(&e);
        _fail(file, line);
    }
    assert_same_experiment(&e, back);
    const kernel_options *a = e.target_options, *b = back->target_options;
    assert_string_equal(a->module, b->module);
    assert_true(a->sample_seconds == b->sample_seconds);
    assert_int_equal(a->iterations, b->iterations);
    assert_same_text(a->arg, b->arg, "arg");
    experiment_free(&e);
}

static void test_kernel_line_round_trip(void **state)
{
    (void)state;
    char dir[] = "/tmp/verdict-test-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char *real = realpath(dir, NULL);
    write_file(real, "k #1: {x}.so", "not really a module: only its path is read\n");
    char module[1024];
    snprintf(module, sizeof module, "%s/k #1: {x}.so", real);
    const char *kernels[] = {"copy", "copy", "odd \"k\" {x}: #1 \\"};
    kernel_line_spec spec = {
        .module = module, .kernels = kernels, .n_kernels = 3, .arg = "n={x}", .runs = 0,
        .min_runs = 3, .max_runs = 30, .sample_seconds = 0.002, .warmup = 1, .seed = 9,
        .has_seed = true, .confidence = 0.95, .margin = 0.01};
    experiment back;
    kernel_round_trip(&spec, &back);
    assert_string_equal(back.variants[0].name, "copy");
    assert_string_equal(back.variants[1].name, "copy #2");
    assert_string_equal(back.variants[2].name, kernels[2]);
    assert_true(written_variant_is(&back, "\"copy #2\": {kernel: \"copy\"}"));
    assert_true(written_variant_is(&back, "{kernel: \"odd \\\"k\\\" {x}: #1 \\\\\"}"));
    const kernel_options *o = back.target_options;
    assert_string_equal(o->module, module);
    assert_true(o->sample_seconds == 0.002);
    assert_int_equal(o->iterations, 0);
    /* the command line's arg is literal: its braces are no placeholder */
    verdict_error err = {0};
    char *arg = experiment_substitute(&back, 0, o->arg, &err);
    assert_string_equal(arg, "n={x}");
    free(arg);
    assert_true(back.confidence == 0.95);
    assert_int_equal(back.n_metrics, 2);
    experiment_free(&back);

    /* a sweep: one point per value, the value as the arg */
    kernel_line_spec sweep = {
        .module = module, .kernels = kernels, .n_kernels = 2, .sweep = "size=64,4096",
        .runs = 5, .sample_seconds = 0.01, .iterations = 1000, .confidence = 0.9,
        .margin = 0.02};
    kernel_round_trip(&sweep, &back);
    assert_int_equal(experiment_point_count(&back), 2);
    assert_string_equal(back.parameters[0].name, "size");
    arg = experiment_substitute(&back, 1, ((const kernel_options *)back.target_options)->arg,
                                &err);
    assert_string_equal(arg, "4096");
    free(arg);
    assert_int_equal(((const kernel_options *)back.target_options)->iterations, 1000);
    assert_false(back.adaptive);
    assert_int_equal(back.repetitions, 5);
    assert_false(back.has_seed);
    experiment_free(&back);
    snprintf(module, sizeof module, "rm -rf '%s'", real);
    assert_int_equal(system(module), 0);
    free(real);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_postgres_example_model),
        cmocka_unit_test(test_postgres_keys_and_defaults),
        cmocka_unit_test(test_postgres_workload_words),
        cmocka_unit_test(test_postgres_counters),
        cmocka_unit_test(test_postgres_errors),
        cmocka_unit_test(test_postgres_source_build),
        cmocka_unit_test(test_postgres_plan_hash),
        cmocka_unit_test(test_kernel_example_model),
        cmocka_unit_test(test_kernel_keys_and_defaults),
        cmocka_unit_test(test_kernel_load_resolves_module),
        cmocka_unit_test(test_kernel_errors),
        cmocka_unit_test(test_kernel_plan_hash),
        cmocka_unit_test(test_command_line_round_trip),
        cmocka_unit_test(test_command_line_round_trip_shell),
        cmocka_unit_test(test_command_line_round_trip_long_name),
        cmocka_unit_test(test_command_line_round_trip_backslash_name),
        cmocka_unit_test(test_command_line_names_the_format_cannot_hold),
        cmocka_unit_test(test_command_line_builtin_named_regex),
        cmocka_unit_test(test_command_line_round_trip_counters),
        cmocka_unit_test(test_counters_key),
        cmocka_unit_test(test_kernel_line_round_trip),
        cmocka_unit_test(test_adaptive_looks_and_spending),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

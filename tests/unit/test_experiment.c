/* Unit tests of the experiment loader's generic keys (command target): the documented example,
 * every error with its FILE:LINE:COLUMN, ranges, points, substitution, plan hashes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/experiment.h"
#include "core/experiment_writer.h"
#include "common/error.h"
#include "parse_expect.h"
#include "targets/command_target.h"
#include "targets/targets.h"

static const char spin_demo[] =
    "name: spin-demo\n"
    "seed: 7\n"
    "repetitions: 8\n"
    "parameters:\n"
    "  n: [2000000, 4000000]\n"
    "variants:\n"
    "  A: { command: [\"./spin\", \"{n}\"] }\n"
    "  B: { command: \"./spin {n}\", env: { X: \"1\" } }\n"
    "metrics: [wall]\n";

static void test_example_model(void **state)
{
    (void)state;
    experiment e;
    parse_expect_ok(spin_demo, &e);
    assert_string_equal(e.name, "spin-demo");
    assert_true(e.has_seed);
    assert_int_equal(e.seed, 7);
    assert_false(e.adaptive);
    assert_int_equal(e.repetitions, 8);
    assert_int_equal(e.n_parameters, 1);
    assert_string_equal(e.parameters[0].name, "n");
    assert_int_equal(e.parameters[0].n_values, 2);
    assert_string_equal(e.parameters[0].values[0], "2000000");
    assert_string_equal(e.parameters[0].values[1], "4000000");
    assert_int_equal(e.n_variants, 2);
    for (size_t i = 0; i < 2; i++) {
        assert_int_equal(e.variants[i].n_command, 2);
        assert_string_equal(e.variants[i].command[0], "./spin");
        assert_string_equal(e.variants[i].command[1], "{n}");
        assert_null(e.variants[i].command[2]);
        assert_false(e.variants[i].shell);
        assert_null(e.variants[i].cwd);
        assert_null(e.variants[i].build);
    }
    assert_string_equal(e.variants[0].name, "A");
    assert_int_equal(e.variants[0].line, 7);
    assert_int_equal(e.variants[0].n_env, 0);
    assert_string_equal(e.variants[1].name, "B");
    assert_int_equal(e.variants[1].n_env, 1);
    assert_string_equal(e.variants[1].env[0].name, "X");
    assert_string_equal(e.variants[1].env[0].value, "1");
    assert_int_equal(e.n_metrics, 1);
    assert_string_equal(e.metrics[0].name, "wall");
    assert_null(e.metrics[0].regex);
    assert_false(e.metrics[0].higher_is_better);
    assert_int_equal(e.text_length, strlen(spin_demo));
    assert_string_equal(e.text, spin_demo);
    assert_string_equal(e.path, "spin.yaml");
    experiment_free(&e);
}

static void test_defaults(void **state)
{
    (void)state;
    experiment e;
    parse_expect_ok("variants:\n  A: ./a\n", &e);
    assert_string_equal(e.name, "spin");
    assert_false(e.has_seed);
    assert_true(e.adaptive);
    assert_int_equal(e.repetitions, 0);
    assert_int_equal(e.min_blocks, 10);
    assert_int_equal(e.max_blocks, 100);
    assert_true(e.max_seconds == 0);
    assert_int_equal(e.warmup, 1);
    assert_true(e.confidence == 0.95);
    assert_true(e.margin == 0.01);
    assert_true(e.timeout == 0);
    assert_int_equal(e.on_failure, FAILURE_ABORT);
    assert_int_equal(e.n_metrics, 1);
    assert_string_equal(e.metrics[0].name, "wall");
    assert_int_equal(e.n_parameters, 0);
    assert_null(e.setup.line);
    assert_null(e.teardown.line);
    assert_null(e.prepare.line);
    /* without 'target', the command target, which has no keys of its own */
    assert_ptr_equal(e.target, &command_target);
    assert_null(e.target_options);
    assert_null(e.variants[0].options);
    assert_int_equal(experiment_point_count(&e), 1);
    char *id = experiment_point_id(&e, 0);
    assert_string_equal(id, "default");
    free(id);
    experiment_free(&e);
}

static void test_all_keys(void **state)
{
    (void)state;
    experiment e;
    parse_expect_ok("name: full\n"
             "adaptive: {min_blocks: 10, max_blocks: 60, max_time: 10m}\n"
             "confidence: \"99%\"\n"
             "margin: 0.02\n"
             "warmup: 0\n"
             "timeout: 500ms\n"
             "on_failure: {retry: 3}\n"
             "setup: make -C {n}\n"
             "teardown: rm -f out.{n}\n"
             "prepare: sync\n"
             "command: ./bench {n}\n"
             "env: {MODE: fast, LEVEL: \"{n}\"}\n"
             "parameters: {n: [1]}\n"
             "variants:\n"
             "  base:\n"
             "  tuned:\n"
             "    env: {MODE: slow}\n"
             "    build: make CFLAGS=-O{n}\n"
             "    cwd: build-{n}\n"
             "  sh: {command: \"echo {n} | wc -c\", shell: true}\n"
             "metrics:\n"
             "  - wall\n"
             "  - {name: tps, regex: \"tps = ([0-9.]+)\", better: higher}\n",
             &e);
    assert_true(e.adaptive);
    assert_int_equal(e.min_blocks, 10);
    assert_int_equal(e.max_blocks, 60);
    assert_true(e.max_seconds == 600);
    assert_true(e.confidence > 0.9899 && e.confidence < 0.9901);
    assert_true(e.margin == 0.02);
    assert_int_equal(e.warmup, 0);
    assert_true(e.timeout > 0.4999 && e.timeout < 0.5001);
    assert_int_equal(e.on_failure, FAILURE_RETRY);
    assert_int_equal(e.retries, 3);
    assert_string_equal(e.setup.line, "make -C {n}");
    assert_string_equal(e.teardown.line, "rm -f out.{n}");
    assert_string_equal(e.prepare.line, "sync");
    /* an experiment file's helpers are shell lines */
    assert_true(e.setup.shell);
    assert_true(e.teardown.shell);
    assert_true(e.prepare.shell);
    assert_int_equal(e.n_variants, 3);
    const experiment_variant *base = &e.variants[0], *tuned = &e.variants[1], *sh = &e.variants[2];
    assert_int_equal(base->n_command, 2);
    assert_string_equal(base->command[0], "./bench");
    assert_int_equal(base->n_env, 2);
    assert_string_equal(base->env[0].value, "fast");
    assert_string_equal(tuned->env[0].name, "MODE");
    assert_string_equal(tuned->env[0].value, "slow");  /* overrides the top level */
    assert_string_equal(tuned->env[1].value, "{n}");
    assert_string_equal(tuned->build, "make CFLAGS=-O{n}");
    assert_string_equal(tuned->cwd, "build-{n}");
    assert_true(sh->shell);
    assert_int_equal(sh->n_command, 1);
    assert_string_equal(sh->command[0], "echo {n} | wc -c");
    assert_int_equal(e.n_metrics, 2);
    assert_string_equal(e.metrics[1].name, "tps");
    assert_string_equal(e.metrics[1].regex, "tps = ([0-9.]+)");
    assert_true(e.metrics[1].higher_is_better);
    experiment_free(&e);
}

static void test_command_string_is_split_like_a_shell(void **state)
{
    (void)state;
    experiment e;
    parse_expect_ok("parameters: {q: ['a b']}\n"
             "variants:\n"
             "  A: {command: \"./prog --name 'two words' {q} x\\\\ y\"}\n", &e);
    const experiment_variant *v = &e.variants[0];
    assert_int_equal(v->n_command, 5);
    assert_string_equal(v->command[2], "two words");
    assert_string_equal(v->command[3], "{q}");
    assert_string_equal(v->command[4], "x y");
    /* Substituted after splitting: a value with a space stays one word. */
    verdict_error err = {0};
    char *word = experiment_substitute(&e, 0, v->command[3], &err);
    assert_string_equal(word, "a b");
    free(word);
    assert_int_equal(e.on_failure, FAILURE_ABORT);
    experiment_free(&e);
    parse_expect_ok("on_failure: record\ncommand: [./a]\nvariants: {A: , B: ~, C: {}}\n", &e);
    assert_int_equal(e.on_failure, FAILURE_RECORD);
    assert_int_equal(e.n_variants, 3);
    for (size_t i = 0; i < 3; i++)
        assert_string_equal(e.variants[i].command[0], "./a");
    experiment_free(&e);
}

static void test_ranges(void **state)
{
    (void)state;
    experiment e;
    parse_expect_ok("parameters:\n"
             "  a: {from: 1, to: 32, factor: 2}\n"
             "  b: {from: 0, to: 10, step: 4}\n"
             "  c: {from: -2, to: -2, step: 1}\n"
             "  d: 5\n"
             "  e: [0x10, 1e3, \"07\", 1.50]\n"
             "variants: {A: [./a]}\n", &e);
    const char *a[] = {"1", "2", "4", "8", "16", "32"};
    assert_int_equal(e.parameters[0].n_values, 6);
    for (size_t i = 0; i < 6; i++)
        assert_string_equal(e.parameters[0].values[i], a[i]);
    assert_int_equal(e.parameters[1].n_values, 3);
    assert_string_equal(e.parameters[1].values[2], "8");
    assert_int_equal(e.parameters[2].n_values, 1);
    assert_string_equal(e.parameters[2].values[0], "-2");
    assert_string_equal(e.parameters[3].values[0], "5");
    /* Lists keep the text as written. */
    assert_string_equal(e.parameters[4].values[0], "0x10");
    assert_string_equal(e.parameters[4].values[1], "1e3");
    assert_string_equal(e.parameters[4].values[2], "07");
    assert_string_equal(e.parameters[4].values[3], "1.50");
    experiment_free(&e);
    parse_expect_ok("parameters: {a: {from: 3, to: 30, factor: 3}}\nvariants: {A: ./a}\n", &e);
    assert_int_equal(e.parameters[0].n_values, 3); /* 3, 9, 27 */
    assert_string_equal(e.parameters[0].values[2], "27");
    experiment_free(&e);
}

static void test_points_order_and_ids(void **state)
{
    (void)state;
    experiment e;
    parse_expect_ok("parameters:\n  clients: [1, 4]\n  scale: [10, 20, 30]\n"
             "variants: {A: [./a, '{clients}', '{scale}']}\n", &e);
    assert_int_equal(experiment_point_count(&e), 6);
    const char *ids[] = {"clients=1,scale=10", "clients=1,scale=20", "clients=1,scale=30",
                         "clients=4,scale=10", "clients=4,scale=20", "clients=4,scale=30"};
    for (size_t p = 0; p < 6; p++) {
        size_t index[2];
        experiment_point_values(&e, p, index);
        assert_int_equal(index[0], p / 3);
        assert_int_equal(index[1], p % 3); /* the last parameter moves fastest */
        char *id = experiment_point_id(&e, p);
        assert_string_equal(id, ids[p]);
        free(id);
    }
    experiment_free(&e);
    /* Values with ',' or '=' would otherwise give p=1,q=2,q=3 for both of these points. */
    parse_expect_ok("parameters:\n  p: ['1,q=2', '1']\n  q: ['3', '2,q=3', 'a\\b']\n"
             "variants: {A: [./a, '{p}', '{q}']}\n", &e);
    char *crafted[] = {experiment_point_id(&e, 0), experiment_point_id(&e, 4),
                       experiment_point_id(&e, 5)};
    assert_string_equal(crafted[0], "p=1\\,q\\=2,q=3");
    assert_string_equal(crafted[1], "p=1,q=2\\,q\\=3");
    assert_string_equal(crafted[2], "p=1,q=a\\\\b");
    for (size_t i = 0; i < 3; i++)
        free(crafted[i]);
    experiment_free(&e);
}

static void test_substitution(void **state)
{
    (void)state;
    experiment e;
    verdict_error err = {0};
    parse_expect_ok("parameters: {n: [2000000, \"it's\"], m: [x]}\nvariants: {A: ./a}\n", &e);
    char *s = experiment_substitute(&e, 0, "--n={n} {m}{n} {{n}} }}{{", &err);
    assert_string_equal(s, "--n=2000000 x2000000 {n} }{");
    free(s);
    s = experiment_substitute(&e, 1, "{n}", &err);
    assert_string_equal(s, "it's");
    free(s);
    s = experiment_substitute_shell(&e, 1, "echo {n} {{x}}", &err);
    assert_string_equal(s, "echo 'it'\\''s' {x}");
    free(s);
    s = experiment_substitute(&e, 0, "", &err);
    assert_string_equal(s, "");
    free(s);
    assert_null(experiment_substitute(&e, 0, "./a {k}", &err));
    assert_string_equal(err.message, "unknown placeholder {k}");
    assert_null(experiment_substitute(&e, 0, "a {n", &err));
    assert_string_equal(err.message, "unmatched '{' (write {{ for a literal brace)");
    assert_null(experiment_substitute(&e, 0, "a } b", &err));
    assert_string_equal(err.message, "unmatched '}' (write }} for a literal brace)");
    assert_null(experiment_substitute(&e, 2, "{n}", &err));
    experiment_free(&e);
}

static void test_hashes(void **state)
{
    (void)state;
    uint64_t base = parse_expect_plan_hash(spin_demo);
    assert_int_equal(base, parse_expect_plan_hash(spin_demo));
    /* Neither the postgres target nor the target interface changed the plans of command
     * experiments: those stored before stay resumable. */
    assert_int_equal(base, 0xe157b6f20c0edf7aULL);
    /* Saying the default target is the same plan. */
    assert_int_equal(parse_expect_plan_hash("variants: {A: ./a}\n"),
                     parse_expect_plan_hash("target: command\nvariants: {A: ./a}\n"));
    /* Analysis-only settings keep the plan. */
    char text[1024];
    snprintf(text, sizeof text, "%smargin: 5%%\nconfidence: 0.9\ntimeout: 1h\n", spin_demo);
    assert_int_equal(base, parse_expect_plan_hash(text));
    /* A different command is a different plan. */
    snprintf(text, sizeof text, "%s", spin_demo);
    memcpy(strstr(text, "\"./spin\", \"{n}\""), "\"./spun\"", 8);
    assert_int_not_equal(base, parse_expect_plan_hash(text));
    snprintf(text, sizeof text, "%swarmup: 2\n", spin_demo);
    assert_int_not_equal(base, parse_expect_plan_hash(text));
    /* Words are hashed with their boundaries. */
    assert_int_not_equal(parse_expect_plan_hash("variants: {A: [ab, c]}\n"),
                         parse_expect_plan_hash("variants: {A: [a, bc]}\n"));

    experiment a, b;
    parse_expect_ok(spin_demo, &a);
    snprintf(text, sizeof text, "# a comment\n%s", spin_demo);
    parse_expect_ok(text, &b);
    assert_int_equal(experiment_plan_hash(&a), experiment_plan_hash(&b));
    assert_int_not_equal(experiment_text_hash(&a), experiment_text_hash(&b));
    experiment_free(&a);
    experiment_free(&b);
}

/* An adaptive plan keeps no alpha for --more unless its file says so (issue 27): saying 0 is
 * the same plan, keeping a share is another (every look's level moves). */
static void test_adaptive_reserve(void **state)
{
    (void)state;
    static const char *const plain = "adaptive: {min_blocks: 5, max_blocks: 10}\n"
                                     "variants: {A: ./a, B: ./b}\n";
    char text[256];
    experiment e;
    parse_expect_ok(plain, &e);
    assert_true(e.reserve_for_more == 0.0 && !experiment_reserve_given(&e));
    experiment_free(&e);
    snprintf(text, sizeof text, "%sreserve_for_more: 0\n", plain);
    assert_int_equal(parse_expect_plan_hash(plain), parse_expect_plan_hash(text));
    snprintf(text, sizeof text, "%sreserve_for_more: 20%%\n", plain);
    parse_expect_ok(text, &e);
    assert_true(fabs(e.reserve_for_more - 0.2) < 1e-12 && experiment_reserve_given(&e));
    stopping_rule rule = experiment_stopping_rule(&e);
    assert_true(fabs(rule.reserve - 0.2) < 1e-12);
    experiment_free(&e);
    assert_int_not_equal(parse_expect_plan_hash(plain), parse_expect_plan_hash(text));
}

/* `method:` and `quantile:` (issue 27): read, implied, written back, kept out of the plan,
 * and refused with the file and line where they are wrong. */
static void test_method_keys(void **state)
{
    (void)state;
    experiment e;
    parse_expect_ok("variants: {A: ./a, B: ./b}\n", &e);
    assert_int_equal(e.method, METHOD_WILCOXON);
    assert_true(e.quantile == 0);
    assert_false(e.method_given); /* counts will get the t test */
    uint64_t plan = experiment_plan_hash(&e);
    experiment_free(&e);
    parse_expect_ok("variants: {A: ./a, B: ./b}\nmethod: quantile\n", &e);
    assert_int_equal(e.method, METHOD_QUANTILE);
    assert_true(e.quantile == 0);
    assert_int_equal(experiment_plan_hash(&e), plan); /* how to analyse, not what to run */
    experiment_free(&e);
    parse_expect_ok("variants: {A: ./a, B: ./b}\nquantile: 20%\n", &e);
    assert_int_equal(e.method, METHOD_QUANTILE); /* quantile implies the method */
    assert_true(e.quantile == 0.2);
    experiment_free(&e);
    parse_expect_ok("variants: {A: ./a}\nmethod: welch\n", &e);
    assert_int_equal(e.method, METHOD_WELCH);
    experiment_free(&e);
    /* a method the file names is kept for counts too, the default one included */
    parse_expect_ok("variants: {A: ./a}\nmethod: wilcoxon\n", &e);
    assert_int_equal(e.method, METHOD_WILCOXON);
    assert_true(e.method_given);
    experiment_free(&e);
    parse_expect_fails("variants: {A: ./a}\nmethod: median\n",
                       "spin.yaml:2:9: 'method' must be wilcoxon, welch, bootstrap or quantile, "
                       "not 'median'");
    parse_expect_fails("variants: {A: ./a}\nquantile: 1.5\n",
                       "spin.yaml:2:11: 'quantile' must be a quantile strictly between 0 and 1, "
                       "such as 0.1 or \"10%\", not '1.5'");
    parse_expect_fails("variants: {A: ./a}\nquantile: 0\n",
                       "spin.yaml:2:11: 'quantile' must be a quantile strictly between 0 and 1, "
                       "such as 0.1 or \"10%\", not '0'");
    parse_expect_fails("variants: {A: ./a}\nmethod: welch\nquantile: 0.2\n",
                       "spin.yaml:3:1: 'quantile' is the quantile method's, and 'method: welch' "
                       "compares no quantile (use 'method: quantile' or leave 'method' out)");
    /* layout twins are compared one location per layout: not the quantile's */
    parse_expect_fails("layouts: 3\nvariants:\n  A: {source: ., command: ./a}\n"
                       "  B: {source: ., command: ./b}\nmethod: quantile\n",
                       "spin.yaml:5:1: 'method: quantile' does not compare across layout twins "
                       "(variant A has 3 layouts): use 'method: wilcoxon' or 'welch'");
}

/* `profile:` and `profile_event:` (issue 28): read, the event's default, part of the plan
 * (profiled runs between the timed ones), refused where they cannot work. */
static void test_profile_keys(void **state)
{
    (void)state;
    experiment e;
    parse_expect_ok("variants: {A: ./a, B: ./b}\n", &e);
    assert_false(e.profile);
    uint64_t plan = experiment_plan_hash(&e);
    experiment_free(&e);
    parse_expect_ok("variants: {A: ./a, B: ./b}\nprofile: false\n", &e);
    assert_int_equal(experiment_plan_hash(&e), plan); /* older plans keep their hash */
    experiment_free(&e);
    parse_expect_ok("variants: {A: ./a, B: ./b}\nprofile: true\n", &e);
    assert_true(e.profile);
    assert_string_equal(experiment_profile_event(&e), "cpu-clock");
    uint64_t profiled = experiment_plan_hash(&e);
    assert_int_not_equal(profiled, plan);
    char *written = experiment_to_yaml(&e);
    assert_non_null(strstr(written, "profile: true\nprofile_event: cpu-clock\n"));
    free(written);
    experiment_free(&e);
    parse_expect_ok("variants: {A: ./a, B: ./b}\nprofile: true\nprofile_event: cycles\n", &e);
    assert_string_equal(experiment_profile_event(&e), "cycles");
    assert_int_not_equal(experiment_plan_hash(&e), profiled);
    experiment_free(&e);
    parse_expect_fails("variants: {A: ./a}\nprofile_event: cycles\n",
                       "spin.yaml:2:1: 'profile_event' chooses what profiled runs sample: add "
                       "'profile: true'");
    parse_expect_fails("variants: {A: ./a}\nprofile: true\nprofile_event: 'a b'\n",
                       "spin.yaml:3:16: 'profile_event' is perf's name of an event, such as "
                       "cpu-clock or cycles");
    parse_expect_fails("variants: {A: ./a}\nprofile: true\nmachines: share\nrepetitions: 3\n",
                       "spin.yaml:2:1: 'profile: true' is not made with 'machines: share' yet: "
                       "profile on one machine (docs/profiles.md)");
}

static void test_errors_keys_and_types(void **state)
{
    (void)state;
    parse_expect_fails("name: x\nseed: 1\nrepetition: 8\nvariants: {A: ./a}\n",
                "spin.yaml:3:1: unknown key 'repetition' (did you mean 'repetitions'?)");
    parse_expect_fails("variants:\n  A:\n    commnd: ./a\n",
                "spin.yaml:3:5: unknown key 'commnd' in variant A (did you mean 'command'?)");
    /* The keys known to the file's target (command: the generic ones); another target's
     * keys are refused by name (test_target_keys.c). */
    parse_expect_fails("zzz: 1\nvariants: {A: ./a}\n",
                "spin.yaml:1:1: unknown key 'zzz' (known keys: name, seed, repetitions, "
                "adaptive, parameters, variants, command, shell, env, cwd, metrics, confidence, "
                "margin, reserve_for_more, warmup, timeout, on_failure, setup, teardown, "
                "prepare, target, layouts, machines, counters, profile, profile_event, method, quantile)");
    parse_expect_fails("variants: {A: ./a}\nadaptive:\n    min_blocks: ten\n",
                "spin.yaml:3:17: 'min_blocks' must be a positive integer, not 'ten'");
    parse_expect_fails("variants: {A: ./a}\nrepetitions: eight\n",
                "spin.yaml:2:14: 'repetitions' must be a positive integer, not 'eight'");
    parse_expect_fails("variants: {A: ./a}\nrepetitions: 0\n",
                "spin.yaml:2:14: 'repetitions' must be a positive integer, not '0'");
    parse_expect_fails("variants: {A: ./a}\nrepetitions: [1]\n",
                "spin.yaml:2:15: 'repetitions' must be a positive integer, not a list");
    parse_expect_fails("variants: {A: ./a}\ntimeout: soon\n",
                "spin.yaml:2:10: 'timeout' must be a positive duration such as 30s, 500ms, 5m "
                "or 1h, not 'soon'");
    parse_expect_fails("variants: {A: ./a}\nconfidence: 95\n",
                "spin.yaml:2:13: 'confidence' must be a level such as 0.95 or \"95%\", not '95'");
    parse_expect_fails("variants: {A: ./a}\nseed: -1\n",
                "spin.yaml:2:7: 'seed' must be a non-negative integer, not '-1'");
    parse_expect_fails("variants: {A: ./a}\nrepetitions: 3\nadaptive: {min_blocks: 2}\n",
                "spin.yaml:3:1: give either 'repetitions' or 'adaptive', not both");
    parse_expect_fails("variants: {A: ./a}\non_failure: retry\n",
                "spin.yaml:2:13: 'on_failure' must be abort, record or {retry: N}");
    parse_expect_fails("variants: {A: {command: ./a, shell: yes}}\n",
                "spin.yaml:1:37: 'shell' must be true or false, not 'yes'");
    parse_expect_fails("seed: 1\nseed: 2\nvariants: {A: ./a}\n",
                "spin.yaml:2:1: key 'seed' appears twice");
}

static void test_errors_variants_and_parameters(void **state)
{
    (void)state;
    parse_expect_fails("name: x\n", "spin.yaml:1:1: no variants: add 'variants:' with at least one "
                             "variant and its command");
    parse_expect_fails("variants: {}\n",
                "spin.yaml:1:1: 'variants' is empty: name at least one variant");
    parse_expect_fails("parameters: {n: [1]}\nvariants:\n  A: {env: {X: 1}}\n",
                "spin.yaml:3:3: variant A has no command (and there is no top-level 'command' "
                "to inherit)");
    parse_expect_fails("parameters:\n  n: [1, 2]\nvariants:\n  A: ./a\n  B: {command: [\"./spin\", "
                "\"{m}\"]}\n",
                "spin.yaml:5:27: unknown placeholder {m} in variant B's command; parameters "
                "are: n");
    parse_expect_fails("variants: {A: ./a}\nsetup: echo {x}\n",
                "spin.yaml:2:8: unknown placeholder {x} in 'setup'; parameters are: (none)");
    parse_expect_fails("parameters: {n: [1]}\nvariants: {A: {command: ./a, env: {X: \"{n\"}}}\n",
                "spin.yaml:2:39: unmatched '{' (write {{ for a literal brace) in variant A's "
                "env X; parameters are: n");
    parse_expect_fails("parameters:\n  n: []\nvariants: {A: ./a}\n",
                "spin.yaml:2:3: parameter n has no values");
    parse_expect_fails("parameters:\n  n: [1]\n  n: [2]\nvariants: {A: ./a}\n",
                "spin.yaml:3:3: duplicate parameter 'n'");
    parse_expect_fails("parameters:\n  n: [1, 2, 1]\nvariants: {A: ./a}\n",
                "spin.yaml:2:13: parameter n lists the value '1' twice");
    parse_expect_fails("variants:\n  A: ./a\n  A: ./b\n", "spin.yaml:3:3: duplicate variant 'A'");
    parse_expect_fails("parameters: {n: {from: 1, to: 8}}\nvariants: {A: ./a}\n",
                "spin.yaml:1:18: range for parameter n needs either 'step' or 'factor'");
    parse_expect_fails("parameters: {n-1: [1]}\nvariants: {A: ./a}\n",
                "spin.yaml:1:14: parameter name 'n-1' must be letters, digits and _ (not "
                "starting with a digit)");
    parse_expect_fails("variants: {A: {command: \"./a 'unterminated\"}}\n",
                "spin.yaml:1:25: 'command': unterminated quote in command: ./a 'unterminated");
    parse_expect_fails("variants: {A: {command: [./a, x], shell: true}}\n",
                "spin.yaml:1:26: with shell: true, 'command' must be one string (a shell line), "
                "not a list");
    parse_expect_fails_with("parameters: {n: {from: 1, to: 100000000, step: 1}}\nvariants: {A: ./a}\n",
                     "spin.yaml:1:18: parameter n has more than");
}

/* {tree} is a variant's built tree: refused where no variant owns the text or the variant
 * has no source, as a literal when its braces are doubled. */
static void test_tree_placeholder(void **state)
{
    (void)state;
    parse_expect_fails("variants: {A: {source: ., command: \"{tree}/a\"}}\nsetup: ls {tree}\n",
                       "spin.yaml:2:8: {tree} names a variant's built tree, so it belongs in a "
                       "variant's command, cwd or env in 'setup'; parameters are: (none)");
    parse_expect_fails("variants: {A: {source: ., build: \"make -C {tree}\", command: ./a}}\n",
                       "spin.yaml:1:12: variant A's build names {tree}, but the build runs "
                       "inside the tree: write . (or $PWD) instead");
    parse_expect_fails("variants: {A: {command: \"{tree}/a\"}}\n",
                       "spin.yaml:1:12: variant A names {tree}, the built tree of a 'source', "
                       "but has no 'source'");
    parse_expect_fails("command: \"{tree}/a\"\nvariants: {A: {source: .}, B: {}}\n",
                       "spin.yaml:2:28: variant B names {tree}, the built tree of a 'source', "
                       "but has no 'source'");
    experiment e;
    parse_expect_ok("variants: {A: {command: \"echo {{tree}}\"}}\n", &e);
    verdict_error err = {0};
    char *line = experiment_substitute_variant(&e, &e.variants[0], 0, 0, e.variants[0].command[1],
                                               &err);
    assert_non_null(line);
    assert_string_equal(line, "{tree}");
    free(line);
    experiment_free(&e);
}

/* layouts: the top level's for every built variant, a variant's own over it; units are the
 * variants' layouts variant-major; every variant twins or none. */
static void test_layouts(void **state)
{
    (void)state;
    experiment e;
    parse_expect_ok("seed: 3\nlayouts: 3\nvariants:\n  A: {source: ., command: \"{tree}/a\"}\n"
                    "  B: {source: ., command: \"{tree}/a\", layouts: 2}\n", &e);
    assert_int_equal(e.variants[0].n_layouts, 3);
    assert_int_equal(e.variants[1].n_layouts, 2);
    assert_int_equal(experiment_unit_count(&e), 5);
    size_t layout;
    assert_int_equal(experiment_unit_variant(&e, 0, &layout), 0);
    assert_int_equal(layout, 0);
    assert_int_equal(experiment_unit_variant(&e, 3, &layout), 1);
    assert_int_equal(layout, 0);
    assert_int_equal(experiment_unit_variant(&e, 4, &layout), 1);
    assert_int_equal(layout, 1);
    assert_int_equal(experiment_unit_index(&e, 1, 1), 4);
    uint64_t s0 = experiment_layout_seed(&e, 0), s1 = experiment_layout_seed(&e, 1);
    assert_true(s0 != s1 && s0 > 0 && s1 > 0 && s0 < (UINT64_C(1) << 63));
    assert_int_equal(s0, experiment_layout_seed(&e, 0));
    experiment_free(&e);
    uint64_t three = parse_expect_plan_hash("layouts: 3\nvariants:\n  A: {source: ., command: "
                                            "./a}\n  B: {source: ., command: ./b}\n");
    uint64_t four = parse_expect_plan_hash("layouts: 4\nvariants:\n  A: {source: ., command: "
                                           "./a}\n  B: {source: ., command: ./b}\n");
    assert_true(three != four);
    parse_expect_ok("layouts: 3\nvariants: {A: ./a, B: ./b}\n", &e); /* nothing is built */
    assert_int_equal(experiment_unit_count(&e), 2);
    experiment_free(&e);
    parse_expect_fails("variants:\n  A: {command: ./a, layouts: 2}\n",
                       "spin.yaml:2:21: variant A has 'layouts' but no 'source': layout twins "
                       "are links of a build verdict makes");
    parse_expect_fails("layouts: 2\nvariants:\n  A: ./a\n  B: {source: ., command: ./b}\n",
                       "spin.yaml:1:1: variant B has 2 layouts but A has one (it has no "
                       "'source' to link again): every variant needs layout twins (at least 2) "
                       "to compare across layouts");
    parse_expect_fails("variants:\n  A: {source: ., command: ./a, layouts: 65}\n",
                       "spin.yaml:2:41: layouts: 65 is more than 64; 6 to 10 layouts already "
                       "measure the layout spread");
}

static void test_errors_metrics_and_yaml(void **state)
{
    (void)state;
    parse_expect_fails("variants: {A: ./a}\nmetrics: [{name: tps, regex: \"tps = [0-9]+\", better: "
                "higher}]\n",
                "spin.yaml:2:30: metric regex 'tps = [0-9]+' has no capture group: put the "
                "number in ( )");
    parse_expect_fails_with("variants: {A: ./a}\nmetrics: [{name: tps, regex: \"(\", better: higher}]\n",
                     "spin.yaml:2:30: metric regex '(' does not compile: ");
    /* Found by the fuzzer: glibc's regcomp took over 2 GB for stacked '+'. */
    char text[4096];
    snprintf(text, sizeof text, "variants: {A: ./a}\nmetrics: [{name: tx, regex: \"n: "
             "([0-9]+)%s\", better: higher}]\n", "++++++++++++++++++++++++++++++++++++++++");
    parse_expect_fails(text, "spin.yaml:2:29: metric regex refused: repetition operators in a row ('+' "
                      "at character 13) are undefined in POSIX regular expressions");
    parse_expect_fails("variants: {A: ./a}\nmetrics: [{name: tx, regex: \"v?{2}([0-9]+)\", better: "
                "higher}]\n", "spin.yaml:2:29: metric regex refused: repetition operators in a "
                "row ('{2}' at character 3) are undefined in POSIX regular expressions");
    parse_expect_fails("variants: {A: ./a}\nmetrics: [{name: tx, regex: \"((((((((((((((((x+)+)+)+)+)+)"
                "+)+)+)+)+)+)+)+)+)\", better: higher}]\n",
                "spin.yaml:2:29: metric regex refused: its nested repetitions ('(…(x+)+…)+', "
                "'{m,n}' inside '{m,n}') would make the regex library copy it more than 20000 "
                "times");
    parse_expect_fails_with("variants: {A: ./a}\nmetrics: [{name: tx, regex: \"((([0-9]{1,60}){1,60})"
                     "{1,60})\", better: higher}]\n",
                     "spin.yaml:2:29: metric regex refused: its nested repetitions");
    parse_expect_fails_with("variants: {A: ./a}\nmetrics: [{name: tx, regex: \"((([0-9]{60,}){60,})"
                     "{60,})\", better: higher}]\n",
                     "spin.yaml:2:29: metric regex refused: its nested repetitions");
    snprintf(text, sizeof text, "variants: {A: ./a}\nmetrics: [{name: tx, regex: \"(x)%01100d\", "
             "better: higher}]\n", 0);
    parse_expect_fails_with(text, "spin.yaml:2:29: metric regex refused: it is 1103 characters long");
    /* Ordinary patterns, repetition inside brackets and escaped '+' are within budget. */
    experiment e;
    parse_expect_ok("variants: {A: ./a}\nmetrics: [{name: tx, regex: \"processed: ([0-9]+)/[0-9]*\","
             " better: higher}, {name: y, regex: \"[+*]{2}\\\\+\\\\+ ([0-9]{1,12}(\\\\.[0-9]+)?)\", "
             "better: lower}]\n", &e);
    assert_int_equal(e.n_metrics, 2);
    experiment_free(&e);
    parse_expect_fails("variants: {A: ./a}\nmetrics: [{name: tps, regex: \"(x)\"}]\n",
                "spin.yaml:2:12: metric 'tps' needs 'better: higher' or 'better: lower'");
    parse_expect_fails("variants: {A: ./a}\nmetrics: [walltime]\n",
                "spin.yaml:2:11: unknown metric 'walltime' (builtins: wall, user, sys, cpu, "
                "maxrss; counters: instructions, cycles, branches, branch-misses, cache-references, cache-misses, "
                "L1-dcache-load-misses, task-clock, page-faults, context-switches, cpu-migrations; "
                "ratios: ipc, branch-miss-rate; or give a 'regex' to extract it)");
    parse_expect_fails("variants: {A: ./a}\nmetrics: [wall, wall]\n",
                "spin.yaml:2:17: duplicate metric 'wall'");
    parse_expect_fails("a: 1\nb: [1, 2\n",
                "spin.yaml:3:1: invalid YAML: flow sequence without a closing bracket");
    /* Found by the fuzzer: a flow error whose token spans lines 80 or more columns wide
     * crashed libfyaml 0.7.12 while it drew the source line for its message. */
    char wide[1024];
    snprintf(wide, sizeof wide, "resqltrict-aliasing, patches: [/n%.47s%.27sh: \"-Q -c 4 -T 3 "
             "-hssssteap\"h\n%.56s%.88sYYYYYYtmp bench\"",
             "sssssssssssssssssssssssssssssssssssssssssssssssssssssssssss",
             "\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t",
             "ssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssssss",
             "\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t"
             "\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t");
    parse_expect_fails(wide, "spin.yaml:1:136: invalid YAML: missing comma in flow sequence");
    parse_expect_fails("", "spin.yaml:1:1: the file holds no YAML document");
    parse_expect_fails("name: \"caf\xc3\xa9\"\nseed: \xff\n",
                "spin.yaml:2:7: not UTF-8 text (a malformed byte sequence)");
    parse_expect_fails("%@=\xff", /* hangs libfyaml 0.7.12 if it ever reaches it */
                "spin.yaml:1:4: not UTF-8 text (a malformed byte sequence)");
    parse_expect_fails("- 1\n", "spin.yaml:1:3: an experiment file is a mapping of keys (name, "
                         "parameters, variants, metrics, ...)");
    parse_expect_fails("variants: {A: ./a}\n---\nname: x\n",
                "spin.yaml:3:1: only one YAML document is allowed per file");
    parse_expect_fails("name: &a x\nvariants: {A: *a}\n",
                "spin.yaml:2:12: aliases (*name) are not supported in experiment files");
}

static void test_load_resolves_directories(void **state)
{
    (void)state;
    char dir[] = "/tmp/verdict-test-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/exp.yaml", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("variants:\n  A: ./a\n  B: {command: ./b, cwd: sub}\n  C: {command: ./c, cwd: /abs}\n",
          f);
    fclose(f);
    experiment e;
    char expected[256];
    verdict_error err = {0};
    int rc = targets_load_experiment(path, &e, &err);
    if (rc != 0)
        fail_msg("%s", err.message);
    char *real = realpath(dir, NULL);
    assert_string_equal(e.directory, real);
    assert_string_equal(e.variants[0].cwd, real);
    snprintf(expected, sizeof expected, "%s/sub", real);
    assert_string_equal(e.variants[1].cwd, expected);
    assert_string_equal(e.variants[2].cwd, "/abs");
    assert_string_equal(e.name, "exp");
    experiment_free(&e);
    unlink(path);
    rc = targets_load_experiment(path, &e, &err);
    assert_int_equal(rc, -1);
    snprintf(expected, sizeof expected, "%s: cannot read: No such file or directory", path);
    assert_string_equal(err.message, expected);
    rmdir(dir);
    free(real);
}

static void test_complex_keys_refused(void **state)
{
    (void)state;
    parse_expect_fails_with("name: x\n? a\n: b\n", "spin.yaml:2:1: '?' (a YAML complex key)");
    parse_expect_fails_with("name: x\nvariants: {? a : b}\n", "spin.yaml:2:12: '?'");
    experiment e;
    verdict_error err = {0};
    const char *fine = "name: what?\n# is this ok? yes\nvariants:\n  A: \"./prog ? x\"\n";
    assert_int_equal(targets_parse_experiment("spin.yaml", fine, strlen(fine), &e, &err), 0);
    experiment_free(&e);
}


/* The check for complex keys follows double-quoted scalars through their escapes: an
 * escaped quote does not end one, and an escaped backslash before the quote does not keep
 * it open, which would put the next quoted word's " ? " outside quotes. */
static void test_complex_key_check_follows_escapes(void **state)
{
    (void)state;
    experiment e;
    parse_expect_ok("variants:\n  A: [\"./a\", \"x \\\" ? y\"]\n", &e);
    assert_string_equal(e.variants[0].command[1], "x \" ? y");
    experiment_free(&e);
    parse_expect_ok("variants:\n  A: [\"./a\\\\\", \"x ? y\"]\n", &e);
    assert_string_equal(e.variants[0].command[0], "./a\\");
    assert_string_equal(e.variants[0].command[1], "x ? y");
    experiment_free(&e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_example_model),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_all_keys),
        cmocka_unit_test(test_command_string_is_split_like_a_shell),
        cmocka_unit_test(test_ranges),
        cmocka_unit_test(test_points_order_and_ids),
        cmocka_unit_test(test_substitution),
        cmocka_unit_test(test_hashes),
        cmocka_unit_test(test_adaptive_reserve),
        cmocka_unit_test(test_method_keys),
        cmocka_unit_test(test_profile_keys),
        cmocka_unit_test(test_errors_keys_and_types),
        cmocka_unit_test(test_errors_variants_and_parameters),
        cmocka_unit_test(test_tree_placeholder),
        cmocka_unit_test(test_layouts),
        cmocka_unit_test(test_errors_metrics_and_yaml),
        cmocka_unit_test(test_load_resolves_directories),
        cmocka_unit_test(test_complex_keys_refused),
        cmocka_unit_test(test_complex_key_check_follows_escapes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

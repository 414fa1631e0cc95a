/* Unit tests of the experiment loader: the documented examples (command and postgres targets),
 * every error with its FILE:LINE:COLUMN, ranges, points, substitution, builds, plan hashes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/experiment.h"

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

static void parse_ok(const char *text, experiment *e)
{
    char err[512] = "";
    int rc = experiment_parse("spin.yaml", text, strlen(text), e, err, sizeof err);
    if (rc != 0)
        fail_msg("unexpected error: %s", err);
}

/* Parses text expecting failure with exactly this message. */
static void parse_fails(const char *text, const char *expected)
{
    experiment e;
    char err[512] = "";
    int rc = experiment_parse("spin.yaml", text, strlen(text), &e, err, sizeof err);
    if (rc != -1 || strcmp(err, expected) != 0)
        fail_msg("rc %d\n  got:      %s\n  expected: %s", rc, err, expected);
}

/* Parses text expecting failure whose message starts with prefix. */
static void parse_fails_with(const char *text, const char *prefix)
{
    experiment e;
    char err[512] = "";
    int rc = experiment_parse("spin.yaml", text, strlen(text), &e, err, sizeof err);
    if (rc != -1 || strncmp(err, prefix, strlen(prefix)) != 0)
        fail_msg("rc %d\n  got:      %s\n  expected: %s...", rc, err, prefix);
}

static void test_example_model(void **state)
{
    (void)state;
    experiment e;
    parse_ok(spin_demo, &e);
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
    parse_ok("variants:\n  A: ./a\n", &e);
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
    assert_null(e.setup);
    assert_null(e.prepare);
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
    parse_ok("name: full\n"
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
    assert_string_equal(e.setup, "make -C {n}");
    assert_string_equal(e.teardown, "rm -f out.{n}");
    assert_string_equal(e.prepare, "sync");
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
    parse_ok("parameters: {q: ['a b']}\n"
             "variants:\n"
             "  A: {command: \"./prog --name 'two words' {q} x\\\\ y\"}\n", &e);
    const experiment_variant *v = &e.variants[0];
    assert_int_equal(v->n_command, 5);
    assert_string_equal(v->command[2], "two words");
    assert_string_equal(v->command[3], "{q}");
    assert_string_equal(v->command[4], "x y");
    /* Substituted after splitting: a value with a space stays one word. */
    char err[128];
    char *word = experiment_substitute(&e, 0, v->command[3], err, sizeof err);
    assert_string_equal(word, "a b");
    free(word);
    assert_int_equal(e.on_failure, FAILURE_ABORT);
    experiment_free(&e);
    parse_ok("on_failure: record\ncommand: [./a]\nvariants: {A: , B: ~, C: {}}\n", &e);
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
    parse_ok("parameters:\n"
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
    parse_ok("parameters: {a: {from: 3, to: 30, factor: 3}}\nvariants: {A: ./a}\n", &e);
    assert_int_equal(e.parameters[0].n_values, 3); /* 3, 9, 27 */
    assert_string_equal(e.parameters[0].values[2], "27");
    experiment_free(&e);
}

static void test_points_order_and_ids(void **state)
{
    (void)state;
    experiment e;
    parse_ok("parameters:\n  clients: [1, 4]\n  scale: [10, 20, 30]\n"
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
    parse_ok("parameters:\n  p: ['1,q=2', '1']\n  q: ['3', '2,q=3', 'a\\b']\n"
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
    char err[256];
    parse_ok("parameters: {n: [2000000, \"it's\"], m: [x]}\nvariants: {A: ./a}\n", &e);
    char *s = experiment_substitute(&e, 0, "--n={n} {m}{n} {{n}} }}{{", err, sizeof err);
    assert_string_equal(s, "--n=2000000 x2000000 {n} }{");
    free(s);
    s = experiment_substitute(&e, 1, "{n}", err, sizeof err);
    assert_string_equal(s, "it's");
    free(s);
    s = experiment_substitute_shell(&e, 1, "echo {n} {{x}}", err, sizeof err);
    assert_string_equal(s, "echo 'it'\\''s' {x}");
    free(s);
    s = experiment_substitute(&e, 0, "", err, sizeof err);
    assert_string_equal(s, "");
    free(s);
    assert_null(experiment_substitute(&e, 0, "./a {k}", err, sizeof err));
    assert_string_equal(err, "unknown placeholder {k}");
    assert_null(experiment_substitute(&e, 0, "a {n", err, sizeof err));
    assert_string_equal(err, "unmatched '{' (write {{ for a literal brace)");
    assert_null(experiment_substitute(&e, 0, "a } b", err, sizeof err));
    assert_string_equal(err, "unmatched '}' (write }} for a literal brace)");
    assert_null(experiment_substitute(&e, 2, "{n}", err, sizeof err));
    experiment_free(&e);
}

static uint64_t plan_hash_of(const char *text)
{
    experiment e;
    parse_ok(text, &e);
    uint64_t h = experiment_plan_hash(&e);
    experiment_free(&e);
    return h;
}

static void test_hashes(void **state)
{
    (void)state;
    uint64_t base = plan_hash_of(spin_demo);
    assert_int_equal(base, plan_hash_of(spin_demo));
    /* The postgres target left the plans of command experiments as they were. */
    assert_int_equal(base, 0xe157b6f20c0edf7aULL);
    /* Analysis-only settings keep the plan. */
    char text[1024];
    snprintf(text, sizeof text, "%smargin: 5%%\nconfidence: 0.9\ntimeout: 1h\n", spin_demo);
    assert_int_equal(base, plan_hash_of(text));
    /* A different command is a different plan. */
    snprintf(text, sizeof text, "%s", spin_demo);
    memcpy(strstr(text, "\"./spin\", \"{n}\""), "\"./spun\"", 8);
    assert_int_not_equal(base, plan_hash_of(text));
    snprintf(text, sizeof text, "%swarmup: 2\n", spin_demo);
    assert_int_not_equal(base, plan_hash_of(text));
    /* Words are hashed with their boundaries. */
    assert_int_not_equal(plan_hash_of("variants: {A: [ab, c]}\n"),
                         plan_hash_of("variants: {A: [a, bc]}\n"));

    experiment a, b;
    parse_ok(spin_demo, &a);
    snprintf(text, sizeof text, "# a comment\n%s", spin_demo);
    parse_ok(text, &b);
    assert_int_equal(experiment_plan_hash(&a), experiment_plan_hash(&b));
    assert_int_not_equal(experiment_text_hash(&a), experiment_text_hash(&b));
    experiment_free(&a);
    experiment_free(&b);
}

static void test_errors_keys_and_types(void **state)
{
    (void)state;
    parse_fails("name: x\nseed: 1\nrepetition: 8\nvariants: {A: ./a}\n",
                "spin.yaml:3:1: unknown key 'repetition' (did you mean 'repetitions'?)");
    parse_fails("variants:\n  A:\n    commnd: ./a\n",
                "spin.yaml:3:5: unknown key 'commnd' in variant A (did you mean 'command'?)");
    parse_fails("zzz: 1\nvariants: {A: ./a}\n",
                "spin.yaml:1:1: unknown key 'zzz' (known keys: name, seed, repetitions, "
                "adaptive, parameters, variants, command, shell, env, cwd, metrics, confidence, "
                "margin, warmup, timeout, on_failure, setup, teardown, prepare, target, "
                "postgres, workload)");
    parse_fails("variants: {A: ./a}\nadaptive:\n    min_blocks: ten\n",
                "spin.yaml:3:17: 'min_blocks' must be a positive integer, not 'ten'");
    parse_fails("variants: {A: ./a}\nrepetitions: eight\n",
                "spin.yaml:2:14: 'repetitions' must be a positive integer, not 'eight'");
    parse_fails("variants: {A: ./a}\nrepetitions: 0\n",
                "spin.yaml:2:14: 'repetitions' must be a positive integer, not '0'");
    parse_fails("variants: {A: ./a}\nrepetitions: [1]\n",
                "spin.yaml:2:15: 'repetitions' must be a positive integer, not a list");
    parse_fails("variants: {A: ./a}\ntimeout: soon\n",
                "spin.yaml:2:10: 'timeout' must be a positive duration such as 30s, 500ms, 5m "
                "or 1h, not 'soon'");
    parse_fails("variants: {A: ./a}\nconfidence: 95\n",
                "spin.yaml:2:13: 'confidence' must be a level such as 0.95 or \"95%\", not '95'");
    parse_fails("variants: {A: ./a}\nseed: -1\n",
                "spin.yaml:2:7: 'seed' must be a non-negative integer, not '-1'");
    parse_fails("variants: {A: ./a}\nrepetitions: 3\nadaptive: {min_blocks: 2}\n",
                "spin.yaml:3:1: give either 'repetitions' or 'adaptive', not both");
    parse_fails("variants: {A: ./a}\non_failure: retry\n",
                "spin.yaml:2:13: 'on_failure' must be abort, record or {retry: N}");
    parse_fails("variants: {A: {command: ./a, shell: yes}}\n",
                "spin.yaml:1:37: 'shell' must be true or false, not 'yes'");
    parse_fails("seed: 1\nseed: 2\nvariants: {A: ./a}\n",
                "spin.yaml:2:1: key 'seed' appears twice");
}

static void test_errors_variants_and_parameters(void **state)
{
    (void)state;
    parse_fails("name: x\n", "spin.yaml:1:1: no variants: add 'variants:' with at least one "
                             "variant and its command");
    parse_fails("variants: {}\n",
                "spin.yaml:1:1: 'variants' is empty: name at least one variant");
    parse_fails("parameters: {n: [1]}\nvariants:\n  A: {env: {X: 1}}\n",
                "spin.yaml:3:3: variant A has no command (and there is no top-level 'command' "
                "to inherit)");
    parse_fails("parameters:\n  n: [1, 2]\nvariants:\n  A: ./a\n  B: {command: [\"./spin\", "
                "\"{m}\"]}\n",
                "spin.yaml:5:27: unknown placeholder {m} in variant B's command; parameters "
                "are: n");
    parse_fails("variants: {A: ./a}\nsetup: echo {x}\n",
                "spin.yaml:2:8: unknown placeholder {x} in 'setup'; parameters are: (none)");
    parse_fails("parameters: {n: [1]}\nvariants: {A: {command: ./a, env: {X: \"{n\"}}}\n",
                "spin.yaml:2:39: unmatched '{' (write {{ for a literal brace) in variant A's "
                "env X; parameters are: n");
    parse_fails("parameters:\n  n: []\nvariants: {A: ./a}\n",
                "spin.yaml:2:3: parameter n has no values");
    parse_fails("parameters:\n  n: [1]\n  n: [2]\nvariants: {A: ./a}\n",
                "spin.yaml:3:3: duplicate parameter 'n'");
    parse_fails("parameters:\n  n: [1, 2, 1]\nvariants: {A: ./a}\n",
                "spin.yaml:2:13: parameter n lists the value '1' twice");
    parse_fails("variants:\n  A: ./a\n  A: ./b\n", "spin.yaml:3:3: duplicate variant 'A'");
    parse_fails("parameters: {n: {from: 1, to: 8}}\nvariants: {A: ./a}\n",
                "spin.yaml:1:18: range for parameter n needs either 'step' or 'factor'");
    parse_fails("parameters: {n-1: [1]}\nvariants: {A: ./a}\n",
                "spin.yaml:1:14: parameter name 'n-1' must be letters, digits and _ (not "
                "starting with a digit)");
    parse_fails("variants: {A: {command: \"./a 'unterminated\"}}\n",
                "spin.yaml:1:25: 'command': unterminated quote in command: ./a 'unterminated");
    parse_fails("variants: {A: {command: [./a, x], shell: true}}\n",
                "spin.yaml:1:26: with shell: true, 'command' must be one string (a shell line), "
                "not a list");
    parse_fails_with("parameters: {n: {from: 1, to: 100000000, step: 1}}\nvariants: {A: ./a}\n",
                     "spin.yaml:1:18: parameter n has more than");
}

static void test_errors_metrics_and_yaml(void **state)
{
    (void)state;
    parse_fails("variants: {A: ./a}\nmetrics: [{name: tps, regex: \"tps = [0-9]+\", better: "
                "higher}]\n",
                "spin.yaml:2:30: metric regex 'tps = [0-9]+' has no capture group: put the "
                "number in ( )");
    parse_fails_with("variants: {A: ./a}\nmetrics: [{name: tps, regex: \"(\", better: higher}]\n",
                     "spin.yaml:2:30: metric regex '(' does not compile: ");
    /* Found by the fuzzer: glibc's regcomp took over 2 GB for stacked '+'. */
    char text[4096];
    snprintf(text, sizeof text, "variants: {A: ./a}\nmetrics: [{name: tx, regex: \"n: "
             "([0-9]+)%s\", better: higher}]\n", "++++++++++++++++++++++++++++++++++++++++");
    parse_fails(text, "spin.yaml:2:29: metric regex refused: repetition operators in a row ('+' "
                      "at character 13) are undefined in POSIX regular expressions");
    parse_fails("variants: {A: ./a}\nmetrics: [{name: tx, regex: \"v?{2}([0-9]+)\", better: "
                "higher}]\n", "spin.yaml:2:29: metric regex refused: repetition operators in a "
                "row ('{2}' at character 3) are undefined in POSIX regular expressions");
    parse_fails("variants: {A: ./a}\nmetrics: [{name: tx, regex: \"((((((((((((((((x+)+)+)+)+)+)"
                "+)+)+)+)+)+)+)+)+)\", better: higher}]\n",
                "spin.yaml:2:29: metric regex refused: its nested repetitions ('(…(x+)+…)+', "
                "'{m,n}' inside '{m,n}') would make the regex library copy it more than 20000 "
                "times");
    parse_fails_with("variants: {A: ./a}\nmetrics: [{name: tx, regex: \"((([0-9]{1,60}){1,60})"
                     "{1,60})\", better: higher}]\n",
                     "spin.yaml:2:29: metric regex refused: its nested repetitions");
    parse_fails_with("variants: {A: ./a}\nmetrics: [{name: tx, regex: \"((([0-9]{60,}){60,})"
                     "{60,})\", better: higher}]\n",
                     "spin.yaml:2:29: metric regex refused: its nested repetitions");
    snprintf(text, sizeof text, "variants: {A: ./a}\nmetrics: [{name: tx, regex: \"(x)%01100d\", "
             "better: higher}]\n", 0);
    parse_fails_with(text, "spin.yaml:2:29: metric regex refused: it is 1103 characters long");
    /* Ordinary patterns, repetition inside brackets and escaped '+' are within budget. */
    experiment e;
    parse_ok("variants: {A: ./a}\nmetrics: [{name: tx, regex: \"processed: ([0-9]+)/[0-9]*\","
             " better: higher}, {name: y, regex: \"[+*]{2}\\\\+\\\\+ ([0-9]{1,12}(\\\\.[0-9]+)?)\", "
             "better: lower}]\n", &e);
    assert_int_equal(e.n_metrics, 2);
    experiment_free(&e);
    parse_fails("variants: {A: ./a}\nmetrics: [{name: tps, regex: \"(x)\"}]\n",
                "spin.yaml:2:12: metric 'tps' needs 'better: higher' or 'better: lower'");
    parse_fails("variants: {A: ./a}\nmetrics: [walltime]\n",
                "spin.yaml:2:11: unknown metric 'walltime' (builtins: wall, user, sys, cpu, "
                "maxrss; or give a 'regex' to extract it)");
    parse_fails("variants: {A: ./a}\nmetrics: [wall, wall]\n",
                "spin.yaml:2:17: duplicate metric 'wall'");
    parse_fails("a: 1\nb: [1, 2\n",
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
    parse_fails(wide, "spin.yaml:1:136: invalid YAML: missing comma in flow sequence");
    parse_fails("", "spin.yaml:1:1: the file holds no YAML document");
    parse_fails("name: \"caf\xc3\xa9\"\nseed: \xff\n",
                "spin.yaml:2:7: not UTF-8 text (a malformed byte sequence)");
    parse_fails("%@=\xff", /* hangs libfyaml 0.7.12 if it ever reaches it */
                "spin.yaml:1:4: not UTF-8 text (a malformed byte sequence)");
    parse_fails("- 1\n", "spin.yaml:1:3: an experiment file is a mapping of keys (name, "
                         "parameters, variants, metrics, ...)");
    parse_fails("variants: {A: ./a}\n---\nname: x\n",
                "spin.yaml:3:1: only one YAML document is allowed per file");
    parse_fails("name: &a x\nvariants: {A: *a}\n",
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
    char err[512], expected[256];
    int rc = experiment_load(path, &e, err, sizeof err);
    if (rc != 0)
        fail_msg("%s", err);
    char *real = realpath(dir, NULL);
    assert_string_equal(e.directory, real);
    assert_string_equal(e.variants[0].cwd, real);
    snprintf(expected, sizeof expected, "%s/sub", real);
    assert_string_equal(e.variants[1].cwd, expected);
    assert_string_equal(e.variants[2].cwd, "/abs");
    assert_string_equal(e.name, "exp");
    experiment_free(&e);
    unlink(path);
    rc = experiment_load(path, &e, err, sizeof err);
    assert_int_equal(rc, -1);
    snprintf(expected, sizeof expected, "%s: cannot read: No such file or directory", path);
    assert_string_equal(err, expected);
    rmdir(dir);
    free(real);
}

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
    parse_ok(pg_example, &e);
    assert_int_equal(e.target, TARGET_POSTGRES);
    assert_int_equal(e.postgres.scale, 10);
    assert_int_equal(e.postgres.n_settings, 2);
    assert_string_equal(e.postgres.settings[0].name, "shared_buffers");
    assert_string_equal(e.postgres.settings[0].value, "256MB");
    assert_string_equal(e.postgres.settings[1].name, "fsync");
    assert_string_equal(e.postgres.settings[1].value, "off");
    assert_int_equal(e.postgres.fresh, PG_FRESH_RUN);
    assert_int_equal(e.postgres.pin, PG_PIN_NONE);
    assert_null(e.postgres.run_as);
    assert_string_equal(e.postgres.cache_dir, "/var/tmp/verdict-pg");
    const char *words[] = {"-S", "-M", "prepared", "-c", "{clients}", "-j", "{clients}", "-T",
                           "3"};
    assert_int_equal(e.n_workload, 9);
    for (size_t i = 0; i < 9; i++)
        assert_string_equal(e.workload[i], words[i]);
    assert_null(e.workload[9]);
    assert_int_equal(e.n_variants, 2);
    for (size_t i = 0; i < 2; i++) {
        const experiment_variant *v = &e.variants[i];
        assert_string_equal(v->bindir, "/usr/lib/postgresql/15/bin");
        assert_null(v->command);
        assert_int_equal(v->n_command, 0);
        assert_null(v->source);
        assert_null(v->build);
        assert_null(v->conninfo);
    }
    assert_int_equal(e.variants[0].n_pg_settings, 0);
    assert_int_equal(e.variants[1].n_pg_settings, 1);
    assert_string_equal(e.variants[1].pg_settings[0].name, "shared_buffers");
    assert_string_equal(e.variants[1].pg_settings[0].value, "128kB");
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
    parse_ok("variants:\n"
             "  A: {bindir: pg/bin, env: {PGOPTIONS: \"-c jit=off\"}}\n"
             "  B: {conninfo: \"host=/tmp port=5433\"}\n"
             "workload: {pgbench: \"-c 4 -f 'my script.sql@3' --time=5\"}\n"
             "metrics: [tps, latency_avg, p99, wall, {name: x, regex: \"x=([0-9]+)\", "
             "better: lower}]\n"
             "postgres: {scale: 50, fresh: point, pin: split, warm_runs: 2, run_as: bench, "
             "cache_dir: c}\n"
             "target: postgres\n", &e);
    char cwd[4096], expected[4200];
    assert_non_null(getcwd(cwd, sizeof cwd));
    snprintf(expected, sizeof expected, "%s/c", cwd);
    assert_string_equal(e.postgres.cache_dir, expected);
    snprintf(expected, sizeof expected, "%s/pg/bin", cwd);
    assert_string_equal(e.variants[0].bindir, expected);
    assert_string_equal(e.variants[0].env[0].value, "-c jit=off");
    assert_string_equal(e.variants[1].conninfo, "host=/tmp port=5433");
    assert_null(e.variants[1].bindir);
    assert_int_equal(e.postgres.scale, 50);
    assert_int_equal(e.postgres.fresh, PG_FRESH_POINT);
    assert_int_equal(e.postgres.pin, PG_PIN_SPLIT);
    assert_int_equal(e.postgres.warm_runs, 2);
    assert_string_equal(e.postgres.run_as, "bench");
    assert_int_equal(e.n_workload, 5);
    assert_string_equal(e.workload[3], "my script.sql@3");
    assert_string_equal(e.workload[4], "--time=5");
    const bool higher[] = {true, false, false, false, false};
    assert_int_equal(e.n_metrics, 5);
    for (size_t i = 0; i < 5; i++)
        assert_int_equal(e.metrics[i].higher_is_better, higher[i]);
    experiment_free(&e);
    /* defaults: scale 10, metrics [tps]; the target command is the default */
    parse_ok("target: postgres\nvariants: {A: {bindir: /b}}\nworkload: {pgbench: [-S]}\n", &e);
    assert_int_equal(e.postgres.scale, 10);
    assert_int_equal(e.n_metrics, 1);
    assert_string_equal(e.metrics[0].name, "tps");
    assert_true(e.metrics[0].higher_is_better);
    experiment_free(&e);
    parse_ok("variants: {A: ./a}\n", &e);
    assert_int_equal(e.target, TARGET_COMMAND);
    assert_null(e.workload);
    assert_null(e.postgres.cache_dir);
    experiment_free(&e);
}

static void workload_ok(const char *params, const char *words)
{
    char text[512];
    experiment e;
    snprintf(text, sizeof text, "target: postgres\nparameters: {%s}\nvariants: {A: {bindir: "
             "/b}}\nworkload: {pgbench: %s}\n", params, words);
    parse_ok(text, &e);
    experiment_free(&e);
}

static void workload_fails(const char *params, const char *words, const char *expected)
{
    char text[512];
    snprintf(text, sizeof text, "target: postgres\nparameters: {%s}\nvariants: {A: {bindir: "
             "/b}}\nworkload: {pgbench: %s}\n", params, words);
    parse_fails(text, expected);
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

static void test_postgres_errors(void **state)
{
    (void)state;
    const char *tail = "variants: {A: {bindir: /b}}\nworkload: {pgbench: [-S]}\n";
    char text[512];
    parse_fails("postgres:\n  scale: 5\nvariants: {A: ./a}\n",
                "spin.yaml:1:1: 'postgres' is only allowed with 'target: postgres'");
    parse_fails("target: command\nvariants: {A: ./a}\nworkload: {pgbench: [-S]}\n",
                "spin.yaml:3:1: 'workload' is only allowed with 'target: postgres' (with target "
                "command, each variant's command is what runs)");
    parse_fails("variants: {A: {command: ./a, bindir: /b}}\n",
                "spin.yaml:1:30: 'bindir' is only allowed with 'target: postgres'");
    parse_fails("variants: {A: ./a}\nmetrics: [tps]\n",
                "spin.yaml:2:11: unknown metric 'tps' (builtins: wall, user, sys, cpu, maxrss; "
                "or give a 'regex' to extract it)");
    parse_fails("target: kubernetes\nvariants: {A: ./a}\n",
                "spin.yaml:1:9: 'target' must be command or postgres, not 'kubernetes'");
    parse_fails("target: postgres\nvariants: {A: {bindir: /b}}\n",
                "spin.yaml:1:1: 'target: postgres' needs 'workload: {pgbench: [arguments]}': "
                "what pgbench runs against each variant's server");
    parse_fails("target: postgres\nworkload: {pgbench: [-S, -h, /tmp]}\nvariants: {A: {bindir: "
                "/b}}\n",
                "spin.yaml:2:26: pgbench word 2 '-h': connection options (-h, -p, -U, --host, "
                "--port, --username) are not allowed in the workload: verdict connects pgbench "
                "to each variant's server");
    snprintf(text, sizeof text, "target: postgres\nvariants:\n  A: {bindir: /b, conninfo: "
             "\"port=5\"}\nworkload: {pgbench: [-S]}\n");
    parse_fails(text, "spin.yaml:3:3: variant A has more than one of bindir, source and "
                      "conninfo: give exactly one (an installed PostgreSQL, a source tree "
                      "verdict builds, or a running server)");
    parse_fails("target: postgres\nvariants:\n  A:\nworkload: {pgbench: [-S]}\n",
                "spin.yaml:3:3: variant A has none of bindir, source and conninfo: give exactly "
                "one (an installed PostgreSQL, a source tree verdict builds, or a running "
                "server)");
    parse_fails("target: postgres\nvariants:\n  A: {bindir: /b, command: ./a}\nworkload: "
                "{pgbench: [-S]}\n",
                "spin.yaml:3:19: 'command' is not used with 'target: postgres': the workload "
                "(pgbench) is the command");
    parse_fails("target: postgres\ncommand: ./a\nvariants: {A: {bindir: /b}}\nworkload: "
                "{pgbench: [-S]}\n",
                "spin.yaml:2:1: 'command' is not used with 'target: postgres': the workload "
                "(pgbench) is the command");
    parse_fails("target: postgres\nvariants: {A: pg_ctl start}\nworkload: {pgbench: [-S]}\n",
                "spin.yaml:2:15: with 'target: postgres' variant A is a mapping (bindir, source "
                "or conninfo, settings, env), not a command");
    snprintf(text, sizeof text, "target: postgres\npostgres: {pin: both}\n%s", tail);
    parse_fails(text, "spin.yaml:2:17: 'pin' must be none, same or split, not 'both'");
    snprintf(text, sizeof text, "target: postgres\npostgres: {fresh: always}\n%s", tail);
    parse_fails(text, "spin.yaml:2:19: 'fresh' must be run or point, not 'always'");
    snprintf(text, sizeof text, "target: postgres\npostgres: {scale: 0}\n%s", tail);
    parse_fails(text, "spin.yaml:2:19: 'scale' must be a positive integer, not '0'");
    snprintf(text, sizeof text, "target: postgres\npostgres: {warm_runs: -1}\n%s", tail);
    parse_fails(text, "spin.yaml:2:23: 'warm_runs' must be a non-negative integer, not '-1'");
    snprintf(text, sizeof text, "target: postgres\npostgres: {warm_runs: 101}\n%s", tail);
    parse_fails(text, "spin.yaml:2:23: 'warm_runs' must be at most 100");
    snprintf(text, sizeof text, "target: postgres\npostgres: {settings: {port: 5433}}\n%s", tail);
    parse_fails(text, "spin.yaml:2:23: setting 'port' is verdict's to set (each server gets a "
                      "private socket and no TCP)");
    snprintf(text, sizeof text, "target: postgres\npostgres: {settings: {work_mem: }}\n%s", tail);
    parse_fails(text, "spin.yaml:2:23: setting work_mem needs a plain value (quote it: "
                      "work_mem: \"...\")");
    snprintf(text, sizeof text, "target: postgres\npostgres: {settings: {a: 1, A: 2}}\n%s", tail);
    parse_fails(text, "spin.yaml:2:29: setting A is given twice");
    snprintf(text, sizeof text, "target: postgres\npostgres: {sclae: 1}\n%s", tail);
    parse_fails(text, "spin.yaml:2:12: unknown key 'sclae' in 'postgres' (did you mean "
                      "'scale'?)");
    parse_fails("target: postgres\nvariants:\n  A: {bindir: /b, cflags: -O3}\nworkload: "
                "{pgbench: [-S]}\n",
                "spin.yaml:3:19: 'cflags' of variant A needs 'source': it describes a build "
                "from source");
    parse_fails("target: postgres\nvariants:\n  A: {conninfo: port=5, settings: {a: b}}\n"
                "workload: {pgbench: [-S]}\n",
                "spin.yaml:3:3: variant A connects to a server verdict does not start "
                "(conninfo): its 'settings' cannot be applied");
    parse_fails("target: postgres\nvariants:\n  A: {source: /nonexistent/pg}\n"
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
    char path[512], err[1024];
    snprintf(path, sizeof path, "%s/exp.yaml", dir);
    if (experiment_load(path, e, err, sizeof err) != 0)
        fail_msg("unexpected error: %s", err);
}

static const char source_experiment[] =
    "target: postgres\n"
    "postgres: {cache_dir: cache}\n"
    "variants:\n"
    "  A: {bindir: /usr/lib/postgresql/15/bin}\n"
    "  B:\n"
    "    source: \"pg {1}'s\"\n"
    "    configure: --enable-debug --with-extra-version='-x y'\n"
    "    cflags: -O3 -fstrict-aliasing\n"
    "    patches: [one.patch]\n"
    "workload: {pgbench: [-S]}\n";

/* The build line verdict should write for source_experiment in dir with this key. */
static char *expected_build(const char *dir, const char *key)
{
    char d[512], *out = NULL;
    snprintf(d, sizeof d, "%s/cache/builds/%s", dir, key);
    assert_true(asprintf(&out,
             "[ -e '%s/installed' ] || ( rm -rf '%s/src' '%s/install' && mkdir -p '%s/src' && "
             "cp -a '%s/pg {1}'\\''s/.' '%s/src' && cd '%s/src' && for p in '%s/one.patch'; do "
             "patch -p1 < \"$p\" || exit 1; done && if command -v ccache >/dev/null; then set "
             "-- CC='ccache gcc'; else set --; fi && ./configure --prefix='%s/install' \"$@\" "
             "'--enable-debug' '--with-extra-version=-x y' CFLAGS='-O3 -fstrict-aliasing' && "
             "make -j\"$(nproc)\" && make install && touch '%s/installed' )",
             d, d, d, d, dir, d, d, dir, d, d) > 0);
    return out;
}

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

/* Runs B's build line through /bin/sh, as verdict run does, and checks the install. */
static void run_build(const experiment *e, const char *dir)
{
    char err[256], path[1024], line[1024];
    char *build = experiment_substitute_shell(e, 0, e->variants[1].build, err, sizeof err);
    assert_non_null(build);
    char *command = malloc(strlen(build) + 64);
    sprintf(command, "( %s ) >/dev/null 2>&1", build);
    assert_int_equal(system(command), 0);
    free(command);
    free(build);
    snprintf(path, sizeof path, "%s/../file.c", e->variants[1].bindir);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    assert_non_null(fgets(line, sizeof line, f));
    fclose(f);
    assert_string_equal(line, "int x = 2;\n"); /* patched */
    (void)dir;
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
    const experiment_variant *b = &e.variants[1];
    char expected[4096], key[17];
    snprintf(expected, sizeof expected, "%s/cache/builds/", real);
    assert_int_equal(strncmp(b->bindir, expected, strlen(expected)), 0);
    snprintf(key, sizeof key, "%s", b->bindir + strlen(expected));
    assert_int_equal(strspn(key, "0123456789abcdef"), 16);
    assert_string_equal(b->bindir + strlen(expected) + 16, "/install/bin");
    snprintf(expected, sizeof expected, "%s/pg {1}'s", real);
    assert_string_equal(b->source, expected);
    snprintf(expected, sizeof expected, "%s/one.patch", real);
    assert_int_equal(b->n_patches, 1);
    assert_string_equal(b->patches[0], expected);
    assert_string_equal(b->cflags, "-O3 -fstrict-aliasing");
    assert_string_equal(b->configure, "--enable-debug --with-extra-version='-x y'");
    char err[256];
    char *line = experiment_substitute_shell(&e, 0, b->build, err, sizeof err);
    char *build = expected_build(real, key);
    assert_string_equal(line, build);
    free(build);
    free(line);
    if (system("command -v patch >/dev/null && command -v make >/dev/null") == 0)
        run_build(&e, real);

    /* A patch's content is part of the key, and of the plan. */
    write_file(real, "one.patch", "--- a/file.c\n+++ b/file.c\n@@ -1 +1 @@\n-int x = 1;\n"
                                  "+int x = 3;\n");
    load_ok(real, &f);
    assert_string_not_equal(e.variants[1].bindir, f.variants[1].bindir);
    assert_int_not_equal(experiment_plan_hash(&e), experiment_plan_hash(&f));
    experiment_free(&f);

    /* The cache's place is not. */
    char moved[1024];
    snprintf(moved, sizeof moved, "%s", source_experiment);
    memcpy(strstr(moved, "cache_dir: cache"), "cache_dir: other", 16);
    write_file(real, "exp.yaml", moved);
    write_file(real, "one.patch", "--- a/file.c\n+++ b/file.c\n@@ -1 +1 @@\n-int x = 1;\n"
                                  "+int x = 2;\n");
    load_ok(real, &f);
    assert_string_not_equal(e.variants[1].bindir, f.variants[1].bindir);
    assert_int_equal(experiment_plan_hash(&e), experiment_plan_hash(&f));
    experiment_free(&f);

    /* A missing patch is named. */
    snprintf(moved, sizeof moved, "%s", source_experiment);
    memcpy(strstr(moved, "[one.patch]"), "[two.patch]", 11);
    write_file(real, "exp.yaml", moved);
    char path[1024], message[2048];
    snprintf(path, sizeof path, "%s/exp.yaml", real);
    assert_int_equal(experiment_load(path, &f, message, sizeof message), -1);
    snprintf(expected, sizeof expected, "%s:9:15: patch '%s/two.patch': No such file or "
             "directory", path, real);
    assert_string_equal(message, expected);
    experiment_free(&e);

    snprintf(path, sizeof path, "rm -rf '%s'", real);
    assert_int_equal(system(path), 0);
    free(real);
}

static void test_postgres_plan_hash(void **state)
{
    (void)state;
    uint64_t base = plan_hash_of(pg_example);
    assert_int_equal(base, plan_hash_of(pg_example));
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
        if (plan_hash_of(text) == base)
            fail_msg("edit %zu (%s) kept the plan hash", i, edits[i].to);
    }
    snprintf(text, sizeof text, "%s", pg_example);
    memcpy(strstr(text, "scale: 10\n"), "pin: same\n", 10);
    assert_int_not_equal(base, plan_hash_of(text));
    /* warm_runs: 0 is the default and keeps the plans made before the key existed */
    const char *after_postgres = strstr(pg_example, "postgres:\n") + strlen("postgres:\n");
    int head = (int)(after_postgres - pg_example);
    snprintf(text, sizeof text, "%.*s  warm_runs: 0\n%s", head, pg_example, after_postgres);
    assert_int_equal(base, plan_hash_of(text));
    snprintf(text, sizeof text, "%.*s  warm_runs: 1\n%s", head, pg_example, after_postgres);
    assert_int_not_equal(base, plan_hash_of(text));
    /* Saying the default target is the same plan. */
    assert_int_equal(plan_hash_of("variants: {A: ./a}\n"),
                     plan_hash_of("target: command\nvariants: {A: ./a}\n"));
}

/* libfyaml 0.7.12 can crash cleaning up after malformed complex keys: they are refused
 * before it sees them, while a '?' inside quotes, a comment or a word stays allowed. */
static void test_complex_keys_refused(void **state)
{
    (void)state;
    parse_fails_with("name: x\n? a\n: b\n", "spin.yaml:2:1: '?' (a YAML complex key)");
    parse_fails_with("name: x\nvariants: {? a : b}\n", "spin.yaml:2:12: '?'");
    experiment e;
    char err[512] = "";
    const char *fine = "name: what?\n# is this ok? yes\nvariants:\n  A: \"./prog ? x\"\n";
    assert_int_equal(experiment_parse("spin.yaml", fine, strlen(fine), &e, err, sizeof err), 0);
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
        cmocka_unit_test(test_errors_keys_and_types),
        cmocka_unit_test(test_errors_variants_and_parameters),
        cmocka_unit_test(test_errors_metrics_and_yaml),
        cmocka_unit_test(test_load_resolves_directories),
        cmocka_unit_test(test_postgres_example_model),
        cmocka_unit_test(test_postgres_keys_and_defaults),
        cmocka_unit_test(test_postgres_workload_words),
        cmocka_unit_test(test_postgres_errors),
        cmocka_unit_test(test_postgres_source_build),
        cmocka_unit_test(test_postgres_plan_hash),
        cmocka_unit_test(test_complex_keys_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

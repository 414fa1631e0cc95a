/* Tests of profiles: perf script's text read into symbols (self, children) and folded
 * stacks, the store's text forms and back, a function's change paired by block against R's
 * t.test, and two variants' profiles compared (pairing, layouts, ranking, one-variant
 * symbols, addresses). */
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
#include "common/strbuf.h"
#include "core/profile.h"
#include "core/profile_compare.h"
#include "stats/profile_change.h"

/* Four samples as `perf script -F comm,tid,event,ip,sym,dso` prints them with call graphs:
 * main calls slow_part twice and steady_part once; one frame perf could not name; one
 * recursion (a symbol twice on one stack counts once in its children). */
static const char script[] =
    "two_parts  2063 cpu-clock: \n"
    "\t            1160 slow_part (/tmp/a/two_parts)\n"
    "\t            11a0 main (/tmp/a/two_parts)\n"
    "\t           2724a __libc_start_call_main (/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
    "\n"
    "two_parts  2063 cpu-clock: \n"
    "\t            1164 slow_part (/tmp/a/two_parts)\n"
    "\t            11a0 main (/tmp/a/two_parts)\n"
    "\t           2724a __libc_start_call_main (/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
    "\n"
    "two_parts  2063 cpu-clock: \n"
    "\t            1180 steady_part (/tmp/a/two_parts)\n"
    "\t            1190 steady_part (/tmp/a/two_parts)\n"
    "\t            11a0 main (/tmp/a/two_parts)\n"
    "\n"
    "two_parts  2063 cpu-clock: \n"
    "\t            1234 [unknown] (/tmp/a/two_parts)\n"
    "\t            11a0 main (/tmp/a/two_parts)\n";

static const profile_symbol *find_symbol(const profile_data *p, const char *name)
{
    for (size_t i = 0; i < p->n_symbols; i++)
        if (strcmp(p->symbols[i].symbol, name) == 0)
            return &p->symbols[i];
    fail_msg("no symbol %s", name);
    return NULL;
}

static long stack_samples(const profile_data *p, const char *stack)
{
    for (size_t i = 0; i < p->n_stacks; i++)
        if (strcmp(p->stacks[i].stack, stack) == 0)
            return p->stacks[i].samples;
    return 0;
}

static void test_parse_script(void **state)
{
    (void)state;
    profile_data p;
    verdict_error err = {0};
    assert_int_equal(profile_parse_script(script, strlen(script), &p, &err), 0);
    assert_int_equal(p.samples, 4);
    const profile_symbol *slow = find_symbol(&p, "slow_part");
    assert_string_equal(slow->dso, "two_parts"); /* the object's name, not its directory */
    assert_int_equal(slow->self, 2);
    assert_int_equal(slow->children, 2);
    const profile_symbol *main_symbol = find_symbol(&p, "main");
    assert_int_equal(main_symbol->self, 0);
    assert_int_equal(main_symbol->children, 4);
    const profile_symbol *steady = find_symbol(&p, "steady_part");
    assert_int_equal(steady->self, 1);
    assert_int_equal(steady->children, 1); /* recursion: once per sample */
    const profile_symbol *address = find_symbol(&p, "0x1234");
    assert_int_equal(address->self, 1);
    assert_true(profile_is_address(address->symbol));
    assert_false(profile_is_address("slow_part"));
    assert_int_equal(stack_samples(&p, "__libc_start_call_main;main;slow_part"), 2);
    assert_int_equal(stack_samples(&p, "main;steady_part;steady_part"), 1);
    assert_int_equal(stack_samples(&p, "main;0x1234"), 1);
    assert_int_equal(p.n_stacks, 3);
    profile_data_free(&p);
}

static void test_text_round_trip(void **state)
{
    (void)state;
    profile_data p, back;
    verdict_error err = {0};
    assert_int_equal(profile_parse_script(script, strlen(script), &p, &err), 0);
    strbuf symbols = STRBUF_INIT, stacks = STRBUF_INIT;
    profile_symbols_text(&p, &symbols);
    profile_stacks_text(&p, &stacks);
    assert_non_null(strstr(strbuf_text(&symbols), "slow_part\ttwo_parts\t2\t2\n"));
    assert_non_null(strstr(strbuf_text(&stacks), "__libc_start_call_main;main;slow_part 2\n"));
    assert_int_equal(profile_from_text(strbuf_text(&symbols), strbuf_text(&stacks), &back,
                                       &err), 0);
    assert_int_equal(back.samples, p.samples);
    assert_int_equal(back.n_symbols, p.n_symbols);
    assert_int_equal(back.n_stacks, p.n_stacks);
    for (size_t i = 0; i < p.n_symbols; i++) {
        assert_string_equal(back.symbols[i].symbol, p.symbols[i].symbol);
        assert_int_equal(back.symbols[i].children, p.symbols[i].children);
    }
    strbuf_free(&symbols);
    strbuf_free(&stacks);
    profile_data_free(&p);
    profile_data_free(&back);
}

static void test_bad_text(void **state)
{
    (void)state;
    profile_data p;
    verdict_error err = {0};
    const char bad[] = "x 1 cpu-clock:\n\t 1160 slow_part no object\n";
    assert_int_equal(profile_parse_script(bad, strlen(bad), &p, &err), -1);
    assert_int_equal(err.kind, ERROR_BAD_INPUT);
    assert_non_null(strstr(err.message, "line 2"));
    /* no symbol between the address and its object (found by the fuzzer): the address */
    const char empty[] = "x 1 cpu-clock:\n\t 1160 (/tmp/a/prog)\n";
    assert_int_equal(profile_parse_script(empty, strlen(empty), &p, &err), 0);
    assert_string_equal(p.symbols[0].symbol, "0x1160");
    profile_data_free(&p);
    assert_int_equal(profile_from_text("f\tdso\tx\t1\n", "", &p, &err), -1);
    assert_int_equal(err.kind, ERROR_BAD_INPUT);
    assert_int_equal(profile_from_text("", "a;b\n", &p, &err), -1);
}

/* R: bs <- c(.5,.52,.48,.5); cs <- c(.58,.6,.57,.59); bt <- c(1,1.1,.9,1); ct <- c(1.2,1.3,
 * 1.15,1.2); s <- cs*ct - bs*bt; t.test(s/bt); t.test(s). */
static void test_change_against_r(void **state)
{
    (void)state;
    const double bs[] = {0.5, 0.52, 0.48, 0.5}, cs[] = {0.58, 0.6, 0.57, 0.59};
    const double bt[] = {1.0, 1.1, 0.9, 1.0}, ct[] = {1.2, 1.3, 1.15, 1.2};
    profile_blocks blocks = {bs, cs, bt, ct, 4};
    profile_change c;
    assert_int_equal(profile_change_estimate(&blocks, 0.95, &c), STATS_OK);
    assert_float_equal(c.change, 0.210356060606061, 1e-12);
    assert_float_equal(c.change_low, 0.168194878206208, 1e-9);
    assert_float_equal(c.change_high, 0.252517243005913, 1e-9);
    assert_float_equal(c.seconds, 0.208875, 1e-12);
    assert_float_equal(c.seconds_low, 0.190938413873425, 1e-9);
    assert_float_equal(c.seconds_high, 0.226811586126575, 1e-9);
    assert_float_equal(c.baseline_seconds, 0.501, 1e-12);
    assert_float_equal(c.candidate_seconds, 0.709875, 1e-12);
    assert_float_equal(c.share_baseline, 0.5, 1e-12);
    /* one block: the means, no interval */
    blocks.n = 1;
    assert_int_equal(profile_change_estimate(&blocks, 0.95, &c), STATS_ERR_TOO_FEW);
    assert_float_equal(c.change, (0.58 * 1.2 - 0.5) / 1.0, 1e-12);
    assert_true(isnan(c.change_low));
    /* a time that is no time */
    const double zero[] = {0, 1, 1, 1};
    blocks = (profile_blocks){bs, cs, zero, ct, 4};
    assert_int_equal(profile_change_estimate(&blocks, 0.95, &c), STATS_ERR_DOMAIN);
    /* equal differences in every block: the interval is that value */
    const double same[] = {0.5, 0.5, 0.5, 0.5}, one[] = {1, 1, 1, 1};
    blocks = (profile_blocks){same, same, one, one, 4};
    assert_int_equal(profile_change_estimate(&blocks, 0.95, &c), STATS_OK);
    assert_float_equal(c.change_low, 0, 0);
    assert_float_equal(c.change_high, 0, 0);
}

/* A run of `variant` in `block` whose samples are slow, steady and (when only > 0) a
 * symbol of that variant alone, named only. */
static profile_run make_run(const char *variant, long block, long layout, double time,
                            long slow, long steady, const char *only, long n_only)
{
    char text[512];
    strbuf symbols = STRBUF_INIT, stacks = STRBUF_INIT;
    snprintf(text, sizeof text, "main\tprog\t0\t%ld\nslow_part\tprog\t%ld\t%ld\n"
             "steady_part\tprog\t%ld\t%ld\n", slow + steady + n_only, slow, slow, steady,
             steady);
    strbuf_append(&symbols, text);
    snprintf(text, sizeof text, "main;slow_part %ld\nmain;steady_part %ld\n", slow, steady);
    strbuf_append(&stacks, text);
    if (n_only > 0) {
        snprintf(text, sizeof text, "%s\tprog\t%ld\t%ld\n", only, n_only, n_only);
        strbuf_append(&symbols, text);
        snprintf(text, sizeof text, "main;%s %ld\n", only, n_only);
        strbuf_append(&stacks, text);
    }
    profile_run r = {.point = "default", .variant = variant, .machine = "", .layout = layout,
                     .block = block, .time = time};
    verdict_error err = {0};
    if (profile_from_text(strbuf_text(&symbols), strbuf_text(&stacks), &r.data, &err) != 0)
        fail_msg("%s", err.message);
    strbuf_free(&symbols);
    strbuf_free(&stacks);
    return r;
}

static const profile_symbol_change *find_change(const profile_comparison *c, const char *name)
{
    for (size_t i = 0; i < c->n_symbols; i++)
        if (strcmp(c->symbols[i].symbol, name) == 0)
            return &c->symbols[i];
    return NULL;
}

static void test_compare(void **state)
{
    (void)state;
    /* B's slow_part takes 40% more samples, its time grows by as much (a millisecond a
     * sample); steady_part stays.
     * Block 3 has no B (not paired); block 1's A has two layouts, averaged. */
    profile_run runs[] = {
        make_run("A", 0, 0, 1.00, 500, 500, NULL, 0),
        make_run("B", 0, 0, 1.210, 700, 500, "memcpy_new", 10),
        make_run("A", 1, 0, 1.02, 505, 495, NULL, 0),
        make_run("A", 1, 1, 0.98, 495, 505, NULL, 0),
        make_run("B", 1, 0, 1.212, 698, 502, "memcpy_new", 12),
        make_run("A", 2, 0, 1.01, 502, 498, NULL, 0),
        make_run("B", 2, 0, 1.209, 703, 497, "memcpy_new", 9),
        make_run("A", 3, 0, 1.00, 500, 500, NULL, 0),
        make_run("B", 4, 0, NAN, 700, 500, NULL, 0), /* no timed run: left out */
        make_run("C", 0, 0, 1.00, 100, 900, NULL, 0),  /* another variant: left out */
    };
    size_t n = sizeof runs / sizeof runs[0];
    profile_comparison c;
    verdict_error err = {0};
    assert_int_equal(profile_compare(runs, n, "default", "", "A", "B", 0.95, &c, &err), 0);
    assert_int_equal(c.n_blocks, 3);
    assert_false(c.addresses);
    /* ranked by the part of the change: slow_part's self time moved most */
    assert_string_equal(c.symbols[0].symbol, "slow_part");
    const profile_symbol_change *slow = find_change(&c, "slow_part");
    const profile_symbol_change *steady = find_change(&c, "steady_part");
    const profile_symbol_change *only = find_change(&c, "memcpy_new");
    assert_non_null(slow);
    assert_non_null(steady);
    assert_non_null(only);
    assert_true(slow->self.change_low > 0.1);
    assert_true(steady->self.change_low < 0 && steady->self.change_high > 0);
    assert_true(only->in_candidate && !only->in_baseline);
    /* block 1's A is the mean of its layouts: share 0.5 at time 1.00 */
    assert_float_equal(slow->self.share_baseline, (0.5 + 0.5 + 0.502) / 3, 1e-12);
    assert_true(c.n_stacks >= 3);
    /* main, slow_part, steady_part, memcpy_new: each interval at 1 - 0.05 / 4 */
    assert_int_equal(c.n_symbols, 4);
    assert_float_equal(c.symbol_confidence, 1 - 0.05 / 4, 1e-15);
    profile_comparison_free(&c);
    /* no block pairs them: nothing compared */
    assert_int_equal(profile_compare(runs, n, "default", "", "A", "D", 0.95, &c, &err), 0);
    assert_int_equal(c.n_blocks, 0);
    assert_int_equal(c.n_symbols, 0);
    profile_comparison_free(&c);
    for (size_t i = 0; i < n; i++)
        profile_data_free(&runs[i].data);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_script),
        cmocka_unit_test(test_text_round_trip),
        cmocka_unit_test(test_bad_text),
        cmocka_unit_test(test_change_against_r),
        cmocka_unit_test(test_compare),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests of the phrases of a verdict (report/phrases.c): each kind, the direction of a
 * time, of a higher-is-better metric and of a count, the one percentage format and ×N. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/phrases.h"

/* Series 0-1: wall (a time); 2-3: tps (higher is better); 4-5: maxrss (a count, lower is
 * better); 6-7: "time" (a peer's metric, a time only when the report is told so). */
typedef struct {
    analysis_series series[8];
    analysis_options options;
    analysis_result analysis;
    report_input in;
} fixture;

static void set_up(fixture *f)
{
    static const char *const metrics[] = {"wall", "tps", "maxrss", "time"};
    *f = (fixture){0};
    for (size_t i = 0; i < 8; i++)
        f->series[i] = (analysis_series){.point = "default", .metric = metrics[i / 2],
                                         .variant = i % 2 ? "B" : "A",
                                         .higher_is_better = i / 2 == 1};
    f->options = (analysis_options){.confidence = 0.95, .margin = 0.01};
    f->in = (report_input){.options = &f->options, .series = f->series, .n_series = 8,
                           .analysis = &f->analysis};
}

/* An analysed comparison of series `baseline` and the next one. */
static analysis_comparison decided_as(size_t baseline, double ratio, verdict_kind kind)
{
    return (analysis_comparison){
        .baseline = baseline, .candidate = baseline + 1, .ok = true,
        .result = {.n_baseline = 10, .n_candidate = 10, .ratio = ratio, .ci_low = ratio * 0.98,
                   .ci_high = ratio * 1.02, .confidence = 0.95, .achieved_confidence = 0.95,
                   .decision = {.kind = kind, .needed_blocks = -1}}};
}

static phrases_comparison phrases_for(const fixture *f, const analysis_comparison *c)
{
    phrases_comparison p;
    phrases_of_comparison(&f->in, c, &p);
    return p;
}

/* Names in braces: which text went through the writer's escaping. */
static void braces(FILE *out, const char *text)
{
    fprintf(out, "{%s}", text);
}

static char *words(const phrases_comparison *p)
{
    char *text = NULL;
    size_t length = 0;
    FILE *out = open_memstream(&text, &length);
    assert_non_null(out);
    phrases_write_words(out, p, braces);
    fclose(out);
    return text;
}

static void assert_words(const phrases_comparison *p, const char *expected)
{
    char *text = words(p);
    assert_string_equal(text, expected);
    free(text);
}

static void one_percentage_format(void **state)
{
    (void)state;
    char buf[64];
    phrases_percent(1.031, buf, sizeof buf);
    assert_string_equal(buf, "+3.1%");
    phrases_percent(0.9996, buf, sizeof buf);
    assert_string_equal(buf, "-0.04%"); /* two decimals below 0.1% */
    phrases_percent(0.99999, buf, sizeof buf);
    assert_string_equal(buf, "+0.00%"); /* no "-0.00%" */
    phrases_percent(1.0, buf, sizeof buf);
    assert_string_equal(buf, "+0.00%");
    phrases_percent(NAN, buf, sizeof buf);
    assert_string_equal(buf, "\xE2\x80\x93");
    phrases_percent(INFINITY, buf, sizeof buf);
    assert_string_equal(buf, "+\xE2\x88\x9E");
    phrases_percent_decimals(1.24849, 3, buf, sizeof buf);
    assert_string_equal(buf, "+24.849%");
    phrases_margin(0.015, buf, sizeof buf);
    assert_string_equal(buf, "\xC2\xB1" "1.5%");
}

static void times_beyond_two(void **state)
{
    (void)state;
    char buf[64];
    phrases_change(2.43, buf, sizeof buf);
    assert_string_equal(buf, "+143.0% (\xC3\x97" "2.43)");
    phrases_change(0.41, buf, sizeof buf);
    assert_string_equal(buf, "-59.0% (\xC3\x97" "0.41)");
    phrases_change(1.5, buf, sizeof buf);
    assert_string_equal(buf, "+50.0%");
    phrases_estimate e;
    phrases_estimate_of(3.0, 2.5, 3.5, true, false, &e);
    assert_string_equal(e.change, "+200.0% (\xC3\x97" "3)");
    assert_string_equal(e.interval, "(+150.0%, +250.0%]");
}

static void a_time_is_slower_or_faster(void **state)
{
    (void)state;
    fixture f;
    set_up(&f);
    analysis_comparison c = decided_as(0, 1.10, VERDICT_WORSE);
    phrases_comparison p = phrases_for(&f, &c);
    assert_string_equal(p.kind_word, "worse");
    assert_string_equal(p.direction, "slower");
    assert_string_equal(p.estimate.change, "+10.0%");
    assert_string_equal(p.estimate.interval, "[+7.8%, +12.2%]");
    assert_string_equal(p.level, "95");
    assert_words(&p, "{B} is 10.0% slower than {A}");
    c = decided_as(0, 1.0 / 3.0, VERDICT_BETTER);
    p = phrases_for(&f, &c);
    assert_words(&p, "{B} is 66.7% faster than {A} (\xC3\x97" "0.333)");
}

/* tps higher is better, maxrss a count: neither is "slower". */
static void other_metrics_use_their_own_words(void **state)
{
    (void)state;
    fixture f;
    set_up(&f);
    analysis_comparison c = decided_as(2, 1.10, VERDICT_BETTER);
    phrases_comparison p = phrases_for(&f, &c);
    assert_words(&p, "{B} is 10.0% higher than {A}");
    c = decided_as(2, 0.95, VERDICT_WORSE);
    p = phrases_for(&f, &c);
    assert_words(&p, "{B} is 5.0% lower than {A}");
    c = decided_as(4, 1.10, VERDICT_WORSE);
    p = phrases_for(&f, &c);
    assert_words(&p, "{B} is 10.0% higher than {A}");
    c = decided_as(6, 1.10, VERDICT_WORSE);
    p = phrases_for(&f, &c);
    assert_string_equal(p.direction, "higher");
    static const char *const time_metrics[] = {"time"};
    f.in.text_style.time_metrics = time_metrics; /* as verdict compare says of a peer's */
    f.in.text_style.n_time_metrics = 1;
    p = phrases_for(&f, &c);
    assert_string_equal(p.direction, "slower");
}

static void negligible_equivalent_and_failed(void **state)
{
    (void)state;
    fixture f;
    set_up(&f);
    analysis_comparison c = decided_as(0, 1.004, VERDICT_WORSE);
    c.result.decision.negligible = true;
    phrases_comparison p = phrases_for(&f, &c);
    assert_words(&p, "{B} is 0.4% slower than {A} (negligible: the whole interval is within "
                     "\xC2\xB1" "1%)");
    char kind[64];
    phrases_kind(&c.result.decision, kind, sizeof kind);
    assert_string_equal(kind, "worse (negligible)");
    c = decided_as(0, 1.001, VERDICT_EQUIVALENT);
    p = phrases_for(&f, &c);
    assert_null(p.direction);
    assert_string_equal(p.decide, "");
    assert_words(&p, "{no difference larger than \xC2\xB1" "1%}");
    c = (analysis_comparison){.baseline = 0, .candidate = 1, .ok = false,
                              .error = "B vs A: cannot compare: too few runs"};
    p = phrases_for(&f, &c);
    assert_false(p.ok);
    assert_string_equal(p.kind_word, "inconclusive");
    assert_words(&p, "{B vs A: cannot compare: too few runs}");
}

static void why_undecided_and_what_would_decide(void **state)
{
    (void)state;
    fixture f;
    set_up(&f);
    analysis_comparison c = decided_as(0, 1.02, VERDICT_INCONCLUSIVE);
    c.result.decision = (verdict_decision){VERDICT_INCONCLUSIVE, false, UNDECIDED_WIDE_INTERVAL, 7};
    phrases_comparison p = phrases_for(&f, &c);
    /* [0.98, 1.02] x 1.02 at 95%: a change of 2.9% was detectable with 80% power */
    assert_words(&p, "{the interval includes both no change and changes beyond \xC2\xB1" "1%}; "
                     "{could have detected a change of 2.9% or more; about 7 more runs per "
                     "side needed}");
    assert_string_equal(p.detectable, "2.9%");
    c.result.decision.needed_blocks = 1;
    p = phrases_for(&f, &c);
    assert_string_equal(p.decide, "could have detected a change of 2.9% or more; about 1 more "
                                  "run per side needed");
    c.result.decision.needed_blocks = -1;
    p = phrases_for(&f, &c);
    assert_string_equal(p.decide, "could have detected a change of 2.9% or more; the spread "
                                  "gives no estimate of how many more runs would decide");
    /* an open end: no width to read a detectable change from */
    c.result.ci_high = INFINITY;
    p = phrases_for(&f, &c);
    assert_string_equal(p.detectable, "");
    assert_string_equal(p.decide, "the spread gives no estimate of how many more runs would "
                                  "decide");
    c.result.decision = (verdict_decision){VERDICT_INCONCLUSIVE, false, UNDECIDED_CONFIDENCE, 4};
    c.result.n_baseline = 3;
    p = phrases_for(&f, &c);
    assert_string_equal(p.reason, "3 runs per side cannot reach 95% confidence");
    c.across_layouts = true;
    c.layouts.needed_layouts = 9;
    p = phrases_for(&f, &c);
    assert_string_equal(p.reason, "3 layouts per side cannot reach 95% confidence");
    assert_string_equal(p.decide, "about 9 layouts per variant needed (more runs of these "
                                  "layouts cannot remove their spread)");
    c = decided_as(0, 1.0, VERDICT_INCONCLUSIVE);
    c.result.decision = (verdict_decision){VERDICT_INCONCLUSIVE, false, UNDECIDED_RESOLUTION, -1};
    c.result.digits = 2;
    c.result.relative_step = 0.05;
    p = phrases_for(&f, &c);
    assert_string_equal(p.reason, "the values are rounded (to 2 significant digits), which can "
                                  "move the ratio by 5%: too coarse to show a change within "
                                  "\xC2\xB1" "1% or to rule one out");
    assert_string_equal(p.decide, "more runs of this metric cannot decide: measure with more "
                                  "digits");
}

static void a_pooled_comparison(void **state)
{
    (void)state;
    analysis_fleet fleet = {.ok = true, .ratio = 1.25, .ci_low = 1.2, .ci_high = 1.3,
                            .predict_low = 0.9, .predict_high = 1.7, .tau = log(1.031),
                            .decision = {.kind = VERDICT_WORSE}};
    phrases_pooled p;
    phrases_of_fleet(&fleet, &p);
    assert_string_equal(p.estimate.change, "+25.0%");
    assert_string_equal(p.estimate.interval, "[+20.0%, +30.0%]");
    assert_string_equal(p.predict_low, "-10.0%");
    assert_string_equal(p.predict_high, "+70.0%");
    assert_string_equal(p.spread, "\xC2\xB1" "3.1%");
    assert_string_equal(p.kind, "worse");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_percentage_format),
        cmocka_unit_test(times_beyond_two),
        cmocka_unit_test(a_time_is_slower_or_faster),
        cmocka_unit_test(other_metrics_use_their_own_words),
        cmocka_unit_test(negligible_equivalent_and_failed),
        cmocka_unit_test(why_undecided_and_what_would_decide),
        cmocka_unit_test(a_pooled_comparison),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The words of exact data and of counts against times (issue 26), in every writer: data that
 * never varied, the method named for counts, and a count and a time decided opposite ways. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "report/phrases.h"
#include "report/report.h"
#include "report_capture.h"

#define RUNS 10
#define METRICS 2

static const char *const metric_names[METRICS] = {"instructions:u", "wall"};
static const char *const variant_names[] = {"A", "B"};

typedef struct {
    report_variant variants[2];
    report_point point;
    double values[2][RUNS][METRICS]; /* variant, block, metric: a sample's metrics together */
    double columns[METRICS * 2][RUNS];
    report_sample samples[2 * RUNS];
    analysis_series series[METRICS * 2];
    analysis_options options;
    analysis_result analysis;
    report_input in;
    char dir[64];
} fixture;

/* A run's value of metric m: variant v, block r. */
typedef double (*value_of)(size_t m, size_t v, size_t r);

static fixture *make_fixture(value_of value)
{
    fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    f->point = (report_point){.id = "default"};
    for (size_t v = 0; v < 2; v++) {
        f->variants[v] = (report_variant){.name = variant_names[v]};
        for (size_t r = 0; r < RUNS; r++) {
            for (size_t m = 0; m < METRICS; m++)
                f->values[v][r][m] = f->columns[2 * m + v][r] = value(m, v, r);
            f->samples[v * RUNS + r] = (report_sample){
                .variant = variant_names[v], .point = "default", .block = (long)r,
                .seq = (long)(v * RUNS + r), .metric_names = metric_names,
                .metric_values = f->values[v][r], .n_metrics = METRICS, .started = NAN,
                .steal = NAN, .other_busy = NAN, .load1 = NAN};
        }
    }
    for (size_t s = 0; s < METRICS * 2; s++)
        f->series[s] = (analysis_series){.point = "default", .metric = metric_names[s / 2],
                                         .variant = variant_names[s % 2], .values = f->columns[s],
                                         .n = RUNS, .exact_counts = s / 2 == 0};
    f->options = (analysis_options){.method = METHOD_WILCOXON, .paired = true,
                                    .confidence = 0.95, .margin = 0.01, .adjust = ADJUST_HOLM,
                                    .seed = 1};
    verdict_error err = {0};
    if (analysis_run(f->series, METRICS * 2, &f->options, &f->analysis, &err) != 0)
        fail_msg("%s", err.message);
    f->in = (report_input){.experiment_name = "exact", .options = &f->options,
                           .variants = f->variants, .n_variants = 2, .points = &f->point,
                           .n_points = 1, .samples = f->samples, .n_samples = 2 * RUNS,
                           .series = f->series, .n_series = METRICS * 2,
                           .analysis = &f->analysis, .from_runs = true};
    assert_int_equal(phrases_add_disagreements(&f->in, &f->analysis), 0);
    capture_make_dir(f->dir, sizeof f->dir);
    return f;
}

static void free_fixture(fixture *f)
{
    capture_remove_dir(f->dir);
    analysis_result_free(&f->analysis);
    free(f);
}

/* Every text the terminal, Markdown, HTML and (when `json`) JSON writers make holds `text`. */
static void assert_written(const fixture *f, const char *text, bool json_too)
{
    char *html = capture_file(&f->in, report_write_html, f->dir, "r.html");
    json_t *doc = capture_json(&f->in, f->dir);
    char *json = json_dumps(doc, 0);
    char *outputs[] = {capture_text(&f->in),
                       capture_file(&f->in, report_write_markdown, f->dir, "r.md"),
                       capture_plain(html), json};
    const char *names[] = {"text", "Markdown", "HTML", "JSON"};
    for (size_t i = 0; i < (json_too ? 4u : 3u); i++) {
        if (strstr(outputs[i], text) == NULL)
            fail_msg("%s lacks \"%s\":\n%s", names[i], text, outputs[i]);
    }
    for (size_t i = 0; i < 4; i++)
        free(outputs[i]);
    free(html);
    json_decref(doc);
}

static void assert_everywhere(const fixture *f, const char *text)
{
    assert_written(f, text, true);
}

static size_t warnings_coded(const analysis_result *r, const char *code)
{
    size_t count = 0;
    for (size_t i = 0; i < r->n_warnings; i++)
        count += strcmp(r->warnings[i].code, code) == 0;
    return count;
}

static double jitter(size_t r)
{
    static const double offsets[RUNS] = {0.3, -0.2, 0.1, -0.4, 0.25, 0, -0.1, 0.35, -0.3, 0.15};
    return offsets[r];
}

/* Instructions exactly 1,000,000 against 1,200,000 in every block; wall within 1%. */
static double constant_counts(size_t m, size_t v, size_t r)
{
    if (m == 0)
        return v ? 1200000 : 1000000;
    return 1.0 + 0.002 * jitter((r + 3 * v) % RUNS);
}

static void data_that_never_varied_say_so(void **state)
{
    (void)state;
    fixture *f = make_fixture(constant_counts);
    const comparison *k = &f->analysis.comparisons[0].result;
    assert_true(k->constant && k->ci_low == k->ci_high);
    assert_int_equal(k->decision.kind, VERDICT_WORSE);
    /* a count is "more" or "fewer" of what it counts, never "higher" or "slower" */
    assert_everywhere(f, "B uses 20.0% more instructions:u than A (exact: the same ratio in "
                         "every one of the 10 blocks)");
    /* JSON's settings keep the option; each comparison's "method" says paired-t */
    assert_written(f, "wilcoxon-signed-rank (paired-t for exact counts)", false);
    assert_int_equal(warnings_coded(&f->analysis, "counts-disagree"), 0);
    free_fixture(f);
}

/* The same count in every block for both: equivalent, exactly no change. */
static double equal_counts(size_t m, size_t v, size_t r)
{
    if (m == 0)
        return 1000000 + 1000 * (double)(r % 3);
    return 1.0 + 0.002 * jitter((r + 3 * v) % RUNS);
}

static void equal_counts_are_no_change(void **state)
{
    (void)state;
    fixture *f = make_fixture(equal_counts);
    assert_int_equal(f->analysis.comparisons[0].result.decision.kind, VERDICT_EQUIVALENT);
    assert_everywhere(f, "equivalent: no difference: both gave the same value in every one of "
                         "the 10 blocks");
    free_fixture(f);
}

/* Instructions 2% fewer, wall 3% longer: decided both ways, said once in words. */
static double opposite(size_t m, size_t v, size_t r)
{
    if (m == 0)
        return round(1e7 * (v ? 0.98 : 1.0) * (1.0 + 1e-4 * jitter((r + 3 * v) % RUNS)));
    return (v ? 1.03 : 1.0) * (1.0 + 0.002 * jitter((r + 3 * v) % RUNS));
}

static void a_count_and_a_time_that_disagree_are_said_once(void **state)
{
    (void)state;
    fixture *f = make_fixture(opposite);
    assert_int_equal(f->analysis.comparisons[0].result.decision.kind, VERDICT_BETTER);
    assert_int_equal(f->analysis.comparisons[1].result.decision.kind, VERDICT_WORSE);
    assert_int_equal(warnings_coded(&f->analysis, "counts-disagree"), 1);
    assert_everywhere(f, "B vs A: instructions:u fell 2.0% but wall rose 3.0%: the count does "
                         "not see all that the time pays for");
    free_fixture(f);
}

/* Both fewer: nothing to say. */
static double agreeing(size_t m, size_t v, size_t r)
{
    return opposite(m, v, r) * (m == 1 && v ? 0.95 : 1.0);
}

static void a_count_and_a_time_that_agree_say_nothing(void **state)
{
    (void)state;
    fixture *f = make_fixture(agreeing);
    assert_int_equal(f->analysis.comparisons[1].result.decision.kind, VERDICT_BETTER);
    assert_int_equal(warnings_coded(&f->analysis, "counts-disagree"), 0);
    free_fixture(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(data_that_never_varied_say_so),
        cmocka_unit_test(equal_counts_are_no_change),
        cmocka_unit_test(a_count_and_a_time_that_disagree_are_said_once),
        cmocka_unit_test(a_count_and_a_time_that_agree_say_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

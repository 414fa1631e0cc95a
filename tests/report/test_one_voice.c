/* One voice (issue 25): a resolution-limited comparison and one across layouts give the same
 * reason, advice and numbers in the terminal, Markdown and HTML reports (and JSON's summary);
 * the quantile method's sentence (issue 27) is the same in all four. */
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

#include "report/phrases.h"
#include "common/error.h"
#include "report/report.h"
#include "report_capture.h"

#define RUNS 10
#define MAX_LAYOUTS 4
#define MAX_SERIES (2 * MAX_LAYOUTS)

static const char *const metric_names[] = {"wall"};
static const char *const variant_names[] = {"A", "B"};

typedef struct {
    report_variant variants[2];
    report_point point;
    double values[MAX_SERIES][RUNS];
    report_sample samples[MAX_SERIES * RUNS];
    analysis_series series[MAX_SERIES];
    analysis_options options;
    analysis_result analysis;
    report_input in;
    char dir[64];
} fixture;

/* A run's value: variant v, layout k, block r. */
typedef double (*value_of)(size_t v, size_t k, size_t r);

/* Two variants with `layouts` layout twins each (1: none), RUNS blocks, analysed. */
static fixture *make_fixture(size_t layouts, value_of value, comparison_method method)
{
    fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    assert_true(layouts >= 1 && layouts <= MAX_LAYOUTS);
    f->point = (report_point){.id = "default"};
    size_t n = 0, n_samples = 0;
    for (size_t v = 0; v < 2; v++) {
        f->variants[v] = (report_variant){.name = variant_names[v]};
        for (size_t k = 0; k < layouts; k++, n++) {
            for (size_t r = 0; r < RUNS; r++) {
                f->values[n][r] = value(v, k, r);
                f->samples[n_samples] = (report_sample){
                    .variant = variant_names[v], .point = "default", .layout = (long)k,
                    .block = (long)r, .seq = (long)n_samples, .metric_names = metric_names,
                    .metric_values = &f->values[n][r], .n_metrics = 1, .started = NAN,
                    .steal = NAN, .other_busy = NAN, .load1 = NAN};
                n_samples++;
            }
            f->series[n] = (analysis_series){
                .point = "default", .metric = "wall", .variant = variant_names[v], .layout = k,
                .n_layouts = layouts > 1 ? layouts : 0, .values = f->values[n], .n = RUNS};
        }
    }
    f->options = (analysis_options){.method = method, .paired = true,
                                    .confidence = 0.95, .margin = 0.01, .adjust = ADJUST_HOLM,
                                    .seed = 1};
    verdict_error err = {0};
    if (analysis_run(f->series, n, &f->options, &f->analysis, &err) != 0)
        fail_msg("%s", err);
    f->in = (report_input){.experiment_name = "one voice", .options = &f->options,
                           .variants = f->variants, .n_variants = 2, .points = &f->point,
                           .n_points = 1, .samples = f->samples, .n_samples = n_samples,
                           .series = f->series, .n_series = n, .analysis = &f->analysis};
    capture_make_dir(f->dir, sizeof f->dir);
    return f;
}

static void free_fixture(fixture *f)
{
    capture_remove_dir(f->dir);
    analysis_result_free(&f->analysis);
    free(f);
}

static const char *const names[] = {"text", "Markdown", "HTML"};

/* The terminal, Markdown and HTML reports (the HTML as a reader sees it), in names' order;
 * the caller frees each. */
static void capture_three(const fixture *f, char *outputs[3])
{
    char *html = capture_file(&f->in, report_write_html, f->dir, "r.html");
    outputs[0] = capture_text(&f->in);
    outputs[1] = capture_file(&f->in, report_write_markdown, f->dir, "r.md");
    outputs[2] = capture_plain(html);
    free(html);
}

/* The JSON's summary of the one comparison is the sentence. */
static void assert_json_summary(const fixture *f, const char *sentence)
{
    json_t *doc = capture_json(&f->in, f->dir);
    json_t *comparison = json_array_get(json_object_get(doc, "comparisons"), 0);
    assert_string_equal(json_string_value(json_object_get(comparison, "summary")), sentence);
    json_decref(doc);
}

/* "inconclusive: <reason>; <what would decide>" and the change and its interval, in each
 * of the three reports; the reason says `expected` (so that it cannot be empty or another
 * reason) and what would decide it says `advice`. */
static void assert_one_voice(const fixture *f, const char *expected, const char *advice)
{
    assert_int_equal(f->analysis.n_comparisons, 1);
    phrases_comparison p;
    phrases_of_comparison(&f->in, &f->analysis.comparisons[0], &p);
    assert_int_equal(p.kind, VERDICT_INCONCLUSIVE);
    if (strstr(p.reason, expected) == NULL || strstr(p.decide, advice) == NULL)
        fail_msg("reason \"%s\", to decide \"%s\"", p.reason, p.decide);
    char sentence[2 * PHRASES_SENTENCE + 32];
    snprintf(sentence, sizeof sentence, "inconclusive: %s; %s", p.reason, p.decide);
    char *outputs[3];
    capture_three(f, outputs);
    for (size_t i = 0; i < 3; i++) {
        if (strstr(outputs[i], sentence) == NULL)
            fail_msg("%s lacks \"%s\":\n%s", names[i], sentence, outputs[i]);
        if (strstr(outputs[i], p.estimate.change) == NULL ||
            strstr(outputs[i], p.estimate.interval) == NULL)
            fail_msg("%s lacks %s %s:\n%s", names[i], p.estimate.change, p.estimate.interval,
                     outputs[i]);
        free(outputs[i]);
    }
    assert_json_summary(f, sentence);
}

/* 1 and 2 alternating, the other way round for B: values rounded to one digit. */
static double alternating(size_t v, size_t k, size_t r)
{
    (void)k;
    return (double)1 + (double)((r + v) % 2);
}

static void a_resolution_limited_comparison_reads_the_same_everywhere(void **state)
{
    (void)state;
    fixture *f = make_fixture(1, alternating, METHOD_WILCOXON);
    assert_int_equal(f->analysis.comparisons[0].result.decision.reason, UNDECIDED_RESOLUTION);
    /* HTML said "the interval includes both no change and ..." here */
    assert_one_voice(f, "the values are rounded (to 1 significant digit)",
                     "measure with more digits");
    free_fixture(f);
}

/* Three layouts each, spread by ±4% between layouts, B 1% slower: three layouts per side
 * cannot reach 95%, and more runs of them would not help. */
static double layout_spread(size_t v, size_t k, size_t r)
{
    static const double layout[2][3] = {{1.00, 1.04, 0.96}, {0.97, 1.05, 1.02}};
    return layout[v][k] * (v ? 1.01 : 1.0) * (1.0 + 0.001 * (double)(r % 3));
}

static void a_layouts_comparison_reads_the_same_everywhere(void **state)
{
    (void)state;
    fixture *f = make_fixture(3, layout_spread, METHOD_WILCOXON);
    const analysis_comparison *c = &f->analysis.comparisons[0];
    assert_true(c->ok && c->across_layouts);
    assert_int_equal(c->result.decision.reason, UNDECIDED_CONFIDENCE);
    /* HTML and Markdown said "3 runs per side" here, and nothing of the layouts needed */
    assert_one_voice(f, "3 layouts per side cannot reach 95% confidence",
                     "layouts per variant needed");
    free_fixture(f);
}

/* B 5% slower in every block, a slow run in every third. */
static double slow_episodes(size_t v, size_t k, size_t r)
{
    (void)k;
    return (v ? 1.05 : 1.0) * (1.0 + 0.003 * (double)(r % 4)) * ((r + v) % 3 == 0 ? 1.3 : 1.0);
}

/* What the quantile method compares, said once in phrases.c, reads the same everywhere. */
static void the_quantile_sentence_reads_the_same_everywhere(void **state)
{
    (void)state;
    fixture *f = make_fixture(1, slow_episodes, METHOD_QUANTILE);
    char note[PHRASES_SENTENCE];
    phrases_method_note(&f->options, note, sizeof note);
    assert_non_null(strstr(note, "10th percentile"));
    assert_non_null(strstr(note, "undisturbed"));
    char *outputs[3];
    capture_three(f, outputs);
    for (size_t i = 0; i < 3; i++) {
        if (strstr(outputs[i], note) == NULL)
            fail_msg("%s lacks \"%s\":\n%s", names[i], note, outputs[i]);
        free(outputs[i]);
    }
    json_t *doc = capture_json(&f->in, f->dir);
    const char *json_note =
        json_string_value(json_object_get(json_object_get(doc, "experiment"), "method_note"));
    assert_non_null(json_note);
    assert_string_equal(json_note, note);
    json_decref(doc);
    f->options.quantile = 0.25; /* the words follow the quantile */
    phrases_method_note(&f->options, note, sizeof note);
    assert_non_null(strstr(note, "25th percentile"));
    f->options.method = METHOD_WELCH; /* the other methods: nothing to add */
    phrases_method_note(&f->options, note, sizeof note);
    assert_string_equal(note, "");
    free_fixture(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_resolution_limited_comparison_reads_the_same_everywhere),
        cmocka_unit_test(a_layouts_comparison_reads_the_same_everywhere),
        cmocka_unit_test(the_quantile_sentence_reads_the_same_everywhere),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

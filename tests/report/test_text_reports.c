/* Unit tests of the report writers under hostile input (issue 18): terminal escapes and
 * spreadsheet formulas in names, invalid UTF-8, levels near 100%, and sweeps of which
 * most points were never run. Each test failed on the writers as they were before. */
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

#include "report/plain_text.h"
#include "common/error.h"
#include "report/report.h"
#include "report_capture.h"
#include "report/report_query.h"
#include "stats/level_text.h"

#define RUNS 8
/* A title change and a screen clear (OSC 0 and CSI 2J), C1 CSI (U+009B), a bidi override,
 * and a byte that is not UTF-8. */
#define HOSTILE "\x1b]0;owned\x07\x1b[2J\xc2\x9b" "31m\xe2\x80\xae" "caf\xe9"

typedef struct {
    report_variant variants[2];
    const char *argv[2];
    char **ids;
    report_point *points;
    report_sample *samples;
    double *values;
    analysis_series *series;
    analysis_options options;
    analysis_result analysis;
    report_input in;
    size_t n_points;
    char dir[64];
} fixture;

static const char *const metric_names[] = {"wall"};

static void add_samples(fixture *f, size_t point, size_t *n_samples)
{
    for (size_t v = 0; v < 2; v++)
        for (size_t r = 0; r < RUNS; r++) {
            double *value = &f->values[(point * 2 + v) * RUNS + r];
            *value = 1.0 + (double)r + 0.5 * (double)v;
            f->samples[(*n_samples)++] = (report_sample){
                .variant = f->variants[v].name, .point = f->ids[point], .block = (long)r,
                .seq = (long)*n_samples, .metric_names = metric_names,
                .metric_values = value, .n_metrics = 1, .started = NAN, .steal = NAN,
                .other_busy = NAN, .load1 = NAN};
        }
}

/* n_points points of which the first `measured` have RUNS samples per variant. */
static fixture *make_fixture(const char *candidate, size_t n_points, size_t measured)
{
    fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    f->n_points = n_points;
    f->argv[0] = "echo";
    f->argv[1] = candidate;
    f->variants[0] = (report_variant){.name = "A"};
    f->variants[1] = (report_variant){.name = candidate, .argv = f->argv, .argc = 2};
    f->ids = calloc(n_points, sizeof *f->ids);
    f->points = calloc(n_points, sizeof *f->points);
    f->samples = calloc(measured * 2 * RUNS + 1, sizeof *f->samples);
    f->values = calloc(n_points * 2 * RUNS, sizeof *f->values);
    f->series = calloc(n_points * 2, sizeof *f->series);
    assert_true(f->ids && f->points && f->samples && f->values && f->series);
    size_t n_samples = 0;
    for (size_t p = 0; p < n_points; p++) {
        assert_int_not_equal(asprintf(&f->ids[p], "n=%zu", p + 1), -1);
        f->points[p] = (report_point){.id = f->ids[p]};
        if (p < measured)
            add_samples(f, p, &n_samples);
        for (size_t v = 0; v < 2; v++)
            f->series[p * 2 + v] = (analysis_series){
                .point = f->ids[p], .metric = "wall", .variant = f->variants[v].name,
                .values = &f->values[(p * 2 + v) * RUNS], .n = p < measured ? RUNS : 0};
    }
    f->options = (analysis_options){.method = METHOD_WILCOXON, .paired = true,
                                    .confidence = 0.95, .margin = 0.01, .adjust = ADJUST_HOLM,
                                    .seed = 1};
    verdict_error err = {0};
    assert_int_equal(analysis_run(f->series, n_points * 2, &f->options, &f->analysis, &err), 0);
    f->in = (report_input){.experiment_name = candidate, .options = &f->options,
                           .variants = f->variants, .n_variants = 2, .points = f->points,
                           .n_points = n_points, .samples = f->samples, .n_samples = n_samples,
                           .series = f->series, .n_series = n_points * 2,
                           .analysis = &f->analysis};
    capture_make_dir(f->dir, sizeof f->dir);
    return f;
}

static void free_fixture(fixture *f)
{
    capture_remove_dir(f->dir);
    analysis_result_free(&f->analysis);
    for (size_t p = 0; p < f->n_points; p++)
        free(f->ids[p]);
    free(f->ids);
    free(f->points);
    free(f->samples);
    free(f->values);
    free(f->series);
    free(f);
}

static size_t count(const char *text, const char *needle)
{
    size_t n = 0, length = strlen(needle);
    for (size_t at = 0; text[at] != '\0'; at++)
        n += strncmp(text + at, needle, length) == 0;
    return n;
}

/* No byte a terminal acts on: controls other than newline, DEL, C1 as UTF-8, bytes that
 * are not UTF-8 (0xe9 here), the bidi override U+202E. */
static void assert_terminal_safe(const char *text)
{
    for (const unsigned char *p = (const unsigned char *)text; *p; p++)
        if ((*p < 0x20 && *p != '\n') || *p == 0x7f || *p == 0xe9)
            fail_msg("byte 0x%02x at offset %zu", *p, (size_t)(p - (const unsigned char *)text));
    assert_null(strstr(text, "\xc2\x9b"));
    assert_null(strstr(text, "\xe2\x80\xae"));
}

static void text_report_escapes_control_characters(void **state)
{
    (void)state;
    fixture *f = make_fixture(HOSTILE, 1, 1);
    char *text = capture_text(&f->in);
    assert_terminal_safe(text);
    assert_non_null(strstr(text, "\\x1b]0;owned\\x07\\x1b[2J\\u009b31m\\u202ecaf\\xe9"));
    free(text);
    free_fixture(f);
}

static void markdown_escapes_control_characters(void **state)
{
    (void)state;
    fixture *f = make_fixture(HOSTILE " | x", 1, 1);
    char *text = capture_file(&f->in, report_write_markdown, f->dir, "r.md");
    assert_terminal_safe(text);
    /* Markdown's own characters are escaped after the control characters are shown. */
    assert_non_null(strstr(text, "\\\\x1b\\]0;owned\\\\x07"));
    assert_non_null(strstr(text, "caf\\\\xe9 \\| x"));
    free(text);
    free_fixture(f);
}

static void csv_neutralises_formulas_and_controls(void **state)
{
    (void)state;
    const char *formulas[] = {"=HYPERLINK(\"http://x\")", "+1", "-2+3", "@SUM(A1)"};
    for (size_t i = 0; i < sizeof formulas / sizeof *formulas; i++) {
        fixture *f = make_fixture(formulas[i], 1, 1);
        char *text = capture_file(&f->in, report_write_csv, f->dir, "r.csv");
        char quoted[128];
        const char *cell = formulas[i][0] == '=' ? "=HYPERLINK(\"\"http://x\"\")" : formulas[i];
        snprintf(quoted, sizeof quoted, ",\"'%s\",", cell);
        if (strstr(text, quoted) == NULL)
            fail_msg("%s not neutralised in:\n%s", formulas[i], text);
        free(text);
        free_fixture(f);
    }
    fixture *f = make_fixture(HOSTILE "\nnext,line", 1, 1);
    char *text = capture_file(&f->in, report_write_csv, f->dir, "r.csv");
    assert_terminal_safe(text);
    assert_int_equal(count(text, "\n"), 1 + 2 * RUNS); /* header and one line per sample */
    free(text);
    free_fixture(f);
}

/* jansson refuses strings that are not UTF-8: the variant, its samples, summaries and
 * comparison used to vanish from the document, and the command word with them. */
static void json_keeps_invalid_utf8_with_its_bytes(void **state)
{
    (void)state;
    fixture *f = make_fixture("caf\xe9", 1, 1);
    json_t *doc = capture_json(&f->in, f->dir);
    json_t *variant = json_array_get(json_object_get(doc, "variants"), 1);
    assert_string_equal(json_string_value(json_object_get(variant, "name")), "caf\xef\xbf\xbd");
    assert_string_equal(json_string_value(json_object_get(variant, "name_base64")), "Y2Fm6Q==");
    json_t *command = json_object_get(variant, "command");
    assert_int_equal(json_array_size(command), 2);
    assert_string_equal(json_string_value(json_array_get(command, 1)), "caf\xef\xbf\xbd");
    json_t *exact = json_object_get(variant, "command_base64");
    assert_string_equal(json_string_value(json_array_get(exact, 1)), "Y2Fm6Q==");
    assert_int_equal(json_array_size(json_object_get(doc, "samples")), 2 * RUNS);
    assert_int_equal(json_array_size(json_object_get(doc, "summaries")), 2);
    assert_int_equal(json_array_size(json_object_get(doc, "comparisons")), 1);
    json_t *comparison = json_array_get(json_object_get(doc, "comparisons"), 0);
    assert_string_equal(json_string_value(json_object_get(comparison, "candidate_base64")),
                        "Y2Fm6Q==");
    json_decref(doc);
    free_fixture(f);
}

static void levels_are_never_shown_as_100_percent(void **state)
{
    (void)state;
    char buf[64];
    level_text(0.9999999999999999, 6, buf, sizeof buf);
    assert_true(strtod(buf, NULL) < 100.0);
    assert_non_null(strstr(buf, "99.9999999999999"));
    level_text(0.95, 6, buf, sizeof buf);
    assert_string_equal(buf, "95");
    level_text(0.999023, 4, buf, sizeof buf);
    assert_string_equal(buf, "99.9");
    level_text(0.9999999, 4, buf, sizeof buf);
    assert_string_equal(buf, "99.99999");
    level_text(1e-17, 4, buf, sizeof buf);
    assert_true(strtod(buf, NULL) > 0.0);
    level_text(1.0, 6, buf, sizeof buf);
    assert_string_equal(buf, "100");
}

static void confidence_near_one_is_not_printed_as_100(void **state)
{
    (void)state;
    fixture *f = make_fixture("B", 1, 1);
    f->options.confidence = 0.9999999999999999;
    char *text = capture_text(&f->in);
    char *markdown = capture_file(&f->in, report_write_markdown, f->dir, "r.md");
    char *html = capture_file(&f->in, report_write_html, f->dir, "r.html");
    assert_null(strstr(text, "100% confidence"));
    assert_non_null(strstr(text, "99.99999999999999% confidence"));
    assert_null(strstr(markdown, "100% confidence"));
    assert_null(strstr(html, "100% confidence"));
    free(text);
    free(markdown);
    free(html);
    free_fixture(f);
}

/* 1,000 points of which 2 were run: one line for the 998, not a block (and a warning or
 * two) each, which for a million points took ten minutes and 1.2 GB. */
static void unrun_points_are_summed_up_in_one_line(void **state)
{
    (void)state;
    fixture *f = make_fixture("B", 1000, 2);
    char *text = capture_text(&f->in);
    assert_non_null(strstr(text, "998 of 1,000 points were not run (no samples)"));
    assert_int_equal(count(text, "cannot compare"), 0);
    assert_int_equal(count(text, "== n="), 2);
    assert_int_equal(count(text, "too-few-samples"), 0);
    char *html = capture_file(&f->in, report_write_html, f->dir, "r.html");
    assert_non_null(strstr(html, "998 of 1,000 points were not run (no samples)"));
    assert_int_equal(count(html, "<details"), 2);
    assert_int_equal(count(html, "cannot compare"), 0);
    char *markdown = capture_file(&f->in, report_write_markdown, f->dir, "r.md");
    assert_non_null(strstr(markdown, "998 of 1,000 points were not run"));
    assert_int_equal(count(markdown, "cannot compare"), 0);
    free(text);
    free(html);
    free(markdown);
    free_fixture(f);
}

/* pgbench runs that all time out have no tps: the statistics said "argument out of
 * range"; the reports say the runs timed out. */
static void runs_that_timed_out_are_named_as_such(void **state)
{
    (void)state;
    fixture *f = make_fixture("B", 1, 1);
    for (size_t r = 0; r < RUNS; r++)
        f->values[RUNS + r] = NAN; /* variant B's values */
    for (size_t i = 0; i < f->in.n_samples; i++)
        f->samples[i].timed_out = strcmp(f->samples[i].variant, "B") == 0;
    analysis_result_free(&f->analysis);
    verdict_error err = {0};
    assert_int_equal(analysis_run(f->series, 2, &f->options, &f->analysis, &err), 0);
    char *text = capture_text(&f->in);
    char *json = capture_file(&f->in, report_write_json, f->dir, "r.json");
    const char *expected = "8 of 8 runs of B timed out, and a run that times out has no wall value";
    assert_non_null(strstr(text, expected));
    assert_non_null(strstr(json, expected));
    assert_null(strstr(text, "argument out of range"));
    assert_null(strstr(json, "argument out of range"));
    for (size_t i = 0; i < f->in.n_samples; i++)
        f->samples[i].timed_out = false; /* a caller that does not know: still no jargon */
    free(text);
    text = capture_text(&f->in);
    assert_non_null(strstr(text, "8 of 8 runs of B have no wall value"));
    assert_null(strstr(text, "argument out of range"));
    free(text);
    free(json);
    free_fixture(f);
}

static void every_point_run_gets_no_note(void **state)
{
    (void)state;
    fixture *f = make_fixture("B", 3, 3);
    char *text = capture_text(&f->in);
    assert_null(strstr(text, "not run"));
    assert_int_equal(count(text, "== n="), 3);
    free(text);
    free_fixture(f);
}

/* One stalled run (10 s among runs near 1 ms; CI under load saw such) must not put the whole
 * table, headline and axis in seconds: the unit comes from the median, not the mean (which
 * the stall takes above 1 s). */
static void a_stalled_run_keeps_the_unit_of_the_rest(void **state)
{
    (void)state;
    fixture *f = make_fixture("B", 1, 1);
    for (size_t v = 0; v < 2; v++)
        for (size_t r = 0; r < RUNS; r++)
            f->values[v * RUNS + r] = 0.00080 + 0.00001 * (double)r + 0.00002 * (double)v;
    f->values[3] = 10.0; /* the baseline's, which sets the table's unit */
    analysis_result_free(&f->analysis);
    verdict_error err = {0};
    assert_int_equal(analysis_run(f->series, 2, &f->options, &f->analysis, &err), 0);
    f->in.text_style.headlines = true;
    char *text = capture_text(&f->in);
    assert_non_null(strstr(text, "Time (median):"));
    assert_non_null(strstr(text, "10000000 \xc2\xb5s")); /* the stall, in the others' unit */
    assert_non_null(strstr(text, "800.0 \xc2\xb5s"));    /* the fastest run */
    for (size_t i = 1; text[i] != '\0'; i++) /* no "0.0008000 s": a number in seconds */
        assert_false(text[i] == ' ' && text[i + 1] == 's' && text[i - 1] >= '0' &&
                     text[i - 1] <= '9' && (text[i + 2] == ' ' || text[i + 2] == '\n'));
    free(text);
    free_fixture(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(text_report_escapes_control_characters),
        cmocka_unit_test(markdown_escapes_control_characters),
        cmocka_unit_test(csv_neutralises_formulas_and_controls),
        cmocka_unit_test(json_keeps_invalid_utf8_with_its_bytes),
        cmocka_unit_test(levels_are_never_shown_as_100_percent),
        cmocka_unit_test(confidence_near_one_is_not_printed_as_100),
        cmocka_unit_test(unrun_points_are_summed_up_in_one_line),
        cmocka_unit_test(runs_that_timed_out_are_named_as_such),
        cmocka_unit_test(every_point_run_gets_no_note),
        cmocka_unit_test(a_stalled_run_keeps_the_unit_of_the_rest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

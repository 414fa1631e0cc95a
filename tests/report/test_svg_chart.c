/* Unit tests of the SVG chart builder and its helpers: markup escaping, scales and ticks,
 * sweep detection, and well-formed output (parsed back with libxml2) for hostile text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/strbuf.h"
#include "report/markup.h"
#include "report/svg_chart.h"
#include "report/svg_scale.h"
#include "report/sweep.h"
#include "svg_xml.h"

#define HOSTILE "<script>alert(\"x\")</script> & 'quotes' \x01 \xff\xfe"

/* Runs a writer into memory and returns the text (caller frees). */
typedef void (*writer_fn)(FILE *out, const void *context);

static char *capture(writer_fn write, const void *context)
{
    char *text = NULL;
    size_t length = 0;
    FILE *out = open_memstream(&text, &length);
    assert_non_null(out);
    write(out, context);
    fclose(out);
    return text;
}

static void write_escaped(FILE *out, const void *text)
{
    markup_write_escaped(out, text);
}

static void escapes_markup_characters(void **state)
{
    (void)state;
    char *text = capture(write_escaped, "<a href=\"x\">&'</a>");
    assert_string_equal(text, "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;");
    free(text);
}

static void replaces_invalid_utf8_and_controls(void **state)
{
    (void)state;
    char *text = capture(write_escaped, "a\x01" "b\xff" "c\xC0\xAF" "d\xED\xA0\x80" "e\xE2\x82");
    assert_string_equal(text, "a\xEF\xBF\xBD" "b\xEF\xBF\xBD" "c\xEF\xBF\xBD\xEF\xBF\xBD"
                              "d\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD" "e\xEF\xBF\xBD\xEF\xBF\xBD");
    free(text);
}

static void keeps_valid_utf8(void **state)
{
    (void)state;
    char *text = capture(write_escaped, "±1% · é · 😀\ttab\nline");
    assert_string_equal(text, "±1% · é · 😀\ttab\nline");
    free(text);
}

/* The string builder's escaping is the stream's; a prefix never ends in half a character. */
static void escapes_into_a_string_builder_and_cuts_at_characters(void **state)
{
    (void)state;
    strbuf b = STRBUF_INIT;
    markup_append_escaped(&b, "<\"\xff\">");
    assert_string_equal(strbuf_text(&b), "&lt;&quot;\xEF\xBF\xBD&quot;&gt;");
    strbuf_clear(&b);
    markup_append_escaped_prefix(&b, "a&\xC3\xA9z", 3); /* the é would cross the limit */
    assert_string_equal(strbuf_text(&b), "a&amp;");
    markup_append_escaped_prefix(&b, "\xC3\xA9z", 2);
    assert_string_equal(strbuf_text(&b), "a&amp;\xC3\xA9");
    strbuf_free(&b);
}

static void maps_linear_and_log_scales(void **state)
{
    (void)state;
    svg_mapping linear = {SVG_SCALE_LINEAR, 0, 10, 100, 200};
    assert_float_equal(svg_map(&linear, 5), 150, 1e-9);
    svg_mapping log = {SVG_SCALE_LOG, 1, 100, 0, 100};
    assert_float_equal(svg_map(&log, 10), 50, 1e-9);
    assert_false(svg_placeable(SVG_SCALE_LOG, 0));
    assert_false(svg_placeable(SVG_SCALE_LOG, -1));
    assert_false(svg_placeable(SVG_SCALE_LINEAR, NAN));
    assert_true(svg_placeable(SVG_SCALE_LINEAR, -1));
}

static void chooses_nice_ticks(void **state)
{
    (void)state;
    double at[64];
    svg_mapping linear = {SVG_SCALE_LINEAR, -0.03, 1.07, 0, 1};
    size_t n = svg_auto_ticks(&linear, at, 64);
    assert_int_equal(n, 6);
    assert_float_equal(at[0], 0.0, 1e-12);
    assert_float_equal(at[5], 1.0, 1e-12);
    svg_mapping log = {SVG_SCALE_LOG, 0.9, 110, 0, 1};
    n = svg_auto_ticks(&log, at, 64);
    double expected[] = {1, 2, 5, 10, 20, 50, 100};
    assert_int_equal(n, 7);
    for (size_t i = 0; i < n; i++)
        assert_float_equal(at[i], expected[i], 1e-9);
    char buf[32];
    svg_format_number(-0.0, buf, sizeof buf);
    assert_string_equal(buf, "0");
}

static void pads_ranges(void **state)
{
    (void)state;
    double min = 5, max = 5;
    assert_true(svg_range_finish(SVG_SCALE_LINEAR, &min, &max));
    assert_true(min < 5 && max > 5);
    min = 0;
    max = 8;
    assert_false(svg_range_finish(SVG_SCALE_LOG, &min, &max));
    min = NAN;
    assert_false(svg_range_finish(SVG_SCALE_LINEAR, &min, &max));
}

/* A chart with every kind of item and hostile text everywhere. */
static svg_chart *hostile_chart(svg_scale x_scale)
{
    svg_chart *chart = svg_chart_new(HOSTILE, 600, 360);
    assert_non_null(chart);
    double x[] = {1, 2, 4, 8}, y[] = {10, 12, NAN, 9}, lo[] = {9, 11, 10, 8}, hi[] = {11, 13, 12, 10};
    bool flags[] = {false, true, false, true};
    const char *labels[] = {HOSTILE, "2", "4", "8"};
    assert_int_equal(svg_chart_note(chart, HOSTILE), 0);
    assert_int_equal(svg_chart_axis(chart, SVG_X, HOSTILE, x_scale), 0);
    assert_int_equal(svg_chart_axis(chart, SVG_Y, "wall (seconds)", SVG_SCALE_LINEAR), 0);
    assert_int_equal(svg_chart_ticks(chart, SVG_X, x, labels, 4), 0);
    assert_int_equal(svg_chart_flag_legend(chart, HOSTILE), 0);
    assert_int_equal(svg_chart_band(chart, 0, x, lo, hi, 4), 0);
    assert_int_equal(svg_chart_line(chart, 0, HOSTILE, x, y, 4, true), 0);
    assert_int_equal(svg_chart_scatter(chart, 1, HOSTILE, x, lo, flags, 4), 0);
    assert_int_equal(svg_chart_intervals(chart, 2, HOSTILE, x, y, lo, hi, 4, 5), 0);
    assert_int_equal(svg_chart_shade(chart, 9.5, 10.5, HOSTILE), 0);
    assert_int_equal(svg_chart_rule(chart, 10, HOSTILE), 0);
    assert_int_equal(svg_chart_box(chart, 5, 3, 9, 10, 11, 8, 13), 0);
    return chart;
}

static void write_standalone(FILE *out, const void *chart)
{
    assert_int_equal(svg_chart_write(chart, out, true), 0);
}

static void write_inline(FILE *out, const void *chart)
{
    assert_int_equal(svg_chart_write(chart, out, false), 0);
}

static void writes_well_formed_escaped_svg(void **state)
{
    (void)state;
    svg_scale scales[] = {SVG_SCALE_LINEAR, SVG_SCALE_LOG};
    for (size_t s = 0; s < 2; s++) {
        svg_chart *chart = hostile_chart(scales[s]);
        char *text = capture(write_standalone, chart);
        xmlDocPtr doc = svg_xml_parse(text);
        xmlNodePtr root = xmlDocGetRootElement(doc);
        assert_string_equal((const char *)root->name, "svg");
        assert_non_null(root->ns);
        assert_string_equal((const char *)root->ns->href, "http://www.w3.org/2000/svg");
        assert_null(strstr(text, "<script"));
        assert_non_null(strstr(text, "&lt;script&gt;"));
        assert_non_null(strstr(text, "stroke-dasharray"));
        xmlFreeDoc(doc);
        free(text);
        text = capture(write_inline, chart);
        assert_null(strstr(text, "xmlns"));
        assert_null(strstr(text, "<?xml"));
        xmlFreeDoc(svg_xml_parse(text));
        free(text);
        svg_chart_free(chart);
    }
}

static void refuses_a_chart_without_data(void **state)
{
    (void)state;
    svg_chart *chart = svg_chart_new("empty", 400, 300);
    double x[] = {NAN}, y[] = {1};
    assert_int_equal(svg_chart_line(chart, 0, "nothing", x, y, 1, true), 0);
    FILE *out = tmpfile();
    assert_int_equal(svg_chart_write(chart, out, true), -1);
    assert_int_equal(ftell(out), 0); /* nothing half-written */
    fclose(out);
    svg_chart_free(chart);
}

static void log_axis_skips_values_it_cannot_place(void **state)
{
    (void)state;
    svg_chart *chart = svg_chart_new("log", 400, 300);
    double x[] = {0, -1, 1, 10}, y[] = {1, 2, 3, 4};
    assert_int_equal(svg_chart_axis(chart, SVG_X, "clients", SVG_SCALE_LOG), 0);
    assert_int_equal(svg_chart_line(chart, 0, "a", x, y, 4, true), 0);
    char *text = capture(write_standalone, chart);
    assert_null(strstr(text, "nan"));
    assert_null(strstr(text, "inf"));
    xmlFreeDoc(svg_xml_parse(text));
    free(text);
    svg_chart_free(chart);
}

/* Points with one parameter named `name` taking these values. */
typedef struct {
    const char *names[1];
    const char *values[8][1];
    report_point points[8];
    report_input in;
} sweep_fixture;

static void make_points(sweep_fixture *f, const char *name, const char *const *values, size_t n)
{
    memset(f, 0, sizeof *f);
    f->names[0] = name;
    for (size_t i = 0; i < n; i++) {
        f->values[i][0] = values[i];
        f->points[i] = (report_point){values[i], f->names, f->values[i], 1};
    }
    f->in.points = f->points;
    f->in.n_points = n;
}

static void detects_geometric_and_linear_sweeps(void **state)
{
    (void)state;
    sweep_fixture f;
    report_sweep sw;
    const char *clients[] = {"8", "1", "4", "2"};
    make_points(&f, "clients", clients, 4);
    assert_int_equal(sweep_find(&f.in, &sw), 0);
    assert_true(sw.found);
    assert_int_equal(sw.scale, SVG_SCALE_LOG);
    assert_float_equal(sw.value[0], 8, 0);
    assert_int_equal(sw.n_groups, 1);
    assert_string_equal(sw.group_label[0], "");
    sweep_free(&sw);
    const char *n[] = {"200000", "300000", "400000"};
    make_points(&f, "n", n, 3);
    assert_int_equal(sweep_find(&f.in, &sw), 0);
    assert_true(sw.found);
    assert_int_equal(sw.scale, SVG_SCALE_LINEAR);
    sweep_free(&sw);
    const char *words[] = {"rw", "ro"};
    make_points(&f, "workload", words, 2);
    assert_int_equal(sweep_find(&f.in, &sw), 0);
    assert_false(sw.found);
    sweep_free(&sw);
}

static void groups_by_the_other_parameters(void **state)
{
    (void)state;
    const char *names[] = {"workload", "clients"};
    const char *values[4][2] = {{"ro", "1"}, {"ro", "4"}, {"rw", "1"}, {"rw", "4"}};
    report_point points[4];
    for (size_t i = 0; i < 4; i++)
        points[i] = (report_point){values[i][1], names, values[i], 2};
    report_input in = {.points = points, .n_points = 4};
    report_sweep sw;
    assert_int_equal(sweep_find(&in, &sw), 0);
    assert_true(sw.found);
    assert_string_equal(sw.name, "clients");
    assert_int_equal(sw.n_groups, 2);
    assert_string_equal(sw.group_label[0], "workload=ro");
    assert_string_equal(sw.group_label[1], "workload=rw");
    assert_int_equal(sw.group[3], 1);
    sweep_free(&sw);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(escapes_markup_characters),
        cmocka_unit_test(replaces_invalid_utf8_and_controls),
        cmocka_unit_test(keeps_valid_utf8),
        cmocka_unit_test(escapes_into_a_string_builder_and_cuts_at_characters),
        cmocka_unit_test(maps_linear_and_log_scales),
        cmocka_unit_test(chooses_nice_ticks),
        cmocka_unit_test(pads_ranges),
        cmocka_unit_test(writes_well_formed_escaped_svg),
        cmocka_unit_test(refuses_a_chart_without_data),
        cmocka_unit_test(log_axis_skips_values_it_cannot_place),
        cmocka_unit_test(detects_geometric_and_linear_sweeps),
        cmocka_unit_test(groups_by_the_other_parameters),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    xmlCleanupParser();
    return failed;
}

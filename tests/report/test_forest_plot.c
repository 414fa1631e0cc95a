/* Unit tests of the forest plot: well-formed SVG (parsed back with libxml2), one group per
 * machine, the diamond, the prediction bar and the line of no change, hostile and odd input. */
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

#include "common/error.h"

#include "report/forest_plot.h"
#include "svg_xml.h"

#define HOSTILE "<script>alert(\"x\")</script> & 'quotes' \x01 \xff\xfe"

static forest_row sample_rows[] = {
    {"alpha", 1.248, 1.201, 1.297, NULL},
    {"beta", 1.10, 1.02, 1.19, "worse"},
    {"gamma", 0.97, 0.90, 1.05, "inconclusive"},
    {"delta", NAN, NAN, NAN, NULL},
    {"epsilon", 1.30, 1.22, 1.40, NULL},
};

static forest_plot sample_plot(void)
{
    return (forest_plot){.title = "wall, clients=4: B against A", .rows = sample_rows,
                         .n_rows = sizeof sample_rows / sizeof *sample_rows,
                         .pooled_ratio = 1.16, .pooled_low = 1.05, .pooled_high = 1.28,
                         .predict_low = 0.88, .predict_high = 1.52, .confidence = 0.95};
}

/* The plot written into memory (caller frees); asserts that the write succeeded. */
static char *write_plot(const forest_plot *plot, bool standalone)
{
    char *text = NULL;
    verdict_error err = {0};
    size_t length = 0;
    FILE *out = open_memstream(&text, &length);
    assert_non_null(out);
    int rc = forest_plot_write(plot, out, standalone, &err);
    fclose(out);
    if (rc != 0)
        fail_msg("forest_plot_write: %s", err.message);
    return text;
}

/* Every x-like coordinate lies on the canvas. */
static void assert_on_canvas(xmlNodePtr node, double width)
{
    static const char *const names[] = {"x", "x1", "x2"};
    for (xmlNodePtr c = node; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE)
            continue;
        for (size_t i = 0; i < 3; i++) {
            xmlChar *value = xmlGetProp(c, (const xmlChar *)names[i]);
            if (value) {
                double x = strtod((const char *)value, NULL);
                assert_true(x >= 0 && x <= width);
                xmlFree(value);
            }
        }
        assert_on_canvas(c->children, width);
    }
}

static void assert_no_nan_or_inf(const char *text)
{
    assert_null(strcasestr(text, "nan"));
    assert_null(strcasestr(text, "inf"));
}

static void writes_well_formed_standalone_and_inline_svg(void **state)
{
    (void)state;
    forest_plot plot = sample_plot();
    char *text = write_plot(&plot, true);
    xmlDocPtr doc = svg_xml_parse(text);
    xmlNodePtr root = xmlDocGetRootElement(doc);
    assert_string_equal((const char *)root->name, "svg");
    assert_non_null(root->ns);
    assert_string_equal((const char *)root->ns->href, "http://www.w3.org/2000/svg");
    assert_non_null(svg_xml_find(root->children, "title", NULL));
    assert_non_null(svg_xml_find(root->children, "desc", NULL));
    assert_on_canvas(root, svg_xml_number(root, "width"));
    assert_no_nan_or_inf(text);
    xmlFreeDoc(doc);
    free(text);
    text = write_plot(&plot, false);
    assert_null(strstr(text, "xmlns"));
    assert_null(strstr(text, "<?xml"));
    xmlFreeDoc(svg_xml_parse(text));
    free(text);
}

static void draws_a_row_per_machine_the_diamond_and_the_prediction(void **state)
{
    (void)state;
    forest_plot plot = sample_plot();
    char *text = write_plot(&plot, true);
    xmlDocPtr doc = svg_xml_parse(text);
    xmlNodePtr root = xmlDocGetRootElement(doc);
    assert_int_equal(svg_xml_count(root, "g", "forest-row"), 5);
    assert_int_equal(svg_xml_count(root, "rect", "forest-marker"), 4); /* delta has none */
    assert_int_equal(svg_xml_count(root, "path", "forest-diamond"), 1);
    xmlNodePtr prediction = svg_xml_find(root, "g", "forest-prediction");
    assert_non_null(prediction);
    xmlNodePtr bar = svg_xml_find(prediction->children, "line", NULL);
    assert_non_null(bar);
    assert_true(xmlHasProp(bar, (const xmlChar *)"stroke-dasharray") != NULL);
    assert_non_null(strstr(text, ">new machine<"));
    assert_non_null(strstr(text, "+24.8% [+20.1%, +29.7%]"));
    assert_non_null(strstr(text, "dashed bar"));
    assert_non_null(strstr(text, "95% prediction interval"));
    /* the line of no change stands where the tick "0" is written */
    xmlNodePtr reference = svg_xml_find(root, "line", "forest-reference");
    assert_non_null(reference);
    double x = svg_xml_number(reference, "x1");
    assert_float_equal(x, svg_xml_number(reference, "x2"), 1e-9);
    bool zero_tick = false;
    for (xmlNodePtr t = svg_xml_find(root, "g", "forest-axis")->children; t; t = t->next) {
        xmlChar *content = t->type == XML_ELEMENT_NODE ? xmlNodeGetContent(t) : NULL;
        if (content && strcmp((const char *)content, "0") == 0) {
            assert_float_equal(svg_xml_number(t, "x"), x, 0.05);
            zero_tick = true;
        }
        xmlFree(content);
    }
    assert_true(zero_tick);
    xmlFreeDoc(doc);
    free(text);
}

static void escapes_names_titles_and_notes(void **state)
{
    (void)state;
    forest_row rows[] = {{HOSTILE, 1.1, 1.0, 1.2, HOSTILE}, {"a&b", 0.9, 0.8, 1.0, NULL}};
    forest_plot plot = sample_plot();
    plot.title = HOSTILE;
    plot.rows = rows;
    plot.n_rows = 2;
    char *text = write_plot(&plot, true);
    xmlDocPtr doc = svg_xml_parse(text);
    assert_null(strstr(text, "<script"));
    assert_non_null(strstr(text, "&lt;script&gt;"));
    assert_non_null(strstr(text, "a&amp;b"));
    assert_int_equal(svg_xml_count(xmlDocGetRootElement(doc), "g", "forest-row"), 2);
    xmlFreeDoc(doc);
    free(text);
}

/* NaN and infinite ends are drawn as arrows or left out; no NaN coordinate, no "inf" text. */
static void never_writes_nan_or_infinity(void **state)
{
    (void)state;
    forest_row rows[] = {
        {"zero low", 1.1, 0, 1.3, NULL},           {"open high", 1.2, 1.1, INFINITY, NULL},
        {"no interval", 1.05, NAN, NAN, NULL},     {"half interval", 1.05, NAN, 1.2, NULL},
        {"unbounded ratio", INFINITY, 2, INFINITY, NULL}, {"zero ratio", 0, 0, 0.5, NULL},
        {"negative", -1, -2, -0.5, NULL},          {"huge", 1.0, 1e-300, 1e300, NULL},
    };
    forest_plot plot = {.title = "odd", .rows = rows, .n_rows = sizeof rows / sizeof *rows,
                        .pooled_ratio = 1.1, .pooled_low = NAN, .pooled_high = INFINITY,
                        .predict_low = 0, .predict_high = INFINITY, .confidence = NAN};
    char *text = write_plot(&plot, true);
    assert_no_nan_or_inf(text);
    xmlDocPtr doc = svg_xml_parse(text);
    xmlNodePtr root = xmlDocGetRootElement(doc);
    assert_on_canvas(root, svg_xml_number(root, "width"));
    assert_true(svg_xml_count(root, "path", "forest-arrow") >= 6);
    assert_int_equal(svg_xml_count(root, "path", "forest-diamond"), 1);
    assert_non_null(svg_xml_find(root, "g", "forest-prediction"));
    assert_non_null(strstr(text, "+\xE2\x88\x9E]")); /* an unbounded end: +∞ */
    xmlFreeDoc(doc);
    free(text);
    plot.pooled_ratio = NAN;
    plot.predict_low = plot.predict_high = NAN;
    text = write_plot(&plot, true);
    assert_no_nan_or_inf(text);
    assert_null(strstr(text, "forest-diamond"));
    assert_null(strstr(text, "forest-prediction"));
    assert_null(strstr(text, "dashed bar"));
    assert_non_null(strstr(text, "no pooled estimate"));
    xmlFreeDoc(svg_xml_parse(text));
    free(text);
}

static void shows_an_excluded_machine_with_its_note(void **state)
{
    (void)state;
    forest_row rows[] = {{"ok", 1.02, 1.0, 1.04, NULL}, {"failed", NAN, NAN, NAN, NULL},
                         {"timed out", NAN, 1, 2, "all 12 runs timed out"}};
    forest_plot plot = sample_plot();
    plot.rows = rows;
    plot.n_rows = 3;
    char *text = write_plot(&plot, true);
    xmlDocPtr doc = svg_xml_parse(text);
    xmlNodePtr root = xmlDocGetRootElement(doc);
    assert_int_equal(svg_xml_count(root, "g", "forest-row"), 3);
    assert_int_equal(svg_xml_count(root, "g", "forest-excluded"), 2);
    xmlNodePtr excluded = svg_xml_find(root, "g", "forest-excluded");
    assert_int_equal(svg_xml_count(excluded->children, "rect", "forest-marker"), 0);
    assert_int_equal(svg_xml_count(excluded->children, "line", NULL), 0);
    xmlChar *content = xmlNodeGetContent(excluded);
    assert_non_null(strstr((const char *)content, "no successful runs"));
    xmlFree(content);
    assert_non_null(strstr(text, "all 12 runs timed out"));
    assert_non_null(strstr(text, "2 without an estimate"));
    xmlFreeDoc(doc);
    free(text);
}

static void grows_to_two_hundred_rows(void **state)
{
    (void)state;
    forest_row rows[200];
    char names[200][32];
    for (size_t i = 0; i < 200; i++) {
        snprintf(names[i], sizeof names[i], "machine-%03zu", i);
        double r = 0.8 + 0.002 * (double)i;
        rows[i] = (forest_row){names[i], r, r * 0.97, r * 1.03, NULL};
    }
    forest_plot plot = sample_plot();
    plot.rows = rows;
    plot.n_rows = 10;
    char *text = write_plot(&plot, true);
    xmlDocPtr doc = svg_xml_parse(text);
    double small = svg_xml_number(xmlDocGetRootElement(doc), "height");
    xmlFreeDoc(doc);
    free(text);
    plot.n_rows = 200;
    text = write_plot(&plot, true);
    doc = svg_xml_parse(text);
    xmlNodePtr root = xmlDocGetRootElement(doc);
    assert_int_equal(svg_xml_count(root, "g", "forest-row"), 200);
    assert_true(svg_xml_number(root, "height") > small + 180 * 15);
    assert_non_null(strstr(text, "machine-199"));
    xmlFreeDoc(doc);
    free(text);
}

static void cuts_long_names_visibly(void **state)
{
    (void)state;
    char longest[200];
    memset(longest, 'x', sizeof longest - 1);
    longest[sizeof longest - 1] = '\0';
    memcpy(longest, "\xC3\xA9t\xC3\xA9-", 6); /* "été-" then x's: cut at whole characters */
    forest_row rows[] = {{longest, 1.5, 1.4, 1.6, NULL}, {"short", 3.0, 2.5, 3.5, NULL},
                         {"slow", 0.3, 0.25, 0.35, NULL}};
    forest_plot plot = sample_plot();
    plot.rows = rows;
    plot.n_rows = 3;
    char *text = write_plot(&plot, true);
    xmlDocPtr doc = svg_xml_parse(text);
    xmlNodePtr root = xmlDocGetRootElement(doc);
    xmlNodePtr row = svg_xml_find(root, "g", "forest-row");
    xmlNodePtr label = svg_xml_find(row->children, "text", NULL);
    xmlChar *shown = xmlNodeGetContent(label);
    assert_true(strlen((const char *)shown) < 60);
    assert_non_null(strstr((const char *)shown, "\xE2\x80\xA6")); /* … */
    xmlFree(shown);
    xmlChar *tooltip = xmlNodeGetContent(svg_xml_find(row->children, "title", NULL));
    assert_non_null(strstr((const char *)tooltip, longest)); /* the whole name */
    xmlFree(tooltip);
    /* ×3 and ×0.3 on one axis: both on the canvas, with ticks far from 0 */
    assert_on_canvas(root, svg_xml_number(root, "width"));
    assert_non_null(strstr(text, ">+200%<"));
    assert_non_null(strstr(text, ">-50%<"));
    xmlFreeDoc(doc);
    free(text);
}

static void refuses_no_rows_and_too_many(void **state)
{
    (void)state;
    forest_plot plot = sample_plot();
    verdict_error err = {0};
    FILE *out = tmpfile();
    plot.n_rows = 0;
    assert_int_equal(forest_plot_write(&plot, out, true, &err), -1);
    assert_non_null(strstr(err.message, "no machines"));
    plot.n_rows = FOREST_MAX_ROWS + 1;
    assert_int_equal(forest_plot_write(&plot, out, true, &err), -1);
    assert_non_null(strstr(err.message, "more than"));
    assert_int_equal(forest_plot_write(NULL, out, true, &err), -1);
    assert_int_equal(ftell(out), 0); /* nothing half-written */
    fclose(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(writes_well_formed_standalone_and_inline_svg),
        cmocka_unit_test(draws_a_row_per_machine_the_diamond_and_the_prediction),
        cmocka_unit_test(escapes_names_titles_and_notes),
        cmocka_unit_test(never_writes_nan_or_infinity),
        cmocka_unit_test(shows_an_excluded_machine_with_its_note),
        cmocka_unit_test(grows_to_two_hundred_rows),
        cmocka_unit_test(cuts_long_names_visibly),
        cmocka_unit_test(refuses_no_rows_and_too_many),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    xmlCleanupParser();
    return failed;
}

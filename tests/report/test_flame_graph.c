/* Unit tests of the differential flame graph: frames' widths and places, colours by the
 * change and its interval, one-variant stacks, titles, escaping, cut labels and refusals. */
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
#include "common/strbuf.h"

#include "report/flame_graph.h"
#include "report/html_flame.h"

#include "flame_fixture.h"
#include "svg_xml.h"

#define HOSTILE FLAME_FIXTURE_HOSTILE

/* The graph as text (caller frees); asserts that it was drawn. */
static char *draw(const flame_stack *stacks, size_t n)
{
    strbuf out = STRBUF_INIT;
    verdict_error err = {0};
    if (flame_graph_svg(&out, stacks, n, "wall: B against A", &err) != 0)
        fail_msg("flame_graph_svg: %s", err.message);
    return strbuf_detach(&out);
}

/* A frame's tooltip (caller frees with xmlFree); NULL when the rect has no <title>. */
static xmlChar *title_of(xmlNodePtr rect)
{
    for (xmlNodePtr c = rect->children; c; c = c->next)
        if (c->type == XML_ELEMENT_NODE && strcmp((const char *)c->name, "title") == 0)
            return xmlNodeGetContent(c);
    return NULL;
}

/* The frame whose tooltip's first line is the name. */
static xmlNodePtr find_frame(xmlNodePtr node, const char *name)
{
    for (xmlNodePtr c = node; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE)
            continue;
        if (strcmp((const char *)c->name, "rect") == 0 && svg_xml_has_class(c, "flame-frame")) {
            xmlChar *title = title_of(c);
            size_t n = strlen(name);
            bool match = title && strncmp((const char *)title, name, n) == 0 &&
                         title[n] == '\n';
            xmlFree(title);
            if (match)
                return c;
        }
        xmlNodePtr inside = find_frame(c->children, name);
        if (inside)
            return inside;
    }
    return NULL;
}

/* The frame's fill as red, green, blue. */
static void fill_of(xmlNodePtr frame, int rgb[3])
{
    xmlChar *fill = xmlGetProp(frame, (const xmlChar *)"fill");
    assert_non_null(fill);
    assert_int_equal(sscanf((const char *)fill, "#%2x%2x%2x", &rgb[0], &rgb[1], &rgb[2]), 3);
    xmlFree(fill);
}

typedef enum { RED, BLUE, GREY, SAND } hue;

/* Checks the frame's place, width, colour class and fill. */
static void assert_frame(xmlNodePtr svg, const char *name, double x, double width, hue h)
{
    static const char *const classes[] = {"flame-slower", "flame-faster", "flame-within",
                                          "flame-no-interval"};
    xmlNodePtr frame = find_frame(svg, name);
    if (frame == NULL)
        fail_msg("no frame named %s", name);
    assert_float_equal(svg_xml_number(frame, "x"), x, 0.006);
    assert_float_equal(svg_xml_number(frame, "width"), width, 0.006);
    assert_true(svg_xml_has_class(frame, classes[h]));
    int rgb[3];
    fill_of(frame, rgb);
    if (h == RED)
        assert_true(rgb[0] > rgb[2] + 40 && rgb[0] > rgb[1] + 40);
    else if (h == BLUE)
        assert_true(rgb[2] > rgb[0] + 40);
    else if (h == GREY)
        assert_true(rgb[0] == rgb[1] && rgb[1] == rgb[2]);
}

static void widths_follow_the_baseline_and_callees_sit_on_their_callers(void **state)
{
    (void)state;
    char *text = draw(flame_fixture, flame_fixture_n);
    xmlDocPtr doc = svg_xml_parse(text);
    xmlNodePtr svg = xmlDocGetRootElement(doc);
    /* callees of one caller in the order of their names, from the caller's left edge */
    assert_frame(svg, "all", 10, 1000, SAND);
    assert_frame(svg, "main", 10, 1000, SAND);
    assert_frame(svg, HOSTILE, 10, 100, SAND);
    assert_frame(svg, "new_only", 110, 100, RED);  /* its candidate time: 0.05 s */
    assert_frame(svg, "old_only", 210, 40, BLUE);
    assert_frame(svg, "run", 250, 760, SAND);
    assert_frame(svg, "fast_part", 250, 160, BLUE);
    assert_frame(svg, "slow_part", 410, 200, RED);
    assert_frame(svg, "steady_part", 610, 400, GREY);
    assert_int_equal(svg_xml_count(svg, "rect", "flame-frame"), 9);
    /* every frame carries its tooltip */
    assert_int_equal(svg_xml_count(svg, "title", NULL), 9 + 1);
    /* deeper callees are drawn higher up */
    assert_true(svg_xml_number(find_frame(svg, "slow_part"), "y") <
                svg_xml_number(find_frame(svg, "run"), "y"));
    assert_true(svg_xml_number(find_frame(svg, "run"), "y") <
                svg_xml_number(find_frame(svg, "main"), "y"));
    xmlFreeDoc(doc);
    free(text);
}

static void one_variant_stacks_are_marked_and_said_in_the_legend(void **state)
{
    (void)state;
    char *text = draw(flame_fixture, flame_fixture_n);
    xmlDocPtr doc = svg_xml_parse(text);
    xmlNodePtr svg = xmlDocGetRootElement(doc);
    assert_true(svg_xml_has_class(find_frame(svg, "new_only"), "flame-candidate-only"));
    assert_true(svg_xml_has_class(find_frame(svg, "old_only"), "flame-baseline-only"));
    assert_false(svg_xml_has_class(find_frame(svg, "slow_part"), "flame-candidate-only"));
    assert_false(svg_xml_has_class(find_frame(svg, "slow_part"), "flame-baseline-only"));
    assert_int_equal(svg_xml_count(svg, "path", "flame-hatch"), 2); /* the frame, the key */
    assert_non_null(strstr(text, "only in the candidate: as wide as its candidate time</text>"));
    assert_non_null(strstr(text, ">only in the baseline</text>"));
    xmlFreeDoc(doc);
    free(text);
}

/* The tooltip's text, checked against what it must say. */
static void assert_title(xmlNodePtr svg, const char *name, const char *expected)
{
    xmlChar *title = title_of(find_frame(svg, name));
    assert_non_null(title);
    if (strstr((const char *)title, expected) == NULL)
        fail_msg("title of %s is \"%s\", without \"%s\"", name, title, expected);
    xmlFree(title);
}

static void titles_give_both_times_the_change_and_the_interval(void **state)
{
    (void)state;
    char *text = draw(flame_fixture, flame_fixture_n);
    xmlDocPtr doc = svg_xml_parse(text);
    xmlNodePtr svg = xmlDocGetRootElement(doc);
    assert_title(svg, "slow_part", "baseline 100.0 ms, candidate 140.0 ms");
    assert_title(svg, "slow_part", "change +40.00 ms (+40.0%), interval [+30.00 ms, +50.00 ms]");
    assert_title(svg, "steady_part", "[-10.00 ms, +14.00 ms]: includes 0, within noise");
    assert_title(svg, "fast_part", "change -40.00 ms (-50.0%)");
    assert_title(svg, "run", "no interval: its time is the sum of 3 stacks");
    assert_title(svg, "main", "baseline 450.0 ms, candidate 482.0 ms");
    assert_title(svg, "main", "the sum of 6 stacks");
    assert_title(svg, HOSTILE, "no interval: none was computed for this stack");
    assert_title(svg, "new_only", "only in the candidate");
    assert_title(svg, "old_only", "only in the baseline");
    xmlFreeDoc(doc);
    free(text);
}

static void names_are_escaped(void **state)
{
    (void)state;
    char *text = draw(flame_fixture, flame_fixture_n);
    assert_null(strstr(text, "<esc"));
    assert_non_null(strstr(text, ">&lt;esc &amp; &quot;q&quot;&gt;\n"));  /* the tooltip */
    assert_non_null(strstr(text, ">&lt;esc &amp; &quot;q&quot;&gt;</text>")); /* the label */
    xmlFreeDoc(svg_xml_parse(text));
    free(text);
}

static void labels_are_cut_to_fit_and_left_out_of_narrow_frames(void **state)
{
    (void)state;
    const flame_stack stacks[] = {
        {"main;wide", 0.93495, 0.93495, -0.01, 0.01},
        {"main;slow_part_of_a_long_name", 0.06, 0.06, -0.01, 0.01},  /* 60 px */
        {"main;narrow_frame", 0.005, 0.005, -0.01, 0.01},            /* 5 px */
        {"main;invisible", 0.00005, 0.00005, -0.01, 0.01},           /* 0.05 px */
    };
    char *text = draw(stacks, 4);
    xmlDocPtr doc = svg_xml_parse(text);
    xmlNodePtr svg = xmlDocGetRootElement(doc);
    assert_non_null(strstr(text, ">slow_p..</text>"));
    assert_non_null(strstr(text, ">wide</text>"));
    assert_non_null(find_frame(svg, "narrow_frame"));
    assert_null(strstr(text, "narrow_frame</text>")); /* drawn, without a label */
    assert_null(strstr(text, "na..</text>"));
    assert_null(find_frame(svg, "invisible")); /* under a tenth of a pixel: left out */
    assert_non_null(strstr(text, "1 narrower than 0.1 pixel left out"));
    xmlFreeDoc(doc);
    free(text);
}

static void long_titles_and_names_are_cut_at_whole_characters(void **state)
{
    (void)state;
    const flame_stack stacks[] = {
        {"main;wide", 0.94, 0.94, -0.01, 0.01},
        {"main;gr\xC3\xB6\xC3\x9F""en_\xC3\xBC""berall", 0.06, 0.06, -0.01, 0.01}, /* 60 px */
    };
    char title[401];
    memset(title, 'x', 400);
    title[0] = '\xC3'; /* a two-byte character first, so a cut in bytes would show */
    title[1] = '\xA9';
    title[400] = '\0';
    strbuf out = STRBUF_INIT;
    verdict_error err = {0};
    assert_int_equal(flame_graph_svg(&out, stacks, 2, title, &err), 0);
    const char *text = strbuf_text(&out);
    xmlFreeDoc(svg_xml_parse(text)); /* well-formed: no character cut in half */
    assert_non_null(strstr(text, ">gr\xC3\xB6\xC3\x9F""en..</text>"));
    /* the heading is cut with an ellipsis; the SVG's own title keeps the whole of it */
    assert_non_null(strstr(text, "x\xE2\x80\xA6</text>"));
    assert_non_null(strstr(text, title));
    strbuf_free(&out);
}

static void the_same_stacks_in_any_order_give_the_same_picture(void **state)
{
    (void)state;
    flame_stack reversed[6];
    assert_int_equal(flame_fixture_n, 6);
    for (size_t i = 0; i < flame_fixture_n; i++)
        reversed[i] = flame_fixture[flame_fixture_n - 1 - i];
    char *a = draw(flame_fixture, flame_fixture_n), *b = draw(reversed, flame_fixture_n);
    assert_string_equal(a, b);
    free(a);
    free(b);
}

/* A refusal: -1, the kind, a message with the words, and nothing appended. */
static void assert_refused_with(const flame_stack *stacks, size_t n, const flame_stack *frames,
                                size_t n_frames, const char *words)
{
    strbuf out = STRBUF_INIT;
    verdict_error err = {0};
    assert_int_equal(flame_graph_svg_frames(&out, stacks, n, frames, n_frames, "t", &err), -1);
    assert_true(error_is(&err, ERROR_BAD_INPUT));
    if (strstr(err.message, words) == NULL)
        fail_msg("message \"%s\" without \"%s\"", err.message, words);
    assert_int_equal(out.length, 0);
    strbuf_free(&out);
}

static void assert_refused(const flame_stack *stacks, size_t n, const char *words)
{
    assert_refused_with(stacks, n, NULL, 0, words);
}

/* Frame intervals refused over the fixture's stacks. */
static void assert_frames_refused(const flame_stack *frames, size_t n, const char *words)
{
    assert_refused_with(flame_fixture, flame_fixture_n, frames, n, words);
}

static void refuses_what_is_not_a_profile(void **state)
{
    (void)state;
    flame_stack bad[2] = {flame_fixture[0], flame_fixture[1]};
    assert_refused(flame_fixture, 0, "no stacks");
    assert_refused(NULL, 3, "no stacks");
    bad[1].stack = NULL;
    assert_refused(bad, 2, "stack 1 has no frames");
    bad[1] = flame_fixture[1];
    bad[1].baseline_seconds = -0.5;
    assert_refused(bad, 2, "baseline time -0.5 s is not a time");
    bad[1] = flame_fixture[1];
    bad[1].candidate_seconds = NAN;
    assert_refused(bad, 2, "candidate time");
    bad[1] = flame_fixture[1];
    bad[1].change_high = NAN;
    assert_refused(bad, 2, "is not one");
    bad[1] = flame_fixture[1];
    bad[1].change_low = 1;
    assert_refused(bad, 2, "out of order");
    bad[1] = flame_fixture[1];
    bad[1].stack = "main;;run";
    assert_refused(bad, 2, "empty frame");
    flame_stack idle = {"main", 0, 0, NAN, NAN};
    assert_refused(&idle, 1, "none of the 1 stacks has time");
}

static void inner_frames_take_the_intervals_the_profile_gives(void **state)
{
    (void)state;
    const flame_stack frames[] = {
        {"main;run", 0.380, 0.382, -0.020, 0.024},  /* within noise: grey */
        {"main", 0.450, 0.482, 0.020, 0.045},       /* slower: red */
    };
    strbuf out = STRBUF_INIT;
    verdict_error err = {0};
    assert_int_equal(flame_graph_svg_frames(&out, flame_fixture, flame_fixture_n, frames, 2,
                                            "t", &err), 0);
    xmlDocPtr doc = svg_xml_parse(strbuf_text(&out));
    xmlNodePtr svg = xmlDocGetRootElement(doc);
    assert_frame(svg, "run", 250, 760, GREY);
    assert_title(svg, "run", "interval [-20.00 ms, +24.00 ms]: includes 0");
    assert_frame(svg, "main", 10, 1000, RED);
    assert_frame(svg, "all", 10, 1000, SAND); /* not given: still none */
    assert_frame(svg, "slow_part", 410, 200, RED);
    xmlFreeDoc(doc);
    strbuf_free(&out);
}

static void refuses_frame_intervals_that_do_not_fit_the_stacks(void **state)
{
    (void)state;
    const flame_stack unknown = {"main;nowhere", 0.1, 0.1, -0.01, 0.01};
    const flame_stack disagreeing = {"main;run", 0.381, 0.382, -0.01, 0.01};
    const flame_stack twice[] = {{"main", 0.45, 0.482, 0, 0.1}, {"main", 0.45, 0.482, 0, 0.1}};
    const flame_stack negative = {"main", -0.45, 0.482, 0, 0.1};
    assert_frames_refused(&unknown, 1, "not a frame of any stack");
    assert_frames_refused(&disagreeing, 1, "are not the 0.38 s and 0.382 s its stacks add");
    assert_frames_refused(twice, 2, "given twice");
    assert_frames_refused(&negative, 1, "frame interval 0: flame graph: stack 0");
    assert_frames_refused(NULL, 1, "no list");
}

static void the_html_section_heads_explains_and_holds_the_graph(void **state)
{
    (void)state;
    strbuf out = STRBUF_INIT;
    verdict_error err = {0};
    assert_int_equal(html_flame_graph_section(&out, "wall: <B> against A", flame_fixture,
                                              flame_fixture_n, &err), 0);
    const char *text = strbuf_text(&out);
    assert_non_null(strstr(text, "<h2>Differential flame graph: wall: &lt;B&gt; against A</h2>"));
    assert_non_null(strstr(text, "Hover over a box"));
    assert_non_null(strstr(text, "<svg class=\"flame-graph\""));
    assert_non_null(strstr(text, "</svg>\n</figure>\n</section>\n"));
    assert_null(strstr(text, "<rect class=\"flame-frame flame-slower\" x=\"10.00\""));
    strbuf_clear(&out);
    const flame_stack main_slower = {"main", 0.450, 0.482, 0.020, 0.045};
    assert_int_equal(html_flame_graph_section_frames(&out, "x", flame_fixture, flame_fixture_n,
                                                     &main_slower, 1, &err), 0);
    /* main, the one frame at the root's left edge that can be red, has its interval now */
    assert_non_null(strstr(strbuf_text(&out),
                           "<rect class=\"flame-frame flame-slower\" x=\"10.00\""));
    strbuf_clear(&out);
    assert_int_equal(html_flame_graph_section(&out, "x", flame_fixture, 0, &err), -1);
    assert_true(error_is(&err, ERROR_BAD_INPUT));
    assert_int_equal(out.length, 0);
    strbuf_free(&out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(widths_follow_the_baseline_and_callees_sit_on_their_callers),
        cmocka_unit_test(one_variant_stacks_are_marked_and_said_in_the_legend),
        cmocka_unit_test(titles_give_both_times_the_change_and_the_interval),
        cmocka_unit_test(names_are_escaped),
        cmocka_unit_test(labels_are_cut_to_fit_and_left_out_of_narrow_frames),
        cmocka_unit_test(long_titles_and_names_are_cut_at_whole_characters),
        cmocka_unit_test(the_same_stacks_in_any_order_give_the_same_picture),
        cmocka_unit_test(refuses_what_is_not_a_profile),
        cmocka_unit_test(inner_frames_take_the_intervals_the_profile_gives),
        cmocka_unit_test(refuses_frame_intervals_that_do_not_fit_the_stacks),
        cmocka_unit_test(the_html_section_heads_explains_and_holds_the_graph),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    xmlCleanupParser();
    return failed;
}

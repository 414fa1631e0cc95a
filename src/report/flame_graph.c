/* The differential flame graph as SVG: stacks merged into a tree by prefix, each frame as
 * wide as its baseline time and coloured by the change of its total time and its interval. */
#include "report/flame_graph.h"

#include <assert.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "common/hash.h"
#include "common/utf8.h"
#include "report/markup.h"
#include "report/phrases.h"
#include "report/units.h"

#define MARGIN 10.0
#define PLOT_WIDTH 1000.0     /* the frames' width in pixels: the root's */
#define FRAME_HEIGHT 16.0
#define ROW_HEIGHT 17.0       /* a frame and the pixel between rows */
#define FRAMES_TOP 54.0
#define CHAR_WIDTH 6.6        /* an 11px sans-serif character, a little over the average */
#define TITLE_CHAR_WIDTH 8.2  /* at 14px bold */
#define TEXT_PAD 3.0
#define MIN_LABEL_COLUMNS 3   /* "ab.." needs four; narrower frames carry no label */
#define MIN_DRAWN 0.1         /* pixels: narrower frames are left out, as flamegraph.pl does */
#define FULL_COLOUR_AT 0.5    /* a change of half the frame's baseline time: full colour */
#define LEGEND_ROW 18.0
#define ROOT_NAME "all"
#define HEADING "Differential flame graph: "

typedef struct flame_node flame_node;
struct flame_node {
    char *name;                /* NULL for the root, drawn as ROOT_NAME */
    double baseline, candidate; /* the frame's total time: itself and its callees */
    double weight;             /* its width in seconds: the baseline's time, and the candidate's
                                * for the stacks seen only in the candidate */
    size_t n_stacks;           /* stacks with time in this subtree */
    const flame_stack *single; /* that stack when n_stacks is 1: its interval is the frame's */
    const flame_stack *given;  /* the frame's own interval, computed by the profile; or NULL */
    flame_node **children;
    size_t n_children, capacity;
};

/* What the colour says. */
typedef enum { SHADE_SLOWER, SHADE_FASTER, SHADE_WITHIN, SHADE_NO_INTERVAL } flame_shade;

static const char *const shade_class[] = {"flame-slower", "flame-faster", "flame-within",
                                          "flame-no-interval"};

typedef struct {
    strbuf *svg;
    double scale;              /* pixels per second of weight */
    size_t levels;             /* rows: the deepest stack's frames and the root */
    char hatch_id[40];         /* unique per graph, so that two graphs on a page keep theirs */
    size_t drawn, hidden;
} flame_layout;

/* ---- the input ---- */

static bool has_empty_frame(const char *stack)
{
    size_t n = strlen(stack);
    return n == 0 || stack[0] == ';' || stack[n - 1] == ';' || strstr(stack, ";;") != NULL;
}

static int check_time(const flame_stack *s, size_t i, const char *which, double seconds,
                      verdict_error *err)
{
    if (isfinite(seconds) && seconds >= 0)
        return 0;
    return error_set(err, ERROR_BAD_INPUT, "flame graph: stack %zu (%.200s): %s time %g s is "
                     "not a time (negative or not finite)", i, s->stack, which, seconds);
}

/* An interval is both ends NaN (none) or finite ends in order. */
static int check_interval(const flame_stack *s, size_t i, verdict_error *err)
{
    bool none = isnan(s->change_low) && isnan(s->change_high);
    bool valid = isfinite(s->change_low) && isfinite(s->change_high) &&
                 s->change_low <= s->change_high;
    if (none || valid)
        return 0;
    return error_set(err, ERROR_BAD_INPUT, "flame graph: stack %zu (%.200s): the interval "
                     "[%g, %g] is not one (ends out of order, or only one of them NaN)", i,
                     s->stack, s->change_low, s->change_high);
}

static int check_stack(const flame_stack *s, size_t i, verdict_error *err)
{
    if (s->stack == NULL)
        return error_set(err, ERROR_BAD_INPUT, "flame graph: stack %zu has no frames (NULL)", i);
    if (has_empty_frame(s->stack))
        return error_set(err, ERROR_BAD_INPUT, "flame graph: stack %zu (\"%.200s\") has an "
                         "empty frame name", i, s->stack);
    if (check_time(s, i, "baseline", s->baseline_seconds, err) != 0 ||
        check_time(s, i, "candidate", s->candidate_seconds, err) != 0)
        return -1;
    return check_interval(s, i, err);
}

/* ---- the tree ---- */

static void free_node(flame_node *node)
{
    for (size_t i = 0; i < node->n_children; i++) {
        free_node(node->children[i]);
        free(node->children[i]);
    }
    free(node->children);
    free(node->name);
}

static flame_node *child_named(flame_node *parent, const char *name, size_t length)
{
    for (size_t i = 0; i < parent->n_children; i++) {
        flame_node *c = parent->children[i];
        if (strncmp(c->name, name, length) == 0 && c->name[length] == '\0')
            return c;
    }
    return NULL;
}

/* The child of that name, added when it is new; NULL when out of memory. */
static flame_node *child_for(flame_node *parent, const char *name, size_t length)
{
    flame_node *c = child_named(parent, name, length);
    if (c != NULL)
        return c;
    if (array_reserve((void **)&parent->children, &parent->capacity, parent->n_children + 1,
                      sizeof *parent->children) != 0 ||
        (c = calloc(1, sizeof *c)) == NULL)
        return NULL;
    c->name = strndup(name, length);
    if (c->name == NULL) {
        free(c);
        return NULL;
    }
    parent->children[parent->n_children++] = c;
    return c;
}

/* A stack's width: its baseline time, or its candidate time when only the candidate ran it. */
static double stack_weight(const flame_stack *s)
{
    return s->baseline_seconds > 0 ? s->baseline_seconds : s->candidate_seconds;
}

static void add_time(flame_node *node, const flame_stack *s)
{
    node->baseline += s->baseline_seconds;
    node->candidate += s->candidate_seconds;
    node->weight += stack_weight(s);
    node->single = node->n_stacks == 0 ? s : NULL;
    node->n_stacks++;
}

/* Adds the stack's time to the root and to every frame along it; *depth gets its frames. */
static int add_stack(flame_node *root, const flame_stack *s, size_t *depth)
{
    flame_node *node = root;
    const char *frame = s->stack;
    *depth = 0;
    add_time(root, s);
    while (frame != NULL) {
        const char *end = strchr(frame, ';');
        size_t length = end ? (size_t)(end - frame) : strlen(frame);
        node = child_for(node, frame, length);
        if (node == NULL)
            return -1;
        add_time(node, s);
        (*depth)++;
        frame = end ? end + 1 : NULL;
    }
    return 0;
}

static int compare_names(const void *a, const void *b)
{
    const flame_node *x = *(const flame_node *const *)a, *y = *(const flame_node *const *)b;
    return strcmp(x->name, y->name);
}

/* Callees ordered by name, so the same stacks always give the same picture. */
static void sort_tree(flame_node *node)
{
    if (node->n_children == 0)
        return; /* a leaf has no array: qsort must not see NULL */
    qsort(node->children, node->n_children, sizeof *node->children, compare_names);
    for (size_t i = 0; i < node->n_children; i++)
        sort_tree(node->children[i]);
}

/* Stacks without time in either variant are checked but add nothing (no frame of width 0). */
static int build_tree(flame_node *root, const flame_stack *stacks, size_t n, size_t *levels,
                      verdict_error *err)
{
    *levels = 1;
    for (size_t i = 0; i < n; i++) {
        size_t depth = 0;
        if (check_stack(&stacks[i], i, err) != 0)
            return -1;
        if (stack_weight(&stacks[i]) == 0)
            continue;
        if (add_stack(root, &stacks[i], &depth) != 0)
            return error_no_memory(err);
        *levels = depth + 1 > *levels ? depth + 1 : *levels;
    }
    if (!(root->weight > 0))
        return error_set(err, ERROR_BAD_INPUT, "flame graph: none of the %zu stacks has time "
                         "in either variant", n);
    sort_tree(root);
    return 0;
}

/* ---- the frames' own intervals ---- */

static flame_node *node_at(flame_node *root, const char *path)
{
    flame_node *node = root;
    const char *frame = path;
    while (node != NULL && frame != NULL) {
        const char *end = strchr(frame, ';');
        node = child_named(node, frame, end ? (size_t)(end - frame) : strlen(frame));
        frame = end ? end + 1 : NULL;
    }
    return node;
}

/* Whether a given total is the one the stacks add up to (both are sums of the same
 * measurements, so they differ only by rounding). */
static bool same_total(double given, double added)
{
    return fabs(given - added) <= 1e-9 * fmax(fabs(given), fabs(added)) + 1e-15;
}

static int attach_frame(flame_node *root, const flame_stack *f, size_t i, verdict_error *err)
{
    if (check_stack(f, i, err) != 0)
        return error_prefix(err, "frame interval %zu", i);
    flame_node *node = node_at(root, f->stack);
    if (node == NULL)
        return error_set(err, ERROR_BAD_INPUT, "flame graph: frame interval %zu (%.200s) is "
                         "not a frame of any stack with time", i, f->stack);
    if (node->given != NULL)
        return error_set(err, ERROR_BAD_INPUT, "flame graph: frame %.200s is given twice "
                         "(frame interval %zu repeats it)", f->stack, i);
    if (!same_total(f->baseline_seconds, node->baseline) ||
        !same_total(f->candidate_seconds, node->candidate))
        return error_set(err, ERROR_BAD_INPUT, "flame graph: frame %.200s: its times %g s and "
                         "%g s are not the %g s and %g s its stacks add up to", f->stack,
                         f->baseline_seconds, f->candidate_seconds, node->baseline,
                         node->candidate);
    node->given = f;
    return 0;
}

/* ---- colours ---- */

/* The frame's interval: its own when the profile gave one; a frame whose time is one
 * stack's has that stack's. A frame over several stacks has none otherwise: the per-stack
 * intervals come from the same blocks, and the sum of their ends is not an interval of
 * the sum at any stated level. */
static bool frame_interval(const flame_node *node, double *low, double *high)
{
    const flame_stack *from = node->given ? node->given
                              : node->n_stacks == 1 ? node->single : NULL;
    if (from == NULL || isnan(from->change_low))
        return false;
    *low = from->change_low;
    *high = from->change_high;
    return true;
}

static flame_shade shade_of(const flame_node *node)
{
    double low, high;
    if (!frame_interval(node, &low, &high))
        return SHADE_NO_INTERVAL;
    return low > 0 ? SHADE_SLOWER : high < 0 ? SHADE_FASTER : SHADE_WITHIN;
}

/* How strong the colour is, 0..1: the change against the frame's baseline time (a frame
 * only in the candidate is new, the strongest). */
static double strength(const flame_node *node)
{
    if (!(node->baseline > 0))
        return 1;
    return fmin(1, fabs(node->candidate - node->baseline) / node->baseline / FULL_COLOUR_AT);
}

/* A shade's fill, for the frames and the legend alike: red or blue from pale to strong as
 * strength goes from 0 to 1 (the weakest still reads as red or blue), grey and sand flat. */
static void shade_colour(flame_shade shade, double strength, int rgb[3])
{
    static const int pale[2][3] = {{250, 214, 204}, {208, 224, 250}};
    static const int strong[2][3] = {{204, 32, 32}, {32, 92, 196}};
    static const int neutral[2][3] = {{196, 196, 196}, {232, 222, 190}}; /* grey, sand */
    if (shade == SHADE_WITHIN || shade == SHADE_NO_INTERVAL) {
        memcpy(rgb, neutral[shade == SHADE_NO_INTERVAL], sizeof neutral[0]);
        return;
    }
    assert(shade == SHADE_SLOWER || shade == SHADE_FASTER);
    double t = 0.25 + 0.75 * strength;
    for (int c = 0; c < 3; c++)
        rgb[c] = (int)lround(pale[shade][c] + (strong[shade][c] - pale[shade][c]) * t);
}

/* Dark text on light frames, white on strong ones. */
static const char *text_colour(const int rgb[3])
{
    return 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2] < 140 ? "#fff" : "#000";
}

/* ---- texts ---- */

static void append_time(strbuf *b, double seconds, units_time unit, bool sign)
{
    char text[48];
    units_format_time(fabs(seconds), unit, text, sizeof text);
    if (sign)
        strbuf_append(b, seconds < 0 ? "-" : "+");
    strbuf_append(b, text);
}

static void append_change(strbuf *b, const flame_node *node, units_time unit)
{
    char percent[PHRASES_NUMBER];
    strbuf_append(b, "\nchange ");
    append_time(b, node->candidate - node->baseline, unit, true);
    if (node->baseline > 0) {
        phrases_percent(node->candidate / node->baseline, percent, sizeof percent);
        strbuf_appendf(b, " (%s)", percent);
    }
}

static void append_interval(strbuf *b, const flame_node *node, units_time unit)
{
    double low, high;
    if (frame_interval(node, &low, &high)) {
        strbuf_append(b, ", interval [");
        append_time(b, low, unit, true);
        strbuf_append(b, ", ");
        append_time(b, high, unit, true);
        strbuf_append(b, low > 0 || high < 0 ? "]" : "]: includes 0, within noise");
    } else if (node->given != NULL || node->n_stacks == 1) {
        strbuf_appendf(b, "\nno interval: none was computed for this %s",
                       node->given ? "frame" : "stack");
    } else {
        strbuf_appendf(b, "\nno interval: its time is the sum of %zu stacks, whose separate "
                       "intervals do not make one for the sum", node->n_stacks);
    }
}

/* The frame's tooltip: name, both times (with callees), the change and its interval. */
static void append_title(strbuf *b, const flame_node *node)
{
    units_time unit = units_pick(fmax(node->baseline, node->candidate), UNITS_AUTO);
    strbuf_append(b, "<title>");
    markup_append_escaped(b, node->name ? node->name : ROOT_NAME);
    strbuf_append(b, "\nbaseline ");
    append_time(b, node->baseline, unit, false);
    strbuf_append(b, ", candidate ");
    append_time(b, node->candidate, unit, false);
    strbuf_append(b, " (with its callees)");
    append_change(b, node, unit);
    append_interval(b, node, unit);
    if (!(node->baseline > 0))
        strbuf_append(b, "\nonly in the candidate: as wide as its candidate time");
    else if (!(node->candidate > 0))
        strbuf_append(b, "\nonly in the baseline");
    strbuf_append(b, "</title>");
}

/* The text escaped, cut to `columns` with MARK at the end when it is wider ("slow_p..").
 * MARK must fit in columns. */
static void append_cut(strbuf *b, const char *text, size_t columns, const char *mark)
{
    if (utf8_width(text) <= columns) {
        markup_append_escaped(b, text);
        return;
    }
    assert(utf8_width(mark) <= columns);
    markup_append_escaped_prefix(b, text, utf8_prefix_for_width(text, columns - utf8_width(mark)));
    strbuf_append(b, mark);
}

/* Characters a frame of this width has room for. */
static size_t label_columns(double width)
{
    double room = (width - 2 * TEXT_PAD) / CHAR_WIDTH;
    return room > 0 ? (size_t)room : 0;
}

static bool label_fits(double width)
{
    return label_columns(width) >= MIN_LABEL_COLUMNS;
}

/* ---- drawing ---- */

static const char *variant_class(const flame_node *node)
{
    if (!(node->baseline > 0))
        return " flame-candidate-only";
    return node->candidate > 0 ? "" : " flame-baseline-only";
}

/* The outline says a frame is in one variant only: solid and hatched for the candidate's,
 * dashed for the baseline's. */
static const char *outline_of(const flame_node *node)
{
    if (!(node->baseline > 0))
        return " stroke=\"#222\" stroke-width=\"1\"";
    return node->candidate > 0 ? " stroke=\"#fff\" stroke-width=\"0.5\""
                               : " stroke=\"#222\" stroke-width=\"1\" stroke-dasharray=\"3 2\"";
}

/* Stripes over a box; a path, not a rect, so that every rect is a frame or a key. */
static void draw_hatch(const flame_layout *l, double x, double y, double width, double height)
{
    strbuf_appendf(l->svg, "<path class=\"flame-hatch\" d=\"M%.2f,%.2fh%.2fv%.2fh%.2fz\" "
                   "fill=\"url(#%s)\" pointer-events=\"none\"/>\n", x, y, width, height,
                   -width, l->hatch_id);
}

static void draw_frame(flame_layout *l, const flame_node *node, double x, double y,
                       double width)
{
    strbuf *b = l->svg;
    flame_shade shade = shade_of(node);
    int rgb[3];
    shade_colour(shade, strength(node), rgb);
    strbuf_appendf(b, "<rect class=\"flame-frame %s%s\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
                   "height=\"%.2f\" fill=\"#%02x%02x%02x\"%s>", shade_class[shade],
                   variant_class(node), x, y, width, FRAME_HEIGHT, rgb[0], rgb[1], rgb[2],
                   outline_of(node));
    append_title(b, node);
    strbuf_append(b, "</rect>\n");
    if (!(node->baseline > 0))
        draw_hatch(l, x, y, width, FRAME_HEIGHT);
    if (!label_fits(width))
        return;
    strbuf_appendf(b, "<text x=\"%.2f\" y=\"%.2f\" fill=\"%s\" pointer-events=\"none\">",
                   x + TEXT_PAD, y + FRAME_HEIGHT - 4, text_colour(rgb));
    append_cut(b, node->name ? node->name : ROOT_NAME, label_columns(width), "..");
    strbuf_append(b, "</text>\n");
}

/* A frame and its callees above it, left to right by name; the callees' widths add up to
 * at most the frame's, the rest being its own time. */
static void draw_subtree(flame_layout *l, const flame_node *node, double x, size_t depth)
{
    double width = node->weight * l->scale;
    if (width < MIN_DRAWN) {
        l->hidden++;
        return;
    }
    assert(depth < l->levels);
    double y = FRAMES_TOP + (double)(l->levels - 1 - depth) * ROW_HEIGHT;
    draw_frame(l, node, x, y, width);
    l->drawn++;
    for (size_t i = 0; i < node->n_children; i++) {
        draw_subtree(l, node->children[i], x, depth + 1);
        x += node->children[i]->weight * l->scale;
    }
}

static void draw_text(strbuf *b, double x, double y, const char *attributes, const char *text)
{
    strbuf_appendf(b, "<text x=\"%.1f\" y=\"%.1f\"%s>", x, y, attributes);
    markup_append_escaped(b, text);
    strbuf_append(b, "</text>\n");
}

static void draw_key(strbuf *b, double x, double y, const int rgb[3], const char *extra,
                     const char *words)
{
    strbuf_appendf(b, "<rect class=\"flame-key\" x=\"%.1f\" y=\"%.1f\" width=\"14\" "
                   "height=\"12\" fill=\"#%02x%02x%02x\"%s/>\n", x, y, rgb[0], rgb[1], rgb[2],
                   extra);
    draw_text(b, x + 19, y + 10, "", words);
}

/* A key in a shade's strongest fill. */
static void draw_shade_key(strbuf *b, double x, double y, flame_shade shade, const char *words)
{
    int rgb[3];
    shade_colour(shade, 1, rgb);
    draw_key(b, x, y, rgb, "", words);
}

static void draw_legend(const flame_layout *l, double y)
{
    strbuf *b = l->svg;
    static const int white[3] = {255, 255, 255};
    draw_shade_key(b, MARGIN, y, SHADE_SLOWER, "slower (stronger: a larger change)");
    draw_shade_key(b, MARGIN + 250, y, SHADE_FASTER, "faster");
    draw_shade_key(b, MARGIN + 340, y, SHADE_WITHIN, "interval includes 0");
    draw_shade_key(b, MARGIN + 500, y, SHADE_NO_INTERVAL,
                   "no interval (a sum of stacks, or none given)");
    y += LEGEND_ROW;
    draw_key(b, MARGIN, y, white, " stroke=\"#222\"",
             "only in the candidate: as wide as its candidate time");
    draw_hatch(l, MARGIN, y, 14, 12);
    draw_key(b, MARGIN + 340, y, white, " stroke=\"#222\" stroke-dasharray=\"3 2\"",
             "only in the baseline");
}

/* One diagonal stripe pattern per graph, named from its input so that two graphs on a page
 * keep theirs apart; a sum over the stacks, so that their order does not change it. */
static void hatch_id_for(flame_layout *l, const flame_stack *stacks, size_t n,
                         const char *title)
{
    uint64_t start = hash_fnv1a_text(HASH_FNV_OFFSET, title ? title : ""), h = start;
    for (size_t i = 0; i < n; i++)
        h += hash_fnv1a_text(start, stacks[i].stack);
    snprintf(l->hatch_id, sizeof l->hatch_id, "flame-hatch-%016llx", (unsigned long long)h);
}

static void open_svg(const flame_layout *l, const char *title, int width, int height)
{
    strbuf *b = l->svg;
    size_t columns = (size_t)((width - 2 * MARGIN) / TITLE_CHAR_WIDTH);
    strbuf_appendf(b, "<svg class=\"flame-graph\" viewBox=\"0 0 %d %d\" width=\"%d\" "
                   "height=\"%d\" role=\"img\" font-family=\"sans-serif\" font-size=\"11\">\n"
                   "<title>", width, height, width, height);
    strbuf_append(b, HEADING);
    markup_append_escaped(b, title ? title : "");
    strbuf_appendf(b, "</title>\n<defs><pattern id=\"%s\" width=\"6\" height=\"6\" "
                   "patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">"
                   "<rect width=\"2\" height=\"6\" fill=\"#000\" fill-opacity=\"0.3\"/>"
                   "</pattern></defs>\n", l->hatch_id);
    strbuf_appendf(b, "<rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n", width, height);
    strbuf_appendf(b, "<text x=\"%.1f\" y=\"22\" font-size=\"14\" font-weight=\"bold\">"
                   HEADING, MARGIN);
    assert(columns > sizeof HEADING);
    append_cut(b, title ? title : "", columns - (sizeof HEADING - 1), "\xE2\x80\xA6");
    strbuf_append(b, "</text>\n");
    draw_text(b, MARGIN, 40, " fill=\"#444\"", "Width: the baseline's time. Colour: the change of "
              "a frame's time with its callees (red slower, blue faster, grey: the interval "
              "includes 0). Hover for the numbers.");
}

static void write_svg(flame_layout *l, const flame_node *root, const char *title)
{
    double frames_bottom = FRAMES_TOP + (double)l->levels * ROW_HEIGHT;
    int width = (int)(PLOT_WIDTH + 2 * MARGIN);
    int height = (int)ceil(frames_bottom + 8 + 2 * LEGEND_ROW + MARGIN);
    open_svg(l, title, width, height);
    strbuf_append(l->svg, "<g class=\"flame-frames\">\n");
    draw_subtree(l, root, MARGIN, 0);
    strbuf_append(l->svg, "</g>\n");
    draw_legend(l, frames_bottom + 8);
    strbuf_appendf(l->svg, "<desc>%zu frames drawn; %zu narrower than %g pixel left out with "
                   "their callees.</desc>\n</svg>\n", l->drawn, l->hidden, MIN_DRAWN);
}

int flame_graph_svg(strbuf *out, const flame_stack *stacks, size_t n, const char *title,
                    verdict_error *err)
{
    return flame_graph_svg_frames(out, stacks, n, NULL, 0, title, err);
}

int flame_graph_svg_frames(strbuf *out, const flame_stack *stacks, size_t n,
                           const flame_stack *frames, size_t n_frames, const char *title,
                           verdict_error *err)
{
    flame_node root = {0};
    strbuf svg = STRBUF_INIT;
    flame_layout l = {.svg = &svg};
    int rc = -1;
    if (out == NULL) {
        error_set(err, ERROR_INTERNAL, "flame graph: no output");
        goto done;
    }
    if (n_frames > 0 && frames == NULL) {
        error_set(err, ERROR_BAD_INPUT, "flame graph: %zu frame intervals, and no list of them",
                  n_frames);
        goto done;
    }
    if (n == 0 || stacks == NULL) {
        error_set(err, ERROR_BAD_INPUT, "flame graph of %.200s: no stacks to draw",
                  title ? title : "a comparison");
        goto done;
    }
    if (build_tree(&root, stacks, n, &l.levels, err) != 0)
        goto done;
    for (size_t i = 0; i < n_frames; i++)
        if (attach_frame(&root, &frames[i], i, err) != 0)
            goto done;
    l.scale = PLOT_WIDTH / root.weight;
    hatch_id_for(&l, stacks, n, title);
    write_svg(&l, &root, title);
    if (strbuf_status(&svg) == 0)
        strbuf_append(out, strbuf_text(&svg));
    rc = strbuf_status(&svg) == 0 && strbuf_status(out) == 0 ? 0 : error_no_memory(err);
done:
    free_node(&root);
    strbuf_free(&svg);
    return rc;
}

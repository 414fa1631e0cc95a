/* The flame graph's section of the HTML report: the graph is drawn into its own builder
 * first, so that a refused graph leaves the page without half a section. */
#include "report/html_flame.h"

#include "report/markup.h"

static const char how_to_read[] =
    "<p class=\"note\">Each box is a function in a call stack, its callers below it. A box "
    "is as wide as the baseline's time in it and its callees; boxes only the candidate ran "
    "are hatched and as wide as the candidate's time. The colour is the change of that time: "
    "red slower, blue faster, deeper for a larger change, grey when the change's interval "
    "includes 0 (within noise), sand when it has no interval (a box over several stacks has "
    "one only where the profile computed it: their own intervals do not add up to one). "
    "Hover over a box for both times, the change and its interval.</p>\n";

int html_flame_graph_section(strbuf *out, const char *comparison_name,
                             const flame_stack *stacks, size_t n, verdict_error *err)
{
    return html_flame_graph_section_frames(out, comparison_name, stacks, n, NULL, 0, err);
}

int html_flame_graph_section_frames(strbuf *out, const char *comparison_name,
                                    const flame_stack *stacks, size_t n,
                                    const flame_stack *frames, size_t n_frames,
                                    verdict_error *err)
{
    strbuf svg = STRBUF_INIT;
    int rc = -1;
    if (flame_graph_svg_frames(&svg, stacks, n, frames, n_frames, comparison_name, err) != 0) {
        error_prefix(err, "HTML report");
        goto done;
    }
    strbuf_append(out, "<section class=\"flame\">\n<h2>Differential flame graph: ");
    markup_append_escaped(out, comparison_name ? comparison_name : "");
    strbuf_append(out, "</h2>\n");
    strbuf_append(out, how_to_read);
    strbuf_append(out, "<figure>\n");
    strbuf_append(out, strbuf_text(&svg));
    strbuf_append(out, "</figure>\n</section>\n");
    rc = strbuf_status(out) == 0 ? 0 : error_no_memory(err);
done:
    strbuf_free(&svg);
    return rc;
}

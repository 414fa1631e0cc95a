/* The HTML report's section for one comparison's differential flame graph: a heading, how
 * to read it, and the graph as inline SVG (report/flame_graph.c). */
#ifndef VERDICT_REPORT_HTML_FLAME_H
#define VERDICT_REPORT_HTML_FLAME_H

#include <stddef.h>

#include "common/error.h"
#include "common/strbuf.h"
#include "report/flame_graph.h"

/* Appends the section to OUT; COMPARISON_NAME (e.g. "wall: B against A") heads it and
 * titles the graph. 0, or -1 with flame_graph_svg's message (no stacks, a negative time,
 * out of memory) and nothing appended. */
int html_flame_graph_section(strbuf *out, const char *comparison_name,
                             const flame_stack *stacks, size_t n, verdict_error *err);
/* The same with the inner frames' own intervals (flame_graph_svg_frames). */
int html_flame_graph_section_frames(strbuf *out, const char *comparison_name,
                                    const flame_stack *stacks, size_t n,
                                    const flame_stack *frames, size_t n_frames,
                                    verdict_error *err);

#endif

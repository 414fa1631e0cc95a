/* The HTML report's profiles: for each profiled comparison, the sentence of where the change
 * went (report/phrases.c) and its differential flame graph (report/html_flame.c). */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/strbuf.h"
#include "report/html_flame.h"
#include "report/markup.h"
#include "report/html_profiles.h"
#include "report/profile_stacks.h"

bool html_has_profiles(const report_input *in)
{
    if (in->profiles == NULL)
        return false;
    for (size_t k = 0; k < in->analysis->n_comparisons; k++)
        if (in->profiles[k].n_stacks > 0)
            return true;
    return false;
}

/* One comparison's section: its graph, or the reason it has none said in place. */
static int write_one(FILE *out, const report_input *in, size_t k)
{
    const analysis_comparison *c = &in->analysis->comparisons[k];
    const analysis_series *b = &in->series[c->baseline], *x = &in->series[c->candidate];
    char name[512];
    snprintf(name, sizeof name, "%s, %s: %s against %s", b->point, b->metric, x->variant,
             b->variant);
    flame_stack *stacks = NULL;
    size_t n = 0;
    verdict_error err = {0};
    strbuf section = STRBUF_INIT;
    int rc = profile_flame_stacks(&in->profiles[k], &stacks, &n, &err);
    if (rc == 0 && html_flame_graph_section(&section, name, stacks, n, &err) == 0) {
        fputs(strbuf_text(&section), out);
    } else if (rc == 0 && !error_is(&err, ERROR_NO_MEMORY)) {
        /* a graph the renderer refuses (a negative time...) is said in place, not fatal */
        fputs("<p class=\"note\">", out);
        markup_write_escaped(out, name);
        fputs(": no flame graph (", out);
        markup_write_escaped(out, err.message);
        fputs(").</p>\n", out);
    } else {
        rc = -1;
    }
    strbuf_free(&section);
    free(stacks);
    return rc;
}

int html_profiles(FILE *out, const report_input *in)
{
    assert(in->profiles != NULL);
    fprintf(out, "<h2>Where the change went</h2>\n<p class=\"note\">Profiled runs (%s), kept "
            "apart from the timed ones: docs/profiles.md.</p>\n",
            in->profile_event ? in->profile_event : "perf");
    int rc = 0;
    for (size_t k = 0; rc == 0 && k < in->analysis->n_comparisons; k++)
        if (in->profiles[k].n_stacks > 0)
            rc = write_one(out, in, k);
    return rc;
}

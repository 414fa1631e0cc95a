/* The forest plot of a pooled comparison, built from the report's input: one row per
 * machine (its own comparison, or "no successful runs"), the pooled change, a new machine. */
#include "report/fleet_charts.h"

#include <math.h>
#include <stdlib.h>

#include "common/error.h"
#include "report/forest_plot.h"
#include "stats/verdict_rules.h"

/* The machines of the pool, then those whose every run failed (never pooled). */
static size_t forest_rows(const report_input *in, const analysis_fleet *f, forest_row *rows)
{
    size_t n = 0;
    for (size_t j = 0; j < f->n_machines; j++) {
        const analysis_comparison *c = &in->analysis->comparisons[f->members[j]];
        rows[n++] = (forest_row){analysis_comparison_machine(in->series, c),
                                 c->ok ? c->result.ratio : NAN, c->ok ? c->result.ci_low : NAN,
                                 c->ok ? c->result.ci_high : NAN,
                                 c->ok ? verdict_kind_name(c->result.decision.kind)
                                       : "no result"};
    }
    for (size_t m = 0; m < in->n_machines; m++)
        if (in->machines[m].samples > 0 && in->machines[m].failed == in->machines[m].samples)
            rows[n++] = (forest_row){in->machines[m].name, NAN, NAN, NAN, NULL};
    return n;
}

int fleet_forest_write(const report_input *in, const analysis_fleet *f, FILE *out,
                       bool standalone, verdict_error *err)
{
    forest_row *rows = calloc(f->n_machines + in->n_machines + 1, sizeof *rows);
    if (rows == NULL)
        return error_set(err, ERROR_NO_MEMORY, "out of memory while drawing a forest plot");
    char title[512];
    snprintf(title, sizeof title, "%s%s%s: %s against %s", f->metric,
             in->n_points > 1 ? ", " : "", in->n_points > 1 ? f->point : "", f->candidate,
             f->baseline);
    forest_plot plot = {title, rows, forest_rows(in, f, rows), f->ok ? f->ratio : NAN,
                        f->ok ? f->ci_low : NAN, f->ok ? f->ci_high : NAN,
                        f->ok ? f->predict_low : NAN, f->ok ? f->predict_high : NAN,
                        f->confidence};
    int rc = forest_plot_write(&plot, out, standalone, err);
    free(rows);
    return rc;
}

/* Markdown export: the verdict table and the per-variant summaries, for a mail, a wiki
 * or a pull request. Text from commands is escaped so it cannot break the tables. */
#include <math.h>
#include <string.h>

#include "report/output_file.h"
#include "report/report.h"
#include "report/report_query.h"
#include "stats/verdict_rules.h"

static void write_cell(FILE *f, const char *text)
{
    fputc(' ', f);
    for (const char *c = text; *c; c++) {
        if (*c == '|' || *c == '\\' || *c == '`' || *c == '*' || *c == '_' || *c == '<')
            fputc('\\', f);
        fputc(*c == '\n' ? ' ' : *c, f);
    }
    fputs(" |", f);
}

static void write_percent_cell(FILE *f, double ratio)
{
    fprintf(f, " %+.2f%% |", (ratio - 1.0) * 100.0);
}

static void write_comparisons(FILE *f, const report_input *in)
{
    fputs("| point | metric | baseline | candidate | change | interval | p | verdict |\n"
          "| --- | --- | --- | --- | ---: | --- | ---: | --- |\n", f);
    for (size_t k = 0; k < in->analysis->n_comparisons; k++) {
        const analysis_comparison *c = &in->analysis->comparisons[k];
        const analysis_series *b = &in->series[c->baseline], *x = &in->series[c->candidate];
        fputc('|', f);
        write_cell(f, b->point);
        write_cell(f, b->metric);
        write_cell(f, b->variant);
        write_cell(f, x->variant);
        if (!c->ok) {
            fputs(" | | | inconclusive (", f);
            fputs(c->error, f);
            fputs(") |\n", f);
            continue;
        }
        const comparison *r = &c->result;
        write_percent_cell(f, r->ratio);
        fprintf(f, " %s%+.2f%%, %+.2f%%%s at %.4g%% |", query_low_bracket(r),
                (r->ci_low - 1) * 100, (r->ci_high - 1) * 100, query_high_bracket(r),
                r->achieved_confidence * 100);
        fprintf(f, " %.2g |", r->p_value);
        fprintf(f, " %s%s", verdict_kind_name(r->decision.kind),
                r->decision.negligible ? " (negligible)" : "");
        if (r->decision.kind == VERDICT_INCONCLUSIVE && r->decision.needed_blocks >= 0)
            fprintf(f, ": about %ld more runs per side", r->decision.needed_blocks);
        fputs(" |\n", f);
    }
}

static void write_summaries(FILE *f, const report_input *in)
{
    fputs("\n| point | metric | variant | n | median | CV | min | max |\n"
          "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |\n", f);
    for (size_t i = 0; i < in->n_series; i++) {
        const stats_summary *s = &in->analysis->summaries[i];
        fputc('|', f);
        write_cell(f, in->series[i].point);
        write_cell(f, in->series[i].metric);
        write_cell(f, in->series[i].variant);
        fprintf(f, " %zu | %.6g | %.2f%% | %.6g | %.6g |\n", s->n, s->median, s->cv * 100,
                s->min, s->max);
    }
}

static void write_warnings(FILE *f, const report_input *in)
{
    if (in->analysis->n_warnings == 0)
        return;
    fputs("\nWarnings:\n\n", f);
    for (size_t i = 0; i < in->analysis->n_warnings; i++) {
        fputs("- `", f);
        fputs(in->analysis->warnings[i].code, f);
        fputs("`:", f);
        write_cell(f, in->analysis->warnings[i].message);
        fputc('\n', f);
    }
}

int report_write_markdown(const report_input *in, const char *path, char *err, size_t errlen)
{
    output_file out;
    if (output_open(&out, path, err, errlen) != 0)
        return -1;
    fprintf(out.stream, "## %s\n\n%s, %g%% confidence, margin ±%g%%\n\n", in->experiment_name,
            comparison_method_name(in->options->method, in->options->paired),
            in->options->confidence * 100, in->options->margin * 100);
    write_comparisons(out.stream, in);
    write_summaries(out.stream, in);
    write_warnings(out.stream, in);
    return output_commit(&out, err, errlen);
}

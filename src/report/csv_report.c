/* CSV export: one row per sample, with every metric as a column, for spreadsheets and R.
 * Fields are quoted as RFC 4180 says when they hold commas or quotes; text fields cannot
 * start a formula and their control characters are shown as \xNN. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/output_file.h"
#include "common/error.h"
#include "report/plain_text.h"
#include "report/report.h"

/* A text field (never a number): a name starting with = + - @ would be a formula in a
 * spreadsheet ("=HYPERLINK(...)"), so it gets a leading apostrophe, as OWASP advises;
 * control characters (newlines included) are escaped, so that every row is one line. */
static void write_field(FILE *f, const char *text)
{
    if (text == NULL)
        return;
    char *visible = plain_escaped_copy(text);
    const char *shown = visible ? visible : "(out of memory)";
    bool formula = plain_is_formula_start(shown);
    if (strpbrk(shown, ",\"") == NULL && !formula) {
        fputs(shown, f);
        free(visible);
        return;
    }
    fputc('"', f);
    if (formula)
        fputc('\'', f);
    for (const char *c = shown; *c; c++) {
        if (*c == '"')
            fputc('"', f);
        fputc(*c, f);
    }
    fputc('"', f);
    free(visible);
}

static void write_number(FILE *f, double x)
{
    if (isfinite(x))
        fprintf(f, "%.17g", x);
}

/* The metric columns: the names of the first sample (every sample has the same). */
static void write_header(FILE *f, const report_input *in)
{
    /* a fleet's samples say which machine took them (one machine's files stay as they were) */
    fputs(in->n_machines > 1 ? "seq,point,variant,machine," : "seq,point,variant,", f);
    fputs("block,exit,tainted,taint_reason,started,steal,other_busy,load1", f);
    if (in->n_samples > 0)
        for (size_t k = 0; k < in->samples[0].n_metrics; k++) {
            fputc(',', f);
            write_field(f, in->samples[0].metric_names[k]);
        }
    fputc('\n', f);
}

static void write_row(FILE *f, const report_sample *s, bool fleet)
{
    fprintf(f, "%ld,", s->seq);
    write_field(f, s->point);
    fputc(',', f);
    write_field(f, s->variant);
    fputc(',', f);
    if (fleet) {
        write_field(f, s->machine);
        fputc(',', f);
    }
    if (s->block >= 0)
        fprintf(f, "%ld", s->block);
    fprintf(f, ",%d,%s,", s->exit_code, s->tainted ? "true" : "false");
    write_field(f, s->tainted ? s->taint_reason : NULL);
    double extra[4] = {s->started, s->steal, s->other_busy, s->load1};
    for (size_t i = 0; i < 4; i++) {
        fputc(',', f);
        if (s->has_interference)
            write_number(f, extra[i]);
    }
    for (size_t k = 0; k < s->n_metrics; k++) {
        fputc(',', f);
        write_number(f, s->metric_values[k]);
    }
    fputc('\n', f);
}

int report_write_csv(const report_input *in, const char *path, verdict_error *err)
{
    output_file out;
    if (output_open(&out, path, err) != 0)
        return -1;
    write_header(out.stream, in);
    for (size_t i = 0; i < in->n_samples; i++)
        write_row(out.stream, &in->samples[i], in->n_machines > 1);
    return output_commit(&out, err);
}

/* The report of an experiment from its store: the complete blocks of every point analysed
 * together (family-wise), the warnings the run left, the text report and the exports. */
#ifndef VERDICT_LAB_LAB_REPORT_H
#define VERDICT_LAB_LAB_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "common/error.h"
#include "core/analysis.h"
#include "core/experiment.h"
#include "lab/results.h"
#include "report/report.h"
#include "store/store.h"

typedef struct {
    analysis_options analysis;   /* the family's confidence, margin, method, adjustment */
    report_exports exports;
    FILE *text;                  /* the terminal report goes here; NULL: none */
    report_text_style text_style; /* its look (units, colour, order, headlines) */
} lab_report_options;

/* The analysis options an experiment asks for: wilcoxon, paired by block, holm, its own
 * confidence and margin. */
analysis_options lab_default_analysis(const experiment *e);

/* The analysis a report of the stored results makes, at the level of the furthest look
 * taken (lab_looks_confidence), without writing it: *r holds the series the comparisons
 * index. The caller frees both (lab_results_free, analysis_result_free), also on -1. */
int lab_analyse(store *db, int64_t experiment_id, const experiment *e,
                const analysis_options *o, lab_results *r, analysis_result *a,
                verdict_error *err);

/* Analyses and writes; the analysis is left in *kept for --fail-if (the caller frees it
 * with analysis_result_free). 0, or -1 with err. */
int lab_report(store *db, int64_t experiment_id, const experiment *e,
               const lab_report_options *o, analysis_result *kept, verdict_error *err);

#endif

/* The report of an experiment from its store: the complete blocks of every point analysed
 * together (family-wise), the text report and the exports. Shared by `run` and `report`. */
#ifndef VERDICT_CLI_EXPERIMENT_REPORT_H
#define VERDICT_CLI_EXPERIMENT_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "cli/options.h"
#include "core/analysis.h"
#include "core/experiment.h"
#include "report/report.h"
#include "store/store.h"

typedef struct {
    analysis_options analysis;  /* confidence and margin from the file unless overridden */
    report_exports exports;
    fail_if_rule fail_if;
    FILE *text;                 /* where the terminal report goes */
} experiment_report_options;

/* Fills the analysis options an experiment asks for (method wilcoxon, paired by block). */
void experiment_report_defaults(const experiment *e, experiment_report_options *o);
/* Returns an exit code (EXIT_DONE, EXIT_GATE, EXIT_INTERNAL with a message). */
int experiment_report(store *s, int64_t experiment_id, const experiment *e,
                      const experiment_report_options *o, char *err, size_t errlen);

#endif

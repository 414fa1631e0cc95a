/* The store as the engine and the reports see it: opened, the experiment registered (a
 * changed plan refused as a usage error), facts recorded, warnings kept as facts. */
#ifndef VERDICT_LAB_LAB_STORE_H
#define VERDICT_LAB_LAB_STORE_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "core/experiment.h"
#include "store/store.h"

/* "examples/spin.yaml" -> "examples/spin.db"; caller frees. */
char *lab_default_store_path(const char *experiment_path);

/* Without a seed in the file the plan must still be the same on every resume: the seed is
 * then derived from the plan. */
void lab_settle_seed(experiment *e);

/* Opens (or creates) the store at path (":memory:" for none on disk) and registers the
 * experiment; *existing says it was there. 0, or -1 with err (a changed plan: usage). */
int lab_open_store(const char *path, const experiment *e, store **db, int64_t *experiment_id,
                   bool *existing, verdict_error *err);

/* A warning the engine or a target leaves for the reports: kept in the store as one line of
 * a fact named "warnings.SOURCE" (code, point, variant, message, tab-separated). */
typedef struct {
    const char *code, *point, *variant, *message;
} lab_warning;

#define LAB_WARNINGS_FACT "warnings."

#endif

/* The store as the engine and the reports see it: opened, the experiment registered (a
 * changed plan refused as a usage error), facts recorded, warnings kept as facts. */
#ifndef VERDICT_LAB_LAB_STORE_H
#define VERDICT_LAB_LAB_STORE_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "core/experiment.h"
#include "env/machine.h"
#include "store/store.h"

/* "examples/spin.yaml" -> "examples/spin.db"; caller frees. */
char *lab_default_store_path(const char *experiment_path);

/* Without a seed in the file the plan must still be the same on every resume: the seed is
 * then derived from the plan. */
void lab_settle_seed(experiment *e);

/* This verdict's build: a hash of its executable (16 hex digits; zeros when unreadable). */
void lab_tool_build(char out[17]);
/* The build an experiment stored needs on every machine: this one's for a fleet's experiment
 * (machines: survey or share), "" for one machine's. */
void lab_build_needed(const experiment *e, char out[17]);

/* Opens (or creates) the store at path (":memory:" for none on disk; a PostgreSQL URI) and
 * registers the experiment; *existing says it was there. A fleet's experiment (machines:
 * survey or share) registered by another verdict version or build is refused. 0, or -1
 * with err (a changed plan or another verdict: usage). */
int lab_open_store(const char *path, const experiment *e, store **db, int64_t *experiment_id,
                   bool *existing, verdict_error *err);

/* The facts as the store takes them, borrowing their strings; NULL when out of memory. */
store_fact *lab_fact_rows(const machine_facts *facts);

/* Records the machine's facts under its name in the store (machine_id added), refusing a
 * name the store already gives a machine with other identity facts: two hosts of one name
 * would write one machine's samples. 0, or -1 with err (usage: the name is taken). */
int lab_record_machine(store *db, const char *machine, machine_facts *facts,
                       verdict_error *err);

/* The machine's last `verdict calibrate` (its verdict-calibration/1 document, compact JSON),
 * kept among its facts; recording the machine again keeps it unless the new facts have one. */
#define LAB_CALIBRATION_FACT "calibration"

/* A warning the engine or a target leaves for the reports: kept in the store as one line of
 * a fact named "warnings.SOURCE" (code, point, variant, message, tab-separated). */
typedef struct {
    const char *code, *point, *variant, *message;
} lab_warning;

#define LAB_WARNINGS_FACT "warnings."

#endif

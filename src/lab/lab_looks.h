/* The looks an experiment's verdicts are taken at: its planned looks and the extensions
 * (`verdict run --more N`) its store holds, and the confidence of the look reported now. */
#ifndef VERDICT_LAB_LAB_LOOKS_H
#define VERDICT_LAB_LAB_LOOKS_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "core/experiment.h"
#include "store/store.h"

typedef struct {
    size_t planned_looks;    /* adaptive: the planned looks per point; fixed: 1 */
    size_t planned_blocks;   /* blocks per point of the plan as written */
    size_t extensions;       /* extensions recorded */
    size_t from_blocks;      /* the last extension: blocks per point before it ... */
    size_t blocks;           /* ... and after it (planned_blocks without extensions) */
    size_t ends[STOPPING_MAX_LOOKS]; /* blocks per point after each extension (the first
                                        STOPPING_MAX_LOOKS: an adaptive plan has no more) */
    size_t n_ends;
} lab_looks;

/* Reads the experiment's extensions from the store (lab_looks_apply gives them to e). */
int lab_looks_load(store *db, int64_t experiment_id, const experiment *e, lab_looks *out,
                   verdict_error *err);
/* The extensions read given to the experiment: its blocks per point and, adaptive, the looks
 * each extension adds (experiment_stopping_rule). */
void lab_looks_apply(const lab_looks *looks, experiment *e);
/* Records an extension by `more` blocks per point and applies it to e and *looks; refused
 * (usage) for an experiment that kept no alpha for extensions, or an adaptive one whose
 * looks would pass STOPPING_MAX_LOOKS. */
int lab_looks_extend(store *db, int64_t experiment_id, experiment *e, size_t more,
                     lab_looks *looks, verdict_error *err);
/* The level the current look's intervals need for the family to keep `confidence` over
 * every look the experiment took and may take; for an adaptive experiment, of the look at
 * `blocks` blocks per point (0: its last look, an extension's when it has one). */
double lab_looks_confidence(const lab_looks *looks, const experiment *e, double confidence,
                            size_t blocks);

#endif

/* The table of targets an experiment may name — command, postgres, kernel — in the order
 * `target:` lists them (the first is the default), and loading experiment files with it. */
#ifndef VERDICT_TARGETS_TARGETS_H
#define VERDICT_TARGETS_TARGETS_H

#include "core/experiment.h"
#include "common/error.h"

const target_table *targets_all(void);

/* experiment_load / experiment_parse with every target. */
int targets_load_experiment(const char *path, experiment *out, verdict_error *err);
int targets_parse_experiment(const char *name, const char *text, size_t length,
                             experiment *out, verdict_error *err);
/* experiment_parse_in with every target: a stored experiment, its files in directory. */
int targets_parse_experiment_in(const char *name, const char *text, size_t length,
                                const char *directory, experiment *out, verdict_error *err);

#endif

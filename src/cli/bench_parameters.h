/* hyperfine's sweeps on the command line: -P VAR MIN MAX [-D STEP] and -L VAR a,b,c, each
 * a parameter whose values become the points of the experiment. */
#ifndef VERDICT_CLI_BENCH_PARAMETERS_H
#define VERDICT_CLI_BENCH_PARAMETERS_H

#include <stddef.h>

#include "core/experiment.h"
#include "common/error.h"

typedef struct {
    experiment_parameter *list;  /* names and values allocated */
    size_t n;
} bench_parameters;

/* -L VAR VALUES: the comma-separated values, in order; 0, or -1 with a message. */
int bench_parameter_list(bench_parameters *p, const char *name, const char *values,
                         verdict_error *err);
/* -P VAR MIN MAX with -D STEP (NULL: 1, and MIN and MAX must be integers, as in
 * hyperfine): MIN, MIN + STEP, ... up to MAX; 0, or -1 with a message. */
int bench_parameter_scan(bench_parameters *p, const char *name, const char *min,
                         const char *max, const char *step, verdict_error *err);
void bench_parameters_free(bench_parameters *p);

#endif

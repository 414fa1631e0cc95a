/* How the files of `verdict compare` become one comparison: variants at one point (bare
 * numbers, hyperfine results), or benchmarks matched by name across files (Go, gbench, pyperf). */
#ifndef VERDICT_CORE_PEER_PLAN_H
#define VERDICT_CORE_PEER_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "core/peer_files.h"
#include "common/error.h"

#define PEER_PLAN_POINT "default" /* the one point of files without benchmarks */

/* One compared series: a variant's samples at a point. */
typedef struct {
    const char *point;          /* borrowed from the files, or PEER_PLAN_POINT */
    const char *variant;        /* unique in the plan (owned by it) */
    const char *metric;
    bool higher_is_better;      /* the metric's own direction */
    const peer_series *series;  /* borrowed from the files */
    size_t file;                /* which file it came from */
} peer_column;

typedef struct {
    peer_column *columns;  /* the columns of a point together, its baseline first */
    size_t n_columns;
    char **variants;       /* unique names, in order of the files */
    size_t *variant_files; /* the file each variant came from */
    size_t n_variants;
    const char **points;   /* each point once, in the baseline's order */
    size_t n_points;
    char **warnings;       /* benchmarks left out of a comparison, and why */
    size_t n_warnings, warnings_capacity;
} peer_plan;

/* names[i] is how file i is called in the report (a variant of Go, gbench and pyperf files;
 * what tells apart hyperfine commands of the same name). Bare numbers and hyperfine files
 * may be mixed; files of benchmarks must all be of one format. Returns 0 with at least one
 * comparison, or -1 with a message; the plan borrows from files, which must outlive it. */
int peer_plan_build(const peer_file *files, const char *const *names, size_t n,
                    peer_plan *out, verdict_error *err);
void peer_plan_free(peer_plan *plan);

#endif

/* What an experiment builds before any sample: each variant with a source built by content
 * in the cache (src/build), the in-place build lines of the others, and what was measured. */
#ifndef VERDICT_LAB_LAB_BUILDS_H
#define VERDICT_LAB_LAB_BUILDS_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>

#include "common/error.h"
#include "common/strbuf.h"
#include "core/experiment.h"

/* The fact that lists what every variant ran: lines "variant\tlayout\tkey\tsha256\tbinary"
 * (key empty without a source; sha256 and binary empty when there is no file to name). */
#define LAB_BUILDS_FACT "builds"

/* One of verdict's own directories: $own_variable, else $xdg_variable/verdict (absolute
 * only), else $HOME/home_default/verdict. Caller frees; NULL when none can be named. */
char *lab_user_dir(const char *own_variable, const char *xdg_variable,
                   const char *home_default);
/* Where builds live unless told otherwise: $VERDICT_CACHE, else $XDG_CACHE_HOME/verdict,
 * else $HOME/.cache/verdict. Caller frees; NULL when none can be named. */
char *lab_default_cache_dir(void);

/* Gives every variant with a source its content key and the directories of its build (in
 * cache_dir), before the plan is hashed: an edit in a source is a new plan. 0, or -1 with
 * err (a missing ref or patch, a source that is no directory: usage). */
int lab_builds_prepare(experiment *e, const char *cache_dir, verdict_error *err);

/* Called after each variant's build: cached (nothing was built), how long it took. */
typedef void (*lab_build_done_fn)(void *context, const experiment_variant *v, bool cached,
                                  double seconds);

/* Builds what the cache lacks (sources) and runs the build lines of the variants without
 * one, in place, logged to LOG_PREFIX.build-NAME.log; done (may be NULL) hears of each. Then
 * appends the LAB_BUILDS_FACT lines to measured (may be NULL). A failed build is
 * ERROR_COMMAND_FAILED with its log's tail; a source that changed since it was prepared is
 * ERROR_USAGE; a stop request ERROR_INTERRUPTED. notes: "cached" and "building" lines. */
int lab_builds_ensure(const experiment *e, const char *cache_dir, const char *log_prefix,
                      volatile sig_atomic_t *stop, FILE *notes, lab_build_done_fn done,
                      void *context, strbuf *measured, verdict_error *err);

#endif

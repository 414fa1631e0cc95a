/* The one conversion of the statistics library's result codes (stats/status.h) into a
 * verdict_error: each code's kind chosen here once, as SQLite's codes get their text. */
#ifndef VERDICT_CORE_STATS_ERROR_H
#define VERDICT_CORE_STATS_ERROR_H

#include "common/error.h"
#include "stats/status.h"

/* Sets err from a status other than STATS_OK, while doing something ("analysis", "adjusting
 * the p-values"): STATS_ERR_NOMEM is ERROR_NO_MEMORY ("out of memory during DOING"); too few
 * or degenerate data are ERROR_BAD_INPUT (the samples cannot be used); an argument outside
 * its domain is ERROR_INTERNAL (callers check their options first). Returns -1. */
int stats_error_set(verdict_error *err, stats_status status, const char *doing);

#endif

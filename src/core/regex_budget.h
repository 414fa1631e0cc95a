/* Compiles regular expressions that come from outside, refusing those whose compiled form
 * would explode: glibc's regcomp copies a repeated group per allowed repetition. */
#ifndef VERDICT_CORE_REGEX_BUDGET_H
#define VERDICT_CORE_REGEX_BUDGET_H

#include <regex.h>
#include <stddef.h>

#include "common/error.h"

/* Longest pattern accepted, and the largest estimated compiled size (in copies of atoms). */
#define REGEX_MAX_LENGTH 1024
#define REGEX_MAX_COPIES 20000

typedef enum { REGEX_COMPILED, REGEX_OVER_BUDGET, REGEX_INVALID } regex_outcome;

/* regcomp for patterns that come from outside: refuses (REGEX_OVER_BUDGET) those too long
 * or whose repetitions would explode, then compiles with flags (REG_EXTENDED is added).
 * On REGEX_COMPILED the caller regfrees out; otherwise why holds the reason. */
regex_outcome regex_compile(regex_t *out, const char *pattern, int flags, verdict_error *why);

#endif

/* Refuses regular expressions whose compiled form would explode: glibc's regcomp copies a
 * repeated subexpression per allowed repetition, so "(x+)+++..." can take gigabytes. */
#ifndef VERDICT_CORE_REGEX_BUDGET_H
#define VERDICT_CORE_REGEX_BUDGET_H

#include <stddef.h>

/* Longest pattern accepted, and the largest estimated compiled size (in copies of atoms). */
#define REGEX_MAX_LENGTH 1024
#define REGEX_MAX_COPIES 20000

/* 0 when pattern (POSIX extended syntax) is within budget; otherwise -1 with the reason
 * in why. Call it before regcomp on any pattern that comes from outside. */
int regex_within_budget(const char *pattern, char *why, size_t whylen);

#endif

/* Compiles regular expressions that come from outside, refusing those whose compiled form
 * would explode: glibc's regcomp copies a repeated group per allowed repetition. */
#include "core/regex_budget.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"

#define MAX_GROUP_DEPTH 32

/* Sizes are estimates in copies of atoms, capped just above the budget so they cannot
 * overflow. */
static size_t capped(double copies)
{
    return copies > REGEX_MAX_COPIES + 1.0 ? REGEX_MAX_COPIES + 1 : (size_t)copies;
}

/* How many copies a repetition operator at p makes of what it repeats, and its length;
 * 0 when p is not one. "x+" compiles as "xx*", "x{m,n}" as up to n copies. */
static size_t repetition_at(const char *p, size_t *factor)
{
    if (*p == '*' || *p == '?') {
        *factor = 1;
        return 1;
    }
    if (*p == '+') {
        *factor = 2;
        return 1;
    }
    if (*p != '{' || !isdigit((unsigned char)p[1]))
        return 0;
    char *end;
    unsigned long low = strtoul(p + 1, &end, 10), high = low;
    if (*end == ',') {
        end++;
        /* "{m,}" is unbounded: it compiles as m copies and a star */
        high = isdigit((unsigned char)*end) ? strtoul(end, &end, 10) : low + 1;
    }
    if (*end != '}')
        return 0;
    *factor = high > REGEX_MAX_COPIES ? REGEX_MAX_COPIES + 1 : (high < 1 ? 1 : high);
    return (size_t)(end - p) + 1;
}

/* Length of a bracket expression starting at p ('['), or of the rest when unclosed. */
static size_t bracket_length(const char *p)
{
    size_t i = 1;
    if (p[i] == '^')
        i++;
    if (p[i] == ']')
        i++; /* a leading ']' is a member */
    while (p[i] && p[i] != ']') {
        if (p[i] == '[' && (p[i + 1] == ':' || p[i + 1] == '.' || p[i + 1] == '=')) {
            const char *close = strchr(p + i + 2, ']');
            i = close ? (size_t)(close - p) + 1 : strlen(p);
            continue;
        }
        i++;
    }
    return p[i] ? i + 1 : i;
}

static int regex_within_budget(const char *pattern, verdict_error *why)
{
    size_t length = strlen(pattern);
    if (length > REGEX_MAX_LENGTH) {
        error_set(why, ERROR_USAGE, "it is %zu characters long; at most %d are accepted", length,
                  REGEX_MAX_LENGTH);
        return -1;
    }
    size_t sum[MAX_GROUP_DEPTH + 1] = {0}; /* size of each open group so far */
    size_t last[MAX_GROUP_DEPTH + 1] = {0}; /* size of the atom a repetition would copy */
    int depth = 0;
    bool after_repetition = false;
    for (size_t i = 0; i < length;) {
        const char *p = pattern + i;
        size_t factor, step = repetition_at(p, &factor);
        /* POSIX leaves adjacent repetition operators undefined, and glibc spends seconds
         * on a dozen of them (the fuzzer's "x?????++++++"). */
        if (step > 0 && after_repetition) {
            error_set(why, ERROR_USAGE, "repetition operators in a row ('%.*s' at character %zu) "
                      "are undefined in POSIX regular expressions", (int)step, p, i + 1);
            return -1;
        }
        after_repetition = step > 0;
        if (step > 0) {
            sum[depth] = capped((double)sum[depth] + (double)last[depth] * (double)(factor - 1));
            last[depth] = capped((double)last[depth] * (double)factor);
        } else if (*p == '(') {
            if (++depth > MAX_GROUP_DEPTH) {
                error_set(why, ERROR_USAGE, "its groups nest deeper than %d", MAX_GROUP_DEPTH);
                return -1;
            }
            sum[depth] = last[depth] = 0;
            step = 1;
        } else if (*p == ')' && depth > 0) {
            size_t group = capped((double)sum[depth] + 1.0);
            depth--;
            sum[depth] = capped((double)sum[depth] + (double)group);
            last[depth] = group;
            step = 1;
        } else {
            step = *p == '\\' && p[1] ? 2 : *p == '[' ? bracket_length(p) : 1;
            sum[depth] = capped((double)sum[depth] + 1.0);
            last[depth] = *p == '|' ? 0 : 1;
        }
        for (int d = depth; d >= 0; d--)
            if (sum[d] > REGEX_MAX_COPIES) {
                error_set(why, ERROR_USAGE, "its nested repetitions ('(…(x+)+…)+', '{m,n}' inside "
                          "'{m,n}') would make the regex library copy it more than %d times",
                          REGEX_MAX_COPIES);
                return -1;
            }
        i += step;
    }
    return 0;
}

regex_outcome regex_compile(regex_t *out, const char *pattern, int flags, verdict_error *why)
{
    if (regex_within_budget(pattern, why) != 0)
        return REGEX_OVER_BUDGET;
    int rc = regcomp(out, pattern, flags | REG_EXTENDED);
    if (rc == 0)
        return REGEX_COMPILED;
    char text[256];
    regerror(rc, out, text, sizeof text);
    error_set(why, ERROR_USAGE, "%s", text);
    return REGEX_INVALID;
}

/* Levenshtein distance with one row of memory, and the closest of a list of names: the one
 * helper behind every "did you mean" (a word of at most 63 characters needs no allocation). */
#include "common/edit_distance.h"

#include <assert.h>
#include <string.h>

size_t edit_distance(const char *a, const char *b)
{
    assert(a != NULL && b != NULL);
    size_t n = strlen(a), m = strlen(b);
    size_t row[EDIT_DISTANCE_MAX_WORD + 1];
    if (n > EDIT_DISTANCE_MAX_WORD || m > EDIT_DISTANCE_MAX_WORD)
        return EDIT_DISTANCE_FAR;
    for (size_t j = 0; j <= m; j++)
        row[j] = j;
    for (size_t i = 1; i <= n; i++) {
        size_t diagonal = row[0];
        row[0] = i;
        for (size_t j = 1; j <= m; j++) {
            size_t above = row[j];
            size_t best = diagonal + (a[i - 1] != b[j - 1]);
            if (above + 1 < best)
                best = above + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diagonal = above;
        }
    }
    return row[m];
}

const char *edit_distance_closest(const char *word, const char *const *names, size_t n,
                                  size_t max_edits)
{
    const char *closest = NULL;
    size_t best = max_edits + 1, length = strlen(word);
    for (size_t i = 0; i < n; i++) {
        size_t d = edit_distance(word, names[i]);
        if (d < best && d < length) {
            best = d;
            closest = names[i];
        }
    }
    return closest;
}

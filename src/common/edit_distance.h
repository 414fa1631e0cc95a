/* How far one word is from another (Levenshtein), for the "did you mean" of every list of
 * names a user can mistype: commands, experiment keys, counters. */
#ifndef VERDICT_COMMON_EDIT_DISTANCE_H
#define VERDICT_COMMON_EDIT_DISTANCE_H

#include <stddef.h>

/* Longer words are never close to anything: their distance is EDIT_DISTANCE_FAR. */
#define EDIT_DISTANCE_MAX_WORD 63
#define EDIT_DISTANCE_FAR ((size_t)EDIT_DISTANCE_MAX_WORD + 1)

/* The number of single-character insertions, deletions and substitutions that turn a into b
 * (case-sensitive); EDIT_DISTANCE_FAR when either is longer than EDIT_DISTANCE_MAX_WORD. */
size_t edit_distance(const char *a, const char *b);

/* The name of names[0..n) closest to word when it is at most max_edits away and fewer edits
 * than word has characters (so "x" suggests nothing); the first of equals; NULL if none. */
const char *edit_distance_closest(const char *word, const char *const *names, size_t n,
                                  size_t max_edits);

#endif

/* The rules of a statistical bisection (verdict bisect): what a step's two comparisons say
 * about its midpoint, which commit to measure next around skipped ones, how alpha is split. */
#ifndef VERDICT_CORE_BISECT_H
#define VERDICT_CORE_BISECT_H

#include <stdbool.h>
#include <stddef.h>

#include "stats/verdict_rules.h"

/* What a step found its midpoint to be (docs/bisect.md, "The decision rule"). */
typedef enum {
    BISECT_LIKE_GOOD,     /* the same as the good end (equivalent), or apart from the bad one
                             while the good one could not tell */
    BISECT_LIKE_BAD,      /* the same as the bad end, or apart from the good one toward bad */
    BISECT_BETWEEN,       /* apart from both, between them: the change came in several commits;
                             taken as bad (the first change is at or before it) */
    BISECT_BEYOND_BAD,    /* further than the bad end: part of the change was undone later;
                             taken as bad */
    BISECT_BEYOND_GOOD,   /* further from bad than the good end: a change the other way came
                             first; taken as good */
    BISECT_UNKNOWN        /* neither comparison decided what the midpoint is: never guessed */
} bisect_class;

/* The midpoint's class from the decisions of "mid against the good end" and "mid against the
 * bad end" (each candidate mid, baseline that end), the bad end being `bad_kind` (WORSE or
 * BETTER) against the good one. */
bisect_class bisect_classify(verdict_kind mid_vs_good, verdict_kind mid_vs_bad,
                             verdict_kind bad_kind);
/* Whether the bisection moves its bad end to the midpoint (LIKE_BAD, BETWEEN, BEYOND_BAD);
 * UNKNOWN moves neither end. */
bool bisect_class_is_bad(bisect_class c);
/* "like-good", "like-bad", "between", "beyond-bad", "beyond-good", "unknown" (JSON). */
const char *bisect_class_name(bisect_class c);

/* The kind of "mid against X" from the kind of "X against mid": better and worse swap. */
verdict_kind bisect_flip(verdict_kind k);

/* The comparisons a bisection of n commits (good excluded, bad included) can measure: the
 * ends once, then ceil(log2(n)) midpoints. Alpha is split equally among them. */
size_t bisect_planned_steps(size_t n_commits);

/* The commit to measure between lo and hi (indices, lo < hi - 1): the middle, or when it is
 * skipped (could not be built) the nearest one to it that is not, the later first on a tie.
 * -1 when every commit strictly between lo and hi is skipped. */
long bisect_next(size_t lo, size_t hi, const bool *skipped);

#endif

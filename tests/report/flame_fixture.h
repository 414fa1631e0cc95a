/* The flame graph tests' profile: six stacks of one comparison, with a slower, a steady and
 * a faster function, a stack only in each variant and a hostile name without an interval. */
#ifndef VERDICT_TESTS_FLAME_FIXTURE_H
#define VERDICT_TESTS_FLAME_FIXTURE_H

#include <stddef.h>

#include "report/flame_graph.h"

#define FLAME_FIXTURE_HOSTILE "<esc & \"q\">"

/* The six stacks weigh 0.5 s in all: the root is 1000 px wide, so a second is 2000 px. */
extern const flame_stack flame_fixture[];
extern const size_t flame_fixture_n;

#endif

/* A comparison's profile as the differential flame graph's input (report/flame_graph.h):
 * one flame_stack per stack seen in either variant. */
#ifndef VERDICT_REPORT_PROFILE_STACKS_H
#define VERDICT_REPORT_PROFILE_STACKS_H

#include <stddef.h>

#include "common/error.h"
#include "core/profile_compare.h"
#include "report/flame_graph.h"

/* The comparison's stacks as flame stacks: *out (malloc'ed, the caller frees it; its
 * strings are borrowed from c and live as long as it) with *n of them, seconds per measured
 * run (mean over the paired blocks), the interval NAN, NAN where none could be computed.
 * 0, or -1 with err (out of memory). */
int profile_flame_stacks(const profile_comparison *c, flame_stack **out, size_t *n,
                         verdict_error *err);

#endif

/* A comparison's profile turned into the flame graph's stacks: each stack's mean seconds
 * in the baseline and the candidate and the interval of its change, as compared. */
#include "report/profile_stacks.h"

#include <math.h>
#include <stdlib.h>

int profile_flame_stacks(const profile_comparison *c, flame_stack **out, size_t *n,
                         verdict_error *err)
{
    *out = calloc(c->n_stacks + 1, sizeof **out);
    *n = 0;
    if (*out == NULL)
        return error_no_memory(err);
    for (size_t i = 0; i < c->n_stacks; i++) {
        const profile_change *x = &c->stacks[i].change;
        bool interval = isfinite(x->seconds_low) && isfinite(x->seconds_high);
        (*out)[(*n)++] = (flame_stack){
            .stack = c->stacks[i].stack,
            .baseline_seconds = isfinite(x->baseline_seconds) ? x->baseline_seconds : 0.0,
            .candidate_seconds = isfinite(x->candidate_seconds) ? x->candidate_seconds : 0.0,
            .change_low = interval ? x->seconds_low : NAN,
            .change_high = interval ? x->seconds_high : NAN};
    }
    return 0;
}

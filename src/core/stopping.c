/* Planned looks at geometrically growing block counts, each at level 1 - alpha/K: the
 * chance of any false claim over all K looks stays below alpha whatever the data do. */
#include "core/stopping.h"

#include <math.h>

static size_t next_look(const stopping_rule *rule, size_t blocks)
{
    size_t next = (size_t)ceil((double)blocks * rule->growth);
    if (next <= blocks)
        next = blocks + 1;
    return next > rule->max_blocks ? rule->max_blocks : next;
}

size_t stopping_looks(const stopping_rule *rule)
{
    size_t looks = 1;
    for (size_t b = rule->min_blocks; b < rule->max_blocks; b = next_look(rule, b))
        looks++;
    return looks;
}

bool stopping_is_look(const stopping_rule *rule, size_t blocks)
{
    for (size_t b = rule->min_blocks; b <= rule->max_blocks; b = next_look(rule, b)) {
        if (b == blocks)
            return true;
        if (b == rule->max_blocks || b > blocks)
            break;
    }
    return false;
}

double stopping_look_confidence(double confidence, const stopping_rule *rule)
{
    return 1.0 - (1.0 - confidence) / (double)stopping_looks(rule);
}

/* Planned looks at geometrically growing block counts, each at level 1 - alpha/K, and the
 * share of alpha kept for extensions: no false claim over all looks beyond alpha. */
#include "core/stopping.h"

#include <math.h>

#include "stats/distributions.h"

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

double stopping_planned_alpha(double alpha, double reserve, size_t looks)
{
    return alpha * (1.0 - reserve) / (double)(looks > 1 ? looks : 1);
}

double stopping_extension_alpha(double alpha, double reserve, size_t planned, size_t from,
                                size_t to)
{
    if (planned == 0 || from < planned || to <= from)
        return 0.0;
    double spent_before = 1.0 - (double)planned / (double)from;
    double spent_after = 1.0 - (double)planned / (double)to;
    return reserve * alpha * (spent_after - spent_before);
}

static double two_sided_z(double alpha)
{
    return dist_qnorm(1.0 - alpha / 2.0);
}

size_t stopping_blocks_to_decide(double alpha, double reserve, size_t planned, size_t blocks,
                                 size_t comparisons, double confidence_now, double half_width,
                                 double target)
{
    if (!(half_width > 0) || !(target > 0) || blocks == 0 || comparisons == 0)
        return 0;
    double z_now = two_sided_z(1.0 - confidence_now);
    for (size_t more = 1; more <= 100 * blocks; more++) {
        double a = stopping_extension_alpha(alpha, reserve, planned, blocks, blocks + more) /
                   (double)comparisons;
        double shrunk = half_width * two_sided_z(a) / z_now *
                        sqrt((double)blocks / (double)(blocks + more));
        if (shrunk < target)
            return more;
    }
    return 0;
}

/* Alpha spending (Lan & DeMets 1983): how much of alpha each look at the data may use, and the
 * two-sided group-sequential boundaries that spend exactly that, by recursive integration. */
#ifndef VERDICT_STATS_SPENDING_H
#define VERDICT_STATS_SPENDING_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"

typedef enum {
    SPENDING_OBRIEN_FLEMING, /* each tail: alpha/2 (t) = 2 - 2 Phi(z_{alpha/4} / sqrt(t)),
                                so alpha(t) = 4 - 4 Phi(z_{alpha/4} / sqrt(t)): little early */
    SPENDING_POCOCK,         /* alpha(t) = alpha ln(1 + (e - 1) t): about even per look */
    SPENDING_EQUAL           /* alpha k / K at the k-th of K planned looks */
} spending_kind;

/* A spending plan: the function, the family's two-sided alpha, and the share of it kept for
 * extensions (`verdict run --more`) beyond the planned information, 0 for none. */
typedef struct {
    spending_kind kind;
    double alpha;   /* in (0, 1) */
    double reserve; /* in [0, 1) */
} spending_plan;

/* One look of a group-sequential design. */
typedef struct {
    double fraction;      /* information fraction: blocks at the look / planned blocks */
    double alpha_spent;   /* cumulative alpha spent up to and including this look */
    double z;             /* reject at this look when |Z| >= z; INFINITY when it spends none */
    double nominal_alpha; /* 2 (1 - Phi(z)): the level a fixed-size test at this look uses */
} spending_look;

/* "obrien-fleming", "pocock", "equal". */
const char *spending_name(spending_kind kind);
/* The kind named `name` (as spending_name writes it); -1 with ERROR_USAGE otherwise. */
int spending_from_name(const char *name, spending_kind *kind, verdict_error *err);

/* The plan's cumulative alpha at information fraction t > 0, at the look'th (0-based) of
 * `looks` planned looks (only SPENDING_EQUAL reads look and looks). Up to t = 1 the planned
 * looks spend (1 - reserve) times the spending function; beyond, an extension to fraction t
 * has spent (1 - reserve) alpha + reserve alpha (1 - 1/t), which never reaches alpha. With
 * t = blocks / planned blocks that is core/stopping.h's S(n) = reserve alpha (1 - n0/n), so
 * extensions spend the reserve exactly as they did before spending functions. */
double spending_cumulative(const spending_plan *plan, double t, size_t look, size_t looks);

/* The alpha an extension from fraction `from` to fraction `to` (both >= 1, as
 * blocks / planned blocks) may spend: the increase of spending_cumulative, 0 when to <= from.
 * An extension is reported at level 1 - this (spending_look_z turns it into a boundary): the
 * size of an extension is chosen after seeing the data (the report advises one from the
 * interval's width), which breaks the recursion's premise that look times are fixed
 * beforehand; Bonferroni's inequality over the extensions holds whatever chose them. */
double spending_extension_alpha(const spending_plan *plan, double from, double to);

/* The two-sided boundaries of `looks` looks at increasing information fractions (each > 0;
 * the last planned look need not be at 1 when a budget cut it short; fractions beyond 1 are
 * extensions planned in advance, while an extension sized after seeing the data is tested
 * at spending_extension_alpha's level instead): out[k].z is solved so that, for a statistic
 * Z_k = B(t_k) / sqrt(t_k) of a Brownian motion B under the null, P(first |Z| >= z at look
 * k) equals the plan's increment of spending at look k (Armitage, McPherson & Rowe 1969;
 * Jennison & Turnbull 2000, ch. 19: the density of B on a grid, carried from look to look by
 * Simpson's rule). The equal function divides by the looks at fractions up to 1. -1 with
 * ERROR_USAGE for fractions not increasing or not positive or a plan out of its domain. */
int spending_boundaries(const spending_plan *plan, const double *fractions, size_t looks,
                        spending_look *out, verdict_error *err);

/* The boundaries for given cumulative alphas (non-decreasing, below 1) at given fractions:
 * the recursion spending_boundaries runs on the plan's spending. */
int spending_boundaries_for(const double *fractions, const double *cumulative, size_t looks,
                            spending_look *out, verdict_error *err);

/* The two-sided boundary of a single test at level nominal_alpha (INFINITY for 0). */
double spending_look_z(double nominal_alpha);
/* The confidence a look uses when it is judged as a fixed-size test: 1 - 2 (1 - Phi(z)), the
 * per-look level the comparisons take (verdict's looks compare intervals, not z). */
double spending_look_confidence(const spending_look *look);

#endif

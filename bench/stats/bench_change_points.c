/* Simulation of verdict history's change points: the false alarm rate over null series and the
 * share of 32-commit series whose one step is found exactly, for a table in docs/history.md. */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "stats/change_points.h"

enum { COMMITS = 32, SAMPLES = 5, STEP_AT = 19 };

typedef struct {
    double values[COMMITS][SAMPLES];
    const double *rows[COMMITS];
    size_t counts[COMMITS];
} series;

/* Samples exp(step + commit noise + sample noise): the step from 1-based commit STEP_AT on. */
static void simulate(series *s, gsl_rng *rng, double step, double commit_sd, double sample_sd)
{
    for (size_t i = 0; i < COMMITS; i++) {
        double level = (i + 1 >= STEP_AT ? log(step) : 0.0) + gsl_ran_gaussian(rng, commit_sd);
        for (size_t j = 0; j < SAMPLES; j++)
            s->values[i][j] = exp(level + gsl_ran_gaussian(rng, sample_sd));
        s->rows[i] = s->values[i];
        s->counts[i] = SAMPLES;
    }
}

/* One row: over runs series, how many had any change point and how many exactly one at
 * STEP_AT. */
static int row(size_t runs, double alpha, double step, double commit_sd, double sample_sd)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (rng == NULL)
        return -1;
    gsl_rng_set(rng, 20261203);
    change_point_options o = change_points_default_options();
    o.alpha = alpha;
    size_t any = 0, exact = 0;
    int rc = 0;
    for (size_t r = 0; r < runs; r++) {
        series s;
        simulate(&s, rng, step, commit_sd, sample_sd);
        o.seed = r + 1;
        change_point out[COMMITS];
        size_t found = 0;
        if (change_points_find(s.rows, s.counts, COMMITS, &o, out, &found) != STATS_OK) {
            rc = -1;
            break;
        }
        any += found > 0;
        exact += found == 1 && out[0].index == STEP_AT - 1;
    }
    double mc = sqrt(alpha * (1.0 - alpha) / (double)runs);
    printf("alpha %.2f step %.2f commit sd %.3f sample sd %.3f: any %.4f exactly one at %d "
           "%.4f (%zu series; Monte Carlo sd at alpha %.4f)\n",
           alpha, step, commit_sd, sample_sd, (double)any / (double)runs, STEP_AT,
           (double)exact / (double)runs, runs, mc);
    gsl_rng_free(rng);
    return rc;
}

int main(int argc, char **argv)
{
    size_t runs = argc > 1 ? strtoul(argv[1], NULL, 10) : 2000;
    static const double alphas[] = {0.05, 0.01};
    static const double steps[] = {1.0, 1.02, 1.05, 1.10};
    for (size_t a = 0; a < 2; a++)
        for (size_t k = 0; k < 4; k++)
            if (row(runs, alphas[a], steps[k], 0.01, 0.03) != 0)
                return 1;
    return 0;
}

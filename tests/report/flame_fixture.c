/* The flame graph tests' profile (see flame_fixture.h): shared by the unit test and the
 * page rendered in Chromium, so that both check the same picture. */
#include "flame_fixture.h"

#include <math.h>

const flame_stack flame_fixture[] = {
    {"main;run;slow_part", 0.100, 0.140, 0.030, 0.050},     /* 40% slower: red */
    {"main;run;steady_part", 0.200, 0.202, -0.010, 0.014},  /* interval holds 0: grey */
    {"main;run;fast_part", 0.080, 0.040, -0.050, -0.030},   /* faster: blue */
    {"main;old_only", 0.020, 0.0, -0.025, -0.015},          /* only in the baseline */
    {"main;new_only", 0.0, 0.050, 0.040, 0.060},            /* only in the candidate */
    {"main;" FLAME_FIXTURE_HOSTILE, 0.050, 0.050, NAN, NAN}, /* no interval computed */
};

const size_t flame_fixture_n = sizeof flame_fixture / sizeof *flame_fixture;

/* Access to R's reference values (r-reference.json) for unit tests.
 * The path comes from $VERDICT_GOLDEN, set by meson for every test. */
#ifndef VERDICT_TESTS_GOLDEN_H
#define VERDICT_TESTS_GOLDEN_H

#include <jansson.h>
#include <stddef.h>

/* Loads the whole document; aborts the test program with a message on failure. */
json_t *golden_load(void);
/* The same for the file named by another environment variable (VERDICT_TIES). */
json_t *golden_load_from(const char *variable);
/* Copies a JSON array of numbers into a malloc'ed array; *n receives its length. */
double *golden_numbers(const json_t *array, size_t *n);
/* |got - want| <= rel * max(|want|, tiny): relative comparison used by the R cross-checks. */
int golden_close(double got, double want, double rel);

#endif

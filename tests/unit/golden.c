/* Loader for R's reference values used by the unit tests.
 * Failing to find the file is a test failure, never a silent skip. */
#include "golden.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

json_t *golden_load(void)
{
    return golden_load_from("VERDICT_GOLDEN");
}

json_t *golden_load_from(const char *variable)
{
    const char *path = getenv(variable);
    if (path == NULL) {
        fprintf(stderr, "%s is not set (run the tests through meson test)\n", variable);
        exit(1);
    }
    json_error_t error;
    json_t *root = json_load_file(path, 0, &error);
    if (root == NULL) {
        fprintf(stderr, "%s:%d: %s\n", path, error.line, error.text);
        exit(1);
    }
    return root;
}

double *golden_numbers(const json_t *array, size_t *n)
{
    *n = json_array_size(array);
    double *values = malloc((*n ? *n : 1) * sizeof *values);
    if (values == NULL) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    for (size_t i = 0; i < *n; i++)
        values[i] = json_number_value(json_array_get(array, i));
    return values;
}

int golden_close(double got, double want, double rel)
{
    double scale = fabs(want) > 1e-300 ? fabs(want) : 1e-300;
    return fabs(got - want) <= rel * scale;
}

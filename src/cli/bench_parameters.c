/* Parsing of -P and -L into parameters. Names are checked as an experiment file's are, and
 * a scan's values are written with the decimals its bounds and step were given with. */
#include "cli/bench_parameters.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"

/* More points than anyone would measure, fewer than would exhaust memory. */
#define BENCH_MAX_VALUES 10000

static bool is_identifier(const char *name)
{
    bool ok = name[0] == '_' || (name[0] >= 'a' && name[0] <= 'z') ||
              (name[0] >= 'A' && name[0] <= 'Z');
    for (const char *c = name; ok && *c; c++)
        ok = *c == '_' || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
             (*c >= '0' && *c <= '9');
    return ok;
}

/* A new parameter called name, its values to be added; NULL with a message. */
static experiment_parameter *new_parameter(bench_parameters *p, const char *option,
                                           const char *name, verdict_error *err)
{
    if (!is_identifier(name) || strcmp(name, EXPERIMENT_TREE_PLACEHOLDER) == 0) {
        error_set(err, ERROR_USAGE, "%s '%s': a parameter's name is letters, digits and _ (not "
                  "starting with a digit, and not 'tree')", option, name);
        return NULL;
    }
    for (size_t i = 0; i < p->n; i++)
        if (strcmp(p->list[i].name, name) == 0) {
            error_set(err, ERROR_USAGE, "%s '%s': the parameter is given twice", option, name);
            return NULL;
        }
    experiment_parameter *grown = realloc(p->list, (p->n + 1) * sizeof *grown);
    if (grown == NULL) {
        error_no_memory(err);
        return NULL;
    }
    p->list = grown;
    experiment_parameter *x = &p->list[p->n++];
    memset(x, 0, sizeof *x);
    if ((x->name = strdup(name)) == NULL) {
        error_no_memory(err);
        return NULL;
    }
    return x;
}

static int add_value(experiment_parameter *x, const char *option, const char *value,
                     size_t length, verdict_error *err)
{
    for (size_t i = 0; i < x->n_values; i++)
        if (strlen(x->values[i]) == length && strncmp(x->values[i], value, length) == 0) {
            error_set(err, ERROR_USAGE, "%s %s: the value '%.*s' is given twice", option, x->name,
                      (int)length, value);
            return -1;
        }
    char **grown = x->n_values < BENCH_MAX_VALUES
                       ? realloc(x->values, (x->n_values + 2) * sizeof *grown) : NULL;
    if (grown == NULL) {
        error_set(err, ERROR_USAGE, "%s %s: more than %d values", option, x->name,
                  BENCH_MAX_VALUES);
        return -1;
    }
    x->values = grown;
    if ((x->values[x->n_values] = strndup(value, length)) == NULL) {
        error_no_memory(err);
        return -1;
    }
    x->values[++x->n_values] = NULL;
    return 0;
}

int bench_parameter_list(bench_parameters *p, const char *name, const char *values,
                         verdict_error *err)
{
    experiment_parameter *x = new_parameter(p, "--parameter-list", name, err);
    if (x == NULL)
        return -1;
    for (const char *v = values;;) {
        const char *comma = strchr(v, ',');
        size_t length = comma ? (size_t)(comma - v) : strlen(v);
        if (length == 0) {
            error_set(err, ERROR_USAGE, "--parameter-list %s '%s': an empty value", name, values);
            return -1;
        }
        if (add_value(x, "--parameter-list", v, length, err) != 0)
            return -1;
        if (comma == NULL)
            return 0;
        v = comma + 1;
    }
}

/* A finite number, and how many decimals it was written with. */
static int parse_number(const char *text, bool integer, double *out, int *decimals)
{
    char *end = NULL;
    errno = 0;
    *out = strtod(text, &end);
    if (end == text || *end != '\0' || errno == ERANGE || !isfinite(*out))
        return -1;
    const char *dot = strchr(text, '.');
    *decimals = dot ? (int)strlen(dot + 1) : 0;
    return integer && (*decimals > 0 || strpbrk(text, "eE") != NULL) ? -1 : 0;
}

int bench_parameter_scan(bench_parameters *p, const char *name, const char *min,
                         const char *max, const char *step, verdict_error *err)
{
    double low, high, delta = 1;
    int dl, dh, ds = 0;
    if (parse_number(min, step == NULL, &low, &dl) != 0 ||
        parse_number(max, step == NULL, &high, &dh) != 0 ||
        (step && (parse_number(step, false, &delta, &ds) != 0 || !(delta > 0)))) {
        error_set(err, ERROR_USAGE, "--parameter-scan %s %s %s%s%s: expected %s bounds%s", name,
                  min, max, step ? " -D " : "", step ? step : "", step ? "numeric" : "integer",
                  step ? " and a step above 0" :
                  " (or give --parameter-step-size for decimals)");
        return -1;
    }
    if (low > high || (high - low) / delta >= BENCH_MAX_VALUES) {
        error_set(err, ERROR_USAGE, "--parameter-scan %s: from %s to %s makes %s", name, min, max,
                  low > high ? "no values" : "more than 10000 values");
        return -1;
    }
    experiment_parameter *x = new_parameter(p, "--parameter-scan", name, err);
    int decimals = dl > dh ? dl : dh;
    decimals = decimals > ds ? decimals : ds;
    /* the count is computed once so that rounding cannot add or lose the last value */
    size_t count = (size_t)floor((high - low) / delta + 1e-9) + 1;
    for (size_t k = 0; x && k < count; k++) {
        char text[64];
        snprintf(text, sizeof text, "%.*f", decimals, low + (double)k * delta);
        if (add_value(x, "--parameter-scan", text, strlen(text), err) != 0)
            return -1;
    }
    return x ? 0 : -1;
}

void bench_parameters_free(bench_parameters *p)
{
    for (size_t i = 0; i < p->n; i++) {
        free(p->list[i].name);
        for (size_t j = 0; j < p->list[i].n_values; j++)
            free(p->list[i].values[j]);
        free(p->list[i].values);
    }
    free(p->list);
    p->list = NULL;
    p->n = 0;
}

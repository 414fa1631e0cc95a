/* The counts verdict takes from cachegrind (perf's names, each a sum of cachegrind's events),
 * the simulations they need, and the valgrind command line that produces them. */
#include "core/cachegrind.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "common/edit_distance.h"
#include "common/error.h"
#include "core/runner.h"

/* Valgrind's own sums: "LL refs" are the first-level misses (I1mr + D1mr + D1mw), "LL
 * misses" the last-level ones, "Mispredicts" the conditional and indirect ones. */
static const cachegrind_count counts[] = {
    {"instructions", "Ir", false, false, "instructions executed (exact, user space only)"},
    {"cache-references", "I1mr D1mr D1mw", true, false,
     "accesses that reach the simulated last-level cache (first-level misses)"},
    {"cache-misses", "ILmr DLmr DLmw", true, false,
     "misses of the simulated last-level cache (instruction reads, data reads and writes)"},
    {"L1-dcache-load-misses", "D1mr", true, false,
     "data reads that miss the simulated first-level data cache"},
    {"branches", "Bc Bi", false, true, "conditional and indirect branches executed"},
    {"branch-misses", "Bcm Bim", false, true,
     "branches the simulated predictor got wrong (conditional and indirect)"},
};

size_t cachegrind_count_count(void)
{
    return ARRAY_SIZE(counts);
}

const cachegrind_count *cachegrind_count_at(size_t i)
{
    assert(i < ARRAY_SIZE(counts));
    return &counts[i];
}

const cachegrind_count *cachegrind_count_find(const char *name)
{
    size_t length = strcspn(name, ":");
    const char *modifier = name[length] == ':' ? name + length + 1 : "u";
    if (strcmp(modifier, "u") != 0)
        return NULL;
    for (size_t i = 0; i < ARRAY_SIZE(counts); i++)
        if (strlen(counts[i].name) == length && strncmp(name, counts[i].name, length) == 0)
            return &counts[i];
    return NULL;
}

static int not_from_cachegrind(const char *name, verdict_error *err)
{
    const char *names[ARRAY_SIZE(counts)];
    char known[256] = "";
    for (size_t i = 0; i < ARRAY_SIZE(counts); i++) {
        names[i] = counts[i].name;
        snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", i ? ", " : "",
                 counts[i].name);
    }
    size_t length = strcspn(name, ":");
    const char *modifier = name[length] == ':' ? name + length + 1 : "u";
    if (strcmp(modifier, "k") == 0 || strcmp(modifier, "uk") == 0 || strcmp(modifier, "ku") == 0)
        return error_set(err, ERROR_USAGE, "'%s' cannot be counted under --counters valgrind: "
                         "cachegrind sees user space only (:u)", name);
    if (strcmp(modifier, "u") != 0)
        return error_set(err, ERROR_USAGE, "'%s': unknown modifier ':%s' (modifiers: :u user "
                         "space, :k kernel, :uk both)", name, modifier);
    const char *closest = edit_distance_closest(name, names, ARRAY_SIZE(counts), 2);
    return error_set(err, ERROR_USAGE, "'%s' cannot be counted under --counters valgrind%s%s%s; "
                     "cachegrind counts: %s", name, closest ? " (did you mean '" : "",
                     closest ? closest : "", closest ? "'?)" : "", known);
}

int cachegrind_options_for(const char *const *names, size_t n, cachegrind_options *out,
                           verdict_error *err)
{
    *out = (cachegrind_options){false, false};
    for (size_t i = 0; i < n; i++) {
        const cachegrind_count *count = cachegrind_count_find(names[i]);
        if (count == NULL)
            return not_from_cachegrind(names[i], err);
        out->cache_sim |= count->cache_sim;
        out->branch_sim |= count->branch_sim;
    }
    return 0;
}

int cachegrind_find_valgrind(char *path, size_t len, verdict_error *err)
{
    verdict_error why = {0};
    if (runner_find_executable(NULL, "valgrind", path, len, &why) != 0)
        return error_set(err, ERROR_USAGE, "valgrind is not installed: apt-get install valgrind");
    return 0;
}

void cachegrind_argv_free(char **argv)
{
    if (argv == NULL)
        return;
    for (size_t i = 0; argv[i] != NULL; i++)
        free(argv[i]);
    free(argv);
}

/* -q: valgrind's banner and totals would bury the command's own error in the stderr tail
 * that a failure shows. */
int cachegrind_argv(const char *valgrind, char *const command[], const char *dir,
                    const cachegrind_options *options, char ***out, verdict_error *err)
{
    enum { OWN = 7 };
    size_t n_command = 0;
    while (command[n_command] != NULL)
        n_command++;
    assert(n_command > 0);
    *out = NULL;
    char **argv = calloc(OWN + n_command + 1, sizeof *argv);
    if (argv == NULL)
        return error_no_memory(err);
    size_t n = 0;
    argv[n++] = strdup(valgrind);
    argv[n++] = strdup("-q");
    argv[n++] = strdup("--tool=cachegrind");
    argv[n++] = strdup("--trace-children=yes");
    if (asprintf(&argv[n++], "--cachegrind-out-file=%s/cg.%%p", dir) < 0)
        argv[n - 1] = NULL;
    argv[n++] = strdup(options->cache_sim ? "--cache-sim=yes" : "--cache-sim=no");
    argv[n++] = strdup(options->branch_sim ? "--branch-sim=yes" : "--branch-sim=no");
    assert(n == OWN);
    for (size_t i = 0; i < n_command; i++)
        argv[n++] = strdup(command[i]);
    for (size_t i = 0; i < n; i++)
        if (argv[i] == NULL) {
            for (size_t j = 0; j < n; j++)
                free(argv[j]);
            free(argv);
            return error_no_memory(err);
        }
    *out = argv;
    return 0;
}

/* The targets, in one table (as git's git.c keeps its commands): a new target is one entry
 * here and a file of its own; nothing else in verdict names one. */
#include "targets/targets.h"

#include "common/array.h"
#include "common/error.h"
#include "targets/command_target.h"
#include "targets/kernel_target.h"
#include "targets/postgres_target.h"

static const target_kind *const kinds[] = {&command_target, &postgres_target, &kernel_target};
static const target_table table = {kinds, ARRAY_SIZE(kinds)};

const target_table *targets_all(void)
{
    return &table;
}

int targets_load_experiment(const char *path, experiment *out, verdict_error *err)
{
    return experiment_load(path, &table, out, err);
}

int targets_parse_experiment(const char *name, const char *text, size_t length,
                             experiment *out, verdict_error *err)
{
    return experiment_parse(name, text, length, &table, out, err);
}

int targets_parse_experiment_in(const char *name, const char *text, size_t length,
                                const char *directory, experiment *out, verdict_error *err)
{
    return experiment_parse_in(name, text, length, directory, &table, out, err);
}

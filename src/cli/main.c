/* verdict's entry point: a table of commands, dispatched by the first word; anything else
 * is the default command (`verdict COMMAND COMMAND...`). Every command returns an exit code. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/bench_options.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "common/array.h"
#include "common/edit_distance.h"
#include "core/runner.h"
#include "version.h"

static int cmd_help(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    bench_usage(stdout);
    return EXIT_DONE;
}

static int cmd_version(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    printf("verdict %s\n", VERDICT_VERSION);
    return EXIT_DONE;
}

typedef struct {
    const char *name;
    int (*run)(int argc, char **argv);  /* argv[0] is the command's name */
} command;

static const command commands[] = {
    {"run", cmd_run},         {"report", cmd_report},   {"compare", cmd_compare},
    {"kernel", cmd_kernel},   {"env", cmd_env},         {"build", cmd_build},
    {"cache", cmd_cache},     {"worker", cmd_worker},   {"help", cmd_help},
    {"--help", cmd_help},     {"-h", cmd_help},         {"version", cmd_version},
    {"--version", cmd_version}, {"-V", cmd_version},
    {"plan", cmd_plan},
    {"calibrate", cmd_calibrate},
    {"bisect", cmd_bisect},
};

/* A first word that is no command of verdict's but nearly one ("comapre") and runs nothing
 * (no program of PATH, no file) is a typo, not a command to time: the closest name, or NULL. */
static const char *mistyped_command(const char *word)
{
    char path[4096];
    verdict_error why;
    if (word[0] == '-' || strpbrk(word, " \t/") != NULL || access(word, F_OK) == 0 ||
        runner_find_executable(NULL, word, path, sizeof path, &why) == 0)
        return NULL;
    const char *closest = NULL;
    size_t best = 3;
    for (size_t i = 0; i < ARRAY_SIZE(commands); i++) {
        size_t d = edit_distance(word, commands[i].name);
        if (commands[i].name[0] != '-' && d < best)
            best = d, closest = commands[i].name;
    }
    return closest;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        bench_usage(stderr);
        return EXIT_USAGE;
    }
    for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    const char *meant = mistyped_command(argv[1]);
    if (meant) {
        fprintf(stderr, "verdict: '%s' is neither a command of verdict's nor a program: did "
                "you mean %s? (see verdict --help)\n", argv[1], meant);
        return EXIT_USAGE;
    }
    return cmd_bench(argc, argv);
}

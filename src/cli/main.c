/* verdict's entry point: a table of commands, dispatched by the first word; anything else
 * is the default command (`verdict COMMAND COMMAND...`). Every command returns an exit code. */
#include <stdio.h>
#include <string.h>

#include "cli/bench_options.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "common/array.h"
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
    {"--version", cmd_version},
};

int main(int argc, char **argv)
{
    if (argc < 2) {
        bench_usage(stderr);
        return EXIT_USAGE;
    }
    for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    return cmd_bench(argc, argv);
}

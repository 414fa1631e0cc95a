/* verdict's entry point: the table of commands (cli/command_list.c), dispatched by the first
 * word; anything else is the default command (`verdict COMMAND COMMAND...`). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/command_list.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "common/edit_distance.h"
#include "core/runner.h"

/* A first word that is no command of verdict's but nearly one ("comapre") and runs nothing
 * (no program of PATH, no file) is a typo, not a command to time: the closest name, or NULL. */
static const char *mistyped_command(const char *word)
{
    char path[4096];
    verdict_error why;
    if (word[0] == '-' || strpbrk(word, " \t/") != NULL || access(word, F_OK) == 0 ||
        runner_find_executable(NULL, word, path, sizeof path, &why) == 0)
        return NULL;
    size_t count;
    const cli_command *commands = cli_commands(&count);
    const char *closest = NULL;
    size_t best = 3;
    for (size_t i = 0; i < count; i++) {
        size_t d = edit_distance(word, commands[i].name);
        if (d < best)
            best = d, closest = commands[i].name;
    }
    return closest;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        cli_help_write(cmd_bench_help, stderr);
        return EXIT_USAGE;
    }
    const cli_command *command = cli_command_find(argv[1]);
    if (command)
        return command->run(argc - 1, argv + 1);
    const char *meant = mistyped_command(argv[1]);
    if (meant) {
        fprintf(stderr, "verdict: '%s' is neither a command of verdict's nor a program: did "
                "you mean %s? (see verdict --help)\n", argv[1], meant);
        return EXIT_USAGE;
    }
    return cmd_bench(argc, argv);
}

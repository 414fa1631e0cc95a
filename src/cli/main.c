/* verdict's entry point: dispatches to the command named by the first word.
 * Every command returns an exit code of DESIGN.md's contract. */
#include <stdio.h>
#include <string.h>

#include "cli/bench_options.h"
#include "cli/cmd_kernel.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "version.h"

int main(int argc, char **argv)
{
    if (argc < 2) {
        bench_usage(stderr);
        return EXIT_USAGE;
    }
    const char *command = argv[1];
    if (strcmp(command, "compare") == 0)
        return cmd_compare(argc - 1, argv + 1);
    if (strcmp(command, "kernel") == 0)
        return cmd_kernel(argc - 1, argv + 1);
    if (strcmp(command, "run") == 0)
        return cmd_run(argc - 1, argv + 1);
    if (strcmp(command, "report") == 0)
        return cmd_report(argc - 1, argv + 1);
    if (strcmp(command, "env") == 0)
        return cmd_env(argc - 1, argv + 1);
    if (strcmp(command, "help") == 0 || strcmp(command, "--help") == 0 || strcmp(command, "-h") == 0) {
        bench_usage(stdout);
        return EXIT_DONE;
    }
    if (strcmp(command, "version") == 0 || strcmp(command, "--version") == 0) {
        printf("verdict %s\n", VERDICT_VERSION);
        return EXIT_DONE;
    }
    return cmd_bench(argc, argv);
}

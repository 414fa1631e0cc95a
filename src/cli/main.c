/* verdict's entry point: dispatches to the command named by the first word.
 * Every command returns an exit code of DESIGN.md's contract. */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "version.h"

static void usage(FILE *out)
{
    fputs(
        "usage: verdict COMMAND [ARGS...]\n"
        "\n"
        "verdict tells whether a change makes code faster or slower, honestly:\n"
        "interleaved randomized blocks, ratios with confidence intervals, and a verdict\n"
        "(better, worse, equivalent within a margin, or how many more runs would decide).\n"
        "\n"
        "commands:\n"
        "  compare FILE FILE...   analyse samples gathered elsewhere (like ministat)\n"
        "  help                   show this help\n"
        "  version                print the version\n"
        "\n"
        "Run 'verdict COMMAND --help' for a command's options.\n",
        out);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    const char *command = argv[1];
    if (strcmp(command, "compare") == 0)
        return cmd_compare(argc - 1, argv + 1);
    if (strcmp(command, "help") == 0 || strcmp(command, "--help") == 0 || strcmp(command, "-h") == 0) {
        usage(stdout);
        return EXIT_DONE;
    }
    if (strcmp(command, "version") == 0 || strcmp(command, "--version") == 0) {
        printf("verdict %s\n", VERDICT_VERSION);
        return EXIT_DONE;
    }
    fprintf(stderr, "verdict: unknown command '%s' (see verdict --help)\n", command);
    return EXIT_USAGE;
}

/* `verdict key new FILE`: an Ed25519 key pair for signing the experiments a fleet's workers
 * run (FILE private, 0600; FILE.pub for the workers' --trust). */
#include <stdio.h>
#include <string.h>

#include "cli/command_list.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "common/error.h"
#include "lab/lab_signature.h"

const char cmd_key_help[] =
    "usage: verdict key new FILE\n"
    "\n"
    "Makes an Ed25519 key pair: the private key in FILE (mode 0600; never over an\n"
    "existing file) and the public key in FILE.pub. Sign experiments with\n"
    "'verdict run EXPERIMENT.yaml --store STORE --sign FILE'; workers run them with\n"
    "'verdict worker --store STORE --trust FILE.pub' (docs/security.md, \"Whom a fleet\n"
    "trusts\"). Keep FILE to yourself: whoever holds it can run commands on the workers.\n"
    "\n"
    "exit status: 0 made, 1 internal failure, 2 usage (a file there already).\n";

int cmd_key(int argc, char **argv)
{
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        cli_help_write(cmd_key_help, stdout);
        return EXIT_DONE;
    }
    if (argc != 3 || strcmp(argv[1], "new") != 0) {
        fputs("verdict key: usage: verdict key new FILE (see verdict key --help)\n", stderr);
        return EXIT_USAGE;
    }
    verdict_error err = {0};
    if (lab_key_new(argv[2], &err) != 0) {
        fprintf(stderr, "verdict key: %s\n", err.message);
        return error_exit_status(err.kind);
    }
    printf("verdict key: made %s (private, 0600) and %s.pub (for the workers' --trust)\n",
           argv[2], argv[2]);
    return EXIT_DONE;
}

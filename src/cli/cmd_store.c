/* `verdict store roles STORE [--apply]`: the SQL of a fleet's two database roles, an owner
 * that registers experiments and a worker that only runs them (issue 31). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "common/error.h"

int cmd_store(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return EXIT_USAGE;
}

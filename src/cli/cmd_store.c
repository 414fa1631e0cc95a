/* `verdict store roles STORE [--apply]`: the SQL of a fleet's two database roles, an owner
 * that registers experiments and workers that only run them (issue 31). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/command_list.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "common/error.h"
#include "store/store.h"

typedef struct {
    const char *owner, *worker;
    bool apply;
} roles_settings;

const char cmd_store_help[] =
    "usage: verdict store roles STORE [--apply] [--owner ROLE] [--worker ROLE]\n"
    "\n"
    "Prints the SQL (--apply: runs it on STORE, as the store's administrator) for a\n"
    "fleet's two roles on a PostgreSQL store: the owner's (default verdict_owner), who\n"
    "registers, signs and extends experiments, and the workers' (default\n"
    "verdict_worker), who can only read experiments, claim and finish blocks, and write\n"
    "runs, samples and facts under their own machine's name: each machine logs in as a\n"
    "member role named as the machine (row-level security; docs/fleet.md).\n"
    "\n"
    "options:\n"
    "      --apply             run the SQL on STORE (its tables created first)\n"
    "      --owner ROLE        the owner's role (default verdict_owner)\n"
    "      --worker ROLE       the workers' role (default verdict_worker)\n"
    "  -h, --help              show this help\n"
    "\n"
    "exit status: 0 done, 1 the store failed, 2 usage.\n";

static int apply_roles_option(int opt, const char *arg, void *settings, verdict_error *err)
{
    roles_settings *s = settings;
    switch (opt) {
    case 'a': s->apply = true; return 0;
    case 'o': s->owner = arg; return 0;
    case 'w': s->worker = arg; return 0;
    default:
        return error_set(err, ERROR_USAGE, "unknown option (see verdict store --help)");
    }
}

static int roles(const char *name, const roles_settings *s, verdict_error *err)
{
    if (!s->apply) {
        char *sql = NULL;
        if (store_roles_sql(name, s->owner, s->worker, &sql, err) != 0)
            return -1;
        fputs(sql, stdout);
        free(sql);
        return 0;
    }
    store *db = NULL;
    if (!store_is_postgres(name))
        return error_set(err, ERROR_USAGE, "%s: database roles are a PostgreSQL store's (a "
                         "SQLite file has none)", name);
    int rc = store_open(name, &db, err);
    if (rc == 0)
        rc = store_apply_roles(db, s->owner, s->worker, err);
    store_close(db);
    if (rc == 0)
        printf("verdict store: roles %s (owner) and %s (workers) applied\n", s->owner,
               s->worker);
    return rc;
}

int cmd_store(int argc, char **argv)
{
    static const struct option options[] = {
        {"apply", no_argument, NULL, 'a'}, {"owner", required_argument, NULL, 'o'},
        {"worker", required_argument, NULL, 'w'}, {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    roles_settings s = {.owner = "verdict_owner", .worker = "verdict_worker"};
    verdict_error err = {0};
    int first = walk_options(argc, argv, "h", options, "verdict store", apply_roles_option, &s,
                             &err);
    if (first == OPTIONS_HELP) {
        cli_help_write(cmd_store_help, stdout);
        return EXIT_DONE;
    }
    if (first != OPTIONS_ERROR && (argc - first != 2 || strcmp(argv[first], "roles") != 0))
        error_set(&err, ERROR_USAGE, "usage: verdict store roles STORE [--apply] (see verdict "
                  "store --help)");
    else if (first != OPTIONS_ERROR)
        roles(argv[first + 1], &s, &err);
    if (err.kind != ERROR_NONE) {
        fprintf(stderr, "verdict store: %s\n", err.message);
        return error_exit_status(err.kind);
    }
    return EXIT_DONE;
}

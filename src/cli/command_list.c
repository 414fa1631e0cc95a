/* The table of commands (like git's command-list.txt) and the `help` command that prints
 * it: each page is one string kept beside its command's code (cli/commands.h). */
#include "cli/command_list.h"

#include <assert.h>
#include <stdbool.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "common/array.h"
#include "common/error.h"
#include "version.h"

const char cmd_help_help[] =
    "usage: verdict help [COMMAND]\n"
    "       verdict help --commands | --exit-status\n"
    "\n"
    "Prints COMMAND's page, the same as verdict COMMAND --help; without COMMAND, verdict's\n"
    "own page (verdict --help). The man page verdict(1) and the shell completions are\n"
    "made from these pages at build time.\n"
    "\n"
    "options:\n"
    "      --commands          every command with its summary, one a line (name, a tab,\n"
    "                          the summary)\n"
    "      --exit-status       every exit status with the kinds of error that end in it\n"
    "  -h, --help              show this help\n"
    "\n"
    "exit status: 0 done, 2 no such command.\n";

const char cmd_version_help[] =
    "usage: verdict version\n"
    "\n"
    "Prints verdict's version (as verdict --version and verdict -V do).\n"
    "\n"
    "exit status: 0 done.\n";

static const cli_command command_table[] = {
    {"run", {NULL, NULL}, cmd_run, "run or resume an experiment file into its store",
     cmd_run_help},
    {"report", {NULL, NULL}, cmd_report, "re-analyse a stored experiment, or export it",
     cmd_report_help},
    {"compare", {NULL, NULL}, cmd_compare,
     "compare samples measured elsewhere (hyperfine, Go, ...)", cmd_compare_help},
    {"kernel", {NULL, NULL}, cmd_kernel, "time functions of a shared object in-process",
     cmd_kernel_help},
    {"plan", {NULL, NULL}, cmd_plan, "the cheapest layouts and blocks for a target",
     cmd_plan_help},
    {"build", {NULL, NULL}, cmd_build, "build every variant of an experiment ahead of time",
     cmd_build_help},
    {"cache", {NULL, NULL}, cmd_cache, "list or prune the cache of builds by content",
     cmd_cache_help},
    {"env", {NULL, NULL}, cmd_env, "this machine's facts and noise checks", cmd_env_help},
    {"worker", {NULL, NULL}, cmd_worker, "work on a fleet's experiments from its store",
     cmd_worker_help},
    {"calibrate", {NULL, NULL}, cmd_calibrate,
     "A/A self-test: false positives, noise, the fastest method", cmd_calibrate_help},
    {"bisect", {NULL, NULL}, cmd_bisect, "find the commit that changed a metric, by halving",
     cmd_bisect_help},
    {"key", {NULL, NULL}, cmd_key, "make a key pair for signing a fleet's experiments",
     cmd_key_help},
    {"store", {NULL, NULL}, cmd_store, "a fleet store's database roles (owner, workers)",
     cmd_store_help},
    {"help", {"--help", "-h"}, cmd_help, "a command's page (verdict help COMMAND)",
     cmd_help_help},
    {"version", {"--version", "-V"}, cmd_version, "verdict's version", cmd_version_help},
};

/* What each exit status means; the kinds of error behind each come from common/error.c. */
static const struct {
    int status;
    const char *meaning;
} exit_statuses[] = {
    {EXIT_DONE, "done, whatever the verdict"},
    {EXIT_INTERNAL, "internal failure"},
    {EXIT_USAGE, "usage or bad input"},
    {EXIT_COMMAND_FAILED, "a command or a build failed"},
    {EXIT_GATE, "--fail-if triggered"},
    {EXIT_INTERRUPTED, "interrupted"},
};

const cli_command *cli_commands(size_t *count)
{
    *count = ARRAY_SIZE(command_table);
    return command_table;
}

const cli_command *cli_command_find(const char *name)
{
    for (size_t i = 0; i < ARRAY_SIZE(command_table); i++) {
        const cli_command *c = &command_table[i];
        if (strcmp(name, c->name) == 0 || (c->alias[0] && strcmp(name, c->alias[0]) == 0) ||
            (c->alias[1] && strcmp(name, c->alias[1]) == 0))
            return c;
    }
    return NULL;
}

static bool is_line(const char *line, size_t length, const char *marker)
{
    return length == strlen(marker) && memcmp(line, marker, length) == 0;
}

static void write_command_lines(FILE *out)
{
    for (size_t i = 0; i < ARRAY_SIZE(command_table); i++)
        fprintf(out, "  %-11s %s\n", command_table[i].name, command_table[i].summary);
}

void cli_help_write(const char *help, FILE *out)
{
    assert(help != NULL);
    for (const char *line = help; *line;) {
        const char *end = strchr(line, '\n');
        size_t length = end ? (size_t)(end - line) + 1 : strlen(line);
        if (is_line(line, length, "@report-options\n"))
            fputs(report_options_help, out);
        else if (is_line(line, length, "@commands\n"))
            write_command_lines(out);
        else
            fwrite(line, 1, length, out);
        line += length;
    }
}

/* One line per status: the status, a tab, what it means and the kinds of error behind it. */
static void write_exit_statuses(FILE *out)
{
    for (size_t i = 0; i < ARRAY_SIZE(exit_statuses); i++) {
        fprintf(out, "%d\t%s", exit_statuses[i].status, exit_statuses[i].meaning);
        const char *sep = " (errors: ";
        for (int kind = ERROR_NONE + 1; kind < ERROR_KIND_COUNT; kind++)
            if (error_exit_status((error_kind)kind) == exit_statuses[i].status) {
                fprintf(out, "%s%s", sep, error_kind_name((error_kind)kind));
                sep = ", ";
            }
        fputs(sep[0] == ',' ? ")\n" : "\n", out);
    }
}

int cmd_help(int argc, char **argv)
{
    const char *word = argc > 1 ? argv[1] : NULL;
    const cli_command *command = word ? cli_command_find(word) : NULL;
    int rc = EXIT_DONE;
    if (argc > 2) {
        fprintf(stderr, "verdict help: one command at most (see verdict help --help)\n");
        rc = EXIT_USAGE;
    } else if (word == NULL) {
        cli_help_write(cmd_bench_help, stdout);
    } else if (strcmp(word, "--commands") == 0) {
        for (size_t i = 0; i < ARRAY_SIZE(command_table); i++)
            printf("%s\t%s\n", command_table[i].name, command_table[i].summary);
    } else if (strcmp(word, "--exit-status") == 0) {
        write_exit_statuses(stdout);
    } else if (command != NULL) {
        cli_help_write(command->help, stdout);
    } else {
        fprintf(stderr, "verdict help: no command '%s' (verdict --help lists them)\n", word);
        rc = EXIT_USAGE;
    }
    return rc;
}

int cmd_version(int argc, char **argv)
{
    if (argc > 1 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0))
        cli_help_write(cmd_version_help, stdout);
    else
        printf("verdict %s\n", VERDICT_VERSION);
    return EXIT_DONE;
}

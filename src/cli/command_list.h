/* The one table of verdict's commands: name, entry point, one-line summary and help page,
 * from which `verdict --help`, `verdict help`, the man page and the completions are made. */
#ifndef VERDICT_CLI_COMMAND_LIST_H
#define VERDICT_CLI_COMMAND_LIST_H

#include <stddef.h>
#include <stdio.h>

typedef struct {
    const char *name;
    const char *alias[2];              /* other words for it ("--help", "-h"), or NULL */
    int (*run)(int argc, char **argv); /* argv[0] is the command's word */
    const char *summary;               /* its line in `verdict --help` */
    const char *help;                  /* its page; see cli_help_write */
} cli_command;

/* The table, in the order `verdict --help` lists it. */
const cli_command *cli_commands(size_t *count);
/* The command called name (or one of its aliases), or NULL. */
const cli_command *cli_command_find(const char *name);
/* Writes a help page. Its usage lines come first; a line "@report-options" stands for the
 * report group shared by the analysing commands (cli/options.h) and a line "@commands" for
 * the table's names and summaries, so that no text exists twice. */
void cli_help_write(const char *help, FILE *out);

/* verdict help [COMMAND | --commands | --exit-status] */
int cmd_help(int argc, char **argv);
int cmd_version(int argc, char **argv);

#endif

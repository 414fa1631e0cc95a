/* Entry points of verdict's commands; each parses its own options and returns an
 * exit code of DESIGN.md's contract (see cli/options.h). */
#ifndef VERDICT_CLI_COMMANDS_H
#define VERDICT_CLI_COMMANDS_H

int cmd_compare(int argc, char **argv);
int cmd_env(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_report(int argc, char **argv);
/* The default command: verdict [OPTIONS] COMMAND COMMAND... */
int cmd_bench(int argc, char **argv);

#endif

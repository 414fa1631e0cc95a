/* Entry points of verdict's commands; each parses its own options and returns an
 * exit code of the contract in docs/architecture.md (cli/options.h). */
#ifndef VERDICT_CLI_COMMANDS_H
#define VERDICT_CLI_COMMANDS_H

int cmd_compare(int argc, char **argv);
int cmd_env(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_report(int argc, char **argv);
/* verdict build EXPERIMENT; verdict cache list|prune: builds by content */
int cmd_build(int argc, char **argv);
int cmd_cache(int argc, char **argv);
/* verdict kernel [OPTIONS] SO KERNEL KERNEL...: in-process benchmarks */
int cmd_kernel(int argc, char **argv);
/* verdict worker --store URI: a machine of a fleet taking work from the store */
int cmd_worker(int argc, char **argv);
/* verdict plan EXPERIMENT: the cheapest layouts and blocks for a target, from stored runs */
int cmd_plan(int argc, char **argv);
/* verdict calibrate [OPTIONS] [-- COMMAND]: an A/A self-test of this machine */
int cmd_calibrate(int argc, char **argv);
/* verdict bisect EXPERIMENT --good REF --bad REF: the commit that changed the metric */
int cmd_bisect(int argc, char **argv);
/* The default command: verdict [OPTIONS] COMMAND COMMAND... */
int cmd_bench(int argc, char **argv);

#endif

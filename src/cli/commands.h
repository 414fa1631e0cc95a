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
/* verdict key new FILE: a key pair for signing a fleet's experiments */
int cmd_key(int argc, char **argv);
/* verdict store roles STORE [--apply]: a fleet's database roles, least privilege */
int cmd_store(int argc, char **argv);
/* verdict plan EXPERIMENT: the cheapest layouts and blocks for a target, from stored runs */
int cmd_plan(int argc, char **argv);
/* verdict calibrate [OPTIONS] [-- COMMAND]: an A/A self-test of this machine */
int cmd_calibrate(int argc, char **argv);
/* verdict bisect EXPERIMENT --good REF --bad REF: the commit that changed the metric */
int cmd_bisect(int argc, char **argv);
/* The default command: verdict [OPTIONS] COMMAND COMMAND... */
int cmd_bench(int argc, char **argv);

/* Each command's help page, one string kept beside its code; cli/command_list.c puts
 * them in the table of commands and says how a page is written (cli_help_write). */
extern const char cmd_bench_help[], cmd_run_help[], cmd_report_help[], cmd_compare_help[],
    cmd_kernel_help[], cmd_plan_help[], cmd_build_help[], cmd_cache_help[], cmd_env_help[],
    cmd_worker_help[], cmd_calibrate_help[], cmd_key_help[], cmd_store_help[], cmd_bisect_help[],
    cmd_help_help[], cmd_version_help[];

#endif

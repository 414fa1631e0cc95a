/* Entry point of `verdict kernel`, the in-process benchmark mode: times functions of a
 * shared object (include/verdict/kernel.h) in interleaved blocks and compares them. */
#ifndef VERDICT_CLI_CMD_KERNEL_H
#define VERDICT_CLI_CMD_KERNEL_H

/* verdict kernel [OPTIONS] SO KERNEL KERNEL [KERNEL...]; argv[0] is "kernel". Returns an
 * exit code of DESIGN.md's contract (cli/options.h). */
int cmd_kernel(int argc, char **argv);

#endif

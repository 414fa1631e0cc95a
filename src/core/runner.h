/* Runs one command once and measures it: wall time, CPU time, max RSS, context switches,
 * exit status; its own process group, stdin from /dev/null or a file, stdout where asked,
 * a timeout, interruption, and death with verdict (the parent-death signal). */
#ifndef VERDICT_CORE_RUNNER_H
#define VERDICT_CORE_RUNNER_H

#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"

#define RUNNER_STDERR_TAIL 2048
/* Captured stdout keeps at most this much (less one byte), from the start. */
#define RUNNER_STDOUT_LIMIT ((size_t)64 << 20)

/* Where a run's standard output goes (hyperfine's --output): nowhere (/dev/null), through a
 * pipe verdict reads and discards, verdict's own stdout and stderr, or a file (truncated
 * at every run). Captured output (a metric reads it) goes through the pipe and is copied
 * on to the terminal or the file. */
typedef enum { RUN_OUTPUT_NULL, RUN_OUTPUT_PIPE, RUN_OUTPUT_INHERIT, RUN_OUTPUT_FILE } run_output;

typedef struct {
    char *const *argv;      /* argv[0] is resolved through PATH */
    char *const *envp;
    const char *cwd;        /* NULL: verdict's own */
    double timeout;         /* seconds; 0 for none */
    const cpu_set_t *pin;   /* CPUs the command may run on; NULL: inherit */
    bool capture_stdout;    /* keep stdout (for metric extraction); otherwise discarded */
    const char *input;      /* the file on stdin; NULL: /dev/null */
    run_output output;      /* RUN_OUTPUT_NULL unless set */
    const char *output_path; /* RUN_OUTPUT_FILE */
} run_request;

typedef struct {
    double wall, user, sys;           /* seconds */
    double maxrss_kib;
    long voluntary_switches, involuntary_switches;
    int exit_code;                    /* exit status, or 128 + signal number */
    int term_signal;                  /* the signal that ended it, or 0 */
    bool timed_out, interrupted;
    char *stdout_text;                /* NUL-terminated when captured (and may hold NULs:
                                         use stdout_length); caller frees */
    size_t stdout_length;
    bool stdout_cut;                  /* the output went on beyond what was kept: text is a
                                         contiguous head ending at a line end (or at the
                                         limit, for a longer line) */
    size_t stdout_dropped;            /* bytes read after the kept head, never joined to it */
    char stderr_tail[RUNNER_STDERR_TAIL]; /* last bytes of stderr, NUL-terminated */
} run_result;

/* Runs the command. Returns 0 when it ran (whatever its exit status; check exit_code,
 * timed_out and interrupted), or -1 when it could not be started (its input or output file
 * could not be opened, say), with a message in err
 * ("cannot run 'CMD': its directory D: No such file or directory", say). A non-zero *stop
 * (set by a signal handler) kills the run's process group. The command gets SIGKILL if
 * the calling thread ends first (PR_SET_PDEATHSIG): call it from a thread that lives as
 * long as verdict (the main thread). Processes the command starts itself are killed with
 * its process group when it ends, or when verdict stops it; the parent-death signal
 * reaches only the command itself. */
int runner_execute(const run_request *request, volatile sig_atomic_t *stop, run_result *out,
                   verdict_error *err);
void run_result_free(run_result *result);

/* A fresh directory for a run's output files under $TMPDIR (or /tmp), "PREFIX.XXXXXX", its
 * absolute path into dir (absolute: the run may change to another directory before it
 * writes); `what` names the files in messages. 0, or -1 (ERROR_INTERNAL). */
int runner_make_temp_dir(const char *prefix, const char *what, char *dir, size_t len,
                         verdict_error *err);

/* CLOCK_MONOTONIC in seconds: the one clock every measurement of verdict uses. */
double runner_monotonic_seconds(void);

/* Finds an executable for argv[0] as execvp would, a relative path being taken from cwd
 * (NULL: verdict's own), as the run will see it; returns 0, or -1 with a message. */
int runner_check_executable(const char *cwd, const char *name, verdict_error *err);
/* 0 when dir is a directory a run can change to; otherwise -1 with "cwd DIR: why", so that
 * a missing directory is refused before anything runs rather than blamed on the program. */
int runner_check_directory(const char *dir, verdict_error *err);
/* The same, with the file that would run in path (name itself when it has a '/'). */
int runner_find_executable(const char *cwd, const char *name, char *path, size_t pathlen,
                           verdict_error *err);

#endif

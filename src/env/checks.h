/* Noise checks of `verdict env`: turn machine facts plus a short measurement of steal and
 * other load into pass/warn/info lines, each with a stable code. */
#ifndef VERDICT_ENV_CHECKS_H
#define VERDICT_ENV_CHECKS_H

#include <stddef.h>

#include "env/interference.h"
#include "common/error.h"
#include "env/machine.h"

/* Limits of the checks (docs/environment.md says why). They are stricter than the
 * per-run limits of interference.h: this judges a machine that should be idle. */
#define ENV_CHECK_LOAD_PER_CPU 0.5      /* 1-minute load average per online CPU */
#define ENV_CHECK_STEAL_LIMIT 0.02      /* share of CPU time stolen over the sample */
#define ENV_CHECK_OTHER_CPUS_LIMIT 0.1  /* CPUs' worth of other work over the sample */
#define ENV_CHECK_TIMER_LIMIT 1e-6      /* seconds of CLOCK_MONOTONIC resolution */

typedef enum { CHECK_PASS, CHECK_WARN, CHECK_INFO } check_status;

typedef struct {
    check_status status;
    char *code;    /* stable: governor, turbo, smt, aslr, load, steal, other-load, vm,
                    * timer, clocksource */
    char *message; /* one line for people; wording may change */
} env_check;

/* Measures steal and other load over sample_seconds (0 skips the measurement: those two
 * checks are then "info"), reads the timer's resolution, and judges. *out gets one check
 * per code, in the order above. Returns 0, or -1 with a message in err. */
int env_checks_run(const machine_facts *facts, double sample_seconds, env_check **out,
                   size_t *n, verdict_error *err);

/* The judging alone, without measuring: sample may be NULL (not measured) and
 * timer_resolution NaN (unknown). Deterministic, for tests. */
int env_checks_judge(const machine_facts *facts, const interference *sample,
                     double timer_resolution, env_check **out, size_t *n, verdict_error *err);

void env_checks_free(env_check *checks, size_t n);

/* "pass", "warn" or "info". */
const char *check_status_name(check_status status);

#endif

/* What runs around the measurements: the setup, teardown and prepare commands of an
 * experiment, failures reported with the end of their stderr. */
#ifndef VERDICT_LAB_LAB_HELPERS_H
#define VERDICT_LAB_LAB_HELPERS_H

#include <signal.h>
#include <stdio.h>

#include "common/error.h"
#include "core/command_words.h"
#include "core/experiment.h"

/* The helper's words at a point: /bin/sh -c LINE (the values shell-quoted) or LINE split
 * into words; n == 0 when there is none. 0, or -1 with err. */
int lab_helper_words(const experiment *e, const experiment_helper *h, size_t point,
                     command_words *out, verdict_error *err);

/* Checks, before anything runs, that a helper given as words can be executed. */
int lab_check_helper(const experiment *e, const experiment_helper *h, const char *role,
                     verdict_error *err);

/* Runs a helper (role: "setup", "prepare", ...) unmeasured in cwd (NULL: verdict's own):
 * 0, or -1 with err (kind command failed, or interrupted). */
int lab_run_helper(const experiment *e, const command_words *words, const char *role,
                   const char *cwd, volatile sig_atomic_t *stop, verdict_error *err);

#endif

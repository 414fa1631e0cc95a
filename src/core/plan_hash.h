/* The plan hash's serialization, for the generic keys (experiment_points.c) and each
 * target's own: every field a tag, its length and its bytes, so no two plans collide. */
#ifndef VERDICT_CORE_PLAN_HASH_H
#define VERDICT_CORE_PLAN_HASH_H

#include <stddef.h>
#include <stdint.h>

#include "core/experiment.h"

/* A text field (NULL differs from ""), a number, and NAME=value pairs. */
void plan_hash_field(uint64_t *state, char tag, const char *text);
void plan_hash_number(uint64_t *state, char tag, uint64_t value);
void plan_hash_pairs(uint64_t *state, char tag, const experiment_env *pairs, size_t n);
/* A path the loader resolved against the experiment's directory. A fleet's experiment
 * (machines: survey or share) hashes it relative to that directory, so that a worker
 * reading it back in another directory, on another machine, has the same plan. */
void plan_hash_path(uint64_t *state, char tag, const experiment *e, const char *path);

#endif

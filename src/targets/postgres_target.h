/* The PostgreSQL target: a template cluster per variant, a fresh copy started before each
 * run (or each point), pgbench as the measured command, its tps, latency and percentiles. */
#ifndef VERDICT_TARGETS_POSTGRES_TARGET_H
#define VERDICT_TARGETS_POSTGRES_TARGET_H

#include "core/target.h"

extern const target_kind postgres_target;

#endif

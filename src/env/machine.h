/* Facts about the machine a benchmark ran on (CPU, kernel, frequency policy, VM, load,
 * compilers), as key/value strings for the JSON "environment" object and the store. */
#ifndef VERDICT_ENV_MACHINE_H
#define VERDICT_ENV_MACHINE_H

#include <stddef.h>

#include "common/error.h"

typedef struct {
    char *key;
    char *value;
} machine_fact;

typedef struct {
    machine_fact *facts; /* in collection order; keys are unique */
    size_t n, capacity;
} machine_facts;

/* Which facts to collect: the compilers are facts of a build, and asking them costs tens
 * of milliseconds (`clang --version` alone 40 ms here), so a run that builds nothing
 * leaves them out. */
typedef enum { MACHINE_FACTS_WITHOUT_COMPILERS, MACHINE_FACTS_ALL } machine_fact_set;

/* Collects the facts of docs/environment.md into out (which it initializes). A fact that
 * cannot be read gets "unknown", "none" or "absent", never an error; with compilers, runs
 * `cc --version`, `gcc --version` and `clang --version` (2 s timeout each). Returns 0, or
 * -1 with a message in err (out of memory); out is then empty. */
int machine_facts_collect(machine_facts *out, machine_fact_set which, verdict_error *err);

/* Adds a fact, or replaces the value of an existing key (the caller adds verdict's own
 * version this way). Returns 0, or -1 when out of memory. */
int machine_facts_set(machine_facts *facts, const char *key, const char *value);

/* The value of key, or NULL when there is no such fact. */
const char *machine_facts_get(const machine_facts *facts, const char *key);

/* The facts that make a machine the machine it is, in the order they are shown; the
 * "machine_id" fact is a hash of them (docs/fleet.md). */
extern const char *const machine_identity_keys[4];
/* Adds "machine_id": 16 hex digits of a hash of the identity facts. 0, or -1 (memory). */
int machine_facts_add_id(machine_facts *facts);

/* Frees every fact and leaves facts empty; safe on an empty or already freed value. */
void machine_facts_free(machine_facts *facts);

#endif

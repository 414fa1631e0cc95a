/* The machine_facts container (set, get, free) and machine_facts_collect, which runs
 * every group of collectors in a fixed order so tables and JSON read the same each time. */
#include "env/machine.h"

#include "common/array.h"
#include "common/error.h"
#include "common/hash.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env/machine_internal.h"

static machine_fact *find_fact(const machine_facts *facts, const char *key)
{
    for (size_t i = 0; i < facts->n; i++)
        if (strcmp(facts->facts[i].key, key) == 0)
            return &facts->facts[i];
    return NULL;
}

const char *machine_facts_get(const machine_facts *facts, const char *key)
{
    const machine_fact *fact = find_fact(facts, key);
    return fact ? fact->value : NULL;
}

int machine_facts_set(machine_facts *facts, const char *key, const char *value)
{
    char *value_copy = strdup(value);
    if (value_copy == NULL)
        return -1;
    machine_fact *existing = find_fact(facts, key);
    if (existing != NULL) {
        free(existing->value);
        existing->value = value_copy;
        return 0;
    }
    char *key_copy = strdup(key);
    if (key_copy == NULL || array_reserve((void **)&facts->facts, &facts->capacity,
                                          facts->n + 1, sizeof *facts->facts) != 0) {
        free(key_copy);
        free(value_copy);
        return -1;
    }
    facts->facts[facts->n++] = (machine_fact){.key = key_copy, .value = value_copy};
    return 0;
}

const char *const machine_identity_keys[4] = {"cpu_model", "cpus_online", "kernel", "hostname"};

int machine_facts_add_id(machine_facts *facts)
{
    uint64_t h = HASH_FNV_OFFSET;
    for (size_t i = 0; i < ARRAY_SIZE(machine_identity_keys); i++) {
        const char *value = machine_facts_get(facts, machine_identity_keys[i]);
        h = hash_fnv1a_text(h, value ? value : "");
    }
    char id[17];
    snprintf(id, sizeof id, "%016llx", (unsigned long long)h);
    return machine_facts_set(facts, "machine_id", id);
}

void machine_facts_free(machine_facts *facts)
{
    for (size_t i = 0; i < facts->n; i++) {
        free(facts->facts[i].key);
        free(facts->facts[i].value);
    }
    free(facts->facts);
    facts->facts = NULL;
    facts->n = facts->capacity = 0;
}

int machine_facts_collect(machine_facts *out, machine_fact_set which, verdict_error *err)
{
    static int (*const collectors[])(machine_facts *) = {
        collect_cpu_facts, collect_frequency_facts, collect_system_facts,
        collect_compiler_facts, /* last: left out without compilers */
    };
    size_t n = sizeof collectors / sizeof collectors[0] - (which == MACHINE_FACTS_ALL ? 0 : 1);
    *out = (machine_facts){NULL, 0, 0};
    for (size_t i = 0; i < n; i++)
        if (collectors[i](out) != 0) {
            machine_facts_free(out);
            error_set(err, ERROR_NO_MEMORY, "machine facts: out of memory");
            return -1;
        }
    return 0;
}

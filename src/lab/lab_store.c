/* Opening the store for an experiment: the default path beside the file, the seed settled
 * before the plan hash is taken, and the store's refusal of a changed plan as a usage error. */
#include "lab/lab_store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "common/error.h"
#include "common/hash.h"
#include "common/strbuf.h"
#include "version.h"

char *lab_default_store_path(const char *experiment_path)
{
    size_t length = strlen(experiment_path);
    const char *dot = strrchr(experiment_path, '.');
    const char *slash = strrchr(experiment_path, '/');
    if (dot && (!slash || dot > slash))
        length = (size_t)(dot - experiment_path);
    strbuf path = STRBUF_INIT;
    strbuf_appendf(&path, "%.*s.db", (int)length, experiment_path);
    return strbuf_detach(&path);
}

void lab_settle_seed(experiment *e)
{
    if (!e->has_seed)
        e->seed = experiment_plan_hash(e) % 1000000000u;
}

void lab_tool_build(char out[17])
{
    uint64_t h = HASH_FNV_OFFSET;
    FILE *f = fopen("/proc/self/exe", "rb");
    char buf[65536];
    size_t n;
    while (f && (n = fread(buf, 1, sizeof buf, f)) > 0)
        h = hash_fnv1a(h, buf, n);
    if (f)
        fclose(f);
    snprintf(out, 17, "%016llx", f ? (unsigned long long)h : 0ULL);
}

/* A fleet's samples are comparable only when every machine ran the same verdict: the
 * runner's overheads, the analysis and the plan's reading of the text are the build's. */
static int check_same_verdict(store *db, int64_t experiment_id, const char *build,
                              verdict_error *err)
{
    store_experiment stored;
    if (store_get_experiment(db, experiment_id, &stored, err) != 0)
        return -1;
    if (strcmp(stored.tool_version, VERDICT_VERSION) == 0 &&
        (stored.tool_build == NULL || stored.tool_build[0] == '\0' ||
         strcmp(stored.tool_build, build) == 0))
        return 0;
    return error_set(err, ERROR_USAGE, "experiment %s was registered by verdict %s (build %s); "
                     "this is verdict %s (build %s): every machine of a fleet must run the same "
                     "verdict, so that their samples compare; install that build here, or "
                     "register the experiment under a new name", stored.name,
                     stored.tool_version, stored.tool_build ? stored.tool_build : "unknown",
                     VERDICT_VERSION, build);
}

store_fact *lab_fact_rows(const machine_facts *facts)
{
    store_fact *rows = calloc(facts->n + 1, sizeof *rows);
    for (size_t i = 0; rows && i < facts->n; i++)
        rows[i] = (store_fact){facts->facts[i].key, facts->facts[i].value};
    return rows;
}

/* What the store holds of one machine: its identity facts, and its last calibration. */
typedef struct {
    const char *machine;
    char *known[ARRAY_SIZE(machine_identity_keys) + 1]; /* the identity facts, then the id */
    char *calibration;
} stored_machine;

static int keep_identity(void *context, const char *machine, const char *key, const char *value)
{
    stored_machine *m = context;
    if (strcmp(machine, m->machine) != 0)
        return 0;
    if (strcmp(key, LAB_CALIBRATION_FACT) == 0 && m->calibration == NULL &&
        (m->calibration = strdup(value)) == NULL)
        return 1;
    for (size_t i = 0; i <= ARRAY_SIZE(machine_identity_keys); i++) {
        const char *wanted = i < ARRAY_SIZE(machine_identity_keys) ? machine_identity_keys[i]
                                                                   : "machine_id";
        if (strcmp(key, wanted) == 0 && m->known[i] == NULL && (m->known[i] = strdup(value)) == NULL)
            return 1; /* out of memory: lab_record_machine says so (err is untouched) */
    }
    return 0;
}

/* "cpu_model AMD EPYC, cpus_online 2, kernel 6.1, hostname a" of the stored or given facts. */
static void describe_identity(strbuf *out, char *const *stored, const machine_facts *facts)
{
    for (size_t i = 0; i < ARRAY_SIZE(machine_identity_keys); i++) {
        const char *v = stored ? stored[i] : machine_facts_get(facts, machine_identity_keys[i]);
        strbuf_appendf(out, "%s%s %s", i ? ", " : "", machine_identity_keys[i], v ? v : "?");
    }
}

static int refuse_taken_name(const char *machine, const stored_machine *m,
                             const machine_facts *facts, verdict_error *err)
{
    strbuf was = STRBUF_INIT, is = STRBUF_INIT;
    describe_identity(&was, (char *const *)m->known, NULL);
    describe_identity(&is, NULL, facts);
    error_set(err, ERROR_USAGE, "machine %s is already in the store as another machine (%s; "
              "this one: %s): a fleet's machines need names of their own; give this one "
              "--machine NAME", machine, strbuf_text(&was), strbuf_text(&is));
    strbuf_free(&was);
    strbuf_free(&is);
    return -1;
}

int lab_record_machine(store *db, const char *machine, machine_facts *facts,
                       verdict_error *err)
{
    stored_machine m = {.machine = machine};
    int rc = machine_facts_add_id(facts) != 0 ? error_no_memory(err) : 0;
    if (rc == 0 && (rc = store_for_each_machine_fact(db, keep_identity, &m, err)) > 0)
        rc = error_no_memory(err); /* keep_identity's strdup failed */
    const char *id = machine_facts_get(facts, "machine_id");
    char *stored_id = m.known[ARRAY_SIZE(machine_identity_keys)];
    if (rc == 0 && stored_id && id && strcmp(stored_id, id) != 0)
        rc = refuse_taken_name(machine, &m, facts, err);
    /* the facts are replaced as a whole: a run or `verdict env` keeps the calibration */
    if (rc == 0 && m.calibration && machine_facts_get(facts, LAB_CALIBRATION_FACT) == NULL &&
        machine_facts_set(facts, LAB_CALIBRATION_FACT, m.calibration) != 0)
        rc = error_no_memory(err);
    store_fact *rows = rc == 0 ? lab_fact_rows(facts) : NULL;
    if (rc == 0 && rows == NULL)
        rc = error_no_memory(err);
    if (rc == 0 && store_record_machine(db, machine, rows, facts->n, err) != 0)
        rc = -1;
    free(rows);
    for (size_t i = 0; i <= ARRAY_SIZE(machine_identity_keys); i++)
        free(m.known[i]);
    free(m.calibration);
    return rc;
}

/* Only a fleet compares builds: a local run does not hash its executable at start-up. */
void lab_build_needed(const experiment *e, char out[17])
{
    out[0] = '\0';
    if (e->machines != MACHINES_ONE)
        lab_tool_build(out);
}

int lab_open_store(const char *path, const experiment *e, store **db, int64_t *experiment_id,
                   bool *existing, verdict_error *err)
{
    char build[17];
    lab_build_needed(e, build);
    store_experiment se = {
        .name = e->name, .text = e->text, .text_length = e->text_length,
        .text_hash = experiment_text_hash(e), .plan_hash = experiment_plan_hash(e),
        .seed = e->seed, .tool_version = VERDICT_VERSION, .tool_build = build};
    *db = NULL;
    if (store_open(path, db, err) != 0)
        return -1;
    int rc = store_open_experiment(*db, &se, experiment_id, existing, err);
    if (rc == 0 && (!*existing || e->machines == MACHINES_ONE))
        return 0;
    if (rc == 0 && check_same_verdict(*db, *experiment_id, build, err) == 0)
        return 0;
    store_close(*db);
    *db = NULL;
    if (rc == 0)
        return -1; /* another verdict's experiment: err says so */
    if (error_is(err, ERROR_PLAN_CHANGED) && experiment_has_sources(e)) {
        verdict_error changed;
        error_copy(&changed, err);
        return error_set(err, ERROR_PLAN_CHANGED, "%s (the content of the variants' sources is "
                          "part of the plan: a commit or an edit since the stored samples is a "
                         "new build, measured in a new store)", changed.message);
    }
    return -1;
}

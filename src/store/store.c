/* The store's dispatcher: picks the back end by the store's name (a SQLite path or a
 * PostgreSQL connection), checks what callers pass in, and refuses writes to a reader. */
#include <assert.h>
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/strbuf.h"
#include "store/pg_store.h"
#include "store/store_backend.h"

/* The libpq keywords a conninfo string may begin with ("host=db1 dbname=verdict"). */
static const char *const conninfo_keywords[] = {
    "host", "hostaddr", "port", "dbname", "user", "password", "passfile", "service",
    "sslmode", "connect_timeout", "application_name", "options", "target_session_attrs",
    "sslrootcert", "sslcert", "sslkey", "gssencmode", "krbsrvname", "channel_binding",
    "client_encoding", "keepalives", "require_auth", "verdict_schema",
};

static bool starts_with_keyword(const char *name)
{
    while (isspace((unsigned char)*name))
        name++;
    for (size_t i = 0; i < sizeof conninfo_keywords / sizeof conninfo_keywords[0]; i++) {
        size_t n = strlen(conninfo_keywords[i]);
        if (strncmp(name, conninfo_keywords[i], n) != 0)
            continue;
        const char *rest = name + n;
        while (*rest == ' ' || *rest == '\t')
            rest++;
        if (*rest == '=')
            return true;
    }
    return false;
}

char *store_display_name(const char *name)
{
    return store_is_postgres(name) ? pg_store_redact(name) : strdup(name);
}

bool store_is_postgres(const char *name)
{
    if (name == NULL)
        return false;
    return strncmp(name, "postgresql://", 13) == 0 || strncmp(name, "postgres://", 11) == 0 ||
           starts_with_keyword(name);
}

/* What every back end relies on is asserted here once: a store, its out-pointers, an array
 * for every count above 0, a callback. Back ends need not repeat the dispatcher's checks; they
 * assert what the dispatcher guarantees them (no call with n == 0, a machine never NULL). */
static int open_store(const char *name, bool read_only, store **out, verdict_error *err)
{
    assert(out != NULL);
    *out = NULL;
    if (name == NULL || name[0] == '\0')
        return error_set(err, ERROR_USAGE, "store: no file name given");
    if (store_is_postgres(name))
        return pg_store_open(name, read_only, out, err);
    return sqlite_store_open(name, read_only, out, err);
}

int store_open(const char *path, store **out, verdict_error *err)
{
    return open_store(path, false, out, err);
}

int store_open_read_only(const char *path, store **out, verdict_error *err)
{
    return open_store(path, true, out, err);
}

void store_close(store *s)
{
    if (s != NULL)
        s->backend->close(s);
}

/* A store opened with store_open_read_only is never written. */
static int refuse_if_read_only(const store *s, const char *doing, verdict_error *err)
{
    if (!s->read_only)
        return 0;
    return error_set(err, ERROR_STORE, "%s: opened read-only; cannot be written while %s", s->label,
                     doing);
}

static int check_sample(const store *s, const store_sample *x, verdict_error *err)
{
    if (x->point == NULL || x->variant == NULL)
        return error_set(err, ERROR_INTERNAL, "%s: a sample needs a point and a variant", s->label);
    if (x->n_metrics > 0 && (x->metric_names == NULL || x->metric_values == NULL))
        return error_set(err, ERROR_INTERNAL, "%s: a sample's metrics need names and values",
                         s->label);
    for (size_t i = 0; i < x->n_metrics; i++)
        if (x->metric_names[i] == NULL)
            return error_set(err, ERROR_INTERNAL, "%s: a sample's metric has no name", s->label);
    return 0;
}

static bool is_run_status(const char *status)
{
    static const char *const known[] = {"running", "done", "interrupted", "failed"};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (status != NULL && strcmp(status, known[i]) == 0)
            return true;
    return false;
}

int store_open_experiment(store *s, const store_experiment *e, int64_t *experiment_id,
                          bool *existing, verdict_error *err)
{
    assert(s != NULL && e != NULL && experiment_id != NULL && existing != NULL);
    if (e->name == NULL || e->name[0] == '\0')
        return error_set(err, ERROR_INTERNAL, "%s: an experiment needs a name", s->label);
    if (refuse_if_read_only(s, "opening the experiment", err) != 0)
        return -1;
    return s->backend->open_experiment(s, e, experiment_id, existing, err);
}

int store_begin_run(store *s, int64_t experiment_id, const store_fact *facts, size_t n_facts,
                    int64_t *run_id, verdict_error *err)
{
    assert(s != NULL && run_id != NULL && (n_facts == 0 || facts != NULL));
    if (refuse_if_read_only(s, "recording the run", err) != 0)
        return -1;
    return s->backend->begin_run(s, experiment_id, facts, n_facts, run_id, err);
}

int store_add_run_facts(store *s, int64_t run_id, const store_fact *facts, size_t n_facts,
                        verdict_error *err)
{
    assert(s != NULL && (n_facts == 0 || facts != NULL));
    if (refuse_if_read_only(s, "recording the run's facts", err) != 0)
        return -1;
    return s->backend->add_run_facts(s, run_id, facts, n_facts, err);
}

int store_add_samples(store *s, int64_t run_id, const store_sample *samples, size_t n,
                      verdict_error *err)
{
    assert(s != NULL && (n == 0 || samples != NULL));
    if (refuse_if_read_only(s, "adding samples", err) != 0)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (check_sample(s, &samples[i], err) != 0)
            return -1;
    return n == 0 ? 0 : s->backend->add_samples(s, run_id, samples, n, err);
}

int store_add_sample(store *s, int64_t run_id, const store_sample *sample, verdict_error *err)
{
    return store_add_samples(s, run_id, sample, 1, err);
}

int store_end_run(store *s, int64_t run_id, const char *status, verdict_error *err)
{
    assert(s != NULL);
    if (!is_run_status(status))
        return error_set(err, ERROR_INTERNAL, "%s: run status %s is none of done, interrupted, "
                         "failed, running", s->label, status != NULL ? status : "(none)");
    if (refuse_if_read_only(s, "finishing the run", err) != 0)
        return -1;
    return s->backend->end_run(s, run_id, status, err);
}

int store_for_each_sample(store *s, int64_t experiment_id, store_sample_fn fn, void *context,
                          verdict_error *err)
{
    assert(s != NULL && fn != NULL);
    return s->backend->for_each_sample(s, experiment_id, fn, context, err);
}

int store_get_experiment(store *s, int64_t experiment_id, store_experiment *out, verdict_error *err)
{
    assert(s != NULL && out != NULL);
    return s->backend->get_experiment(s, experiment_id, out, err);
}

int store_latest_experiment(store *s, int64_t *experiment_id, verdict_error *err)
{
    assert(s != NULL && experiment_id != NULL);
    return s->backend->latest_experiment(s, experiment_id, err);
}

int store_for_each_fact(store *s, int64_t experiment_id, store_fact_fn fn, void *context,
                        verdict_error *err)
{
    assert(s != NULL && fn != NULL);
    return s->backend->for_each_fact(s, experiment_id, fn, context, err);
}

int store_for_each_experiment(store *s, store_experiment_fn fn, void *context, verdict_error *err)
{
    assert(s != NULL && fn != NULL);
    return s->backend->for_each_experiment(s, fn, context, err);
}

/* store_find_experiment's walk: the id of the name sought, and every name for the message. */
typedef struct {
    const char *name;
    int64_t id;
    bool found;
    strbuf names;
} experiment_search;

static int search_experiment(void *context, int64_t experiment_id, const store_experiment *e)
{
    experiment_search *search = context;
    if (strcmp(e->name, search->name) == 0) {
        search->found = true;
        search->id = experiment_id;
        return 1;
    }
    strbuf_appendf(&search->names, "%s%s", search->names.length > 0 ? ", " : "", e->name);
    return 0;
}

/* Built on the walk of every experiment: one query path per back end, and a missing name's
 * message can list what the store holds. */
int store_find_experiment(store *s, const char *name, int64_t *experiment_id, verdict_error *err)
{
    assert(s != NULL && experiment_id != NULL);
    experiment_search search = {.name = name != NULL ? name : "", .names = STRBUF_INIT};
    int rc = store_for_each_experiment(s, search_experiment, &search, err);
    if (rc >= 0 && search.found)
        *experiment_id = search.id;
    else if (rc >= 0 && strbuf_status(&search.names) != 0)
        rc = error_set(err, ERROR_NO_MEMORY, "%s: out of memory", s->label);
    else if (rc >= 0)
        rc = error_set(err, ERROR_USAGE, "%s: no experiment \"%s\"; it holds%s%s", s->label,
                       search.name, search.names.length > 0 ? ": " : " no experiment",
                       strbuf_text(&search.names));
    strbuf_free(&search.names);
    return rc < 0 ? -1 : 0;
}

int store_record_machine(store *s, const char *machine, const store_fact *facts, size_t n_facts,
                         verdict_error *err)
{
    assert(s != NULL && (n_facts == 0 || facts != NULL));
    if (machine == NULL || machine[0] == '\0')
        return error_set(err, ERROR_INTERNAL, "%s: a machine needs a name", s->label);
    if (refuse_if_read_only(s, "recording the machine", err) != 0)
        return -1;
    return s->backend->record_machine(s, machine, facts, n_facts, err);
}

int store_for_each_machine_fact(store *s, store_machine_fact_fn fn, void *context,
                                verdict_error *err)
{
    assert(s != NULL && fn != NULL);
    return s->backend->for_each_machine_fact(s, fn, context, err);
}

int store_plan_blocks(store *s, int64_t experiment_id, const store_block *blocks, size_t n,
                      verdict_error *err)
{
    assert(s != NULL && (n == 0 || blocks != NULL));
    for (size_t i = 0; i < n; i++)
        if (blocks[i].point == NULL || blocks[i].block < 0)
            return error_set(err, ERROR_INTERNAL, "%s: a planned block needs a point and a block "
                             "number >= 0", s->label);
    if (refuse_if_read_only(s, "planning the blocks", err) != 0)
        return -1;
    return n == 0 ? 0 : s->backend->plan_blocks(s, experiment_id, blocks, n, err);
}

static int check_worker(const store *s, const char *worker, double lease_seconds,
                        verdict_error *err)
{
    if (worker == NULL || worker[0] == '\0')
        return error_set(err, ERROR_INTERNAL, "%s: a claim needs a worker", s->label);
    if (!(lease_seconds > 0 && lease_seconds <= 7 * 86400.0))
        return error_set(err, ERROR_INTERNAL, "%s: a lease of %g s is not between 0 and a week",
                         s->label, lease_seconds);
    return 0;
}

int store_claim_block(store *s, int64_t experiment_id, const char *point, const char *machine,
                      const char *worker, double lease_seconds, store_claim *out,
                          verdict_error *err)
{
    assert(s != NULL && out != NULL);
    memset(out, 0, sizeof *out);
    if (check_worker(s, worker, lease_seconds, err) != 0 ||
        refuse_if_read_only(s, "claiming a block", err) != 0)
        return -1;
    return s->backend->claim_block(s, experiment_id, point, machine != NULL ? machine : "",
                                   worker, lease_seconds, out, err);
}

int store_renew_claim(store *s, int64_t claim, const char *worker, double lease_seconds,
                      verdict_error *err)
{
    assert(s != NULL);
    if (check_worker(s, worker, lease_seconds, err) != 0 ||
        refuse_if_read_only(s, "renewing a claim", err) != 0)
        return -1;
    return s->backend->renew_claim(s, claim, worker, lease_seconds, err);
}

int store_finish_block(store *s, int64_t claim, const char *worker, int64_t run_id,
                       const store_sample *samples, size_t n_samples, verdict_error *err)
{
    assert(s != NULL && (n_samples == 0 || samples != NULL));
    if (check_worker(s, worker, 1, err) != 0 ||
        refuse_if_read_only(s, "finishing a block", err) != 0)
        return -1;
    for (size_t i = 0; i < n_samples; i++)
        if (check_sample(s, &samples[i], err) != 0)
            return -1;
    return s->backend->finish_block(s, claim, worker, run_id, samples, n_samples, err);
}

int store_release_block(store *s, int64_t claim, const char *worker, verdict_error *err)
{
    assert(s != NULL);
    if (check_worker(s, worker, 1, err) != 0 ||
        refuse_if_read_only(s, "releasing a block", err) != 0)
        return -1;
    return s->backend->release_block(s, claim, worker, err);
}

int store_for_each_block(store *s, int64_t experiment_id, store_block_fn fn, void *context,
                         verdict_error *err)
{
    assert(s != NULL && fn != NULL);
    return s->backend->for_each_block(s, experiment_id, fn, context, err);
}

/* The largest extension so far, for the refusal's message. */
static int keep_largest(void *context, long blocks)
{
    long *largest = context;
    if (blocks > *largest)
        *largest = blocks;
    return 0;
}

int store_add_extension(store *s, int64_t experiment_id, long blocks, verdict_error *err)
{
    assert(s != NULL);
    if (blocks <= 0)
        return error_set(err, ERROR_STORE, "%s: an extension of %ld blocks per point; it must be "
                         "above 0", s->label, blocks);
    if (refuse_if_read_only(s, "extending an experiment", err) != 0)
        return -1;
    int rc = s->backend->add_extension(s, experiment_id, blocks, err);
    if (rc != 1)
        return rc;
    long largest = 0;
    if (s->backend->for_each_extension(s, experiment_id, keep_largest, &largest, err) != 0)
        return -1;
    if (largest == blocks) /* recorded already: a redone call after a lost connection */
        return 0;
    return error_set(err, ERROR_STORE, "%s: the experiment was already extended to %ld blocks per "
                     "point; an extension to %ld does not add any", s->label, largest, blocks);
}

int store_for_each_extension(store *s, int64_t experiment_id, store_extension_fn fn,
                             void *context, verdict_error *err)
{
    assert(s != NULL && fn != NULL);
    return s->backend->for_each_extension(s, experiment_id, fn, context, err);
}

int store_add_profile(store *s, int64_t run_id, const store_profile *p, verdict_error *err)
{
    assert(s != NULL && p != NULL);
    if (p->point == NULL || p->variant == NULL || p->event == NULL || p->symbols == NULL ||
        p->stacks == NULL || p->block < 0 || p->layout < 0 || p->samples < 0)
        return error_set(err, ERROR_INTERNAL, "%s: a profile without its point, variant, "
                         "event, block or perf's output", s->label);
    if (refuse_if_read_only(s, "keeping a profile", err) != 0)
        return -1;
    return s->backend->add_profile(s, run_id, p, err);
}

int store_for_each_profile(store *s, int64_t experiment_id, store_profile_fn fn, void *context,
                           verdict_error *err)
{
    assert(s != NULL && fn != NULL);
    return s->backend->for_each_profile(s, experiment_id, fn, context, err);
}

/* ---- shared by both back ends ---- */

void store_format_hash(uint64_t hash, char out[17])
{
    snprintf(out, 17, "%016" PRIx64, hash);
}

bool store_parse_hash(const char *text, uint64_t *out)
{
    if (text == NULL)
        return false;
    for (int i = 0; i < 16; i++)
        if (!isxdigit((unsigned char)text[i]))
            return false;
    if (text[16] != '\0')
        return false;
    *out = (uint64_t)strtoull(text, NULL, 16);
    return true;
}

char *store_copy_string(const char *text)
{
    if (text == NULL)
        return NULL;
    size_t n = strlen(text) + 1;
    char *copy = malloc(n);
    if (copy != NULL)
        memcpy(copy, text, n);
    return copy;
}

int store_fail_block_stored(const char *label, const store_sample *x, verdict_error *err)
{
    bool remote = x->machine != NULL && x->machine[0] != '\0';
    return error_set(err, ERROR_STORE, "%s: a sample for point %s, variant %s, layout %ld%s%s, "
                      "block %ld of this experiment is already stored; a block is never measured "
                     "twice", label, x->point, x->variant, x->layout, remote ? ", machine " : "",
                     remote ? x->machine : "", x->block);
}

int store_fail_plan_changed(const char *label, const char *name, verdict_error *err)
{
    return error_set(err, ERROR_PLAN_CHANGED, "experiment %s in %s was run with a different plan "
                      "(variants, parameters, seed or repetitions changed); use a new store or "
                      "restore the file (to run more blocks, keep the file as it was and give "
                     "verdict run --more N)", name, label);
}

int store_fail_fact_twice(const char *label, const char *key, verdict_error *err)
{
    return error_set(err, ERROR_STORE, "%s: fact %s given twice for one run", label,
                     key != NULL ? key : "");
}

int store_fail_metric_twice(const char *label, const char *name, verdict_error *err)
{
    return error_set(err, ERROR_STORE, "%s: metric %s given twice for one sample", label, name);
}

int store_fail_machine_fact_twice(const char *label, const char *key, const char *machine,
                                  verdict_error *err)
{
    return error_set(err, ERROR_STORE, "%s: fact %s given twice for machine %s", label,
                     key != NULL ? key : "", machine);
}

int store_fail_claim_lost(const char *label, int64_t claim, verdict_error *err)
{
    return error_set(err, ERROR_CLAIM_LOST,
                     "%s: block %" PRId64 " is no longer this worker's (its "
                     "lease ran out and another worker took it, or it was finished); nothing was "
                     "written",
                     label, claim);
}

int store_sign_experiment(store *s, int64_t experiment_id, const store_signature *signature,
                          verdict_error *err)
{
    assert(s != NULL && signature != NULL);
    assert(signature->public_key && signature->signature && signature->text_sha256 &&
           signature->plan_hash && signature->tool_build && signature->extensions);
    if (refuse_if_read_only(s, "signing an experiment", err) != 0)
        return -1;
    return s->backend->sign_experiment(s, experiment_id, signature, err);
}

int store_for_each_signature(store *s, int64_t experiment_id, store_signature_fn fn,
                             void *context, verdict_error *err)
{
    assert(s != NULL && fn != NULL);
    return s->backend->for_each_signature(s, experiment_id, fn, context, err);
}

/* What a back end of the store provides (a table of operations behind store.h) and the
 * helpers both back ends share: messages, hashes as hex, checks of what callers pass in. */
#ifndef VERDICT_STORE_STORE_BACKEND_H
#define VERDICT_STORE_STORE_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/store.h"
#include "common/error.h"

/* One back end's operations. The dispatcher (store.c) checks arguments and refuses writes
 * to a read-only store before calling any of them, so back ends need not repeat that. */
typedef struct {
    void (*close)(store *s);
    int (*open_experiment)(store *s, const store_experiment *e, int64_t *experiment_id,
                           bool *existing, verdict_error *err);
    int (*begin_run)(store *s, int64_t experiment_id, const store_fact *facts, size_t n_facts,
                     int64_t *run_id, verdict_error *err);
    int (*add_run_facts)(store *s, int64_t run_id, const store_fact *facts, size_t n_facts,
                         verdict_error *err);
    int (*add_samples)(store *s, int64_t run_id, const store_sample *samples, size_t n,
                       verdict_error *err);
    int (*end_run)(store *s, int64_t run_id, const char *status, verdict_error *err);
    int (*for_each_sample)(store *s, int64_t experiment_id, store_sample_fn fn, void *context,
                           verdict_error *err);
    int (*get_experiment)(store *s, int64_t experiment_id, store_experiment *out,
                          verdict_error *err);
    int (*latest_experiment)(store *s, int64_t *experiment_id, verdict_error *err);
    int (*for_each_fact)(store *s, int64_t experiment_id, store_fact_fn fn, void *context,
                         verdict_error *err);
    int (*for_each_experiment)(store *s, store_experiment_fn fn, void *context, verdict_error *err);
    int (*record_machine)(store *s, const char *machine, const store_fact *facts,
                          size_t n_facts, verdict_error *err);
    int (*for_each_machine_fact)(store *s, store_machine_fact_fn fn, void *context,
                                 verdict_error *err);
    int (*plan_blocks)(store *s, int64_t experiment_id, const store_block *blocks, size_t n,
                       verdict_error *err);
    int (*claim_block)(store *s, int64_t experiment_id, const char *point, const char *machine,
                       const char *worker, double lease_seconds, store_claim *out,
                           verdict_error *err);
    int (*renew_claim)(store *s, int64_t claim, const char *worker, double lease_seconds,
                       verdict_error *err);
    int (*finish_block)(store *s, int64_t claim, const char *worker, int64_t run_id,
                        const store_sample *samples, size_t n_samples, verdict_error *err);
    int (*release_block)(store *s, int64_t claim, const char *worker, verdict_error *err);
    int (*for_each_block)(store *s, int64_t experiment_id, store_block_fn fn, void *context,
                          verdict_error *err);
    /* inserts the extension only when it grows the last one; 0 when inserted, 1 when not */
    int (*add_extension)(store *s, int64_t experiment_id, long blocks, verdict_error *err);
    int (*for_each_extension)(store *s, int64_t experiment_id, store_extension_fn fn,
                              void *context, verdict_error *err);
    int (*sign_experiment)(store *s, int64_t experiment_id, const store_signature *signature,
                           verdict_error *err);
    int (*for_each_signature)(store *s, int64_t experiment_id, store_signature_fn fn,
                              void *context, verdict_error *err);
    int (*add_profile)(store *s, int64_t run_id, const store_profile *p, verdict_error *err);
    int (*for_each_profile)(store *s, int64_t experiment_id, store_profile_fn fn,
                            void *context, verdict_error *err);
} store_backend;

/* The head of every back end's store: a back end's struct begins with it, so a store * is
 * also a pointer to that struct. */
struct store {
    const store_backend *backend;
    const char *label;   /* the store's name in messages (a password redacted); back end's */
    bool read_only;      /* store_open_read_only: the dispatcher refuses every write */
};

/* The back ends' openers; 0, or -1 with an error (ERROR_STORE_LOCKED: another SQLite writer). */
int sqlite_store_open(const char *path, bool read_only, store **out, verdict_error *err);
int pg_store_open(const char *name, bool read_only, store **out, verdict_error *err);

/* uint64 hashes are stored as 16 hex digits: readable in any shell and exact. */
void store_format_hash(uint64_t hash, char out[17]);
bool store_parse_hash(const char *text, uint64_t *out);
/* A malloc'ed copy (NULL stays NULL, and out of memory gives NULL). */
char *store_copy_string(const char *text);

/* The messages both back ends give, word for word; each returns -1 with its kind. */
int store_fail_block_stored(const char *label, const store_sample *x, verdict_error *err);
int store_fail_plan_changed(const char *label, const char *name, verdict_error *err);
int store_fail_fact_twice(const char *label, const char *key, verdict_error *err);
int store_fail_metric_twice(const char *label, const char *name, verdict_error *err);
int store_fail_machine_fact_twice(const char *label, const char *key, const char *machine,
                                  verdict_error *err);
/* ERROR_CLAIM_LOST, saying the block is no longer the worker's and nothing was written. */
int store_fail_claim_lost(const char *label, int64_t claim, verdict_error *err);

#endif

/* What a back end of the store provides (a table of operations behind store.h) and the
 * helpers both back ends share: messages, hashes as hex, checks of what callers pass in. */
#ifndef VERDICT_STORE_STORE_BACKEND_H
#define VERDICT_STORE_STORE_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

/* One back end's operations. The dispatcher (store.c) checks arguments and refuses writes
 * to a read-only store before calling any of them, so back ends need not repeat that. */
typedef struct {
    void (*close)(store *s);
    int (*open_experiment)(store *s, const store_experiment *e, int64_t *experiment_id,
                           bool *existing, char *err, size_t errlen);
    int (*begin_run)(store *s, int64_t experiment_id, const store_fact *facts, size_t n_facts,
                     int64_t *run_id, char *err, size_t errlen);
    int (*add_run_facts)(store *s, int64_t run_id, const store_fact *facts, size_t n_facts,
                         char *err, size_t errlen);
    int (*add_samples)(store *s, int64_t run_id, const store_sample *samples, size_t n,
                       char *err, size_t errlen);
    int (*end_run)(store *s, int64_t run_id, const char *status, char *err, size_t errlen);
    int (*for_each_sample)(store *s, int64_t experiment_id, store_sample_fn fn, void *context,
                           char *err, size_t errlen);
    int (*get_experiment)(store *s, int64_t experiment_id, store_experiment *out, char *err,
                          size_t errlen);
    int (*latest_experiment)(store *s, int64_t *experiment_id, char *err, size_t errlen);
    int (*for_each_fact)(store *s, int64_t experiment_id, store_fact_fn fn, void *context,
                         char *err, size_t errlen);
    int (*for_each_experiment)(store *s, store_experiment_fn fn, void *context, char *err,
                               size_t errlen);
    int (*record_machine)(store *s, const char *machine, const store_fact *facts,
                          size_t n_facts, char *err, size_t errlen);
    int (*for_each_machine_fact)(store *s, store_machine_fact_fn fn, void *context, char *err,
                                 size_t errlen);
    int (*plan_blocks)(store *s, int64_t experiment_id, const store_block *blocks, size_t n,
                       char *err, size_t errlen);
    int (*claim_block)(store *s, int64_t experiment_id, const char *point, const char *machine,
                       const char *worker, double lease_seconds, store_claim *out, char *err,
                       size_t errlen);
    int (*renew_claim)(store *s, int64_t claim, const char *worker, double lease_seconds,
                       char *err, size_t errlen);
    int (*finish_block)(store *s, int64_t claim, const char *worker, int64_t run_id,
                        const store_sample *samples, size_t n_samples, char *err,
                        size_t errlen);
    int (*release_block)(store *s, int64_t claim, const char *worker, char *err,
                         size_t errlen);
    int (*for_each_block)(store *s, int64_t experiment_id, store_block_fn fn, void *context,
                          char *err, size_t errlen);
    /* inserts the extension only when it grows the last one; 0 when inserted, 1 when not */
    int (*add_extension)(store *s, int64_t experiment_id, long blocks, char *err,
                         size_t errlen);
    int (*for_each_extension)(store *s, int64_t experiment_id, store_extension_fn fn,
                              void *context, char *err, size_t errlen);
} store_backend;

/* The head of every back end's store: a back end's struct begins with it, so a store * is
 * also a pointer to that struct. */
struct store {
    const store_backend *backend;
    const char *label;   /* the store's name in messages (a password redacted); back end's */
    bool read_only;      /* store_open_read_only: the dispatcher refuses every write */
};

/* The back ends' openers; 0, STORE_LOCKED (SQLite) or -1 with a message. */
int sqlite_store_open(const char *path, bool read_only, store **out, char *err, size_t errlen);
int pg_store_open(const char *name, bool read_only, store **out, char *err, size_t errlen);

/* uint64 hashes are stored as 16 hex digits: readable in any shell and exact. */
void store_format_hash(uint64_t hash, char out[17]);
bool store_parse_hash(const char *text, uint64_t *out);
/* A malloc'ed copy (NULL stays NULL, and out of memory gives NULL). */
char *store_copy_string(const char *text);

/* The messages both back ends give, word for word; each returns -1 (or the code named). */
int store_fail_block_stored(const char *label, const store_sample *x, char *err,
                            size_t errlen);
int store_fail_plan_changed(const char *label, const char *name, char *err, size_t errlen);
int store_fail_fact_twice(const char *label, const char *key, char *err, size_t errlen);
int store_fail_metric_twice(const char *label, const char *name, char *err, size_t errlen);
int store_fail_machine_fact_twice(const char *label, const char *key, const char *machine,
                                  char *err, size_t errlen);
/* STORE_CLAIM_LOST, saying the block is no longer the worker's and nothing was written. */
int store_fail_claim_lost(const char *label, int64_t claim, char *err, size_t errlen);

#endif

/* The results store: experiments, their runs (invocations), machines and every sample,
 * committed as soon as it is measured. Two back ends: a SQLite file, or a PostgreSQL server. */
#ifndef VERDICT_STORE_STORE_H
#define VERDICT_STORE_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

typedef struct store store; /* opaque */

#define STORE_SCHEMA_VERSION 6

typedef struct {
    const char *name;
    const char *text;         /* the experiment file's bytes (or the CLI words) */
    size_t text_length;
    uint64_t text_hash, plan_hash;
    uint64_t seed;
    const char *tool_version;
    const char *tool_build;   /* the hash of the verdict executable that registered a fleet's
                                 experiment ("": unknown, or one machine's experiment) */
} store_experiment;

typedef struct {
    const char *key, *value;
} store_fact;

/* One sample. Strings and arrays are borrowed for the duration of the call. */
typedef struct {
    const char *point;        /* point id, "default" without a sweep */
    const char *variant;
    long layout;              /* which code layout of the variant's build (0 without twins) */
    const char *machine;      /* the machine that took it ("" on one machine; NULL is "") */
    long block;               /* -1 for samples outside blocks */
    long seq;                 /* order of measurement within the experiment */
    double started;           /* seconds since the run (invocation) began */
    double wall, user, sys, maxrss_kib;
    long voluntary_switches, involuntary_switches;
    int exit_code;
    bool timed_out, tainted;
    const char *taint_reason; /* or NULL */
    double steal, other_busy, load1; /* NaN when unknown (stored as NULL) */
    const char *const *metric_names;  /* the metrics extracted or chosen for this sample */
    const double *metric_values;
    size_t n_metrics;
} store_sample;

/* Every function returns 0, or -1 with err set; the kind says what went wrong where the
 * caller must tell: ERROR_STORE_LOCKED (store_open: another process holds the store for
 * writing, a second `verdict run` on it; the message says "another verdict is running on
 * this store (pid N)"), ERROR_PLAN_CHANGED (store_open_experiment), ERROR_CLAIM_LOST (a
 * shared block no longer the worker's), ERROR_STORE (the store cannot be read or written:
 * full, damaged, unreachable, read-only), ERROR_BAD_INPUT (a file that is not a store),
 * ERROR_USAGE (a name the store does not hold), ERROR_NO_MEMORY. */

/* True when the store's name is a PostgreSQL connection: a URI (postgresql://, postgres://)
 * or a conninfo string ("host=... dbname=..."). Everything else is a SQLite file's path. */
bool store_is_postgres(const char *name);
/* The store's name as messages show it: a PostgreSQL connection's password replaced by
 * "***"; malloc'ed (NULL when out of memory). */
char *store_display_name(const char *name);

/* Opens or creates the store for writing (migrations applied). SQLite: WAL mode, and locked
 * for this process until store_close, one writer per store. PostgreSQL: many writers, a lost
 * server waited for (VERDICT_STORE_RETRY_SECONDS, docs/store.md). Refuses a store of a newer
 * schema with a message naming both versions. Returns 0, or -1 with ERROR_STORE_LOCKED
 * when another process holds it for writing (nothing in the file was touched), or another
 * kind. */
int store_open(const char *path, store **out, verdict_error *err);
/* Opens an existing store only to read it: no lock, no migration, no write of any kind, so
 * it works while a writer holds the store, on a read-only file or file system. Every write
 * function then fails with a message. A store of an older schema (it would need the
 * migration) and an empty file are refused. Returns 0, or -1 with a message. */
int store_open_read_only(const char *path, store **out, verdict_error *err);
void store_close(store *s);

/* Finds the experiment by name or creates it. *existing tells which; when it exists with a
 * different plan_hash, returns -1 with ERROR_PLAN_CHANGED and a message saying the plan changed
 * (resuming a changed plan is refused). A changed text with the same plan is recorded as
 * the new text. Other failures return -1. */
int store_open_experiment(store *s, const store_experiment *e, int64_t *experiment_id,
                          bool *existing, verdict_error *err);
/* Records one invocation (a `verdict run`) with the machine's facts; returns its id. */
int store_begin_run(store *s, int64_t experiment_id, const store_fact *facts, size_t n_facts,
                    int64_t *run_id, verdict_error *err);
/* More facts about a run, learnt while it ran (a kernel's calibration, warnings). */
int store_add_run_facts(store *s, int64_t run_id, const store_fact *facts, size_t n_facts,
                        verdict_error *err);
/* Commits n samples in one transaction: all of them, durable when this returns 0, or none.
 * A second sample for the same (experiment, point, variant, layout, machine, block) with
 * block >= 0 is refused (and with it the whole batch). */
int store_add_samples(store *s, int64_t run_id, const store_sample *samples, size_t n,
                      verdict_error *err);
/* store_add_samples of one. */
int store_add_sample(store *s, int64_t run_id, const store_sample *sample, verdict_error *err);
/* Marks the run finished ("done", "interrupted", "failed"). */
int store_end_run(store *s, int64_t run_id, const char *status, verdict_error *err);

/* Reading back: every sample of an experiment in seq order (then machine, then the order
 * stored: seq counts per machine), through a callback (the
 * sample's strings are valid during the call only). A non-zero return from the callback
 * stops the walk and is returned as-is, err untouched (like nftw): return -1 for an error,
 * or 1 to stop early and treat 1 as success. */
typedef int (*store_sample_fn)(void *context, const store_sample *sample);
int store_for_each_sample(store *s, int64_t experiment_id, store_sample_fn fn, void *context,
                          verdict_error *err);
/* The experiment stored under this id: name, text, hashes, seed, version (strings valid
 * until the next call on the store). */
int store_get_experiment(store *s, int64_t experiment_id, store_experiment *out,
                         verdict_error *err);
/* The only (or the latest) experiment in the store, for `verdict report STORE`. */
int store_latest_experiment(store *s, int64_t *experiment_id, verdict_error *err);
/* The facts recorded with the latest run of the experiment, through a callback. */
typedef int (*store_fact_fn)(void *context, const char *key, const char *value);
int store_for_each_fact(store *s, int64_t experiment_id, store_fact_fn fn, void *context,
                        verdict_error *err);

/* Every experiment of the store, oldest first (strings valid during the call only). */
typedef int (*store_experiment_fn)(void *context, int64_t experiment_id,
                                   const store_experiment *e);
int store_for_each_experiment(store *s, store_experiment_fn fn, void *context, verdict_error *err);
/* The experiment of that name; -1 with a message naming the ones the store holds. */
int store_find_experiment(store *s, const char *name, int64_t *experiment_id, verdict_error *err);

/* Machines: the facts of each machine that ran (or joined) an experiment of the store, by
 * its name. Recording a machine again replaces its facts (the latest are kept). */
int store_record_machine(store *s, const char *machine, const store_fact *facts, size_t n_facts,
                         verdict_error *err);
/* Every machine's facts: machines by name, each machine's facts in the order recorded. */
typedef int (*store_machine_fact_fn)(void *context, const char *machine, const char *key,
                                     const char *value);
int store_for_each_machine_fact(store *s, store_machine_fact_fn fn, void *context,
                                verdict_error *err);

/* Blocks of a shared plan (`machines: share`): each (point, block) is claimed by one worker
 * at a time under a lease kept by the database's clock; a block's samples are committed with
 * the block in one transaction; a lease that runs out (the worker died) frees the block. */
typedef struct {
    const char *point;
    long block;
} store_block;

/* Adds the plan's blocks in the order given (their claim order); blocks already there are
 * kept as they are, so every worker may call it. */
int store_plan_blocks(store *s, int64_t experiment_id, const store_block *blocks, size_t n,
                      verdict_error *err);

typedef struct {
    bool claimed;             /* a block is this worker's until its lease ends */
    int64_t claim;            /* the block's id, for renew, finish and release */
    const char *point;        /* valid until the next call on the store */
    long block;
    long attempt;             /* 1 the first time the block is claimed, 2 when retaken, ... */
    long open, in_flight, done; /* the experiment's blocks after this call */
} store_claim;

/* Claims the first block (in plan order) that is open or whose lease ran out, at point (or
 * at any point when point is NULL), for the worker (a token unique to the process) on the
 * machine, for lease_seconds. Concurrent claims never get the same block. out->claimed is
 * false when none is free; the counts then say whether blocks are still being measured. */
int store_claim_block(store *s, int64_t experiment_id, const char *point, const char *machine,
                      const char *worker, double lease_seconds, store_claim *out,
                          verdict_error *err);

/* Renew and finish fail with ERROR_CLAIM_LOST when the block is no longer the worker's (its
 * lease ran out and another worker claimed it, or it was finished by another): nothing was
 * written. */

/* Extends the worker's lease on the block to lease_seconds from now. */
int store_renew_claim(store *s, int64_t claim, const char *worker, double lease_seconds,
                      verdict_error *err);
/* Commits the block's samples (all of them or none) and marks the block done, in one
 * transaction, if the block is still the worker's; ERROR_CLAIM_LOST otherwise. */
int store_finish_block(store *s, int64_t claim, const char *worker, int64_t run_id,
                       const store_sample *samples, size_t n_samples, verdict_error *err);
/* Gives the block back (an interrupted worker): open again at once for any worker. */
int store_release_block(store *s, int64_t claim, const char *worker, verdict_error *err);

/* Every block of a shared plan in plan order: its state ("open", "claimed", "done"), the
 * machine that holds or finished it ("" when open) and how many times it was claimed. */
typedef int (*store_block_fn)(void *context, const char *point, long block, const char *state,
                              const char *machine, long attempts);
int store_for_each_block(store *s, int64_t experiment_id, store_block_fn fn, void *context,
                         verdict_error *err);

/* Extensions (`verdict run EXP --more N`): the blocks per point an experiment was extended
 * to, each above the one before. Recording a count that does not grow the last one is
 * refused with a message naming both. Read back in order through a callback. */
int store_add_extension(store *s, int64_t experiment_id, long blocks, verdict_error *err);
typedef int (*store_extension_fn)(void *context, long blocks);
int store_for_each_extension(store *s, int64_t experiment_id, store_extension_fn fn,
                             void *context, verdict_error *err);

/* Signatures (`verdict run EXP --sign KEY`, issue 31): an Ed25519 signature over what a
 * worker executes, one per signer's key (signing again replaces it). The store keeps what the
 * signer says it signed beside the signature, so that a worker can say which part changed;
 * the worker believes none of it until the signature checks out (lab/lab_signature.h). */
typedef struct {
    const char *public_key;   /* the signer's Ed25519 public key, 64 hex digits */
    const char *signature;    /* 128 hex digits (any text: a worker refuses a damaged one) */
    const char *text_sha256;  /* what was signed: the text's SHA-256 (64 hex digits), */
    const char *plan_hash;    /* the plan hash (16 hex digits), */
    const char *tool_build;   /* the verdict build the experiment needs, */
    const char *extensions;   /* and its extensions ("10,20"; "" without) */
} store_signature;

/* Records the signature of the experiment by that key, replacing an earlier one by it. */
int store_sign_experiment(store *s, int64_t experiment_id, const store_signature *signature,
                          verdict_error *err);
/* Every signature of the experiment, by public key (strings valid during the call only). */
typedef int (*store_signature_fn)(void *context, const store_signature *signature);
int store_for_each_signature(store *s, int64_t experiment_id, store_signature_fn fn,
                             void *context, verdict_error *err);

/* A fleet's database roles (PostgreSQL only; docs/fleet.md): the SQL that creates the owner's
 * and the workers' roles (NOLOGIN groups; each machine logs in as a member named as the
 * machine) with their grants and row-level security on the store's schema, malloc'ed into
 * *sql; and the same applied to an open store (its tables then exist). ERROR_USAGE for a
 * SQLite store or a role name that is not a plain lowercase identifier. */
int store_roles_sql(const char *name, const char *owner, const char *worker, char **sql,
                    verdict_error *err);
int store_apply_roles(store *s, const char *owner, const char *worker, verdict_error *err);
/* One profiled run (docs/profiles.md): an extra run of a unit in a block, sampled by perf,
 * whose time is no timed sample. perf's resolution is kept as text in the formats perf's
 * own tools read: symbols as "symbol\tdso\tself\tchildren" lines (samples in which the
 * symbol is the leaf, and in which it is anywhere on the stack), stacks folded as
 * "root;...;leaf COUNT" lines (flamegraph.pl's input). Strings are borrowed for the call. */
typedef struct {
    const char *point, *variant, *machine; /* machine "" on one machine (NULL is "") */
    long layout, block;
    const char *event;        /* perf's event: "cpu-clock", "cycles" */
    double wall;              /* the profiled run's own wall time (perf's cost included) */
    long samples;             /* perf's samples of the run, all symbols */
    const char *symbols, *stacks;
} store_profile;

/* Keeps one profiled run of the run run_id; a second profile of the same (point, variant,
 * layout, machine, block) is refused, as a second sample is. */
int store_add_profile(store *s, int64_t run_id, const store_profile *p, verdict_error *err);
/* Every profiled run of the experiment, in the order they were kept. */
typedef int (*store_profile_fn)(void *context, const store_profile *p);
int store_for_each_profile(store *s, int64_t experiment_id, store_profile_fn fn, void *context,
                           verdict_error *err);

#endif

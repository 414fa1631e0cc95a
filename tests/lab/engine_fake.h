/* The engine tests' fake target (a scripted measure, every hook counted) and the helpers
 * that make its experiments, open their stores and read back what the engine stored. */
#ifndef VERDICT_TESTS_LAB_ENGINE_FAKE_H
#define VERDICT_TESTS_LAB_ENGINE_FAKE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/experiment.h"
#include "core/target.h"
#include "lab/engine.h"
#include "store/store.h"

typedef struct {
    /* script */
    double effect;               /* variant v measures about 1 + effect * v */
    double noise;                /* relative amplitude of a deterministic wobble */
    size_t stop_after;           /* set the stop flag during this measured run (1-based); 0 never */
    long fail_variant;           /* runs of this variant fail ... (-1: none) */
    int fail_tries;              /* ... on their first fail_tries tries per sample (-1: always) */
    long fail_block_every;       /* > 0: only in blocks that are multiples of it (fail_tries
                                    then counts per such sample) */
    bool failures_have_values;   /* a failed run still gives a value (as a command's wall) */
    bool fail_begin;             /* begin_point fails */
    /* called before every measured run (the shared plan's tests take a claim there) */
    void (*before_run)(void *context, const target_unit *u);
    void *before_run_context;
    /* counts */
    size_t opens, closes, begins, ends, warmups, measured, failures;
    int tries_of_current;        /* tries of the sample being taken */
    long current_key;            /* (point, variant, block) of the sample being tried */
} fake_script;

/* An experiment of n_variants variants (V0, V1, ...) of the fake target over points
 * ("n: [...]" or none) with extra keys; the script reset and attached. */
void make_experiment(experiment *e, size_t n_variants, const char *parameters,
                     const char *extra, fake_script *script);

typedef struct {
    store *db;
    int64_t experiment_id;
} test_store;

void open_store(const char *path, const experiment *e, test_store *s);
/* lab_run's configuration of e on s (a local store, the default analysis). */
lab_config test_config(const experiment *e, const test_store *s, volatile sig_atomic_t *stop);
/* lab_run with test_config; its error printed when it fails. */
int run(const experiment *e, const test_store *s, lab_outcome *out, verdict_error *err);

/* The stored samples, in seq order. */
typedef struct {
    char point[64], variant[32], machine[32];
    long block, seq;
    double value;
    int exit_code;
} kept_sample;

typedef struct {
    kept_sample *items;
    size_t n, capacity;
} kept_samples;

kept_samples read_samples(const test_store *s);
/* Every (point, variant, block) of the plan exactly once. */
void assert_plan_complete(const experiment *e, const kept_samples *k, size_t blocks);
void close_all(experiment *e, test_store *s, kept_samples *k);
/* Whether the engine stored a warning of this code ("budget-spent") in its run facts. */
bool engine_warning_stored(const test_store *s, const char *code);

#endif

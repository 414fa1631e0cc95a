/* Helpers the store's tests share across back ends: a fixture that is a SQLite file or a
 * PostgreSQL schema of its own, queries behind the store's back, samples and collections. */
#ifndef VERDICT_TESTS_STORE_TEST_SUPPORT_H
#define VERDICT_TESTS_STORE_TEST_SUPPORT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "store/store.h"

#define ERR_SIZE 2048
#define MAX_COLLECTED 256
#define MAX_METRICS 8

/* Every test gets its own store: a file in a directory of its own (removed afterwards), or
 * a PostgreSQL schema of its own (dropped afterwards). */
typedef struct {
    bool pg;
    char dir[256];
    char path[700];       /* the store's name: dir/store.db, or the URI with verdict_schema */
    char server[512];      /* PostgreSQL: the URI without verdict_schema */
    char schema[64];     /* PostgreSQL: t_<pid>_<n> */
} fixture;

int setup_sqlite(void **state);
/* The server in VERDICT_TEST_PG; the test is skipped when it is not set. */
int setup_pg(void **state);
int teardown_store(void **state);

/* "name?a=b" + "verdict_schema=x": the parameter added to a URI or a conninfo string. */
void with_parameter(char *out, size_t size, const char *name, const char *parameter);
/* A single integer from a query on the store's database (in its schema), behind its back. */
long long fixture_int(const fixture *f, const char *sql);
void fixture_exec(const fixture *f, const char *sql);
/* SQLite's integrity_check says ok (PostgreSQL: nothing to check). */
void fixture_check_integrity(const fixture *f);

#define assert_contains(haystack, needle) \
    assert_contains_at((haystack), (needle), __FILE__, __LINE__)
void assert_contains_at(const char *haystack, const char *needle, const char *file, int line);
#define assert_not_contains(haystack, needle) \
    assert_not_contains_at((haystack), (needle), __FILE__, __LINE__)
void assert_not_contains_at(const char *haystack, const char *needle, const char *file,
                            int line);

extern const char experiment_text[];
extern const size_t experiment_text_length;
store_experiment sample_experiment(const char *name);
/* A sample with every field set to something distinct; variant A or B by seq parity. */
store_sample full_sample(long block, long seq);

store *open_store(const char *path);
int64_t open_experiment(store *s, const store_experiment *e, bool expect_existing);
int64_t begin_run(store *s, int64_t experiment_id, const store_fact *facts, size_t n);
void add_sample(store *s, int64_t run_id, const store_sample *x);

/* A copy of a sample read back (the store's strings live only during the callback). */
typedef struct {
    char point[32], variant[32], machine[32], taint_reason[64];
    bool has_taint_reason;
    store_sample x;
    char names[MAX_METRICS][32];
    double values[MAX_METRICS];
} collected_sample;

typedef struct {
    collected_sample items[MAX_COLLECTED];
    size_t n;
    size_t stop_after; /* 0: read all */
} collection;

int collect_sample(void *context, const store_sample *x);
collection *read_samples(store *s, int64_t experiment_id);
/* Exact equality, bit for bit where it matters: a store must not round numbers. */
void assert_same_sample(const collected_sample *got, const store_sample *want);

typedef struct {
    char keys[8][32], values[8][64];
    size_t n;
} fact_list;

int collect_fact(void *context, const char *key, const char *value);
int refuse_fact(void *context, const char *key, const char *value);

/* The tests that run on both back ends (store_neutral_tests.c), each with setup and
 * teardown; returns how many were written to out. */
size_t store_neutral_tests(struct CMUnitTest *out, size_t capacity,
                           CMFixtureFunction setup, CMFixtureFunction teardown);

#endif

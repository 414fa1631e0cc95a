/* Tests of the kernel target: module loading and calibration directly, then command-line
 * experiments run by the engine into a store (order, stops, resume, sweeps, facts, verdicts). */
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/analysis.h"
#include "common/error.h"
#include "core/schedule.h"
#include "lab/engine.h"
#include "lab/lab_report.h"
#include "lab/lab_store.h"
#include "lab/results.h"
#include "store/store.h"
#include "targets/kernel_module.h"
#include "targets/kernel_target.h"

/* Short samples keep the suite fast; paired blocks still see a 20% effect easily. */
#define TEST_SAMPLE_SECONDS 0.002
/* Where only the bookkeeping matters, samples can be shorter still. */
#define QUICK_SAMPLE_SECONDS 0.0005
#define MAX_SAMPLES 512

static const char *module_path(const char *variable)
{
    const char *path = getenv(variable);
    if (path == NULL) {
        fprintf(stderr, "set %s to the test module's path\n", variable);
        exit(1);
    }
    return path;
}

/* ---- the module, directly ---------------------------------------------------------- */

static kernel_module *open_fake(void)
{
    kernel_module *m = NULL;
    verdict_error err = {0};
    if (kernel_module_open(module_path("FAKE_KERNELS"), &m, &err) != 0)
        fail_msg("%s", err.message);
    return m;
}

static void expect_open_error(const char *path, const char *fragment)
{
    kernel_module *m = (kernel_module *)&m; /* must be reset to NULL on failure */
    verdict_error err = {0};
    assert_int_equal(kernel_module_open(path, &m, &err), -1);
    assert_null(m);
    if (strstr(err.message, fragment) == NULL || strstr(err.message, path) == NULL)
        fail_msg("message '%s' lacks '%s' or the path", err.message, fragment);
}

static void test_missing_file(void **unused)
{
    (void)unused;
    expect_open_error("/nonexistent/fake.so", "cannot open");
}

static void test_not_a_shared_object(void **unused)
{
    (void)unused;
    char path[] = "/tmp/verdict-kernel-test-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "not an ELF file\n", 16), 16);
    close(fd);
    expect_open_error(path, "cannot load as a shared object");
    unlink(path);
}

static void test_symbol_missing(void **unused)
{
    (void)unused;
    expect_open_error(module_path("FAKE_KERNELS_NO_EXPORTS"), "does not export verdict_kernel_abi");
}

static void test_abi_mismatch(void **unused)
{
    (void)unused;
    expect_open_error(module_path("FAKE_KERNELS_WRONG_ABI"), "ABI version 999");
}

static void test_kernel_not_found(void **unused)
{
    (void)unused;
    kernel_module *m = open_fake();
    verdict_error err = {0};
    assert_int_equal(kernel_module_count(m), 8);
    assert_string_equal(kernel_module_at(m, 0)->name, "spin");
    assert_null(kernel_module_at(m, 8));
    assert_ptr_equal(kernel_module_find(m, "spin_slow", &err), kernel_module_at(m, 2));
    assert_null(kernel_module_find(m, "spinn", &err));
    assert_non_null(strstr(err.message, "no kernel 'spinn'"));
    assert_non_null(strstr(err.message, "spin_same")); /* lists what exists */
    kernel_module_close(m);
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median CPU time of 7 batches of n calls. Calibration is in CPU time, which other
 * processes taking the CPU do not stretch: with two busy loops beside the suite not one
 * batch of 500 kept the CPU for its whole wall time, so wall time cannot be asked for. */
static double median_cpu_seconds(const verdict_kernel *k, void *state, uint64_t n)
{
    double seconds[7];
    for (size_t i = 0; i < 7; i++) {
        kernel_timing t;
        kernel_time_batch_cpu(k, state, n, &t);
        seconds[i] = t.cpu_seconds;
    }
    qsort(seconds, 7, sizeof seconds[0], compare_doubles);
    return seconds[3];
}

/* The calibrated batch must take the target within a factor of two of CPU time (a
 * calibration that scaled wrongly, or stopped growing early, misses it). */
static void test_calibration_reaches_target(void **unused)
{
    (void)unused;
    const double targets[] = {0.002, 0.010};
    kernel_module *m = open_fake();
    verdict_error err = {0};
    const verdict_kernel *spin = kernel_module_find(m, "spin", &err);
    assert_non_null(spin);
    char why[64];
    verdict_kernel_setup s = {.error = why, .error_size = sizeof why};
    assert_int_equal(spin->setup(&s), 0);
    for (size_t t = 0; t < 2; t++) {
        kernel_calibration c;
        kernel_calibrate(spin, s.state, targets[t], NULL, &c);
        assert_true(c.iterations > 100);
        assert_false(c.single_call_too_long);
        double median = median_cpu_seconds(spin, s.state, c.iterations);
        if (median < targets[t] / 2 || median > targets[t] * 2)
            fail_msg("target %g s: %llu calls take %g s", targets[t],
                     (unsigned long long)c.iterations, median);
    }
    spin->teardown(s.state);
    kernel_module_close(m);
}

/* ---- experiments run by the engine ------------------------------------------------- */

typedef struct {
    experiment e;
    store *db;
    int64_t experiment_id;
    bool existing;               /* the store held the experiment already */
    volatile sig_atomic_t stop;
    size_t stop_after;           /* the progress callback sets stop at this many blocks; 0: never */
    lab_outcome out;
    verdict_error err;
} session;

static kernel_line_spec line_spec(const char *const *kernels, size_t n, size_t blocks,
                                  uint64_t seed)
{
    return (kernel_line_spec){.module = module_path("FAKE_KERNELS"), .kernels = kernels,
                              .n_kernels = n, .runs = blocks,
                              .sample_seconds = QUICK_SAMPLE_SECONDS, .warmup = 1, .seed = seed,
                              .has_seed = true, .confidence = 0.95, .margin = 0.01};
}

/* The experiment built and registered in the store at path (":memory:" for none). */
static void session_open(session *s, const kernel_line_spec *spec, const char *path)
{
    memset(s, 0, sizeof *s);
    verdict_error err;
    error_clear(&err);
    if (kernel_experiment(spec, &s->e, &err) != 0)
        fail_msg("kernel_experiment: %s", err.message);
    if (lab_open_store(path, &s->e, &s->db, &s->experiment_id, &s->existing, &err) != 0)
        fail_msg("lab_open_store: %s", err.message);
}

static void stop_when_due(void *context, const lab_progress *p)
{
    session *s = context;
    if (s->stop_after > 0 && p->blocks_done == s->stop_after)
        s->stop = 1;
}

static int session_run(session *s)
{
    lab_config c = {.e = &s->e, .db = s->db, .experiment_id = s->experiment_id,
                    .analysis = lab_default_analysis(&s->e), .progress = stop_when_due,
                    .progress_context = s, .stop = &s->stop};
    return lab_run(&c, &s->out, &s->err);
}

static void session_run_ok(session *s)
{
    if (session_run(s) != 0)
        fail_msg("lab_run: %s (%s)", s->err.message, error_kind_name(s->err.kind));
    assert_int_equal(s->err.kind, ERROR_NONE);
}

static void session_close(session *s)
{
    store_close(s->db);
    experiment_free(&s->e);
}

/* A stored sample as the tests look at it. */
typedef struct {
    char point[64], variant[64];
    long block, seq;
    double started, wall, ns_per_call, gbps;
} kept_sample;

typedef struct {
    kept_sample samples[MAX_SAMPLES];
    size_t n;
} sample_list;

static int keep_sample(void *context, const store_sample *s)
{
    sample_list *l = context;
    if (l->n == MAX_SAMPLES)
        return -1;
    kept_sample *k = &l->samples[l->n++];
    snprintf(k->point, sizeof k->point, "%s", s->point);
    snprintf(k->variant, sizeof k->variant, "%s", s->variant);
    k->block = s->block;
    k->seq = s->seq;
    k->started = s->started;
    k->wall = s->wall;
    k->ns_per_call = k->gbps = NAN;
    for (size_t i = 0; i < s->n_metrics; i++) {
        if (strcmp(s->metric_names[i], "ns_per_call") == 0)
            k->ns_per_call = s->metric_values[i];
        else if (strcmp(s->metric_names[i], "gbps") == 0)
            k->gbps = s->metric_values[i];
    }
    return 0;
}

/* Every sample of the session's experiment, in seq order; the caller frees. */
static sample_list *read_samples(session *s)
{
    sample_list *l = calloc(1, sizeof *l);
    assert_non_null(l);
    verdict_error err = {0};
    if (store_for_each_sample(s->db, s->experiment_id, keep_sample, l, &err) != 0)
        fail_msg("reading samples: %s", err.message[0] ? err.message : "more than MAX_SAMPLES");
    return l;
}

typedef struct {
    const char *key;
    char *value;
} fact_query;

static int find_fact(void *context, const char *key, const char *value)
{
    fact_query *q = context;
    if (strcmp(key, q->key) == 0) {
        free(q->value);
        q->value = strdup(value);
        assert_non_null(q->value);
    }
    return 0;
}

/* The latest run's fact called key, or NULL; the caller frees. */
static char *read_fact(session *s, const char *key)
{
    fact_query q = {key, NULL};
    verdict_error err = {0};
    if (store_for_each_fact(s->db, s->experiment_id, find_fact, &q, &err) != 0)
        fail_msg("reading facts: %s", err.message);
    return q.value;
}

/* The calls per sample a kernel.calls fact gives variant at point, and how many of its
 * lines name that pair (exactly one is right). */
static unsigned long long calls_of(const char *fact, const char *point, const char *variant,
                                   size_t *matches)
{
    unsigned long long calls = 0;
    *matches = 0;
    for (const char *line = fact; *line;) {
        size_t length = strcspn(line, "\n");
        char p[128], v[128];
        unsigned long long c;
        if (sscanf(line, "%127[^\t]\t%127[^\t]\t%llu", p, v, &c) == 3 &&
            strcmp(p, point) == 0 && strcmp(v, variant) == 0) {
            calls = c;
            (*matches)++;
        }
        line += length + (line[length] == '\n');
    }
    return calls;
}

static size_t count_lines(const char *text)
{
    size_t n = 0;
    for (const char *c = text; *c; c++)
        n += *c == '\n';
    return n;
}

static void load_results(session *s, lab_results *r)
{
    verdict_error err;
    if (lab_results_load(s->db, s->experiment_id, &s->e, r, &err) != 0)
        fail_msg("lab_results_load: %s", err.message);
}

static bool has_warning(const lab_results *r, const char *code, const char *variant)
{
    for (size_t i = 0; i < r->n_warnings; i++)
        if (strcmp(r->warnings[i].code, code) == 0 &&
            (variant == NULL || strcmp(r->warnings[i].variant, variant) == 0))
            return true;
    return false;
}

static const analysis_series *find_series(const lab_results *r, const char *point,
                                          const char *metric, const char *variant)
{
    for (size_t i = 0; i < r->n_series; i++)
        if (strcmp(r->series[i].point, point) == 0 && strcmp(r->series[i].metric, metric) == 0 &&
            strcmp(r->series[i].variant, variant) == 0)
            return &r->series[i];
    return NULL;
}

/* A missing module or kernel is a usage error of the run, before anything is measured. */
static void test_target_reports_load_errors(void **unused)
{
    (void)unused;
    const char *kernels[] = {"spin", "spinn"};
    const char *paths[] = {"/nonexistent/fake.so", module_path("FAKE_KERNELS")};
    const char *fragments[] = {"/nonexistent/fake.so: cannot open", "no kernel 'spinn'"};
    for (size_t i = 0; i < 2; i++) {
        kernel_line_spec spec = line_spec(kernels, i + 1, 3, 1);
        spec.module = paths[i];
        session s;
        session_open(&s, &spec, ":memory:");
        assert_int_equal(session_run(&s), -1);
        assert_int_equal(s.err.kind, ERROR_USAGE);
        if (strstr(s.err.message, fragments[i]) == NULL)
            fail_msg("'%s' lacks '%s'", s.err.message, fragments[i]);
        assert_int_equal(s.out.samples_taken, 0);
        sample_list *l = read_samples(&s);
        assert_int_equal(l->n, 0);
        free(l);
        session_close(&s);
    }
}

/* A setup that fails ends the run as a usage error naming the kernel and its reason. */
static void test_setup_failure_is_reported(void **unused)
{
    (void)unused;
    const char *kernels[] = {"spin", "refusing"};
    kernel_line_spec spec = line_spec(kernels, 2, 3, 1);
    session s;
    session_open(&s, &spec, ":memory:");
    assert_int_equal(session_run(&s), -1);
    assert_int_equal(s.err.kind, ERROR_USAGE);
    assert_non_null(strstr(s.err.message, "refusing"));
    assert_non_null(strstr(s.err.message, "refused on purpose"));
    assert_int_equal(s.out.samples_taken, 0);
    assert_int_equal(s.out.complete_blocks, 0);
    session_close(&s);
}

/* Samples are taken block after block, each block in schedule_block_order's order. */
static void test_interleaving_order(void **unused)
{
    (void)unused;
    const char *kernels[] = {"spin", "spin_same", "spin_slow"};
    kernel_line_spec spec = line_spec(kernels, 3, 6, 42);
    session s;
    session_open(&s, &spec, ":memory:");
    session_run_ok(&s);
    assert_int_equal(s.out.complete_blocks, 6);
    assert_int_equal(s.out.samples_taken, 18);
    assert_int_equal(s.out.samples_resumed, 0);
    sample_list *l = read_samples(&s);
    assert_int_equal(l->n, 18);
    size_t order[3], differing = 0;
    for (size_t b = 0; b < 6; b++) {
        schedule_block_order(42, 0, b, 3, order);
        for (size_t i = 0; i < 3; i++) {
            const kept_sample *k = &l->samples[b * 3 + i];
            assert_string_equal(k->point, "default");
            assert_int_equal(k->block, (long)b);
            assert_int_equal(k->seq, (long)(b * 3 + i));
            assert_int_equal(experiment_variant_index(&s.e, k->variant), (long)order[i]);
            differing += order[i] != i;
            if (b * 3 + i > 0)
                assert_true(k->started >= l->samples[b * 3 + i - 1].started);
        }
    }
    assert_true(differing > 0); /* the orders really are shuffled */
    free(l);
    session_close(&s);
}

/* A stop request during a run keeps the blocks completed, and only those. */
static void test_stop_keeps_complete_blocks(void **unused)
{
    (void)unused;
    const char *kernels[] = {"spin", "stateless"};
    kernel_line_spec spec = line_spec(kernels, 2, 10, 3);
    session s;
    session_open(&s, &spec, ":memory:");
    s.stop_after = 2;
    assert_int_equal(session_run(&s), -1);
    assert_int_equal(s.err.kind, ERROR_INTERRUPTED);
    assert_int_equal(s.out.complete_blocks, 2);
    assert_int_equal(s.out.samples_taken, 4);
    sample_list *l = read_samples(&s);
    assert_int_equal(l->n, 4);
    for (size_t i = 0; i < 4; i++)
        assert_int_equal(l->samples[i].block, (long)(i / 2));
    free(l);
    lab_results r;
    load_results(&s, &r);
    assert_int_equal(r.complete_blocks[0], 2);
    assert_true(has_warning(&r, "interrupted", NULL));
    lab_results_free(&r);
    session_close(&s);
}

/* A stop before the kernels are calibrated (Ctrl-C during setup) measures nothing, and
 * the calls fact must not claim that a kernel's samples were made of 0 calls. */
static void test_stop_before_calibration_records_no_calls(void **unused)
{
    (void)unused;
    const char *kernels[] = {"spin", "spin_slow"};
    kernel_line_spec spec = line_spec(kernels, 2, 3, 17);
    session s;
    session_open(&s, &spec, ":memory:");
    s.stop = 1;
    int rc = session_run(&s);
    error_kind kind = s.err.kind;
    size_t taken = s.out.samples_taken;
    char *calls = read_fact(&s, KERNEL_CALLS_FACT);
    session_close(&s);
    assert_int_equal(rc, -1);
    assert_int_equal(kind, ERROR_INTERRUPTED);
    assert_int_equal(taken, 0);
    for (size_t v = 0; calls && v < 2; v++) {
        size_t matches;
        unsigned long long n = calls_of(calls, "default", kernels[v], &matches);
        if (matches > 0 && n == 0) {
            fprintf(stderr, "# kernel.calls after the stop:\n%s", calls);
            free(calls);
            fail_msg("%s recorded with 0 calls per sample", kernels[v]);
        }
    }
    free(calls);
}

/* ---- resume ---- */

typedef struct {
    char dir[64];
    char path[96];
} temp_store;

static void temp_store_make(temp_store *t)
{
    snprintf(t->dir, sizeof t->dir, "/tmp/verdict-kernel-target-XXXXXX");
    assert_non_null(mkdtemp(t->dir));
    snprintf(t->path, sizeof t->path, "%s/kernel.db", t->dir);
}

static void temp_store_remove(const temp_store *t)
{
    const char *suffixes[] = {"", "-wal", "-shm", "-journal"};
    for (size_t i = 0; i < 4; i++) {
        char path[128];
        snprintf(path, sizeof path, "%s%s", t->path, suffixes[i]);
        unlink(path);
    }
    assert_int_equal(rmdir(t->dir), 0);
}

/* After a resume the store holds every (variant, block) exactly once, in seq order. */
static void expect_whole_plan(session *s, size_t blocks)
{
    size_t n_variants = s->e.n_variants;
    sample_list *l = read_samples(s);
    assert_int_equal(l->n, blocks * n_variants);
    bool *seen = calloc(blocks * n_variants, sizeof *seen);
    assert_non_null(seen);
    for (size_t i = 0; i < l->n; i++) {
        const kept_sample *k = &l->samples[i];
        long v = experiment_variant_index(&s->e, k->variant);
        assert_true(v >= 0);
        assert_true(k->block >= 0 && (size_t)k->block < blocks);
        size_t cell = (size_t)k->block * n_variants + (size_t)v;
        if (seen[cell])
            fail_msg("block %ld of %s stored twice", k->block, k->variant);
        seen[cell] = true;
        if (i > 0)
            assert_true(k->seq > l->samples[i - 1].seq);
        assert_true(k->ns_per_call > 0);
    }
    free(seen);
    free(l);
}

/* Stopped after k blocks, the same command on the same store takes only what is missing. */
static void test_resume_after_stop(void **unused)
{
    (void)unused;
    const size_t blocks = 5, stops[] = {0, 1, 2, 4};
    const char *kernels[] = {"spin", "spin_slow"};
    for (size_t i = 0; i < sizeof stops / sizeof stops[0]; i++) {
        size_t k = stops[i];
        kernel_line_spec spec = line_spec(kernels, 2, blocks, 11 + k);
        temp_store t;
        temp_store_make(&t);
        session first;
        session_open(&first, &spec, t.path);
        assert_false(first.existing);
        first.stop_after = k;
        first.stop = k == 0; /* stopped before its first sample */
        assert_int_equal(session_run(&first), -1);
        assert_int_equal(first.err.kind, ERROR_INTERRUPTED);
        assert_int_equal(first.out.complete_blocks, k);
        assert_int_equal(first.out.samples_taken, 2 * k);
        session_close(&first);

        session again; /* a new process: the experiment built anew, the store reopened */
        session_open(&again, &spec, t.path);
        assert_true(again.existing);
        session_run_ok(&again);
        assert_int_equal(again.out.samples_resumed, 2 * k);
        assert_int_equal(again.out.samples_taken, 2 * (blocks - k));
        assert_int_equal(again.out.complete_blocks, blocks);
        expect_whole_plan(&again, blocks);
        session_close(&again);
        temp_store_remove(&t);
    }
}

/* A block cut short (a sample stored, its partner not) is completed, the stored one kept. */
static void test_resume_partial_block(void **unused)
{
    (void)unused;
    const size_t blocks = 4, k = 2;
    const char *kernels[] = {"spin", "spin_slow"};
    kernel_line_spec spec = line_spec(kernels, 2, blocks, 5);
    temp_store t;
    temp_store_make(&t);
    session first;
    session_open(&first, &spec, t.path);
    first.stop_after = k;
    assert_int_equal(session_run(&first), -1);
    assert_int_equal(first.err.kind, ERROR_INTERRUPTED);
    /* the first sample of block k, as a run killed in the middle of the block leaves it */
    size_t order[2];
    schedule_block_order(5, 0, k, 2, order);
    const char *names[] = {"ns_per_call"};
    const double marker[] = {12345.0};
    store_fact fact = {"verdict", "test"};
    store_sample row = {.point = "default", .variant = first.e.variants[order[0]].name,
                        .machine = "", .block = (long)k, .seq = (long)(2 * k), .wall = 0.001,
                        .steal = NAN, .other_busy = NAN, .load1 = NAN, .metric_names = names,
                        .metric_values = marker, .n_metrics = 1};
    int64_t run_id;
    verdict_error err = {0};
    if (store_begin_run(first.db, first.experiment_id, &fact, 1, &run_id, &err) != 0 ||
        store_add_sample(first.db, run_id, &row, &err) != 0 ||
        store_end_run(first.db, run_id, "interrupted", &err) != 0)
        fail_msg("adding the partial block: %s", err.message);
    session_close(&first);

    session again;
    session_open(&again, &spec, t.path);
    session_run_ok(&again);
    assert_int_equal(again.out.samples_resumed, 2 * k + 1);
    assert_int_equal(again.out.samples_taken, 2 * blocks - (2 * k + 1));
    expect_whole_plan(&again, blocks);
    sample_list *l = read_samples(&again);
    size_t markers = 0;
    for (size_t i = 0; i < l->n; i++)
        if (l->samples[i].ns_per_call == 12345.0) {
            markers++;
            assert_int_equal(l->samples[i].block, (long)k);
            assert_string_equal(l->samples[i].variant, again.e.variants[order[0]].name);
        }
    assert_int_equal(markers, 1);
    free(l);
    session_close(&again);
    temp_store_remove(&t);
}

/* The sample time is part of the plan: resuming with another one is refused. */
static void test_resume_with_other_sample_time_refused(void **unused)
{
    (void)unused;
    const char *kernels[] = {"spin", "spin_slow"};
    kernel_line_spec spec = line_spec(kernels, 2, 3, 9);
    temp_store t;
    temp_store_make(&t);
    session first;
    session_open(&first, &spec, t.path);
    first.stop_after = 1;
    assert_int_equal(session_run(&first), -1);
    session_close(&first);

    spec.sample_seconds *= 2;
    experiment e;
    verdict_error err;
    store *db = NULL;
    int64_t id;
    bool existing;
    assert_int_equal(kernel_experiment(&spec, &e, &err), 0);
    assert_int_equal(lab_open_store(t.path, &e, &db, &id, &existing, &err), -1);
    assert_true(error_is(&err, ERROR_PLAN_CHANGED)); /* exits 2, as a usage error does */
    assert_null(db);
    experiment_free(&e);
    temp_store_remove(&t);
}

/* ---- metrics, sweeps and facts ---- */

/* The setup's bytes per call give gbps series after the ns_per_call ones. */
static void test_gbps_series(void **unused)
{
    (void)unused;
    const char *kernels[] = {"sized", "sized"};
    kernel_line_spec spec = line_spec(kernels, 2, 3, 5);
    spec.arg = "4096";
    session s;
    session_open(&s, &spec, ":memory:");
    session_run_ok(&s);
    lab_results r;
    load_results(&s, &r);
    assert_int_equal(r.n_series, 4);
    assert_string_equal(r.series[0].metric, "ns_per_call");
    assert_false(r.series[0].higher_is_better);
    assert_string_equal(r.series[1].variant, "sized #2"); /* a repeated kernel is told apart */
    assert_string_equal(r.series[2].metric, "gbps");
    assert_true(r.series[2].higher_is_better);
    for (size_t i = 0; i < 4; i++)
        assert_int_equal(r.series[i].n, 3);
    for (size_t b = 0; b < 3; b++) {
        double ns = r.series[0].values[b], gbps = r.series[2].values[b];
        assert_true(ns > 0);
        assert_float_equal(gbps, 4096 / ns, 1e-9 * gbps);
    }
    lab_results_free(&r);
    session_close(&s);
}

/* Every sweep value is a point whose setup gets that value (sized reports it as bytes). */
static void test_sweep_points_get_their_arg(void **unused)
{
    (void)unused;
    const char *kernels[] = {"sized", "sized"};
    const char *ids[] = {"size=64", "size=4096", "size=100000"};
    const double bytes[] = {64, 4096, 100000};
    kernel_line_spec spec = line_spec(kernels, 2, 2, 8);
    spec.sweep = "size=64,4096,100000";
    session s;
    session_open(&s, &spec, ":memory:");
    session_run_ok(&s);
    assert_int_equal(s.out.n_points, 3);
    assert_int_equal(s.out.points_started, 3);
    assert_int_equal(s.out.complete_blocks, 3 * 2);
    sample_list *l = read_samples(&s);
    assert_int_equal(l->n, 3 * 2 * 2);
    size_t per_point[3] = {0, 0, 0};
    for (size_t i = 0; i < l->n; i++) {
        const kept_sample *k = &l->samples[i];
        size_t p = 0;
        while (p < 3 && strcmp(k->point, ids[p]) != 0)
            p++;
        if (p == 3)
            fail_msg("sample at unknown point '%s'", k->point);
        per_point[p]++;
        assert_float_equal(k->gbps * k->ns_per_call, bytes[p], 1e-9 * bytes[p]);
    }
    for (size_t p = 0; p < 3; p++)
        assert_int_equal(per_point[p], 4);
    free(l);
    lab_results r;
    load_results(&s, &r);
    assert_int_equal(r.n_points, 3);
    for (size_t p = 0; p < 3; p++) {
        assert_int_equal(r.complete_blocks[p], 2);
        assert_non_null(find_series(&r, ids[p], "gbps", "sized #2"));
    }
    lab_results_free(&r);
    session_close(&s);
}

/* A sweep value the setup refuses stops the run as a usage error that names it. */
static void test_sweep_value_refused_by_setup(void **unused)
{
    (void)unused;
    const char *kernels[] = {"sized", "spin"};
    kernel_line_spec spec = line_spec(kernels, 2, 2, 8);
    spec.sweep = "size=64,lots";
    session s;
    session_open(&s, &spec, ":memory:");
    assert_int_equal(session_run(&s), -1);
    assert_int_equal(s.err.kind, ERROR_USAGE);
    if (strstr(s.err.message, "'lots' is not a size in bytes") == NULL)
        fail_msg("'%s' does not name the value refused", s.err.message);
    /* the point run before it, if any, is kept whole */
    sample_list *l = read_samples(&s);
    assert_true(l->n == 0 || l->n == 4);
    for (size_t i = 0; i < l->n; i++)
        assert_string_equal(l->samples[i].point, "size=64");
    free(l);
    session_close(&s);
}

/* kernel.calls has one line per (point, kernel), and its calls made each sample: a
 * sample's wall time over its calls is its ns_per_call. */
static void test_calls_fact_lists_every_point_and_kernel(void **unused)
{
    (void)unused;
    const char *kernels[] = {"spin", "spin_slow", "spin"};
    const char *variants[] = {"spin", "spin_slow", "spin #2"};
    const char *ids[] = {"n=1", "n=2"};
    kernel_line_spec spec = line_spec(kernels, 3, 2, 4);
    spec.sweep = "n=1,2";
    session s;
    session_open(&s, &spec, ":memory:");
    session_run_ok(&s);
    char *calls = read_fact(&s, KERNEL_CALLS_FACT);
    assert_non_null(calls);
    assert_int_equal(count_lines(calls), 2 * 3);
    unsigned long long n[2][3];
    for (size_t p = 0; p < 2; p++)
        for (size_t v = 0; v < 3; v++) {
            size_t matches;
            n[p][v] = calls_of(calls, ids[p], variants[v], &matches);
            if (matches != 1)
                fail_msg("%s at %s: %zu lines in\n%s", variants[v], ids[p], matches, calls);
            assert_true(n[p][v] > 0);
        }
    sample_list *l = read_samples(&s);
    assert_int_equal(l->n, 2 * 3 * 2);
    for (size_t i = 0; i < l->n; i++) {
        const kept_sample *k = &l->samples[i];
        size_t p = strcmp(k->point, ids[0]) == 0 ? 0 : 1;
        long v = experiment_variant_index(&s.e, k->variant);
        assert_true(v >= 0);
        double expected = k->wall * 1e9 / (double)n[p][v];
        assert_float_equal(k->ns_per_call, expected, 1e-9 * expected);
    }
    free(l);
    free(calls);
    session_close(&s);
}

/* --iterations fixes the calls per sample: no calibration, every kernel the same count. */
static void test_fixed_iterations_skip_calibration(void **unused)
{
    (void)unused;
    const char *kernels[] = {"spin", "spin_slow"};
    kernel_line_spec spec = line_spec(kernels, 2, 2, 6);
    spec.iterations = 1000;
    session s;
    session_open(&s, &spec, ":memory:");
    session_run_ok(&s);
    char *calls = read_fact(&s, KERNEL_CALLS_FACT);
    assert_non_null(calls);
    for (size_t v = 0; v < 2; v++) {
        size_t matches;
        assert_int_equal(calls_of(calls, "default", kernels[v], &matches), 1000);
        assert_int_equal(matches, 1);
    }
    sample_list *l = read_samples(&s);
    assert_int_equal(l->n, 4);
    for (size_t i = 0; i < l->n; i++)
        assert_float_equal(l->samples[i].ns_per_call, l->samples[i].wall * 1e9 / 1000,
                           1e-9 * l->samples[i].ns_per_call);
    free(l);
    free(calls);
    session_close(&s);
}

/* A sample time shorter than one call: each sample is one call, and the report says so. */
static void test_long_call_is_warned(void **unused)
{
    (void)unused;
    const char *kernels[] = {"spin", "spin_slow"};
    kernel_line_spec spec = line_spec(kernels, 2, 2, 2);
    spec.sample_seconds = 1e-9; /* a clock read alone takes longer */
    session s;
    session_open(&s, &spec, ":memory:");
    session_run_ok(&s);
    char *calls = read_fact(&s, KERNEL_CALLS_FACT);
    char *warnings = read_fact(&s, "warnings.kernel");
    assert_non_null(calls);
    assert_non_null(warnings);
    for (size_t v = 0; v < 2; v++) {
        size_t matches;
        assert_int_equal(calls_of(calls, "default", kernels[v], &matches), 1);
    }
    lab_results r;
    load_results(&s, &r);
    assert_true(has_warning(&r, "long-call", "spin"));
    assert_true(has_warning(&r, "long-call", "spin_slow"));
    lab_results_free(&r);
    free(calls);
    free(warnings);
    session_close(&s);
}

/* ---- verdicts ---- */

/* Runs baseline against candidate and returns the ns_per_call comparison's verdict. */
static verdict_kind compare_pair(const char *baseline, const char *candidate, size_t blocks,
                                 uint64_t seed, double *ratio)
{
    const char *kernels[] = {baseline, candidate};
    kernel_line_spec spec = line_spec(kernels, 2, blocks, seed);
    spec.sample_seconds = TEST_SAMPLE_SECONDS;
    session s;
    session_open(&s, &spec, ":memory:");
    session_run_ok(&s);
    lab_results r;
    load_results(&s, &r);
    assert_int_equal(r.n_series, 2); /* spin has no bytes: gbps is left out */
    assert_string_equal(r.series[0].metric, "ns_per_call");
    assert_int_equal(r.series[0].n, blocks);
    analysis_options o = lab_default_analysis(&s.e);
    analysis_result result;
    verdict_error err = {0};
    if (analysis_run(r.series, r.n_series, &o, &result, &err) != 0)
        fail_msg("analysis: %s", err.message);
    assert_int_equal(result.n_comparisons, 1);
    assert_true(result.comparisons[0].ok);
    verdict_kind kind = result.comparisons[0].result.decision.kind;
    *ratio = result.comparisons[0].result.ratio;
    analysis_result_free(&result);
    lab_results_free(&r);
    session_close(&s);
    return kind;
}

/* A 20% regression is called worse, near 1.2. A burst of load from other processes can
 * swamp one run (about 1 in 15 with three compilers on 2 vCPUs), so up to 3 runs of other
 * seeds are made: a wrong estimate fails them all; calling it better fails at once. */
static void test_slower_kernel_is_worse(void **unused)
{
    (void)unused;
    for (uint64_t seed = 7; seed < 10; seed++) {
        double ratio;
        verdict_kind kind = compare_pair("spin", "spin_slow", 20, seed, &ratio);
        if (kind == VERDICT_BETTER)
            fail_msg("seed %llu: spin_slow/spin = %.3f called better", (unsigned long long)seed,
                     ratio);
        if (kind == VERDICT_WORSE && ratio >= 1.08 && ratio <= 1.4)
            return;
        fprintf(stderr, "# seed %llu: spin_slow/spin = %.3f, verdict %d; expected worse near "
                "1.2\n", (unsigned long long)seed, ratio, (int)kind);
    }
    fail_msg("a 20%% slower kernel not called worse near 1.2 in 3 runs");
}

/* An A/A check: the same kernel twice. At a 5% error rate 4 or more false claims in 8
 * seeds happen about once in 2500 runs (once in 500 at 7.5%, for a busy VM); a design
 * that lets drift decide (all of A, then all of B) makes many more. */
static void test_identical_kernels_mostly_not_different(void **unused)
{
    (void)unused;
    size_t claims = 0;
    for (uint64_t seed = 1; seed <= 8; seed++) {
        double ratio;
        verdict_kind kind = compare_pair("spin", "spin_same", 12, seed, &ratio);
        if (kind == VERDICT_BETTER || kind == VERDICT_WORSE) {
            claims++;
            fprintf(stderr, "# seed %llu: identical kernels called %s (ratio %.4f)\n",
                    (unsigned long long)seed, kind == VERDICT_BETTER ? "better" : "worse", ratio);
        }
    }
    assert_true(claims <= 3);
}

/* Adaptive: a 20% effect is decided at an early look, long before the budget. Kernels
 * without bytes have no gbps, which must not keep every look undecided. */
static void test_adaptive_stops_once_decided(void **unused)
{
    (void)unused;
    const char *kernels[] = {"spin", "spin_slow"};
    kernel_line_spec spec = line_spec(kernels, 2, 0, 13);
    spec.min_runs = 10;
    spec.max_runs = 60;
    spec.sample_seconds = TEST_SAMPLE_SECONDS;
    session s;
    session_open(&s, &spec, ":memory:");
    int rc = session_run(&s);
    lab_outcome out = s.out;
    session_close(&s); /* before the asserts, so that a failure leaks nothing */
    assert_int_equal(rc, 0);
    assert_true(out.looks_taken >= 1);
    if (out.budget_spent || out.complete_blocks >= 60)
        fail_msg("a 20%% effect undecided after %zu blocks and %zu looks", out.complete_blocks,
                 out.looks_taken);
    assert_true(out.complete_blocks >= 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_missing_file),
        cmocka_unit_test(test_not_a_shared_object),
        cmocka_unit_test(test_symbol_missing),
        cmocka_unit_test(test_abi_mismatch),
        cmocka_unit_test(test_kernel_not_found),
        cmocka_unit_test(test_calibration_reaches_target),
        cmocka_unit_test(test_target_reports_load_errors),
        cmocka_unit_test(test_setup_failure_is_reported),
        cmocka_unit_test(test_interleaving_order),
        cmocka_unit_test(test_stop_keeps_complete_blocks),
        cmocka_unit_test(test_stop_before_calibration_records_no_calls),
        cmocka_unit_test(test_resume_after_stop),
        cmocka_unit_test(test_resume_partial_block),
        cmocka_unit_test(test_resume_with_other_sample_time_refused),
        cmocka_unit_test(test_gbps_series),
        cmocka_unit_test(test_sweep_points_get_their_arg),
        cmocka_unit_test(test_sweep_value_refused_by_setup),
        cmocka_unit_test(test_calls_fact_lists_every_point_and_kernel),
        cmocka_unit_test(test_fixed_iterations_skip_calibration),
        cmocka_unit_test(test_long_call_is_warned),
        cmocka_unit_test(test_slower_kernel_is_worse),
        cmocka_unit_test(test_identical_kernels_mostly_not_different),
        cmocka_unit_test(test_adaptive_stops_once_decided),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

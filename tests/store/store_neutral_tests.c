/* The store's tests that hold for both back ends (SQLite and PostgreSQL): round trips,
 * facts, runs, plans, unique blocks, killed writers, experiments, machines, shared plans. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/error.h"

#include "store_test_support.h"

/* ---- round trips ---- */

static void experiment_round_trips_with_uint64_hashes(void **state)
{
    fixture *f = *state;
    store *s = open_store(f->path);
    store_experiment e = sample_experiment("crc");
    int64_t id = open_experiment(s, &e, false);

    store_experiment got;
    verdict_error err = {0};
    assert_int_equal(store_get_experiment(s, id, &got, &err), 0);
    assert_string_equal(got.name, "crc");
    assert_int_equal(got.text_length, e.text_length);
    assert_memory_equal(got.text, e.text, e.text_length);
    assert_true(got.text_hash == e.text_hash);
    assert_true(got.plan_hash == e.plan_hash);
    assert_true(got.seed == UINT64_MAX);
    assert_string_equal(got.tool_version, "0.1.0");
    assert_string_equal(got.tool_build, ""); /* NULL is stored as "" (unknown) */

    assert_int_equal(store_get_experiment(s, id + 1, &got, &err), -1);
    assert_contains(err.message, "no experiment");
    store_close(s);
}

static void samples_round_trip_every_field(void **state)
{
    fixture *f = *state;
    store *s = open_store(f->path);
    store_experiment e = sample_experiment("crc");
    int64_t id = open_experiment(s, &e, false);
    int64_t run = begin_run(s, id, NULL, 0);

    static const char *const nan_names[] = {"z_last", "a_first", "unknown"};
    static const double nan_values[] = {-1e300, 4.9406564584124654e-324, NAN};
    store_sample samples[3] = {full_sample(0, 0), full_sample(0, 1), full_sample(-1, 2)};
    /* the third: a failed run outside blocks, every unknown reading NaN, odd metric order */
    samples[2].exit_code = -9;
    samples[2].timed_out = true;
    samples[2].tainted = false;
    samples[2].taint_reason = NULL;
    samples[2].steal = samples[2].other_busy = samples[2].load1 = NAN;
    samples[2].voluntary_switches = 0x7fffffffL;
    samples[2].metric_names = nan_names;
    samples[2].metric_values = nan_values;
    /* stored out of seq order: reading back must follow seq */
    add_sample(s, run, &samples[1]);
    add_sample(s, run, &samples[0]);
    add_sample(s, run, &samples[2]);

    collection *c = read_samples(s, id);
    assert_int_equal(c->n, 3);
    for (int i = 0; i < 3; i++)
        assert_same_sample(&c->items[i], &samples[i]);
    free(c);
    store_close(s);
    /* NaN went to the file as NULL, not as a number */
    assert_int_equal(fixture_int(f, "SELECT count(*) FROM sample WHERE steal IS NULL"), 1);
    assert_int_equal(fixture_int(f, "SELECT count(*) FROM sample_metric WHERE value IS NULL"),
                     1);
}

static void reading_stops_when_the_callback_says_so(void **state)
{
    fixture *f = *state;
    store *s = open_store(f->path);
    store_experiment e = sample_experiment("crc");
    int64_t id = open_experiment(s, &e, false);
    int64_t run = begin_run(s, id, NULL, 0);
    for (long i = 0; i < 5; i++) {
        store_sample x = full_sample(i, i);
        add_sample(s, run, &x);
    }
    collection *c = calloc(1, sizeof *c);
    assert_non_null(c);
    c->stop_after = 2;
    verdict_error err = {0};
    /* the callback's value comes back, so a failure inside it is not taken for success */
    assert_int_equal(store_for_each_sample(s, id, collect_sample, c, &err), 1);
    assert_int_equal(c->n, 2);
    assert_string_equal(err.message,
                        ""); /* the callback knows why it stopped; the store does not */
    free(c);
    store_close(s);
}

/* ---- facts and runs ---- */

static void facts_of_the_latest_run_come_back_in_order(void **state)
{
    fixture *f = *state;
    store *s = open_store(f->path);
    store_experiment e = sample_experiment("crc");
    int64_t id = open_experiment(s, &e, false);
    verdict_error err = {0};

    fact_list none = {0};
    assert_int_equal(store_for_each_fact(s, id, collect_fact, &none, &err), 0);
    assert_int_equal(none.n, 0);

    store_fact first[] = {{"governor", "performance"}, {"cpu_model", "EPYC"}};
    store_fact second[] = {{"zeta", "1"}, {"cpu_model", "Xeon"}, {"alpha", NULL}};
    static const char *const second_values[] = {"1", "Xeon", ""}; /* NULL comes back "" */
    begin_run(s, id, first, 2);
    begin_run(s, id, second, 3);
    fact_list got = {0};
    assert_int_equal(store_for_each_fact(s, id, collect_fact, &got, &err), 0);
    assert_int_equal(got.n, 3);
    for (size_t i = 0; i < 3; i++) {
        assert_string_equal(got.keys[i], second[i].key);
        assert_string_equal(got.values[i], second_values[i]);
    }
    assert_int_equal(store_for_each_fact(s, id, refuse_fact, NULL, &err), -1);

    store_fact twice[] = {{"governor", "a"}, {"governor", "b"}};
    int64_t run = 0;
    assert_int_equal(store_begin_run(s, id, twice, 2, &run, &err), -1);
    assert_contains(err.message, "fact governor given twice");
    store_close(s);
    /* the refused run left nothing behind */
    assert_int_equal(fixture_int(f, "SELECT count(*) FROM run"), 2);
}

static void facts_added_after_begin_follow_the_begin_facts(void **state)
{
    fixture *f = *state;
    store *s = open_store(f->path);
    store_experiment e = sample_experiment("crc");
    int64_t id = open_experiment(s, &e, false);
    store_fact at_begin[] = {{"governor", "performance"}, {"cpu_model", "EPYC"}};
    int64_t earlier = begin_run(s, id, at_begin, 2);
    int64_t run = begin_run(s, id, at_begin, 2);
    verdict_error err = {0};
    /* learnt while the run went on, in two calls; "alpha" would sort first by key */
    store_fact calibration[] = {{"zeta_ns_per_op", "1.25"}, {"alpha", NULL}};
    store_fact warning[] = {{"warning", "turbo on"}};
    assert_int_equal(store_add_run_facts(s, run, calibration, 2, &err), 0);
    assert_int_equal(store_add_run_facts(s, run, warning, 1, &err), 0);
    assert_int_equal(store_add_run_facts(s, run, NULL, 0, &err), 0);
    /* a fact for the earlier run stays with it */
    store_fact late[] = {{"late", "1"}};
    assert_int_equal(store_add_run_facts(s, earlier, late, 1, &err), 0);

    static const char *const want_keys[] = {"governor", "cpu_model", "zeta_ns_per_op", "alpha",
                                            "warning"};
    static const char *const want_values[] = {"performance", "EPYC", "1.25", "", "turbo on"};
    fact_list got = {0};
    assert_int_equal(store_for_each_fact(s, id, collect_fact, &got, &err), 0);
    assert_int_equal(got.n, 5);
    for (size_t i = 0; i < 5; i++) {
        assert_string_equal(got.keys[i], want_keys[i]);
        assert_string_equal(got.values[i], want_values[i]);
    }
    store_close(s);
    /* positions continue where the begin facts stopped: 0..4, no gap, no reuse */
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT sum(position) * 100 + count(*) FROM run_fact"
             " WHERE run_id = %lld", (long long)run);
    assert_int_equal(fixture_int(f, sql), (0 + 1 + 2 + 3 + 4) * 100 + 5);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM run_fact WHERE run_id = %lld AND key = 'late'"
             " AND position = 2", (long long)earlier);
    assert_int_equal(fixture_int(f, sql), 1);
}

static void a_fact_given_twice_is_refused_and_nothing_of_the_call_is_kept(void **state)
{
    fixture *f = *state;
    store *s = open_store(f->path);
    store_experiment e = sample_experiment("crc");
    int64_t id = open_experiment(s, &e, false);
    store_fact at_begin[] = {{"governor", "performance"}};
    int64_t run = begin_run(s, id, at_begin, 1);
    verdict_error err = {0};

    /* a key the run already has: refused, not replaced, and the new key before it in the
     * same call is rolled back with it */
    store_fact again[] = {{"calibrated", "yes"}, {"governor", "powersave"}};
    assert_int_equal(store_add_run_facts(s, run, again, 2, &err), -1);
    assert_contains(err.message, f->path);
    assert_contains(err.message, "fact governor given twice for one run");
    /* twice within one call */
    store_fact twice[] = {{"ns_per_op", "1"}, {"ns_per_op", "2"}};
    assert_int_equal(store_add_run_facts(s, run, twice, 2, &err), -1);
    assert_contains(err.message, "fact ns_per_op given twice for one run");

    /* the store goes on: a new key is taken */
    store_fact fine[] = {{"ns_per_op", "3"}};
    assert_int_equal(store_add_run_facts(s, run, fine, 1, &err), 0);
    fact_list got = {0};
    assert_int_equal(store_for_each_fact(s, id, collect_fact, &got, &err), 0);
    assert_int_equal(got.n, 2);
    assert_string_equal(got.keys[0], "governor");
    assert_string_equal(got.values[0], "performance");
    assert_string_equal(got.keys[1], "ns_per_op");
    assert_string_equal(got.values[1], "3");
    store_close(s);
    assert_int_equal(fixture_int(f, "SELECT count(*) FROM run_fact"), 2);
    assert_int_equal(fixture_int(f, "SELECT max(position) FROM run_fact"), 1);
}

static void facts_for_a_missing_run_are_refused(void **state)
{
    fixture *f = *state;
    store *s = open_store(f->path);
    store_experiment e = sample_experiment("crc");
    int64_t run = begin_run(s, open_experiment(s, &e, false), NULL, 0);
    store_fact fact[] = {{"governor", "performance"}};
    verdict_error err = {0};
    int rc = store_add_run_facts(s, run + 5, fact, 1, &err);
    store_close(s); /* first: a failed check below must not leak the store */
    assert_int_equal(rc, -1);
    assert_contains(err.message, f->path);
    char want[64];
    snprintf(want, sizeof want, "no run %lld", (long long)(run + 5));
    assert_contains(err.message, want); /* as store_add_sample and store_end_run say it */
    assert_int_equal(fixture_int(f, "SELECT count(*) FROM run_fact"), 0);
}

static void runs_record_start_end_status_and_version(void **state)
{
    fixture *f = *state;
    store *s = open_store(f->path);
    store_experiment e = sample_experiment("crc");
    int64_t id = open_experiment(s, &e, false);
    int64_t run = begin_run(s, id, NULL, 0);
    verdict_error err = {0};
    assert_int_equal(store_end_run(s, run, "finished", &err), -1);
    assert_contains(err.message, "run status finished");
    assert_int_equal(store_end_run(s, run + 5, "done", &err), -1);
    assert_contains(err.message, "no run");
    assert_int_equal(store_end_run(s, run, "interrupted", &err), 0);

    store_sample x = full_sample(0, 0);
    assert_int_equal(store_add_sample(s, run + 5, &x, &err), -1);
    assert_contains(err.message, "no run");
    int64_t no_run = 0;
    assert_int_equal(store_begin_run(s, id + 99, NULL, 0, &no_run, &err), -1);
    assert_contains(err.message, "no experiment");
    store_close(s);

    assert_int_equal(fixture_int(f, "SELECT count(*) FROM run WHERE status = 'interrupted'"
                                      " AND ended >= started AND started LIKE '____-__-__T%Z'"
                                      " AND tool_version = '0.1.0'"),
                     1);
}

static void latest_experiment_is_the_one_run_last(void **state)
{
    fixture *f = *state;
    store *s = open_store(f->path);
    int64_t latest = 0;
    verdict_error err = {0};
    assert_int_equal(store_latest_experiment(s, &latest, &err), -1);
    assert_contains(err.message, "no experiment");
    assert_contains(err.message, f->path);

    store_experiment a = sample_experiment("a"), b = sample_experiment("b");
    int64_t id_a = open_experiment(s, &a, false);
    assert_int_equal(store_latest_experiment(s, &latest, &err), 0);
    assert_int_equal(latest, id_a);
    int64_t id_b = open_experiment(s, &b, false);
    assert_int_equal(store_latest_experiment(s, &latest, &err), 0);
    assert_int_equal(latest, id_b);
    begin_run(s, id_a, NULL, 0);
    assert_int_equal(store_latest_experiment(s, &latest, &err), 0);
    assert_int_equal(latest, id_a);
    store_close(s);
}

/* ---- uniqueness and plans ---- */

static void a_block_is_never_stored_twice(void **state)
{
    fixture *f = *state;
    store *s = open_store(f->path);
    store_experiment e = sample_experiment("crc");
    int64_t id = open_experiment(s, &e, false);
    int64_t run = begin_run(s, id, NULL, 0);
    store_sample x = full_sample(3, 0);
    add_sample(s, run, &x);

    /* a second run of the same experiment (a resume) may not repeat the block either */
    int64_t resumed = begin_run(s, id, NULL, 0);
    x.seq = 1;
    verdict_error err = {0};
    assert_int_equal(store_add_sample(s, resumed, &x, &err), -1);
    assert_contains(err.message, f->path);
    assert_contains(err.message, "point clients=4, variant A");
    assert_contains(err.message, "layout 0");
    assert_contains(err.message, "block 3");
    assert_contains(err.message, "already stored");

    /* the store still works, and the same block of another variant or point is new */
    x.variant = "B";
    add_sample(s, resumed, &x);
    x.point = "clients=8";
    add_sample(s, resumed, &x);
    /* samples outside blocks (-1) are not unique */
    x.block = -1;
    add_sample(s, resumed, &x);
    add_sample(s, resumed, &x);
    /* another experiment has blocks of its own */
    store_experiment other = sample_experiment("other");
    int64_t other_run = begin_run(s, open_experiment(s, &other, false), NULL, 0);
    x = full_sample(3, 0);
    add_sample(s, other_run, &x);
    store_close(s);
    assert_int_equal(fixture_int(f, "SELECT count(*) FROM sample"), 6);
    assert_int_equal(fixture_int(f, "SELECT count(*) FROM sample_metric"), 18);
}

/* The engine commits its samples many to a transaction: all of a batch, or none of it. */
static void samples_are_committed_in_batches_whole_or_not_at_all(void **state)
{
    fixture *f = *state;
    store *s = open_store(f->path);
    store_experiment e = sample_experiment("batch");
    int64_t run = begin_run(s, open_experiment(s, &e, false), NULL, 0);
    store_sample batch[3] = {full_sample(0, 0), full_sample(1, 1), full_sample(2, 2)};
    verdict_error err = {0};
    assert_int_equal(store_add_samples(s, run, batch, 3, &err), 0);
    assert_int_equal(store_add_samples(s, run, batch, 0, &err), 0); /* nothing */
    /* a block already stored (2 of A), last in the batch: the two new ones before it go too */
    store_sample refused[3] = {full_sample(5, 3), full_sample(6, 4), full_sample(2, 6)};
    assert_int_equal(store_add_samples(s, run, refused, 3, &err), -1);
    assert_contains(err.message, "block 2");
    assert_contains(err.message, "already stored");
    /* and the store goes on: the new ones alone are taken */
    assert_int_equal(store_add_samples(s, run, refused, 2, &err), 0);
    store_close(s);
    assert_int_equal(fixture_int(f, "SELECT count(*) FROM sample"), 5);
    assert_int_equal(fixture_int(f, "SELECT count(*) FROM sample_metric"), 15);
    assert_int_equal(fixture_int(f, "SELECT count(*) FROM sample WHERE block IN (5, 6)"), 2);
}

static void layout_and_machine_round_trip(void **state)
{
    fixture *f = *state;
    store *s = open_store(f->path);
    store_experiment e = sample_experiment("crc");
    int64_t id = open_experiment(s, &e, false);
    int64_t run = begin_run(s, id, NULL, 0);
    store_sample samples[4] = {full_sample(0, 0), full_sample(0, 1), full_sample(1, 2),
                               full_sample(-1, 3)};
    samples[0].layout = 0;
    samples[0].machine = ""; /* the local machine */
    samples[1].layout = 2;
    samples[1].machine = "db-2.example.org";
    samples[2].layout = 0x7fffffffL; /* an index as large as a long of 32 bits */
    samples[2].machine = "db-1";
    samples[3].layout = 1;
    samples[3].machine = NULL; /* NULL is the local machine too */
    for (int i = 0; i < 4; i++)
        add_sample(s, run, &samples[i]);
    collection *c = read_samples(s, id);
    assert_int_equal(c->n, 4);
    for (int i = 0; i < 4; i++)
        assert_same_sample(&c->items[i], &samples[i]);
    free(c);
    store_close(s);
    assert_int_equal(fixture_int(f, "SELECT count(*) FROM sample WHERE machine = ''"), 2);
    assert_int_equal(fixture_int(f, "SELECT count(*) FROM sample WHERE machine IS NULL"), 0);
    assert_int_equal(fixture_int(f, "SELECT layout FROM sample WHERE machine = 'db-1'"),
                     0x7fffffffL);
}

static void a_block_is_one_per_layout_and_machine(void **state)
{
    fixture *f = *state;
    store *s = open_store(f->path);
    store_experiment e = sample_experiment("crc");
    int64_t id = open_experiment(s, &e, false);
    int64_t run = begin_run(s, id, NULL, 0);
    store_sample x = full_sample(3, 0);
    x.layout = 1;
    x.machine = "db-2";
    add_sample(s, run, &x);
    /* only the layout differs: another twin of the build, its own block 3 */
    store_sample other_layout = x;
    other_layout.layout = 0;
    other_layout.seq = 1;
    add_sample(s, run, &other_layout);
    /* only the machine differs: another machine's block 3 */
    store_sample other_machine = x;
    other_machine.machine = "db-3";
    other_machine.seq = 2;
    add_sample(s, run, &other_machine);
    store_sample local = x;
    local.machine = "";
    local.seq = 3;
    add_sample(s, run, &local);

    /* the same (point, variant, layout, machine, block) again, even from a resumed run */
    int64_t resumed = begin_run(s, id, NULL, 0);
    store_sample again = x;
    again.seq = 4;
    verdict_error refused = {0};
    verdict_error err = {0};
    assert_int_equal(store_add_sample(s, resumed, &again, &refused), -1);
    /* NULL is the local machine "", so this is the sample `local` again */
    store_sample local_again = local;
    local_again.machine = NULL;
    local_again.seq = 5;
    assert_int_equal(store_add_sample(s, resumed, &local_again, &err), -1);
    assert_contains(err.message, "already stored");

    collection *c = read_samples(s, id);
    assert_int_equal(c->n, 4);
    assert_same_sample(&c->items[0], &x);
    assert_same_sample(&c->items[1], &other_layout);
    assert_same_sample(&c->items[2], &other_machine);
    assert_same_sample(&c->items[3], &local);
    free(c);
    store_close(s);
    /* the refused.message samples left no metrics behind */
    assert_int_equal(fixture_int(f, "SELECT count(*) FROM sample_metric"), 4 * 3);
    /* the message names every part of the block's key: which twin, which machine */
    assert_contains(refused.message, f->path);
    assert_contains(refused.message, "point clients=4, variant A");
    assert_contains(refused.message, "layout 1");
    assert_contains(refused.message, "machine db-2");
    assert_contains(refused.message, "block 3");
    assert_contains(refused.message, "already stored; a block is never measured twice");
}

static void same_plan_reopens_and_new_text_is_kept(void **state)
{
    fixture *f = *state;
    store *s = open_store(f->path);
    store_experiment e = sample_experiment("crc");
    int64_t id = open_experiment(s, &e, false);
    assert_int_equal(open_experiment(s, &e, true), id);

    static const char edited[] = "# a comment\nname: crc\n";
    store_experiment changed_text = e;
    changed_text.text = edited;
    changed_text.text_length = sizeof edited - 1;
    changed_text.text_hash = 42;
    assert_int_equal(open_experiment(s, &changed_text, true), id);
    store_experiment got;
    verdict_error err = {0};
    assert_int_equal(store_get_experiment(s, id, &got, &err), 0);
    assert_string_equal(got.text, edited);
    assert_true(got.text_hash == 42);
    store_close(s);
    /* the first text is in the history, exactly once */
    assert_int_equal(fixture_int(f, "SELECT count(*) FROM experiment_text_history WHERE"
                                      " text = 'name: crc\nvariants:\n  - name: A\n  - name: "
                                      "B\n' AND text_hash = 'fedcba9876543210'"),
                     1);
}

static void a_changed_plan_is_refused_as_plan_changed(void **state)
{
    fixture *f = *state;
    store *s = open_store(f->path);
    store_experiment e = sample_experiment("crc");
    int64_t id = open_experiment(s, &e, false);
    int64_t run = begin_run(s, id, NULL, 0);
    store_sample x = full_sample(0, 0);
    add_sample(s, run, &x);

    /* another plan, and another text with it: neither is taken */
    static const char edited[] = "name: crc\nvariants:\n  - name: A\n";
    store_experiment changed_plan = e;
    changed_plan.plan_hash ^= 1;
    changed_plan.text = edited;
    changed_plan.text_length = sizeof edited - 1;
    changed_plan.text_hash = 42;
    int64_t refused_id = -7;
    bool existing = false;
    verdict_error err = {0};
    assert_int_equal(store_open_experiment(s, &changed_plan, &refused_id, &existing, &err), -1);
    assert_true(error_is(&err, ERROR_PLAN_CHANGED));
    char want[ERR_SIZE];
    snprintf(want, sizeof want,
             "experiment crc in %s was run with a different plan (variants, parameters, seed "
             "or repetitions changed); use a new store or restore the file (to run more "
             "blocks, keep the file as it was and give verdict run --more N)",
             f->path);
    assert_string_equal(err.message, want);

    /* the stored experiment is as it was, and the store is not left in a transaction */
    store_experiment got;
    assert_int_equal(store_get_experiment(s, id, &got, &err), 0);
    assert_true(got.plan_hash == e.plan_hash);
    assert_true(got.text_hash == e.text_hash);
    assert_memory_equal(got.text, experiment_text, experiment_text_length);
    assert_int_equal(open_experiment(s, &e, true), id);
    begin_run(s, id, NULL, 0);
    /* an unrelated failure is another kind, not ERROR_PLAN_CHANGED */
    store_experiment unnamed = sample_experiment("");
    assert_int_equal(store_open_experiment(s, &unnamed, &refused_id, &existing, &err),
                     -1);
    assert_false(error_is(&err, ERROR_PLAN_CHANGED));
    store_close(s);
    assert_int_equal(fixture_int(f, "SELECT count(*) FROM experiment"), 1);
    assert_int_equal(fixture_int(f, "SELECT count(*) FROM experiment_text_history"), 0);
    assert_int_equal(fixture_int(f, "SELECT count(*) FROM sample"), 1);
}

static void each_new_text_of_the_same_plan_keeps_the_one_before(void **state)
{
    fixture *f = *state;
    store *s = open_store(f->path);
    store_experiment e = sample_experiment("crc");
    int64_t id = open_experiment(s, &e, false);
    static const char second[] = "# second\nname: crc\n", third[] = "# third\nname: crc\n";
    store_experiment edit = e;
    edit.text = second;
    edit.text_length = sizeof second - 1;
    edit.text_hash = 2;
    assert_int_equal(open_experiment(s, &edit, true), id);
    /* the same text again is no edit: nothing more in the history */
    assert_int_equal(open_experiment(s, &edit, true), id);
    edit.text = third;
    edit.text_length = sizeof third - 1;
    edit.text_hash = 3;
    assert_int_equal(open_experiment(s, &edit, true), id);

    store_experiment got;
    verdict_error err = {0};
    assert_int_equal(store_get_experiment(s, id, &got, &err), 0);
    assert_string_equal(got.text, third);
    assert_true(got.text_hash == 3);
    assert_true(got.plan_hash == e.plan_hash);
    store_close(s);
    assert_int_equal(fixture_int(f, "SELECT count(*) FROM experiment_text_history"), 2);
    /* each with the hash it had and the time it was replaced, the first text replaced first
     * (by time, not by SQLite's row numbers: the same query on both back ends) */
    assert_int_equal(fixture_int(f, "SELECT count(*) FROM experiment_text_history"
                                    " WHERE text_hash = 'fedcba9876543210'"
                                    " AND text LIKE 'name: crc%'"
                                    " AND replaced LIKE '____-__-__T%Z'"
                                    " AND replaced <= (SELECT replaced FROM"
                                    " experiment_text_history WHERE text_hash ="
                                    " '0000000000000002')"),
                     1);
    assert_int_equal(fixture_int(f, "SELECT count(*) FROM experiment_text_history"
                                    " WHERE text_hash = '0000000000000002'"
                                    " AND text = '# second\nname: crc\n'"),
                     1);
}

#define DURABILITY_SAMPLES 200

/* The writer of the durability tests: reports each seq on `report` once store_add_sample
 * has returned; with `go` it then waits for the parent's word before the next sample. */
static void writer_child(const char *path, int report, int go)
{
    store *s = NULL;
    verdict_error err = {0};
    if (store_open(path, &s, &err) != 0)
        _exit(2);
    store_experiment e = sample_experiment("crc");
    int64_t id = 0, run = 0;
    bool existing = false;
    if (store_open_experiment(s, &e, &id, &existing, &err) != 0 ||
        store_begin_run(s, id, NULL, 0, &run, &err) != 0)
        _exit(3);
    for (long seq = 0; seq < DURABILITY_SAMPLES; seq++) {
        store_sample x = full_sample(seq, seq);
        if (store_add_sample(s, run, &x, &err) != 0)
            _exit(4);
        if (write(report, &seq, sizeof seq) != (ssize_t)sizeof seq)
            _exit(5);
        char word;
        if (go >= 0 && read(go, &word, 1) != 1)
            _exit(6);
    }
    _exit(0); /* not reached when the parent kills in time */
}

static pid_t start_writer(const char *path, int *report, int *go)
{
    int report_pipe[2], go_pipe[2];
    assert_int_equal(pipe(report_pipe), 0);
    if (go != NULL)
        assert_int_equal(pipe(go_pipe), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(report_pipe[0]);
        if (go != NULL)
            close(go_pipe[1]);
        writer_child(path, report_pipe[1], go != NULL ? go_pipe[0] : -1);
    }
    close(report_pipe[1]);
    *report = report_pipe[0];
    if (go != NULL) {
        close(go_pipe[0]);
        *go = go_pipe[1];
    }
    return pid;
}

static void kill_and_reap(pid_t pid)
{
    assert_int_equal(kill(pid, SIGKILL), 0);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGKILL);
}

/* Reopens after the kill: the samples are seq 0.. n-1, complete, and resume goes on. */
static void assert_store_holds(const fixture *f, long n)
{
    fixture_check_integrity(f);
    store *s = open_store(f->path);
    store_experiment e = sample_experiment("crc");
    int64_t id = open_experiment(s, &e, true);
    collection *c = read_samples(s, id);
    assert_int_equal(c->n, n);
    for (long i = 0; i < n; i++) {
        store_sample want = full_sample(i, i);
        assert_same_sample(&c->items[i], &want);
    }
    free(c);
    int64_t run = begin_run(s, id, NULL, 0);
    store_sample next = full_sample(n, n);
    add_sample(s, run, &next);
    store_sample again = full_sample(0, 0); /* block 0 of variant A, measured again */
    again.seq = n + 1;
    verdict_error err = {0};
    assert_int_equal(store_add_sample(s, run, &again, &err), -1);
    assert_contains(err.message, "already stored");
    store_close(s);
}

static void killed_after_sample_k_keeps_exactly_k(void **state)
{
    fixture *f = *state;
    const long k = 37;
    int report = -1, go = -1;
    pid_t pid = start_writer(f->path, &report, &go);
    long seq = -1;
    for (;;) {
        assert_int_equal(read(report, &seq, sizeof seq), (ssize_t)sizeof seq);
        if (seq == k - 1)
            break;
        assert_int_equal(write(go, "g", 1), 1);
    }
    /* the child waits for its word after sample k: it dies with exactly k committed */
    kill_and_reap(pid);
    close(report);
    close(go);
    assert_store_holds(f, k);
}

/* The samples, once the count has stayed the same for 0.2 s (at most 10 s). */
static long settled_count(fixture *f)
{
    long n = fixture_int(f, "SELECT count(*) FROM sample");
    for (int i = 0; i < 50; i++) {
        struct timespec pause = {0, 200 * 1000 * 1000};
        nanosleep(&pause, NULL);
        long again = fixture_int(f, "SELECT count(*) FROM sample");
        if (again == n)
            break;
        n = again;
    }
    return n;
}

static void killed_mid_stream_loses_nothing_committed(void **state)
{
    fixture *f = *state;
    int report = -1;
    pid_t pid = start_writer(f->path, &report, NULL);
    long seq = -1, last = -1;
    while (last < 40) {
        assert_int_equal(read(report, &seq, sizeof seq), (ssize_t)sizeof seq);
        last = seq;
    }
    kill_and_reap(pid);
    while (read(report, &seq, sizeof seq) == (ssize_t)sizeof seq)
        last = seq;
    close(report);
    /* samples 0..last were reported after their commit; one more may have committed and
     * not been reported before the kill, but never half of one. A server finishes the
     * statement its dead client sent before it notices the client is gone: count once
     * nothing changes any more. */
    long n = settled_count(f);
    assert_true(n == last + 1 || n == last + 2);
    assert_int_equal(fixture_int(f, "SELECT count(*) FROM sample_metric"), 3 * n);
    assert_store_holds(f, n);
}

/* ---- experiments, machines ---- */

typedef struct {
    char names[4][32], builds[4][32];
    int64_t ids[4];
    size_t n;
} experiment_list;

static int collect_experiment(void *context, int64_t id, const store_experiment *e)
{
    experiment_list *list = context;
    assert_true(list->n < 4);
    snprintf(list->names[list->n], sizeof list->names[0], "%s", e->name);
    snprintf(list->builds[list->n], sizeof list->builds[0], "%s", e->tool_build);
    assert_int_equal(e->text_length, experiment_text_length);
    assert_true(e->seed == UINT64_MAX);
    list->ids[list->n++] = id;
    return 0;
}

static void experiments_are_walked_oldest_first_with_their_build(void **state)
{
    fixture *f = *state;
    store *s = open_store(f->path);
    store_experiment b = sample_experiment("b"), a = sample_experiment("a");
    b.tool_build = "9f86d081884c7d65";
    int64_t id_b = open_experiment(s, &b, false), id_a = open_experiment(s, &a, false);
    experiment_list list = {0};
    verdict_error err = {0};
    assert_int_equal(store_for_each_experiment(s, collect_experiment, &list, &err), 0);
    assert_int_equal(list.n, 2);
    assert_string_equal(list.names[0], "b");
    assert_string_equal(list.builds[0], "9f86d081884c7d65");
    assert_int_equal(list.ids[0], id_b);
    assert_string_equal(list.names[1], "a");
    assert_string_equal(list.builds[1], "");
    assert_int_equal(list.ids[1], id_a);
    store_experiment got;
    assert_int_equal(store_get_experiment(s, id_b, &got, &err), 0);
    assert_string_equal(got.tool_build, "9f86d081884c7d65");
    store_close(s);
}

static void finding_a_missing_experiment_names_those_there(void **state)
{
    fixture *f = *state;
    store *s = open_store(f->path);
    int64_t id = -1;
    char want[ERR_SIZE];
    verdict_error err = {0};
    assert_int_equal(store_find_experiment(s, "foo", &id, &err), -1);
    snprintf(want, sizeof want, "%s: no experiment \"foo\"; it holds no experiment", f->path);
    assert_string_equal(err.message, want);
    assert_true(error_is(&err, ERROR_USAGE)); /* a name the user gave, not a broken store */
    store_experiment b = sample_experiment("b"), a = sample_experiment("a");
    int64_t id_b = open_experiment(s, &b, false);
    open_experiment(s, &a, false);
    assert_int_equal(store_find_experiment(s, "b", &id, &err), 0);
    assert_int_equal(id, id_b);
    assert_int_equal(store_find_experiment(s, "foo", &id, &err), -1);
    snprintf(want, sizeof want, "%s: no experiment \"foo\"; it holds: b, a", f->path);
    assert_string_equal(err.message, want);
    store_close(s);
}

typedef struct {
    char lines[8][96];
    size_t n;
} machine_list;

static int collect_machine_fact(void *context, const char *machine, const char *key,
                                const char *value)
{
    machine_list *list = context;
    assert_true(list->n < 8);
    snprintf(list->lines[list->n++], sizeof list->lines[0], "%s %s=%s", machine, key, value);
    return 0;
}

static void machines_are_recorded_and_replaced_whole(void **state)
{
    fixture *f = *state;
    store *s = open_store(f->path);
    verdict_error err = {0};
    store_fact two[] = {{"cpu", "EPYC"}, {"cores", "16"}}, one[] = {{"cpu", "Xeon"}};
    store_fact later[] = {{"kernel", "6.1"}, {"governor", NULL}};
    assert_int_equal(store_record_machine(s, "db-2", two, 2, &err), 0);
    assert_int_equal(store_record_machine(s, "db-1", one, 1, &err), 0);
    assert_int_equal(store_record_machine(s, "db-2", later, 2, &err), 0);
    /* a key twice in one call: refused, and the machine's facts stay as they were */
    store_fact twice[] = {{"cpu", "a"}, {"cpu", "b"}};
    assert_int_equal(store_record_machine(s, "db-1", twice, 2, &err), -1);
    assert_contains(err.message, "fact cpu given twice for machine db-1");
    assert_int_equal(store_record_machine(s, "", one, 1, &err), -1);
    machine_list got = {0};
    assert_int_equal(store_for_each_machine_fact(s, collect_machine_fact, &got, &err),
                     0);
    static const char *const want[] = {"db-1 cpu=Xeon", "db-2 kernel=6.1", "db-2 governor="};
    assert_int_equal(got.n, 3);
    for (size_t i = 0; i < 3; i++)
        assert_string_equal(got.lines[i], want[i]);
    store_close(s);
    assert_int_equal(fixture_int(f, "SELECT count(*) FROM machine"), 2);
}

/* ---- extensions ---- */

typedef struct {
    long blocks[8];
    size_t n;
} extension_list;

static int collect_extension(void *context, long blocks)
{
    extension_list *list = context;
    assert_true(list->n < 8);
    list->blocks[list->n++] = blocks;
    return 0;
}

/* Extensions come back in order; one that does not grow the plan is refused naming both
 * counts; the same count again (a redone call) is accepted; other experiments see none. */
static void extensions_grow_and_come_back_in_order(void **state)
{
    fixture *f = *state;
    store *s = open_store(f->path);
    store_experiment e = sample_experiment("crc"), other = sample_experiment("other");
    int64_t id = open_experiment(s, &e, false), other_id = open_experiment(s, &other, false);
    verdict_error err = {0};
    assert_int_equal(store_add_extension(s, id, 20, &err), 0);
    assert_int_equal(store_add_extension(s, id, 40, &err), 0);
    assert_int_equal(store_add_extension(s, id, 40, &err), 0);
    assert_int_equal(store_add_extension(s, id, 30, &err), -1);
    assert_contains(err.message, "already extended to 40 blocks per point; an extension to 30");
    assert_int_equal(store_add_extension(s, id, 0, &err), -1);
    assert_int_equal(store_add_extension(s, id + other_id + 100, 50, &err), -1);
    extension_list got = {0}, none = {0};
    assert_int_equal(store_for_each_extension(s, id, collect_extension, &got, &err), 0);
    assert_int_equal(got.n, 2);
    assert_int_equal(got.blocks[0], 20);
    assert_int_equal(got.blocks[1], 40);
    assert_int_equal(store_for_each_extension(s, other_id, collect_extension, &none, &err), 0);
    assert_int_equal(none.n, 0);
    store_close(s);
}

/* ---- signatures ---- */

typedef struct {
    char lines[4][400];
    size_t n;
} signature_list;

static int collect_signature(void *context, const store_signature *g)
{
    signature_list *list = context;
    assert_true(list->n < 4);
    snprintf(list->lines[list->n++], sizeof list->lines[0], "%.8s %s %.8s %s %s [%s]",
             g->public_key, g->signature, g->text_sha256, g->plan_hash, g->tool_build,
             g->extensions);
    return 0;
}

/* One signature per key, by key; the same key signing again replaces its signature (the
 * store keeps any text as the signature: judging it is the worker's); no other experiment's,
 * and none for an experiment that is not there. */
static void signatures_are_one_per_key_and_replaced(void **state)
{
    fixture *f = *state;
    store *s = open_store(f->path);
    store_experiment e = sample_experiment("crc"), other = sample_experiment("other");
    int64_t id = open_experiment(s, &e, false), other_id = open_experiment(s, &other, false);
    char key_a[65], key_b[65];
    memset(key_a, 'a', 64), memset(key_b, 'b', 64);
    key_a[64] = key_b[64] = '\0';
    store_signature g = {.public_key = key_b, .signature = "sig-b", .text_sha256 = key_a,
                         .plan_hash = "00000000000000ff", .tool_build = "", .extensions = ""};
    verdict_error err = {0};
    assert_int_equal(store_sign_experiment(s, id, &g, &err), 0);
    g.public_key = key_a, g.signature = "sig-a1";
    assert_int_equal(store_sign_experiment(s, id, &g, &err), 0);
    g.signature = "sig-a2", g.tool_build = "0123456789abcdef", g.extensions = "20,40";
    assert_int_equal(store_sign_experiment(s, id, &g, &err), 0);
    assert_int_equal(store_sign_experiment(s, id + other_id + 100, &g, &err), -1);
    signature_list got = {0}, none = {0};
    assert_int_equal(store_for_each_signature(s, id, collect_signature, &got, &err), 0);
    assert_int_equal(got.n, 2);
    assert_string_equal(got.lines[0], "aaaaaaaa sig-a2 aaaaaaaa 00000000000000ff "
                                      "0123456789abcdef [20,40]");
    assert_string_equal(got.lines[1], "bbbbbbbb sig-b aaaaaaaa 00000000000000ff  []");
    assert_int_equal(store_for_each_signature(s, other_id, collect_signature, &none, &err), 0);
    assert_int_equal(none.n, 0);
    store_close(s);
}

/* ---- profiles ---- */

typedef struct {
    char lines[4][256];
    size_t n;
} profile_list;

static int collect_profile(void *context, const store_profile *p)
{
    profile_list *list = context;
    assert_true(list->n < 4);
    snprintf(list->lines[list->n++], sizeof list->lines[0], "%s %s %ld %s %ld %s %.3f %ld|%s|%s",
             p->point, p->variant, p->layout, p->machine, p->block, p->event, p->wall,
             p->samples, p->symbols, p->stacks);
    return 0;
}

/* A profiled run comes back as it was kept, texts exact, NaN wall as NaN; a second one of
 * the same unit and block is refused; another experiment sees none. */
static void profiles_come_back_as_kept(void **state)
{
    fixture *f = *state;
    store *s = open_store(f->path);
    store_experiment e = sample_experiment("crc"), other = sample_experiment("other");
    int64_t id = open_experiment(s, &e, false), other_id = open_experiment(s, &other, false);
    int64_t run = begin_run(s, id, NULL, 0);
    verdict_error err = {0};
    store_profile p = {.point = "default", .variant = "B", .machine = "", .layout = 1,
                       .block = 3, .event = "cpu-clock", .wall = 0.25, .samples = 12,
                       .symbols = "slow_part\tprog\t8\t8\nmain\tprog\t0\t12\n",
                       .stacks = "main;slow_part 8\nmain;steady_part 4\n"};
    assert_int_equal(store_add_profile(s, run, &p, &err), 0);
    p.block = 4;
    p.wall = NAN;
    assert_int_equal(store_add_profile(s, run, &p, &err), 0);
    assert_int_equal(store_add_profile(s, run, &p, &err), -1);
    assert_contains(err.message, "a profile for point default, variant B, layout 1, block 4");
    p.block = -1;
    assert_int_equal(store_add_profile(s, run, &p, &err), -1);
    profile_list got = {0}, none = {0};
    assert_int_equal(store_for_each_profile(s, id, collect_profile, &got, &err), 0);
    assert_int_equal(got.n, 2);
    assert_string_equal(got.lines[0], "default B 1  3 cpu-clock 0.250 12|slow_part\tprog\t8\t8\n"
                        "main\tprog\t0\t12\n|main;slow_part 8\nmain;steady_part 4\n");
    assert_contains(got.lines[1], "default B 1  4 cpu-clock nan 12|");
    assert_int_equal(store_for_each_profile(s, other_id, collect_profile, &none, &err), 0);
    assert_int_equal(none.n, 0);
    store_close(s);
}

/* ---- shared plans ---- */

typedef struct {
    char lines[8][96];
    size_t n;
} block_list;

static int collect_block(void *context, const char *point, long block, const char *state,
                         const char *machine, long attempts)
{
    block_list *list = context;
    assert_true(list->n < 8);
    snprintf(list->lines[list->n++], sizeof list->lines[0], "%s/%ld %s %s %ld", point, block,
             state, machine, attempts);
    return 0;
}

static void assert_blocks(store *s, int64_t id, const char *const *want, size_t n)
{
    block_list got = {0};
    verdict_error err = {0};
    assert_int_equal(store_for_each_block(s, id, collect_block, &got, &err), 0);
    assert_int_equal(got.n, n);
    for (size_t i = 0; i < n; i++)
        assert_string_equal(got.lines[i], want[i]);
}

static store_claim claim(store *s, int64_t id, const char *point, const char *worker,
                         double lease)
{
    store_claim c;
    verdict_error err = {0};
    if (store_claim_block(s, id, point, "m1", worker, lease, &c, &err) != 0)
        fail_msg("store_claim_block: %s", err.message);
    return c;
}

static int64_t planned_experiment(store *s)
{
    store_experiment e = sample_experiment("crc");
    int64_t id = open_experiment(s, &e, false);
    const store_block plan[] = {{"p1", 0}, {"p1", 1}, {"p2", 0}};
    const store_block more[] = {{"p1", 0}, {"p1", 1}, {"p2", 0}, {"p2", 1}};
    verdict_error err = {0};
    assert_int_equal(store_plan_blocks(s, id, plan, 3, &err), 0);
    /* every worker plans: blocks already there stay as they are */
    assert_int_equal(store_plan_blocks(s, id, more, 4, &err), 0);
    return id;
}

static void blocks_are_claimed_in_plan_order_and_finished(void **state)
{
    fixture *f = *state;
    store *s = open_store(f->path);
    int64_t id = planned_experiment(s);
    int64_t run = begin_run(s, id, NULL, 0);
    verdict_error err = {0};
    store_claim c = claim(s, id, NULL, "w1", 60);
    assert_true(c.claimed);
    assert_string_equal(c.point, "p1");
    assert_int_equal(c.block, 0);
    assert_int_equal(c.attempt, 1);
    assert_int_equal(c.open, 3);
    assert_int_equal(c.in_flight, 1);
    assert_int_equal(c.done, 0);
    store_sample samples[2] = {full_sample(0, 0), full_sample(0, 1)};
    samples[0].point = samples[1].point = "p1";
    assert_int_equal(store_finish_block(s, c.claim, "w1", run, samples, 2, &err), 0);
    /* at one point only; renewed; given back, and taken again as a second attempt */
    store_claim at_p2 = claim(s, id, "p2", "w1", 60);
    assert_string_equal(at_p2.point, "p2");
    assert_int_equal(at_p2.block, 0);
    assert_int_equal(store_renew_claim(s, at_p2.claim, "w1", 60, &err), 0);
    assert_int_equal(store_renew_claim(s, at_p2.claim, "w2", 60, &err), -1);
    assert_true(error_is(&err, ERROR_CLAIM_LOST));
    assert_int_equal(store_release_block(s, at_p2.claim, "w1", &err), 0);
    store_claim again = claim(s, id, "p2", "w2", 60);
    assert_int_equal(again.claim, at_p2.claim);
    assert_int_equal(again.attempt, 2);
    store_claim next = claim(s, id, NULL, "w1", 60);
    assert_string_equal(next.point, "p1");
    assert_int_equal(next.block, 1);
    store_claim last = claim(s, id, NULL, "w1", 60);
    assert_string_equal(last.point, "p2");
    assert_int_equal(last.block, 1);
    store_claim none = claim(s, id, NULL, "w3", 60);
    assert_false(none.claimed);
    assert_int_equal(none.open, 0);
    assert_int_equal(none.in_flight, 3);
    assert_int_equal(none.done, 1);
    static const char *const want[] = {"p1/0 done m1 1", "p1/1 claimed m1 1",
                                       "p2/0 claimed m1 2", "p2/1 claimed m1 1"};
    assert_blocks(s, id, want, 4);
    collection *got = read_samples(s, id);
    assert_int_equal(got->n, 2);
    assert_same_sample(&got->items[0], &samples[0]);
    assert_same_sample(&got->items[1], &samples[1]);
    free(got);
    store_close(s);
}

static void a_lease_that_runs_out_is_retaken_and_its_finish_lost(void **state)
{
    fixture *f = *state;
    store *s = open_store(f->path);
    int64_t id = planned_experiment(s);
    int64_t run = begin_run(s, id, NULL, 0);
    store_claim first = claim(s, id, NULL, "w1", 0.5);
    usleep(800 * 1000); /* w1 does not renew: its lease runs out */
    store_claim retaken = claim(s, id, NULL, "w2", 60);
    assert_int_equal(retaken.claim, first.claim);
    assert_int_equal(retaken.attempt, 2);
    store_sample x = full_sample(0, 0);
    x.point = "p1";
    verdict_error err = {0};
    assert_int_equal(store_finish_block(s, first.claim, "w1", run, &x, 1, &err), -1);
    assert_true(error_is(&err, ERROR_CLAIM_LOST));
    assert_contains(err.message, "is no longer this worker's");
    assert_int_equal(store_renew_claim(s, first.claim, "w1", 60, &err), -1);
    assert_true(error_is(&err, ERROR_CLAIM_LOST));
    assert_int_equal(store_release_block(s, first.claim, "w1", &err), -1);
    assert_true(error_is(&err, ERROR_CLAIM_LOST));
    assert_int_equal(fixture_int(f, "SELECT count(*) FROM sample"), 0);
    assert_int_equal(store_finish_block(s, retaken.claim, "w2", run, &x, 1, &err), 0);
    assert_int_equal(store_finish_block(s, retaken.claim, "w2", run, &x, 1, &err), -1);
    assert_true(error_is(&err, ERROR_CLAIM_LOST));
    store_close(s);
    assert_int_equal(fixture_int(f, "SELECT count(*) FROM sample"), 1);
}

static void a_block_is_finished_whole_or_not_at_all(void **state)
{
    fixture *f = *state;
    store *s = open_store(f->path);
    int64_t id = planned_experiment(s);
    int64_t run = begin_run(s, id, NULL, 0);
    store_sample stored = full_sample(0, 0); /* variant A of block p1/0, already there */
    stored.point = "p1";
    add_sample(s, run, &stored);
    /* variant B goes in first, then A is a second sample of its block: all is rolled back */
    store_sample batch[2] = {full_sample(0, 1), full_sample(0, 2)};
    batch[0].point = batch[1].point = "p1";
    store_claim c = claim(s, id, NULL, "w1", 60);
    verdict_error err = {0};
    assert_int_equal(store_finish_block(s, c.claim, "w1", run, batch, 2, &err), -1);
    assert_contains(err.message, "already stored");
    assert_int_equal(fixture_int(f, "SELECT count(*) FROM sample"), 1);
    assert_int_equal(fixture_int(f, "SELECT count(*) FROM sample_metric"), 3);
    static const char *const still[] = {"p1/0 claimed m1 1", "p1/1 open  0", "p2/0 open  0",
                                        "p2/1 open  0"};
    assert_blocks(s, id, still, 4);
    /* the block is still the worker's: the batch without the bad sample finishes it */
    assert_int_equal(store_finish_block(s, c.claim, "w1", run, batch, 1, &err), 0);
    store_close(s);
    assert_int_equal(fixture_int(f, "SELECT count(*) FROM sample"), 2);
}

size_t store_neutral_tests(struct CMUnitTest *out, size_t capacity,
                           CMFixtureFunction setup, CMFixtureFunction teardown)
{
#define NEUTRAL(test) {#test, test, setup, teardown, NULL}
    const struct CMUnitTest tests[] = {
        NEUTRAL(experiment_round_trips_with_uint64_hashes),
        NEUTRAL(samples_round_trip_every_field),
        NEUTRAL(reading_stops_when_the_callback_says_so),
        NEUTRAL(facts_of_the_latest_run_come_back_in_order),
        NEUTRAL(facts_added_after_begin_follow_the_begin_facts),
        NEUTRAL(a_fact_given_twice_is_refused_and_nothing_of_the_call_is_kept),
        NEUTRAL(facts_for_a_missing_run_are_refused),
        NEUTRAL(runs_record_start_end_status_and_version),
        NEUTRAL(latest_experiment_is_the_one_run_last),
        NEUTRAL(a_block_is_never_stored_twice),
        NEUTRAL(samples_are_committed_in_batches_whole_or_not_at_all),
        NEUTRAL(layout_and_machine_round_trip),
        NEUTRAL(a_block_is_one_per_layout_and_machine),
        NEUTRAL(same_plan_reopens_and_new_text_is_kept),
        NEUTRAL(a_changed_plan_is_refused_as_plan_changed),
        NEUTRAL(each_new_text_of_the_same_plan_keeps_the_one_before),
        NEUTRAL(killed_after_sample_k_keeps_exactly_k),
        NEUTRAL(killed_mid_stream_loses_nothing_committed),
        NEUTRAL(experiments_are_walked_oldest_first_with_their_build),
        NEUTRAL(finding_a_missing_experiment_names_those_there),
        NEUTRAL(machines_are_recorded_and_replaced_whole),
        NEUTRAL(extensions_grow_and_come_back_in_order),
        NEUTRAL(signatures_are_one_per_key_and_replaced),
        NEUTRAL(profiles_come_back_as_kept),
        NEUTRAL(blocks_are_claimed_in_plan_order_and_finished),
        NEUTRAL(a_lease_that_runs_out_is_retaken_and_its_finish_lost),
        NEUTRAL(a_block_is_finished_whole_or_not_at_all),
    };
#undef NEUTRAL
    size_t n = sizeof tests / sizeof tests[0];
    for (size_t i = 0; i < n && i < capacity; i++)
        out[i] = tests[i];
    return n < capacity ? n : capacity;
}

/* Tests of a shared plan (machines: share, src/lab/engine_shared.c) against the SQLite
 * store's claims: every block once, a stopped worker's block given back, a lost claim. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "common/error.h"

#include "engine_fake.h"

/* A shared plan of 2 variants x 2 points x 3 blocks, in a fresh store. */
static void make_shared(experiment *e, fake_script *script, test_store *s)
{
    make_experiment(e, 2, "n: [1, 2]", "repetitions: 3\nwarmup: 1\nmachines: share", script);
    open_store(":memory:", e, s);
}

/* lab_run as one worker of the fleet. */
static int run_worker(const experiment *e, const test_store *s, const char *machine,
                      const char *worker, double lease_seconds, lab_outcome *out,
                      verdict_error *err)
{
    volatile sig_atomic_t stop = 0;
    lab_config c = test_config(e, s, &stop);
    c.machine = machine;
    c.worker = worker;
    c.lease_seconds = lease_seconds;
    int rc = lab_run(&c, out, err);
    if (rc != 0)
        print_message("lab_run: %s\n", err->message);
    return rc;
}

/* The shared plan's blocks as the store holds them. */
typedef struct {
    size_t n, done, open, attempts_above_one;
    long most_attempts;
} block_states;

static int count_block(void *context, const char *point, long block, const char *state,
                       const char *machine, long attempts)
{
    (void)point, (void)block, (void)machine;
    block_states *b = context;
    b->n++;
    b->done += strcmp(state, "done") == 0;
    b->open += strcmp(state, "open") == 0;
    b->attempts_above_one += attempts > 1;
    if (attempts > b->most_attempts)
        b->most_attempts = attempts;
    return 0;
}

static block_states read_blocks(const test_store *s)
{
    block_states b = {0, 0, 0, 0, 0};
    verdict_error err = {0};
    assert_int_equal(store_for_each_block(s->db, s->experiment_id, count_block, &b, &err), 0);
    return b;
}

/* The machine's samples are numbered 0, 1, ... without a gap. */
static void assert_seq_dense(const kept_samples *k, const char *machine)
{
    long next = 0;
    for (size_t i = 0; i < k->n; i++)
        if (strcmp(k->items[i].machine, machine) == 0)
            assert_int_equal(k->items[i].seq, next++);
}

/* One worker takes every block: each (point, variant, block) stored once, by its machine,
 * warm-ups not kept, every block done at its first claim. */
static void test_one_worker_takes_every_block(void **unused)
{
    (void)unused;
    experiment e;
    fake_script script;
    test_store s;
    make_shared(&e, &script, &s);
    lab_outcome out;
    verdict_error err;
    assert_int_equal(run_worker(&e, &s, "m1", "w1", 60, &out, &err), 0);
    assert_int_equal(out.samples_taken, 12);
    assert_int_equal(out.complete_blocks, 6);
    assert_int_equal(out.blocks_retaken + out.blocks_lost, 0);
    assert_int_equal(script.begins, 2);
    assert_int_equal(script.ends, 2);
    assert_int_equal(script.warmups, 4);
    kept_samples k = read_samples(&s);
    assert_plan_complete(&e, &k, 3);
    for (size_t i = 0; i < k.n; i++)
        assert_string_equal(k.items[i].machine, "m1");
    assert_seq_dense(&k, "m1");
    block_states b = read_blocks(&s);
    assert_int_equal(b.n, 6);
    assert_int_equal(b.done, 6);
    assert_int_equal(b.attempts_above_one, 0);
    close_all(&e, &s, &k);
}

/* A worker stopped in the middle of a block keeps the blocks it finished and gives that
 * one back: another worker (another machine) takes it and the rest. */
static void test_stopped_worker_gives_its_block_back(void **unused)
{
    (void)unused;
    experiment e;
    fake_script script;
    test_store s;
    make_shared(&e, &script, &s);
    script.stop_after = 3; /* block 0 done, then the first run of block 1 */
    lab_outcome out;
    verdict_error err;
    assert_int_equal(run_worker(&e, &s, "m1", "w1", 60, &out, &err), -1);
    assert_int_equal(err.kind, ERROR_INTERRUPTED);
    assert_int_equal(out.samples_taken, 2);
    assert_int_equal(script.ends, script.begins);
    block_states b = read_blocks(&s);
    assert_int_equal(b.done, 1);
    assert_int_equal(b.open, 5); /* the stopped block is open again at once */

    script.stop_after = 0;
    assert_int_equal(run_worker(&e, &s, "m2", "w2", 60, &out, &err), 0);
    assert_int_equal(out.samples_taken, 10);
    assert_int_equal(out.blocks_retaken, 1);
    kept_samples k = read_samples(&s);
    assert_plan_complete(&e, &k, 3);
    assert_seq_dense(&k, "m1");
    assert_seq_dense(&k, "m2");
    b = read_blocks(&s);
    assert_int_equal(b.done, 6);
    close_all(&e, &s, &k);
}

/* Another worker takes the block over while this one stalls past its lease. */
typedef struct {
    const test_store *s;
    size_t runs;
    size_t steal_at;             /* the measured run before which the block is taken */
    long stolen_block;
} thief;

static void pause_seconds(double seconds)
{
    struct timespec ts = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    nanosleep(&ts, NULL);
}

/* Stalls past the worker's lease, claims its block as another worker, and gives it back
 * at once (open again, for whoever claims next). */
static void steal_block(void *context, const target_unit *u)
{
    (void)u;
    thief *t = context;
    if (++t->runs != t->steal_at)
        return;
    pause_seconds(0.6);
    store_claim claim;
    verdict_error err = {0};
    assert_int_equal(store_claim_block(t->s->db, t->s->experiment_id, NULL, "m2", "thief", 60,
                                       &claim, &err), 0);
    assert_true(claim.claimed);
    t->stolen_block = claim.block;
    assert_int_equal(store_release_block(t->s->db, claim.claim, "thief", &err), 0);
}

/* The worker's lease runs out in the middle of block 1 and another takes the block: its runs
 * here are thrown away (their seq given back), the loss noted, and the block, open again,
 * measured in full when this worker claims it next. */
static void test_lost_claim_measured_again(void **unused)
{
    (void)unused;
    experiment e;
    fake_script script;
    test_store s;
    make_shared(&e, &script, &s);
    thief t = {.s = &s, .steal_at = 4, .stolen_block = -1};
    script.before_run = steal_block;
    script.before_run_context = &t;
    lab_outcome out;
    verdict_error err;
    assert_int_equal(run_worker(&e, &s, "m1", "w1", 0.2, &out, &err), 0);
    assert_int_equal(t.stolen_block, 1);
    assert_int_equal(out.blocks_lost, 1);
    assert_int_equal(out.blocks_retaken, 1);
    assert_int_equal(out.samples_taken, 12);
    assert_int_equal(script.measured, 12 + 2); /* both runs of the lost block again */
    kept_samples k = read_samples(&s);
    assert_plan_complete(&e, &k, 3);
    assert_seq_dense(&k, "m1");
    block_states b = read_blocks(&s);
    assert_int_equal(b.done, 6);
    assert_int_equal(b.most_attempts, 3); /* this worker, the thief, this worker again */
    assert_true(engine_warning_stored(&s, "block-lost"));
    close_all(&e, &s, &k);
}

/* A run that fails (on_failure: abort) ends the worker and gives its block back. */
static void test_failure_gives_the_block_back(void **unused)
{
    (void)unused;
    experiment e;
    fake_script script;
    test_store s;
    make_shared(&e, &script, &s);
    script.fail_variant = 1;
    script.fail_tries = -1;
    lab_outcome out;
    verdict_error err;
    assert_int_equal(run_worker(&e, &s, "m1", "w1", 60, &out, &err), -1);
    assert_int_equal(err.kind, ERROR_COMMAND_FAILED);
    assert_int_equal(out.samples_taken, 0);
    assert_int_equal(script.ends, script.begins);
    block_states b = read_blocks(&s);
    assert_int_equal(b.open, 6);
    kept_samples k = read_samples(&s);
    assert_int_equal(k.n, 0);
    close_all(&e, &s, &k);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_worker_takes_every_block),
        cmocka_unit_test(test_stopped_worker_gives_its_block_back),
        cmocka_unit_test(test_lost_claim_measured_again),
        cmocka_unit_test(test_failure_gives_the_block_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

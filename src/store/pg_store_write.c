/* The PostgreSQL back end's writes: experiments (plan checked, text history), runs and their
 * facts, samples (one statement each, so one transaction), machines; lost commits settled. */
#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"

#include "store/pg_store.h"

/* The server's clock, in UTC with milliseconds: the SQLite store's format for every time. */
#define PG_NOW "to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')"

static const char sql_insert_experiment[] =
    "INSERT INTO experiment (name, text, text_hash, plan_hash, seed, tool_version, tool_build,"
    " created) VALUES ($1, $2, $3, $4, $5, $6, $7, " PG_NOW ")"
    " ON CONFLICT (name) DO NOTHING RETURNING id";
/* the text itself compared too: a text changed in the store under its old hash is replaced */
static const char sql_find_experiment[] =
    "SELECT id, plan_hash, text_hash, text = $2 FROM experiment WHERE name = $1 FOR UPDATE";
/* a worker's look: nothing locked, so a role that may only read experiments can join one */
static const char sql_look_experiment[] =
    "SELECT id FROM experiment WHERE name = $1 AND plan_hash = $2 AND text_hash = $3"
    " AND text = $4";
static const char sql_archive_text[] =
    "INSERT INTO experiment_text_history (experiment_id, text, text_hash, replaced)"
    " SELECT id, text, text_hash, " PG_NOW " FROM experiment WHERE id = $1::bigint";
static const char sql_update_text[] =
    "UPDATE experiment SET text = $2, text_hash = $3 WHERE id = $1::bigint";
static const char sql_insert_run[] =
    "INSERT INTO run (experiment_id, tool_version, started, status)"
    " VALUES ($1::bigint, $2, " PG_NOW ", 'running') RETURNING id";
static const char sql_lock_run[] = "SELECT id FROM run WHERE id = $1::bigint FOR UPDATE";
static const char sql_next_fact_position[] =
    "SELECT coalesce(max(position) + 1, 0) FROM run_fact WHERE run_id = $1::bigint";
static const char sql_insert_fact[] =
    "INSERT INTO run_fact (run_id, position, key, value)"
    " VALUES ($1::bigint, $2::integer, $3, $4)";
static const char sql_end_run[] =
    "UPDATE run SET status = $2, ended = " PG_NOW " WHERE id = $1::bigint";
/* the sample and its metrics in one statement, so in one transaction of its own; the
 * experiment comes from the run, so a sample cannot land in the wrong experiment */
static const char sql_insert_sample[] =
    "WITH new_sample AS ("
    " INSERT INTO sample (experiment_id, run_id, point, variant, block, seq, started, wall,"
    " user_seconds, sys_seconds, maxrss_kib, voluntary_switches, involuntary_switches,"
    " exit_code, timed_out, tainted, taint_reason, steal, other_busy, load1, layout, machine)"
    " SELECT experiment_id, id, $2::text, $3::text, $4::bigint, $5::bigint, $6::float8,"
    " $7::float8, $8::float8, $9::float8, $10::float8, $11::bigint, $12::bigint, $13::integer,"
    " $14::integer, $15::integer, $16::text, $17::float8, $18::float8, $19::float8,"
    " $20::bigint, $21::text FROM run WHERE id = $1::bigint RETURNING id),"
    " new_metrics AS ("
    " INSERT INTO sample_metric (sample_id, position, name, value)"
    " SELECT new_sample.id, m.position - 1, m.name, m.value FROM new_sample,"
    " unnest($22::text[], $23::float8[]) WITH ORDINALITY AS m(name, value, position))"
    " SELECT count(*) FROM new_sample";
/* after a reconnect: was the sample this call sent committed before the connection died? */
static const char sql_sample_stored[] =
    "SELECT count(*) FROM sample WHERE run_id = $1::bigint AND point = $2 AND variant = $3"
    " AND block = $4::bigint AND seq = $5::bigint AND layout = $6::bigint AND machine = $7";
static const char sql_upsert_machine[] =
    "INSERT INTO machine (name, recorded) VALUES ($1, " PG_NOW ")"
    " ON CONFLICT (name) DO UPDATE SET recorded = excluded.recorded";
static const char sql_delete_machine_facts[] = "DELETE FROM machine_fact WHERE machine = $1";
static const char sql_insert_machine_fact[] =
    "INSERT INTO machine_fact (machine, position, key, value) VALUES ($1, $2::integer, $3, $4)";

/* ---- experiments ---- */

typedef struct {
    const store_experiment *e;
    char *text;            /* e's text, NUL-terminated for libpq */
    int64_t id;
    bool existing;
} open_experiment_args;

/* Runs a statement that returns the experiment's id or no row: *found says which. */
static int query_id(pg_store *s, open_experiment_args *a, const char *sql, int n_params,
                    const char *const *params, bool *found, const char *doing,
                    verdict_error *err)
{
    PGresult *res = pg_store_exec(s, sql, n_params, params, PGRES_TUPLES_OK, doing, err);
    if (res == NULL)
        return -1;
    *found = PQntuples(res) == 1;
    if (*found)
        a->id = pg_store_get_int(res, 0, 0);
    PQclear(res);
    return 0;
}

static int insert_experiment(pg_store *s, open_experiment_args *a, bool *inserted,
                             verdict_error *err)
{
    char text_hash[17], plan_hash[17], seed[24];
    store_format_hash(a->e->text_hash, text_hash);
    store_format_hash(a->e->plan_hash, plan_hash);
    snprintf(seed, sizeof seed, "%" PRIu64, a->e->seed);
    const char *params[] = {a->e->name, a->text, text_hash, plan_hash, seed, s->tool_version,
                            a->e->tool_build != NULL ? a->e->tool_build : ""};
    return query_id(s, a, sql_insert_experiment, 7, params, inserted,
                    "recording the experiment", err);
}

/* Same plan, new text (a comment edited, say): keep the old text in the history table. */
static int replace_text(pg_store *s, open_experiment_args *a, verdict_error *err)
{
    const char *doing = "recording the experiment's new text";
    pg_store_number id;
    char text_hash[17];
    store_format_hash(a->e->text_hash, text_hash);
    const char *params[] = {pg_store_int(&id, a->id), a->text, text_hash};
    if (pg_store_command(s, sql_archive_text, 1, params, doing, err) != 0)
        return -1;
    return pg_store_command(s, sql_update_text, 3, params, doing, err);
}

static int check_existing(pg_store *s, open_experiment_args *a, verdict_error *err)
{
    const char *params[] = {a->e->name, a->text};
    PGresult *res = pg_store_exec(s, sql_find_experiment, 2, params, PGRES_TUPLES_OK,
                                  "looking the experiment up", err);
    if (res == NULL)
        return -1;
    uint64_t plan_hash = 0, text_hash = 0;
    bool found = PQntuples(res) == 1;
    bool same_text = found && strcmp(PQgetvalue(res, 0, 3), "t") == 0;
    bool hashes_ok = found && store_parse_hash(PQgetvalue(res, 0, 1), &plan_hash) &&
                     store_parse_hash(PQgetvalue(res, 0, 2), &text_hash);
    a->id = found ? pg_store_get_int(res, 0, 0) : 0;
    PQclear(res);
    if (!hashes_ok)
        return error_set(err, ERROR_STORE, "%s: experiment %s has a damaged hash", s->label,
                         a->e->name);
    if (plan_hash != a->e->plan_hash)
        return store_fail_plan_changed(s->label, a->e->name, err);
    return text_hash != a->e->text_hash || !same_text ? replace_text(s, a, err) : 0;
}

/* The experiment stored already as it is here (a worker joining it): found without writing
 * or locking anything, so the store's worker role needs no right to change experiments. */
static int look_up_unchanged(pg_store *s, open_experiment_args *a, bool *found,
                             verdict_error *err)
{
    char text_hash[17], plan_hash[17];
    store_format_hash(a->e->text_hash, text_hash);
    store_format_hash(a->e->plan_hash, plan_hash);
    const char *params[] = {a->e->name, plan_hash, text_hash, a->text};
    return query_id(s, a, sql_look_experiment, 4, params, found, "looking the experiment up",
                    err);
}

/* Insert first: of two workers creating one experiment at once, one inserts and the other
 * waits for it, then finds the row (ON CONFLICT DO NOTHING) and checks its plan. */
static int open_experiment_body(pg_store *s, void *args, verdict_error *err)
{
    open_experiment_args *a = args;
    bool inserted = false, unchanged = false;
    if (look_up_unchanged(s, a, &unchanged, err) != 0)
        return -1;
    a->existing = unchanged;
    if (unchanged)
        return 0;
    if (insert_experiment(s, a, &inserted, err) != 0)
        return -1;
    a->existing = !inserted;
    return inserted ? 0 : check_existing(s, a, err);
}

int pg_store_open_experiment(store *base, const store_experiment *e, int64_t *experiment_id,
                             bool *existing, verdict_error *err)
{
    pg_store *s = pg_store_of(base);
    size_t length = e->text != NULL ? e->text_length : 0;
    if (e->text != NULL && memchr(e->text, '\0', length) != NULL)
        return error_set(err, ERROR_STORE, "%s: experiment %s's text holds a NUL byte, which "
                         "PostgreSQL's text cannot keep", s->label, e->name);
    open_experiment_args a = {.e = e, .text = strndup(e->text != NULL ? e->text : "", length)};
    /* runs started through this handle record the verdict that ran them */
    if (a.text == NULL ||
        !pg_store_keep(&s->tool_version, e->tool_version != NULL ? e->tool_version : "unknown")) {
        free(a.text);
        return error_set(err, ERROR_NO_MEMORY, "%s: out of memory", s->label);
    }
    int status = pg_store_call(s, "BEGIN", open_experiment_body, &a, "opening the experiment",
                               err);
    free(a.text);
    if (status == 0) {
        *experiment_id = a.id;
        *existing = a.existing;
    }
    return status;
}

/* ---- runs and facts ---- */

typedef struct {
    int64_t experiment_id, run_id;
    const store_fact *facts;
    size_t n_facts;
} run_args;

/* Facts take positions first, first + 1, ... in the run. */
static int insert_facts(pg_store *s, run_args *a, long long first, verdict_error *err)
{
    for (size_t i = 0; i < a->n_facts; i++) {
        pg_store_number run, position;
        const char *key = a->facts[i].key != NULL ? a->facts[i].key : "";
        const char *params[] = {pg_store_int(&run, a->run_id),
                                pg_store_int(&position, first + (long long)i), key,
                                a->facts[i].value != NULL ? a->facts[i].value : ""};
        if (pg_store_command(s, sql_insert_fact, 4, params, "recording the run's facts", err) == 0)
            continue;
        if (pg_store_failed_with(s, "23505", NULL))
            return store_fail_fact_twice(s->label, key, err);
        if (pg_store_failed_with(s, "23503", NULL))
            return error_set(err, ERROR_STORE, "%s: no run %" PRId64 " to add facts to", s->label,
                             a->run_id);
        return -1;
    }
    return 0;
}

static int begin_run_body(pg_store *s, void *args, verdict_error *err)
{
    run_args *a = args;
    pg_store_number experiment;
    const char *params[] = {pg_store_int(&experiment, a->experiment_id),
                            s->tool_version != NULL ? s->tool_version : "unknown"};
    PGresult *res = pg_store_exec(s, sql_insert_run, 2, params, PGRES_TUPLES_OK,
                                  "recording the run", err);
    if (res == NULL)
        return pg_store_fail_experiment(s, a->experiment_id, err);
    a->run_id = pg_store_get_int(res, 0, 0);
    PQclear(res);
    return insert_facts(s, a, 0, err);
}

int pg_store_begin_run(store *base, int64_t experiment_id, const store_fact *facts,
                       size_t n_facts, int64_t *run_id, verdict_error *err)
{
    run_args a = {.experiment_id = experiment_id, .facts = facts, .n_facts = n_facts};
    int status = pg_store_call(pg_store_of(base), "BEGIN", begin_run_body, &a,
                               "recording the run", err);
    if (status == 0)
        *run_id = a.run_id;
    return status;
}

/* The run's row is locked first: two processes adding facts to one run take turns. */
static int add_facts_body(pg_store *s, void *args, verdict_error *err)
{
    run_args *a = args;
    const char *doing = "recording the run's facts";
    pg_store_number run;
    const char *params[] = {pg_store_int(&run, a->run_id)};
    PGresult *res = pg_store_exec(s, sql_lock_run, 1, params, PGRES_TUPLES_OK, doing, err);
    if (res == NULL)
        return -1;
    int rows = PQntuples(res);
    PQclear(res);
    if (rows != 1)
        return error_set(err, ERROR_STORE, "%s: no run %" PRId64 " to add facts to", s->label,
                         a->run_id);
    res = pg_store_exec(s, sql_next_fact_position, 1, params, PGRES_TUPLES_OK, doing, err);
    if (res == NULL)
        return -1;
    long long first = pg_store_get_int(res, 0, 0);
    PQclear(res);
    return insert_facts(s, a, first, err);
}

int pg_store_add_run_facts(store *base, int64_t run_id, const store_fact *facts,
                           size_t n_facts, verdict_error *err)
{
    run_args a = {.run_id = run_id, .facts = facts, .n_facts = n_facts};
    return pg_store_call(pg_store_of(base), "BEGIN", add_facts_body, &a,
                         "recording the run's facts", err);
}

typedef struct {
    int64_t run_id;
    const char *status;
} end_run_args;

static int end_run_body(pg_store *s, void *args, verdict_error *err)
{
    end_run_args *a = args;
    pg_store_number run;
    const char *params[] = {pg_store_int(&run, a->run_id), a->status};
    PGresult *res = pg_store_exec(s, sql_end_run, 2, params, PGRES_COMMAND_OK,
                                  "finishing the run", err);
    if (res == NULL)
        return -1;
    bool found = strcmp(PQcmdTuples(res), "1") == 0;
    PQclear(res);
    return found ? 0 : error_set(err, ERROR_STORE, "%s: no run %" PRId64 " to finish", s->label,
                                 a->run_id);
}

int pg_store_end_run(store *base, int64_t run_id, const char *status, verdict_error *err)
{
    end_run_args a = {run_id, status};
    return pg_store_call(pg_store_of(base), NULL, end_run_body, &a, "finishing the run", err);
}

/* ---- samples ---- */

/* The first metric name given twice in the sample, for the message. */
static const char *repeated_metric(const store_sample *x)
{
    for (size_t i = 0; i < x->n_metrics; i++)
        for (size_t j = 0; j < i; j++)
            if (strcmp(x->metric_names[i], x->metric_names[j]) == 0)
                return x->metric_names[i];
    return "?";
}

/* After a reconnect the sample may have been committed just before the connection died:
 * 1 when a sample of this run with this key and seq is there, 0 when not, -1 on failure. */
static int already_stored(pg_store *s, int64_t run_id, const store_sample *x, verdict_error *err)
{
    pg_store_number run, block, seq, layout;
    const char *params[] = {pg_store_int(&run, run_id), x->point, x->variant,
                            pg_store_int(&block, x->block), pg_store_int(&seq, x->seq),
                            pg_store_int(&layout, x->layout),
                            x->machine != NULL ? x->machine : ""};
    PGresult *res = pg_store_exec(s, sql_sample_stored, 7, params, PGRES_TUPLES_OK,
                                  "checking a sample sent before the connection was lost", err);
    if (res == NULL)
        return -1;
    int found = pg_store_get_int(res, 0, 0) > 0;
    PQclear(res);
    return found;
}

static int insert_sample_row(pg_store *s, int64_t run_id, const store_sample *x,
                             const char *names, const char *values, verdict_error *err)
{
    pg_store_number n[14];
    const char *params[] = {
        pg_store_int(&n[0], run_id), x->point, x->variant, pg_store_int(&n[1], x->block),
        pg_store_int(&n[2], x->seq), pg_store_double(&n[3], x->started),
        pg_store_double(&n[4], x->wall), pg_store_double(&n[5], x->user),
        pg_store_double(&n[6], x->sys), pg_store_double(&n[7], x->maxrss_kib),
        pg_store_int(&n[8], x->voluntary_switches), pg_store_int(&n[9], x->involuntary_switches),
        pg_store_int(&n[10], x->exit_code), x->timed_out ? "1" : "0", x->tainted ? "1" : "0",
        x->taint_reason, pg_store_double(&n[11], x->steal),
        pg_store_double(&n[12], x->other_busy), pg_store_double(&n[13], x->load1),
        NULL, x->machine != NULL ? x->machine : "", names, values};
    pg_store_number layout;
    params[19] = pg_store_int(&layout, x->layout);
    PGresult *res = pg_store_exec(s, sql_insert_sample, 23, params, PGRES_TUPLES_OK,
                                  "adding a sample", err);
    if (res == NULL) {
        if (pg_store_failed_with(s, "23505", "sample_one_per_block"))
            return store_fail_block_stored(s->label, x, err);
        if (pg_store_failed_with(s, "23505", "sample_metric_name"))
            return store_fail_metric_twice(s->label, repeated_metric(x), err);
        return -1;
    }
    bool inserted = pg_store_get_int(res, 0, 0) == 1;
    PQclear(res);
    return inserted ? 0 : error_set(err, ERROR_STORE, "%s: no run %" PRId64 " to add a sample to",
                                    s->label, run_id);
}

int pg_store_insert_sample(pg_store *s, int64_t run_id, const store_sample *x, verdict_error *err)
{
    char *names = pg_store_text_array((const char *const *)x->metric_names, x->n_metrics);
    char *values = pg_store_double_array(x->metric_values, x->n_metrics);
    int status = names != NULL && values != NULL
                     ? insert_sample_row(s, run_id, x, names, values, err)
                     : error_set(err, ERROR_NO_MEMORY, "%s: out of memory", s->label);
    free(names);
    free(values);
    return status;
}

typedef struct {
    int64_t run_id;
    const store_sample *x;
    size_t n;
} sample_args;

static int add_samples_body(pg_store *s, void *args, verdict_error *err)
{
    sample_args *a = args;
    if (s->retrying) {
        /* one transaction: its first sample stored means all of them were */
        int stored = already_stored(s, a->run_id, &a->x[0], err);
        if (stored != 0)
            return stored > 0 ? 0 : -1; /* committed before the loss: never stored twice */
    }
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < a->n; i++)
        rc = pg_store_insert_sample(s, a->run_id, &a->x[i], err);
    return rc;
}

int pg_store_add_samples(store *base, int64_t run_id, const store_sample *samples, size_t n,
                         verdict_error *err)
{
    assert(n > 0 && samples != NULL); /* the dispatcher calls with samples only */
    sample_args a = {run_id, samples, n};
    /* one sample is one statement; several are one transaction */
    return pg_store_call(pg_store_of(base), n == 1 ? NULL : "BEGIN", add_samples_body, &a,
                         n == 1 ? "adding a sample" : "adding samples", err);
}

/* ---- machines ---- */

typedef struct {
    const char *machine;
    const store_fact *facts;
    size_t n_facts;
} machine_args;

static int record_machine_body(pg_store *s, void *args, verdict_error *err)
{
    machine_args *a = args;
    const char *doing = "recording the machine";
    const char *name[] = {a->machine};
    if (pg_store_command(s, sql_upsert_machine, 1, name, doing, err) != 0 ||
        pg_store_command(s, sql_delete_machine_facts, 1, name, doing, err) != 0)
        return -1;
    for (size_t i = 0; i < a->n_facts; i++) {
        pg_store_number position;
        const char *key = a->facts[i].key != NULL ? a->facts[i].key : "";
        const char *params[] = {a->machine, pg_store_int(&position, (long long)i), key,
                                a->facts[i].value != NULL ? a->facts[i].value : ""};
        if (pg_store_command(s, sql_insert_machine_fact, 4, params, doing, err) == 0)
            continue;
        return pg_store_failed_with(s, "23505", NULL)
                   ? store_fail_machine_fact_twice(s->label, key, a->machine, err)
                   : -1;
    }
    return 0;
}

int pg_store_record_machine(store *base, const char *machine, const store_fact *facts,
                            size_t n_facts, verdict_error *err)
{
    machine_args a = {machine, facts, n_facts};
    return pg_store_call(pg_store_of(base), "BEGIN", record_machine_body, &a,
                         "recording the machine", err);
}

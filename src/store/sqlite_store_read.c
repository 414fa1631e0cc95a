/* The SQLite back end's reads: samples in the order they were measured with their metrics
 * in the order written, experiments, the latest one, run facts, machines, blocks. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"

#include "store/sqlite_store_internal.h"

/* One sample's metrics: names copied out of SQLite (its text dies at the next step). */
typedef struct {
    char **names;
    double *values;
    size_t n, capacity;
} metric_list;

static void metric_list_clear(metric_list *list)
{
    for (size_t i = 0; i < list->n; i++)
        free(list->names[i]);
    list->n = 0;
}

static void metric_list_free(metric_list *list)
{
    metric_list_clear(list);
    free(list->names);
    free(list->values);
}

static int metric_list_push(metric_list *list, const char *name, double value)
{
    if (list->n == list->capacity) {
        size_t capacity = list->capacity == 0 ? 8 : list->capacity * 2;
        char **names = realloc(list->names, capacity * sizeof *names);
        if (names == NULL)
            return -1;
        list->names = names;
        double *values = realloc(list->values, capacity * sizeof *values);
        if (values == NULL)
            return -1;
        list->values = values;
        list->capacity = capacity;
    }
    size_t length = strlen(name) + 1;
    char *copy = malloc(length);
    if (copy == NULL)
        return -1;
    memcpy(copy, name, length);
    list->names[list->n] = copy;
    list->values[list->n] = value;
    list->n++;
    return 0;
}

/* NULL in the store is an unknown reading: NaN in memory. */
static double column_reading(sqlite3_stmt *stmt, int column)
{
    if (sqlite3_column_type(stmt, column) == SQLITE_NULL)
        return NAN;
    return sqlite3_column_double(stmt, column);
}

static const char *column_string(sqlite3_stmt *stmt, int column)
{
    return (const char *)sqlite3_column_text(stmt, column);
}

static int read_metrics(sqlite_store *s, int64_t sample_id, metric_list *list, verdict_error *err)
{
    metric_list_clear(list);
    sqlite3_stmt *stmt = sqlite_store_statement(s, STMT_SELECT_METRICS, err);
    if (stmt == NULL)
        return -1;
    sqlite3_bind_int64(stmt, 1, sample_id);
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        const char *name = column_string(stmt, 0);
        if (metric_list_push(list, name != NULL ? name : "", column_reading(stmt, 1)) != 0) {
            sqlite3_reset(stmt);
            return error_set(err, ERROR_NO_MEMORY, "%s: out of memory reading metrics", s->path);
        }
    }
    if (rc != SQLITE_DONE)
        sqlite_store_fail(s, rc, "reading a sample's metrics", err);
    sqlite3_reset(stmt);
    return rc == SQLITE_DONE ? 0 : -1;
}

/* The columns of STMT_SELECT_SAMPLES, after the sample's id in column 0. */
static void sample_from_row(sqlite3_stmt *stmt, const metric_list *metrics, store_sample *x)
{
    memset(x, 0, sizeof *x);
    x->point = column_string(stmt, 1);
    x->variant = column_string(stmt, 2);
    x->block = (long)sqlite3_column_int64(stmt, 3);
    x->seq = (long)sqlite3_column_int64(stmt, 4);
    x->started = column_reading(stmt, 5);
    x->wall = column_reading(stmt, 6);
    x->user = column_reading(stmt, 7);
    x->sys = column_reading(stmt, 8);
    x->maxrss_kib = column_reading(stmt, 9);
    x->voluntary_switches = (long)sqlite3_column_int64(stmt, 10);
    x->involuntary_switches = (long)sqlite3_column_int64(stmt, 11);
    x->exit_code = sqlite3_column_int(stmt, 12);
    x->timed_out = sqlite3_column_int(stmt, 13) != 0;
    x->tainted = sqlite3_column_int(stmt, 14) != 0;
    x->taint_reason = column_string(stmt, 15);
    x->steal = column_reading(stmt, 16);
    x->other_busy = column_reading(stmt, 17);
    x->load1 = column_reading(stmt, 18);
    x->layout = (long)sqlite3_column_int64(stmt, 19);
    x->machine = column_string(stmt, 20);
    x->metric_names = (const char *const *)metrics->names;
    x->metric_values = metrics->values;
    x->n_metrics = metrics->n;
}

int sqlite_store_for_each_sample(store *base, int64_t experiment_id, store_sample_fn fn, void *context,
                          verdict_error *err)
{
    sqlite_store *s = sqlite_store_of(base);
    sqlite3_stmt *stmt = sqlite_store_statement(s, STMT_SELECT_SAMPLES, err);
    if (stmt == NULL)
        return -1;
    sqlite3_bind_int64(stmt, 1, experiment_id);
    metric_list metrics = {0};
    int status = 0, rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        if (read_metrics(s, sqlite3_column_int64(stmt, 0), &metrics, err) != 0) {
            status = -1;
            break;
        }
        store_sample sample;
        sample_from_row(stmt, &metrics, &sample);
        /* like nftw, the callback's non-zero value is returned: a failure inside it (out
         * of memory, say) is not taken for success; err is left to the callback */
        status = fn(context, &sample);
        if (status != 0)
            break;
    }
    if (status == 0 && rc != SQLITE_ROW && rc != SQLITE_DONE)
        status = sqlite_store_fail(s, rc, "reading the samples", err);
    /* reset now: an open read would keep WAL checkpoints from finishing */
    sqlite3_reset(stmt);
    metric_list_free(&metrics);
    return status;
}

/* Replaces an owned string with a copy of text (NULL stays NULL); false when out of memory. */
static bool keep_copy(char **slot, const char *text, size_t length)
{
    free(*slot);
    *slot = NULL;
    if (text == NULL)
        return true;
    *slot = malloc(length + 1);
    if (*slot == NULL)
        return false;
    memcpy(*slot, text, length);
    (*slot)[length] = '\0';
    return true;
}

/* Fills out from a row of name, text, text_hash, plan_hash, seed, tool_version, tool_build
 * beginning at column `first`; the strings are SQLite's, valid until the next step. False
 * when a hash is damaged. */
static bool experiment_columns(sqlite3_stmt *stmt, int first, store_experiment *out)
{
    memset(out, 0, sizeof *out);
    out->name = column_string(stmt, first);
    out->text = column_string(stmt, first + 1);
    out->text_length = out->text != NULL ? (size_t)sqlite3_column_bytes(stmt, first + 1) : 0;
    const char *seed = column_string(stmt, first + 4);
    out->seed = seed != NULL ? (uint64_t)strtoull(seed, NULL, 10) : 0;
    out->tool_version = column_string(stmt, first + 5);
    out->tool_build = column_string(stmt, first + 6);
    return store_parse_hash(column_string(stmt, first + 2), &out->text_hash) &&
           store_parse_hash(column_string(stmt, first + 3), &out->plan_hash);
}

static bool keep_string(char **slot, const char **text)
{
    if (!keep_copy(slot, *text, *text != NULL ? strlen(*text) : 0))
        return false;
    *text = *slot;
    return true;
}

/* Fills out from a row of STMT_GET_EXPERIMENT; its strings are owned by the store. */
static int experiment_from_row(sqlite_store *s, sqlite3_stmt *stmt, store_experiment *out)
{
    bool hashes_ok = experiment_columns(stmt, 0, out);
    if (!keep_string(&s->got_name, &out->name) ||
        !keep_copy(&s->got_text, out->text, out->text_length) ||
        !keep_string(&s->got_tool_version, &out->tool_version) ||
        !keep_string(&s->got_tool_build, &out->tool_build))
        return -1;
    out->text = s->got_text;
    return hashes_ok ? 0 : -2;
}

int sqlite_store_get_experiment(store *base, int64_t experiment_id, store_experiment *out,
                                verdict_error *err)
{
    sqlite_store *s = sqlite_store_of(base);
    sqlite3_stmt *stmt = sqlite_store_statement(s, STMT_GET_EXPERIMENT, err);
    if (stmt == NULL)
        return -1;
    sqlite3_bind_int64(stmt, 1, experiment_id);
    int rc = sqlite3_step(stmt);
    int status = 0;
    if (rc == SQLITE_ROW) {
        int filled = experiment_from_row(s, stmt, out);
        if (filled == -1)
            status = error_set(err, ERROR_NO_MEMORY, "%s: out of memory", s->path);
        else if (filled == -2)
            status = error_set(err, ERROR_STORE, "%s: experiment %" PRId64 " has a damaged hash",
                               s->path, experiment_id);
    } else if (rc == SQLITE_DONE) {
        status = error_set(err, ERROR_STORE, "%s: no experiment %" PRId64, s->path, experiment_id);
    } else {
        status = sqlite_store_fail(s, rc, "reading the experiment", err);
    }
    sqlite3_reset(stmt);
    return status;
}

int sqlite_store_latest_experiment(store *base, int64_t *experiment_id, verdict_error *err)
{
    sqlite_store *s = sqlite_store_of(base);
    sqlite3_stmt *stmt = sqlite_store_statement(s, STMT_LATEST_EXPERIMENT, err);
    if (stmt == NULL)
        return -1;
    int rc = sqlite3_step(stmt);
    int status = 0;
    if (rc == SQLITE_ROW)
        *experiment_id = sqlite3_column_int64(stmt, 0);
    else if (rc == SQLITE_DONE)
        status = error_set(err, ERROR_STORE, "%s: the store holds no experiment yet", s->path);
    else
        status = sqlite_store_fail(s, rc, "finding the latest experiment", err);
    sqlite3_reset(stmt);
    return status;
}

int sqlite_store_for_each_fact(store *base, int64_t experiment_id, store_fact_fn fn, void *context,
                        verdict_error *err)
{
    sqlite_store *s = sqlite_store_of(base);
    sqlite3_stmt *stmt = sqlite_store_statement(s, STMT_SELECT_FACTS, err);
    if (stmt == NULL)
        return -1;
    sqlite3_bind_int64(stmt, 1, experiment_id);
    int rc, status = 0;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        status = fn(context, column_string(stmt, 0), column_string(stmt, 1));
        if (status != 0)
            break; /* returned as is, as in store_for_each_sample */
    }
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        status = sqlite_store_fail(s, rc, "reading the run's facts", err);
    sqlite3_reset(stmt);
    return status;
}

int sqlite_store_for_each_experiment(store *base, store_experiment_fn fn, void *context,
                                     verdict_error *err)
{
    sqlite_store *s = sqlite_store_of(base);
    sqlite3_stmt *stmt = sqlite_store_statement(s, STMT_SELECT_EXPERIMENTS, err);
    if (stmt == NULL)
        return -1;
    int rc, status = 0;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        store_experiment e;
        if (!experiment_columns(stmt, 1, &e)) {
            status = error_set(err, ERROR_STORE, "%s: experiment %s has a damaged hash", s->path,
                               e.name != NULL ? e.name : "");
            break;
        }
        status = fn(context, sqlite3_column_int64(stmt, 0), &e);
        if (status != 0)
            break;
    }
    if (status == 0 && rc != SQLITE_ROW && rc != SQLITE_DONE)
        status = sqlite_store_fail(s, rc, "reading the experiments", err);
    sqlite3_reset(stmt);
    return status;
}

int sqlite_store_for_each_machine_fact(store *base, store_machine_fact_fn fn, void *context,
                                       verdict_error *err)
{
    sqlite_store *s = sqlite_store_of(base);
    sqlite3_stmt *stmt = sqlite_store_statement(s, STMT_SELECT_MACHINE_FACTS, err);
    if (stmt == NULL)
        return -1;
    int rc, status = 0;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        status = fn(context, column_string(stmt, 0), column_string(stmt, 1),
                    column_string(stmt, 2));
        if (status != 0)
            break;
    }
    if (status == 0 && rc != SQLITE_ROW && rc != SQLITE_DONE)
        status = sqlite_store_fail(s, rc, "reading the machines", err);
    sqlite3_reset(stmt);
    return status;
}

int sqlite_store_for_each_block(store *base, int64_t experiment_id, store_block_fn fn,
                                void *context, verdict_error *err)
{
    sqlite_store *s = sqlite_store_of(base);
    sqlite3_stmt *stmt = sqlite_store_statement(s, STMT_SELECT_BLOCKS, err);
    if (stmt == NULL)
        return -1;
    sqlite3_bind_int64(stmt, 1, experiment_id);
    int rc, status = 0;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        status = fn(context, column_string(stmt, 0), (long)sqlite3_column_int64(stmt, 1),
                    column_string(stmt, 2), column_string(stmt, 3),
                    (long)sqlite3_column_int64(stmt, 4));
        if (status != 0)
            break;
    }
    if (status == 0 && rc != SQLITE_ROW && rc != SQLITE_DONE)
        status = sqlite_store_fail(s, rc, "reading the blocks", err);
    sqlite3_reset(stmt);
    return status;
}

int sqlite_store_for_each_extension(store *base, int64_t experiment_id, store_extension_fn fn,
                                    void *context, verdict_error *err)
{
    sqlite_store *s = sqlite_store_of(base);
    sqlite3_stmt *stmt = sqlite_store_statement(s, STMT_SELECT_EXTENSIONS, err);
    if (stmt == NULL)
        return -1;
    sqlite3_bind_int64(stmt, 1, experiment_id);
    int rc, status = 0;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        status = fn(context, (long)sqlite3_column_int64(stmt, 0));
        if (status != 0)
            break;
    }
    if (status == 0 && rc != SQLITE_ROW && rc != SQLITE_DONE)
        status = sqlite_store_fail(s, rc, "reading the extensions", err);
    sqlite3_reset(stmt);
    return status;
}

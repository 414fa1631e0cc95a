/* The SQLite back end's profiles: one row per profiled run, kept with perf's resolution as
 * text, and read back in the order they were kept. */
#include <math.h>
#include <stdlib.h>

#include "common/error.h"
#include "store/sqlite_store_internal.h"

/* the experiment comes from the run, so a profile cannot land in the wrong experiment */
static const char sql_insert_profile[] =
    "INSERT INTO profile (experiment_id, run_id, point, variant, layout, machine, block,"
    " event, wall, samples, symbols, stacks)"
    " SELECT experiment_id, id, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11 FROM run WHERE id = ?1";
static const char sql_select_profiles[] =
    "SELECT point, variant, layout, machine, block, event, wall, samples, symbols, stacks"
    " FROM profile WHERE experiment_id = ?1 ORDER BY id";

/* Profiles are few (one per unit and block), so their statements are prepared per call
 * rather than kept in the back end's cache. */
static sqlite3_stmt *prepare(sqlite_store *s, const char *sql, verdict_error *err)
{
    sqlite3_stmt *stmt = NULL;
    int rc = sqlite3_prepare_v2(s->db, sql, -1, &stmt, NULL);
    if (rc != SQLITE_OK) {
        sqlite_store_fail(s, rc, "preparing a statement", err);
        sqlite3_finalize(stmt);
        return NULL;
    }
    return stmt;
}

static void bind_profile(sqlite3_stmt *stmt, int64_t run_id, const store_profile *p)
{
    sqlite3_bind_int64(stmt, 1, run_id);
    sqlite3_bind_text(stmt, 2, p->point, -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 3, p->variant, -1, SQLITE_STATIC);
    sqlite3_bind_int64(stmt, 4, p->layout);
    sqlite3_bind_text(stmt, 5, p->machine ? p->machine : "", -1, SQLITE_STATIC);
    sqlite3_bind_int64(stmt, 6, p->block);
    sqlite3_bind_text(stmt, 7, p->event, -1, SQLITE_STATIC);
    if (isnan(p->wall))
        sqlite3_bind_null(stmt, 8);
    else
        sqlite3_bind_double(stmt, 8, p->wall);
    sqlite3_bind_int64(stmt, 9, p->samples);
    sqlite3_bind_text(stmt, 10, p->symbols, -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 11, p->stacks, -1, SQLITE_STATIC);
}

static int insert_profile(sqlite_store *s, int64_t run_id, const store_profile *p,
                          verdict_error *err)
{
    sqlite3_stmt *stmt = prepare(s, sql_insert_profile, err);
    if (stmt == NULL)
        return -1;
    bind_profile(stmt, run_id, p);
    int rc = sqlite3_step(stmt), status = 0;
    if (rc == SQLITE_CONSTRAINT_UNIQUE)
        status = error_set(err, ERROR_STORE, "%s: a profile for point %s, variant %s, layout "
                           "%ld, block %ld of this experiment is already stored", s->path,
                           p->point, p->variant, p->layout, p->block);
    else if (rc != SQLITE_DONE)
        status = sqlite_store_fail(s, rc, "keeping a profile", err);
    else if (sqlite3_changes(s->db) != 1)
        status = error_set(err, ERROR_STORE, "%s: no run %lld", s->path, (long long)run_id);
    sqlite3_finalize(stmt);
    return status;
}

int sqlite_store_add_profile(store *base, int64_t run_id, const store_profile *p,
                             verdict_error *err)
{
    sqlite_store *s = sqlite_store_of(base);
    const char *doing = "keeping a profile";
    if (sqlite_store_begin(s, doing, err) != 0)
        return -1;
    return sqlite_store_finish(s, insert_profile(s, run_id, p, err), doing, err);
}

static const char *text_at(sqlite3_stmt *stmt, int column)
{
    const char *text = (const char *)sqlite3_column_text(stmt, column);
    return text ? text : "";
}

int sqlite_store_for_each_profile(store *base, int64_t experiment_id, store_profile_fn fn,
                                  void *context, verdict_error *err)
{
    sqlite_store *s = sqlite_store_of(base);
    sqlite3_stmt *stmt = prepare(s, sql_select_profiles, err);
    if (stmt == NULL)
        return -1;
    sqlite3_bind_int64(stmt, 1, experiment_id);
    int rc, status = 0;
    while (status == 0 && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        store_profile p = {
            .point = text_at(stmt, 0), .variant = text_at(stmt, 1),
            .layout = (long)sqlite3_column_int64(stmt, 2), .machine = text_at(stmt, 3),
            .block = (long)sqlite3_column_int64(stmt, 4), .event = text_at(stmt, 5),
            .wall = sqlite3_column_type(stmt, 6) == SQLITE_NULL ? NAN
                                                                : sqlite3_column_double(stmt, 6),
            .samples = (long)sqlite3_column_int64(stmt, 7), .symbols = text_at(stmt, 8),
            .stacks = text_at(stmt, 9)};
        status = fn(context, &p);
    }
    if (status == 0 && rc != SQLITE_DONE)
        status = sqlite_store_fail(s, rc, "reading the profiles", err);
    sqlite3_finalize(stmt);
    return status;
}

/* The PostgreSQL back end's profiles: one row per profiled run, kept with perf's resolution
 * as text, and read back in the order they were kept. */
#include <stdlib.h>

#include "common/error.h"
#include "store/pg_store.h"

/* the experiment comes from the run, so a profile cannot land in the wrong experiment */
static const char sql_insert_profile[] =
    "INSERT INTO profile (experiment_id, run_id, point, variant, layout, machine, block,"
    " event, wall, samples, symbols, stacks)"
    " SELECT experiment_id, id, $2, $3, $4::bigint, $5, $6::bigint, $7, $8::float8,"
    " $9::bigint, $10, $11 FROM run WHERE id = $1::bigint RETURNING id";
static const char sql_select_profiles[] =
    "SELECT point, variant, layout, machine, block, event, wall, samples, symbols, stacks"
    " FROM profile WHERE experiment_id = $1::bigint ORDER BY id";

typedef struct {
    int64_t run_id;
    const store_profile *p;
    int inserted;
} insert_args;

static int insert_body(pg_store *s, void *args, verdict_error *err)
{
    insert_args *a = args;
    const store_profile *p = a->p;
    pg_store_number n[6];
    const char *params[] = {pg_store_int(&n[0], a->run_id), p->point, p->variant,
                            pg_store_int(&n[1], p->layout), p->machine ? p->machine : "",
                            pg_store_int(&n[2], p->block), p->event,
                            pg_store_double(&n[3], p->wall), pg_store_int(&n[4], p->samples),
                            p->symbols, p->stacks};
    PGresult *res = pg_store_exec(s, sql_insert_profile, 11, params, PGRES_TUPLES_OK,
                                  "keeping a profile", err);
    if (res == NULL)
        return -1;
    a->inserted = PQntuples(res);
    PQclear(res);
    return 0;
}

int pg_store_add_profile(store *base, int64_t run_id, const store_profile *p,
                         verdict_error *err)
{
    pg_store *s = pg_store_of(base);
    insert_args a = {.run_id = run_id, .p = p};
    if (pg_store_call(s, NULL, insert_body, &a, "keeping a profile", err) != 0) {
        if (pg_store_failed_with(s, "23505", NULL))
            return error_set(err, ERROR_STORE, "%s: a profile for point %s, variant %s, "
                             "layout %ld, block %ld of this experiment is already stored",
                             s->label, p->point, p->variant, p->layout, p->block);
        return -1;
    }
    return a.inserted == 1 ? 0 : error_set(err, ERROR_STORE, "%s: no run %lld", s->label,
                                           (long long)run_id);
}

typedef struct {
    const char *params[1];
    PGresult *rows;
} select_args;

static int select_body(pg_store *s, void *args, verdict_error *err)
{
    select_args *a = args;
    a->rows = pg_store_exec(s, sql_select_profiles, 1, a->params, PGRES_TUPLES_OK,
                            "reading the profiles", err);
    return a->rows != NULL ? 0 : -1;
}

int pg_store_for_each_profile(store *base, int64_t experiment_id, store_profile_fn fn,
                              void *context, verdict_error *err)
{
    pg_store *s = pg_store_of(base);
    pg_store_number id;
    select_args a = {.params = {pg_store_int(&id, experiment_id)}};
    if (pg_store_call(s, NULL, select_body, &a, "reading the profiles", err) != 0)
        return -1;
    int status = 0;
    for (int row = 0; status == 0 && row < PQntuples(a.rows); row++) {
        store_profile p = {
            .point = PQgetvalue(a.rows, row, 0), .variant = PQgetvalue(a.rows, row, 1),
            .layout = (long)pg_store_get_int(a.rows, row, 2),
            .machine = PQgetvalue(a.rows, row, 3),
            .block = (long)pg_store_get_int(a.rows, row, 4),
            .event = PQgetvalue(a.rows, row, 5),
            .wall = pg_store_get_double(a.rows, row, 6),
            .samples = (long)pg_store_get_int(a.rows, row, 7),
            .symbols = PQgetvalue(a.rows, row, 8), .stacks = PQgetvalue(a.rows, row, 9)};
        status = fn(context, &p);
    }
    PQclear(a.rows);
    return status;
}

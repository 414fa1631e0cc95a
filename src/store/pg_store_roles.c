/* A fleet's PostgreSQL roles (issue 31): an owner that registers experiments, and workers that
 * only read them, claim blocks and write samples under their own machine's name (RLS). */
#include <assert.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/strbuf.h"
#include "store/pg_store.h"

/* The grants and policies, with %1$s the schema, %2$s the owner role, %3$s the worker role.
 * A worker's database role is named as its machine (`--machine`): what it writes under a
 * machine's name must be its own (current_user). Experiments, their texts, signatures and
 * extensions it may only read: what runs on a worker is decided by the owner alone. */
static const char roles_sql[] =
    "-- verdict store roles: the owner registers experiments; workers only run them\n"
    "DO $$ BEGIN\n"
    "  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '%2$s') THEN\n"
    "    CREATE ROLE %2$s NOLOGIN; END IF;\n"
    "  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '%3$s') THEN\n"
    "    CREATE ROLE %3$s NOLOGIN; END IF;\n"
    "END $$;\n"
    "GRANT USAGE ON SCHEMA %1$s TO %2$s, %3$s;\n"
    "GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA %1$s TO %2$s;\n"
    "GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA %1$s TO %2$s, %3$s;\n"
    "-- workers: read everything, write only what running an experiment writes\n"
    "GRANT SELECT ON ALL TABLES IN SCHEMA %1$s TO %3$s;\n"
    "REVOKE INSERT, UPDATE, DELETE ON %1$s.experiment, %1$s.experiment_text_history,\n"
    "  %1$s.experiment_signature, %1$s.extension, %1$s.schema_version FROM %3$s;\n"
    "GRANT INSERT, UPDATE ON %1$s.run, %1$s.block, %1$s.machine TO %3$s;\n"
    "GRANT INSERT ON %1$s.run_fact, %1$s.sample, %1$s.sample_metric, %1$s.profile TO %3$s;\n"
    "GRANT INSERT, DELETE ON %1$s.machine_fact TO %3$s;\n"
    "-- row-level security: a worker's rows carry its own role's name as the machine\n"
    "ALTER TABLE %1$s.sample ENABLE ROW LEVEL SECURITY;\n"
    "ALTER TABLE %1$s.profile ENABLE ROW LEVEL SECURITY;\n"
    "ALTER TABLE %1$s.block ENABLE ROW LEVEL SECURITY;\n"
    "ALTER TABLE %1$s.machine ENABLE ROW LEVEL SECURITY;\n"
    "ALTER TABLE %1$s.machine_fact ENABLE ROW LEVEL SECURITY;\n"
    "DROP POLICY IF EXISTS verdict_read ON %1$s.sample;\n"
    "DROP POLICY IF EXISTS verdict_owner ON %1$s.sample;\n"
    "DROP POLICY IF EXISTS verdict_worker ON %1$s.sample;\n"
    "CREATE POLICY verdict_read ON %1$s.sample FOR SELECT USING (true);\n"
    "CREATE POLICY verdict_owner ON %1$s.sample TO %2$s USING (true) WITH CHECK (true);\n"
    "CREATE POLICY verdict_worker ON %1$s.sample FOR INSERT TO %3$s\n"
    "  WITH CHECK (machine = current_user);\n"
    "DROP POLICY IF EXISTS verdict_read ON %1$s.profile;\n"
    "DROP POLICY IF EXISTS verdict_owner ON %1$s.profile;\n"
    "DROP POLICY IF EXISTS verdict_worker ON %1$s.profile;\n"
    "CREATE POLICY verdict_read ON %1$s.profile FOR SELECT USING (true);\n"
    "CREATE POLICY verdict_owner ON %1$s.profile TO %2$s USING (true) WITH CHECK (true);\n"
    "CREATE POLICY verdict_worker ON %1$s.profile FOR INSERT TO %3$s\n"
    "  WITH CHECK (machine = current_user);\n"
    "DROP POLICY IF EXISTS verdict_read ON %1$s.block;\n"
    "DROP POLICY IF EXISTS verdict_owner ON %1$s.block;\n"
    "DROP POLICY IF EXISTS verdict_worker_plan ON %1$s.block;\n"
    "DROP POLICY IF EXISTS verdict_worker ON %1$s.block;\n"
    "CREATE POLICY verdict_read ON %1$s.block FOR SELECT USING (true);\n"
    "CREATE POLICY verdict_owner ON %1$s.block TO %2$s USING (true) WITH CHECK (true);\n"
    "CREATE POLICY verdict_worker_plan ON %1$s.block FOR INSERT TO %3$s\n"
    "  WITH CHECK (state = 'open' AND machine = '');\n"
    "CREATE POLICY verdict_worker ON %1$s.block FOR UPDATE TO %3$s\n"
    "  USING (true) WITH CHECK (machine IN ('', current_user));\n"
    "DROP POLICY IF EXISTS verdict_read ON %1$s.machine;\n"
    "DROP POLICY IF EXISTS verdict_owner ON %1$s.machine;\n"
    "DROP POLICY IF EXISTS verdict_worker ON %1$s.machine;\n"
    "CREATE POLICY verdict_read ON %1$s.machine FOR SELECT USING (true);\n"
    "CREATE POLICY verdict_owner ON %1$s.machine TO %2$s USING (true) WITH CHECK (true);\n"
    "CREATE POLICY verdict_worker ON %1$s.machine TO %3$s\n"
    "  USING (name = current_user) WITH CHECK (name = current_user);\n"
    "DROP POLICY IF EXISTS verdict_read ON %1$s.machine_fact;\n"
    "DROP POLICY IF EXISTS verdict_owner ON %1$s.machine_fact;\n"
    "DROP POLICY IF EXISTS verdict_worker ON %1$s.machine_fact;\n"
    "CREATE POLICY verdict_read ON %1$s.machine_fact FOR SELECT USING (true);\n"
    "CREATE POLICY verdict_owner ON %1$s.machine_fact TO %2$s USING (true) WITH CHECK (true);\n"
    "CREATE POLICY verdict_worker ON %1$s.machine_fact TO %3$s\n"
    "  USING (machine = current_user) WITH CHECK (machine = current_user);\n"
    "-- each machine then logs in as a role of its own name, a member of the workers' role:\n"
    "--   CREATE ROLE m1 LOGIN PASSWORD '...' IN ROLE %3$s;   (verdict worker --machine m1)\n";

/* Role names as SQL takes them unquoted: a lowercase letter or _, then letters, digits, _. */
static int check_role(const char *role, const char *what, verdict_error *err)
{
    size_t n = strlen(role);
    bool ok = n > 0 && n < 64 && (islower((unsigned char)role[0]) || role[0] == '_');
    for (size_t i = 0; ok && i < n; i++)
        ok = islower((unsigned char)role[i]) || isdigit((unsigned char)role[i]) || role[i] == '_';
    if (!ok)
        return error_set(err, ERROR_USAGE, "%s '%s': a role name of lowercase letters, digits "
                         "and _, beginning with a letter or _, at most 63", what, role);
    return 0;
}

static int roles_text(const char *schema, const char *owner, const char *worker, char **out,
                      verdict_error *err)
{
    if (check_role(owner, "--owner", err) != 0 || check_role(worker, "--worker", err) != 0)
        return -1;
    if (strcmp(owner, worker) == 0)
        return error_set(err, ERROR_USAGE, "the owner's and the workers' roles must differ (both "
                         "'%s')", owner);
    strbuf quoted = STRBUF_INIT, b = STRBUF_INIT;
    strbuf_appendf(&quoted, "\"%s\"", schema); /* letters, digits and _ (pg_store_name.c) */
    strbuf_appendf(&b, roles_sql, strbuf_text(&quoted), owner, worker);
    strbuf_free(&quoted);
    if (strbuf_status(&b) != 0) {
        strbuf_free(&b);
        return error_no_memory(err);
    }
    *out = strbuf_detach(&b);
    return 0;
}

int store_roles_sql(const char *name, const char *owner, const char *worker, char **out,
                    verdict_error *err)
{
    assert(name != NULL && owner != NULL && worker != NULL && out != NULL);
    *out = NULL;
    if (!store_is_postgres(name))
        return error_set(err, ERROR_USAGE, "%s: database roles are a PostgreSQL store's (a "
                         "SQLite file has none)", name);
    char *conninfo = NULL, *schema = NULL, *label = pg_store_redact(name);
    int rc = label == NULL ? error_no_memory(err)
             : pg_store_parse_name(name, label, &conninfo, &schema, err);
    if (rc == 0)
        rc = roles_text(schema, owner, worker, out, err);
    free(conninfo);
    free(schema);
    free(label);
    return rc;
}

static int apply_body(pg_store *s, void *args, verdict_error *err)
{
    return pg_store_script(s, args, "applying the roles", err);
}

int store_apply_roles(store *base, const char *owner, const char *worker, verdict_error *err)
{
    assert(base != NULL && owner != NULL && worker != NULL);
    if (base->backend != &pg_store_backend)
        return error_set(err, ERROR_USAGE, "%s: database roles are a PostgreSQL store's (a "
                         "SQLite file has none)", base->label);
    pg_store *s = pg_store_of(base);
    char *sql = NULL;
    int rc = roles_text(s->schema, owner, worker, &sql, err);
    if (rc == 0)
        rc = pg_store_call(s, "BEGIN", apply_body, sql, "applying the roles", err);
    free(sql);
    return rc;
}

/* The PostgreSQL target's keys in experiment files: 'postgres' (scale, settings, fresh,
 * pin, ...), 'workload' (pgbench's arguments, checked word by word) and each variant's server. */
#include <inttypes.h>
#include <limits.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "common/array.h"
#include "common/error.h"
#include "common/hash.h"
#include "core/experiment_loader.h"
#include "core/plan_hash.h"
#include "core/target.h"
#include "targets/postgres_options.h"

static const char *const fresh_names[] = {"run", "point"}; /* pg_fresh_policy */
static const char *const pin_names[] = {"none", "same", "split"}; /* pg_pin_policy */

/* A variant's options, made when its first key is read. */
static postgres_variant *pg_variant(void *variant)
{
    experiment_variant *v = variant;
    if (v->options == NULL)
        v->options = calloc(1, sizeof(postgres_variant));
    return v->options;
}

/* ---- settings ---- */

/* The settings verdict sets itself or that would move files out of a throwaway cluster,
 * refused here too so that the message names the line (src/pg/cluster.c checks again). */
static const char *const reserved_settings[] = {
    "port", "listen_addresses", "unix_socket_directories", "data_directory",
    "config_file", "hba_file", "ident_file",
};

static int check_setting_name(experiment_loader *l, const yaml_field *s)
{
    if (strspn(s->key, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.") !=
        strlen(s->key))
        return yaml_fail(loader_reader(l), s->key_node, "setting name '%s' may hold only letters, digits, "
                         "_ and .", s->key);
    for (size_t i = 0; i < sizeof reserved_settings / sizeof reserved_settings[0]; i++)
        if (strcasecmp(s->key, reserved_settings[i]) == 0)
            return yaml_fail(loader_reader(l), s->key_node, "setting '%s' is verdict's to set (each server "
                             "gets a private socket and no TCP)", s->key);
    return 0;
}

/* Values are kept as the text in the file ("off", 256MB) and never substituted. */
static int read_setting(experiment_loader *l, const yaml_field *s, experiment_env **list, size_t *n)
{
    if (check_setting_name(l, s) != 0)
        return -1;
    for (size_t i = 0; i < *n; i++)
        if (strcasecmp((*list)[i].name, s->key) == 0) /* PostgreSQL ignores their case */
            return yaml_fail(loader_reader(l), s->key_node, "setting %s is given twice", s->key);
    size_t length;
    const char *value = yaml_scalar(s->value, &length);
    if (value == NULL || (length == 0 && yaml_is_null(s->value)))
        return yaml_fail_field(loader_reader(l), s, "setting %s needs a plain value (quote it: %s: "
                               "\"...\")", s->key, s->key);
    if (memchr(value, '\n', length) || memchr(value, '\r', length))
        return yaml_fail_field(loader_reader(l), s, "the value of setting %s spans lines", s->key);
    char *copy = strndup(value, length);
    int rc = copy ? loader_set_pair(list, n, s->key, copy) : -1;
    free(copy);
    return rc == 0 ? 0 : yaml_fail(loader_reader(l), s->key_node, "out of memory");
}

static int read_settings(experiment_loader *l, const yaml_field *f, experiment_env **list, size_t *n)
{
    if (loader_need_mapping(l, f, "postgresql.conf name: value") != 0)
        return -1;
    void *iter = NULL;
    struct fy_node_pair *pair;
    while ((pair = fy_node_mapping_iterate(f->value, &iter)) != NULL) {
        yaml_field s;
        if (loader_read_key(l, pair, &s) != 0 || read_setting(l, &s, list, n) != 0)
            return -1;
    }
    return 0;
}

/* ---- paths and patches ---- */


/* ---- the workload ---- */

/* pgbench's options (pgbench --help, PostgreSQL 9.6 to 17), to tell an option's value from
 * a database name. getopt_long accepts unambiguous abbreviations of long names. */
static const char pgbench_short_with_value[] = "bcDfFhIjLMpPRstTU";
static const char *const pgbench_long_with_value[] = {
    "aggregate-interval", "builtin", "client", "define", "file", "fillfactor", "host",
    "index-tablespace", "init-steps", "jobs", "latency-limit", "log-prefix", "max-tries",
    "partition-method", "partitions", "port", "progress", "protocol", "random-seed", "rate",
    "sampling-rate", "scale", "show-script", "tablespace", "time", "transactions", "username",
};
static const char *const pgbench_long_plain[] = {
    "connect", "debug", "exit-on-abort", "failures-detailed", "foreign-keys", "help",
    "initialize", "log", "no-vacuum", "progress-timestamp", "quiet", "report-latencies",
    "report-per-command", "select-only", "skip-some-updates", "unlogged-tables", "vacuum-all",
    "verbose-errors", "version",
};
static const char *const pgbench_connection[] = {"host", "port", "username"};

static const char connection_refused[] =
    "connection options (-h, -p, -U, --host, --port, --username) are not allowed in the "
    "workload: verdict connects pgbench to each variant's server";
static const char argument_refused[] =
    "a database name (or any argument that is not an option) is not allowed in the "
    "workload: verdict supplies the connection";

static bool is_prefix(const char *name, size_t n, const char *of)
{
    return n > 0 && strlen(of) >= n && strncmp(of, name, n) == 0;
}

/* Whether the long option name[0..n) takes a value; unknown or ambiguous names take none
 * (pgbench itself refuses them). */
static bool long_takes_value(const char *name, size_t n)
{
    size_t matches = 0;
    bool takes = false;
    for (size_t i = 0; i < sizeof pgbench_long_with_value / sizeof (char *); i++)
        if (is_prefix(name, n, pgbench_long_with_value[i])) {
            if (strlen(pgbench_long_with_value[i]) == n)
                return true;
            matches++, takes = true;
        }
    for (size_t i = 0; i < sizeof pgbench_long_plain / sizeof (char *); i++)
        if (is_prefix(name, n, pgbench_long_plain[i])) {
            if (strlen(pgbench_long_plain[i]) == n)
                return false;
            matches++;
        }
    return matches == 1 && takes;
}

/* One word where pgbench expects an option: NULL when it is acceptable (*takes_value: the
 * next word is its value), else why not. */
static const char *pgbench_option(const char *word, bool *takes_value)
{
    *takes_value = false;
    if (word[0] != '-' || word[1] == '\0')
        return argument_refused;
    if (word[1] == '-') {
        const char *name = word + 2;
        size_t n = strcspn(name, "=");
        for (size_t i = 0; i < sizeof pgbench_connection / sizeof (char *); i++)
            if (is_prefix(name, n, pgbench_connection[i]))
                return connection_refused;
        *takes_value = name[n] == '\0' && long_takes_value(name, n);
        return NULL;
    }
    for (const char *c = word + 1; *c; c++) {
        if (*c == 'h' || *c == 'p' || *c == 'U')
            return connection_refused;
        if (strchr(pgbench_short_with_value, *c)) {
            *takes_value = c[1] == '\0';
            break;
        }
    }
    return NULL;
}

/* A word with placeholders is checked as each text it becomes. */
typedef struct {
    bool takes_value;
    const char *why;
    char value[64];
} word_check;

static int check_one_value(const char *value, void *context)
{
    word_check *c = context;
    bool takes_value;
    c->why = pgbench_option(value, &takes_value);
    c->takes_value |= takes_value;
    snprintf(c->value, sizeof c->value, "%s", value);
    return c->why ? 1 : 0;
}

/* "--" ends the options: whatever follows would be a database name. */
static int check_workload_words(experiment_loader *l, const yaml_field *f, const command_words *w)
{
    bool value_next = false, options_ended = false;
    for (size_t i = 0; i < w->n; i++) {
        const char *word = w->words[i];
        word_check c = {false, NULL, ""};
        if (value_next) {
            value_next = false;
            continue;
        }
        if (options_ended)
            c.why = argument_refused;
        else if (strcmp(word, "--") == 0)
            options_ended = true;
        else if (experiment_each_substitution(loader_experiment(l), word, check_one_value, &c) < 0)
            return yaml_fail(loader_reader(l), loader_word_node(f, i), "out of memory");
        if (c.why) {
            char as[96] = "";
            if (!options_ended && strcmp(c.value, word) != 0)
                snprintf(as, sizeof as, " (as '%s')", c.value);
            return yaml_fail(loader_reader(l), loader_word_node(f, i), "pgbench word %zu '%s'%s: %s", i + 1, word,
                             as, c.why);
        }
        value_next = c.takes_value;
    }
    return 0;
}

/* A line's words as each point makes them: substituted first, then split. */
typedef struct {
    experiment_loader *l;
    const yaml_field *f;
} line_check;

static int check_line_value(const char *value, void *context)
{
    line_check *c = context;
    command_words w = {NULL, 0};
    verdict_error problem = {0};
    int rc;
    if (command_words_split(value, &w, &problem) != 0)
        rc = yaml_fail_field(loader_reader(c->l), c->f, "pgbench line '%s': %s", value,
                             problem.message);
    else
        rc = check_workload_words(c->l, c->f, &w);
    command_words_free(&w);
    return rc == 0 ? 0 : 1; /* non-zero stops experiment_each_substitution */
}

/* A string is a line: each point's values go in before it is split, so a parameter may
 * hold several words ("-S -M prepared"); a list's words stay one word each. */
static int workload_line(experiment_loader *l, const yaml_field *f, postgres_options *pg)
{
    if (yaml_string(loader_reader(l), f, "pgbench's arguments", &pg->workload_line) != 0)
        return -1;
    line_check c = {l, f};
    int rc = experiment_each_substitution(loader_experiment(l), pg->workload_line,
                                          check_line_value, &c);
    if (rc < 0)
        return yaml_fail_field(loader_reader(l), f, "out of memory");
    return rc == 0 ? 0 : -1;
}

static int workload_pgbench(experiment_loader *l, const yaml_field *f, void *target)
{
    postgres_options *e = target;
    command_words w = {NULL, 0};
    int rc = loader_read_words(l, f, false, "pgbench", "the workload", LOADER_SHARED_TEXT, &w);
    if (rc == 0 && !loader_is_sequence(f))
        rc = workload_line(l, f, e);
    else if (rc == 0)
        rc = check_workload_words(l, f, &w);
    if (rc == 0) {
        e->workload = w.words;
        e->n_workload = w.n;
        w.words = NULL;
        w.n = 0;
    }
    command_words_free(&w);
    return rc;
}

static int top_workload(experiment_loader *l, const yaml_field *f, void *target)
{
    static const experiment_key rules[] = {{"pgbench", workload_pgbench, 1},
                                           {"queries", postgres_read_queries, 1}};
    postgres_options *pg = postgres_options_of(loader_experiment(l));
    pg->has_workload = true;
    if (loader_need_mapping(l, f, "pgbench: [arguments], queries: [SQL files]") != 0 ||
        loader_walk(l, f->value, rules, 2, " in 'workload'", pg) != 0)
        return -1;
    (void)target;
    if (pg->workload == NULL && pg->n_queries == 0)
        return yaml_fail_field(loader_reader(l), f, "'workload' needs 'pgbench: [arguments]' "
                               "or 'queries: [SQL files]'");
    return 0;
}

/* ---- the postgres mapping ---- */


static int pg_scale(experiment_loader *l, const yaml_field *f, void *target)
{
    size_t scale;
    if (yaml_count(loader_reader(l), f, true, &scale) != 0)
        return -1;
    if (scale > INT_MAX)
        return yaml_fail_field(loader_reader(l), f, "'scale' must be at most %d", INT_MAX);
    ((postgres_options *)target)->scale = (int)scale;
    ((postgres_options *)target)->scale_given = true;
    return 0;
}

static int pg_settings(experiment_loader *l, const yaml_field *f, void *target)
{
    postgres_options *pg = target;
    return read_settings(l, f, &pg->settings, &pg->n_settings);
}

static int pg_fresh(experiment_loader *l, const yaml_field *f, void *target)
{
    int which;
    if (yaml_choice(loader_reader(l), f, fresh_names, 2, &which) != 0)
        return -1;
    ((postgres_options *)target)->fresh = (pg_fresh_policy)which;
    return 0;
}

static int pg_pin(experiment_loader *l, const yaml_field *f, void *target)
{
    int which;
    if (yaml_choice(loader_reader(l), f, pin_names, 3, &which) != 0)
        return -1;
    ((postgres_options *)target)->pin = (pg_pin_policy)which;
    return 0;
}

static int pg_warm_runs(experiment_loader *l, const yaml_field *f, void *target)
{
    size_t runs;
    if (yaml_count(loader_reader(l), f, false, &runs) != 0)
        return -1;
    if (runs > 100)
        return yaml_fail_field(loader_reader(l), f, "'warm_runs' must be at most 100");
    ((postgres_options *)target)->warm_runs = runs;
    return 0;
}

static int pg_run_as(experiment_loader *l, const yaml_field *f, void *target)
{
    postgres_options *pg = target;
    if (yaml_string(loader_reader(l), f, "a user name", &pg->run_as) != 0)
        return -1;
    return pg->run_as[0] ? 0 : yaml_fail_field(loader_reader(l), f, "'run_as' is empty");
}

static int pg_cache_dir(experiment_loader *l, const yaml_field *f, void *target)
{
    postgres_options *pg = target;
    char *path = NULL;
    if (loader_absolute_path(l, f, &path) != 0)
        return -1;
    free(pg->cache_dir);
    pg->cache_dir = path;
    return 0;
}

static int top_postgres(experiment_loader *l, const yaml_field *f, void *target)
{
    static const experiment_key rules[] = {
        {"scale", pg_scale, 1}, {"settings", pg_settings, 1}, {"fresh", pg_fresh, 1},
        {"pin", pg_pin, 1},     {"run_as", pg_run_as, 1},     {"cache_dir", pg_cache_dir, 1},
        {"warm_runs", pg_warm_runs, 1},
        {"init", postgres_read_init, 1}, {"init_variables", postgres_read_init_variables, 1},
    };
    (void)target;
    if (loader_need_mapping(l, f, "scale, settings, fresh, pin, warm_runs, run_as, cache_dir, "
                            "init, init_variables") != 0)
        return -1;
    return loader_walk(l, f->value, rules, sizeof rules / sizeof *rules, " in 'postgres'",
                       postgres_options_of(loader_experiment(l)));
}

/* ---- variants ---- */


static int variant_bindir(experiment_loader *l, const yaml_field *f, void *target)
{
    return loader_absolute_path(l, f, &pg_variant(target)->bindir);
}

static void note_source_only(postgres_variant *v, const yaml_field *f)
{
    if (v->source_only == NULL) {
        v->source_only = f->key_node;
        snprintf(v->source_only_key, sizeof v->source_only_key, "%.15s", f->key);
    }
}

static int variant_configure(experiment_loader *l, const yaml_field *f, void *target)
{
    postgres_variant *v = pg_variant(target);
    verdict_error problem = {0};
    note_source_only(v, f);
    if (yaml_string(loader_reader(l), f, "a string of ./configure options", &v->configure) != 0)
        return -1;
    if (v->configure[strspn(v->configure, " \t\r\n")] == '\0')
        return 0; /* no options */
    if (command_words_split(v->configure, &v->configure_words, &problem) != 0)
        return yaml_fail_field(loader_reader(l), f, "'configure': %s", problem.message);
    return 0;
}

static int variant_meson(experiment_loader *l, const yaml_field *f, void *target)
{
    postgres_variant *v = pg_variant(target);
    verdict_error problem = {0};
    note_source_only(v, f);
    if (yaml_string(loader_reader(l), f, "a string of `meson setup` options", &v->meson) != 0)
        return -1;
    if (v->meson[strspn(v->meson, " \t\r\n")] == '\0')
        return 0; /* no options */
    if (command_words_split(v->meson, &v->meson_words, &problem) != 0)
        return yaml_fail_field(loader_reader(l), f, "'meson': %s", problem.message);
    return 0;
}

static int variant_cflags(experiment_loader *l, const yaml_field *f, void *target)
{
    note_source_only(pg_variant(target), f);
    return yaml_string(loader_reader(l), f, "a string", &pg_variant(target)->cflags);
}

static int variant_conninfo(experiment_loader *l, const yaml_field *f, void *target)
{
    postgres_variant *v = pg_variant(target);
    if (yaml_string(loader_reader(l), f, "a connection string", &v->conninfo) != 0)
        return -1;
    return v->conninfo[0] ? 0 : yaml_fail_field(loader_reader(l), f, "'conninfo' is empty");
}

static int variant_settings(experiment_loader *l, const yaml_field *f, void *target)
{
    postgres_variant *v = pg_variant(target);
    return read_settings(l, f, &v->settings, &v->n_settings);
}

/* Settings cannot reach a server verdict does not start: refused rather than silently
 * applied to one side of a comparison only. */
static int check_conninfo_variant(experiment_loader *l, const yaml_field *f,
                                  const experiment_variant *ev, const postgres_variant *v)
{
    if (v->n_settings)
        return yaml_fail(loader_reader(l), f->key_node, "variant %s connects to a server verdict does not "
                         "start (conninfo): its 'settings' cannot be applied", ev->name);
    if (postgres_options_of(loader_experiment(l))->n_settings)
        return yaml_fail(loader_reader(l), f->key_node, "variant %s connects to a server verdict does not "
                         "start (conninfo): the postgres 'settings' cannot be applied to it "
                         "(give them to the other variants one by one)", ev->name);
    return 0;
}

/* A directory is checked now, so that a mistyped tree fails here rather than deep inside
 * a build (a git ref is checked when it is exported). */
static int check_source_tree(experiment_loader *l, const yaml_field *f,
                             const experiment_variant *ev)
{
    const char *found = NULL;
    static const char *const builds[] = {"configure", "meson.build"};
    for (size_t i = 0; i < 2 && found == NULL; i++) {
        strbuf path = STRBUF_INIT;
        struct stat st;
        strbuf_appendf(&path, "%s/%s", ev->source.path, builds[i]);
        if (stat(strbuf_text(&path), &st) == 0 && S_ISREG(st.st_mode))
            found = builds[i];
        strbuf_free(&path);
    }
    if (found == NULL)
        return yaml_fail(loader_reader(l), f->key_node, "the source of variant %s, '%s', has "
                         "neither configure nor meson.build: give the top directory of a "
                         "PostgreSQL source tree", ev->name, ev->source.path);
    return 0;
}

int postgres_finish_variant(experiment_loader *l, const yaml_field *f,
                                   experiment_variant *ev)
{
    postgres_variant *v = pg_variant(ev);
    if (v == NULL)
        return yaml_fail(loader_reader(l), f->key_node, "out of memory");
    int given = (v->bindir != NULL) + (ev->source.path != NULL) + (v->conninfo != NULL);
    if (given != 1)
        return yaml_fail(loader_reader(l), f->key_node, "variant %s has %s of bindir, source and "
                         "conninfo: give exactly one (an installed PostgreSQL, a source tree "
                         "verdict builds, or a running server)", ev->name,
                         given ? "more than one" : "none");
    if (v->source_only && ev->source.path == NULL)
        return yaml_fail(loader_reader(l), v->source_only, "'%s' of variant %s needs 'source': "
                         "it describes a build from source", v->source_only_key, ev->name);
    if (v->configure && v->meson)
        return yaml_fail(loader_reader(l), f->key_node, "variant %s gives both 'configure' and "
                         "'meson': a tree is built one way", ev->name);
    if (v->conninfo)
        return check_conninfo_variant(l, f, ev, v);
    return ev->source.path && ev->source.ref == NULL ? check_source_tree(l, f, ev) : 0;
}

/* "A: text" is no server. */
int postgres_variant_scalar(experiment_loader *l, const yaml_field *f,
                                   experiment_variant *v)
{
    return yaml_fail_field(loader_reader(l), f, "with 'target: postgres' variant %s is a "
                           "mapping (bindir, source or conninfo, settings, env), not a command",
                           v->name);
}

/* ---- the file as a whole ---- */

int postgres_begin_file(experiment_loader *l)
{
    experiment *e = loader_experiment(l);
    postgres_options *pg = calloc(1, sizeof *pg);
    if (pg == NULL)
        return yaml_fail(loader_reader(l), NULL, "out of memory");
    pg->scale = 10;
    pg->fresh = PG_FRESH_RUN;
    pg->pin = PG_PIN_NONE;
    e->target_options = pg;
    return 0;
}

int postgres_finish_file(experiment_loader *l)
{
    const postgres_options *pg = postgres_options_of(loader_experiment(l));
    if (!pg->has_workload)
        return yaml_fail(loader_reader(l), loader_target_node(l), "'target: postgres' needs "
                         "'workload: {pgbench: [arguments]}': what pgbench runs against each "
                         "variant's server");
    if (postgres_finish_analytic(l) != 0)
        return -1;
    return postgres_finish_counters(l);
}

const experiment_key postgres_top_keys[POSTGRES_N_TOP_KEYS] = {
    {"postgres", top_postgres, 1},
    {"workload", top_workload, 1},
};

const experiment_key postgres_variant_keys[POSTGRES_N_VARIANT_KEYS] = {
    {"bindir", variant_bindir, 1},       {"configure", variant_configure, 1},
    {"meson", variant_meson, 1},         {"cflags", variant_cflags, 1},
    {"conninfo", variant_conninfo, 1},   {"settings", variant_settings, 1},
};

/* ---- the plan ---- */

/* A source variant's build is in the plan through its content key (core): the recipe's
 * options are in that key, and named here too so that a plan read back is the same. */
void postgres_hash_variant(uint64_t *h, const experiment *e, const experiment_variant *ev)
{
    (void)e;
    const postgres_variant *v = postgres_variant_of(ev);
    if (v == NULL)
        return;
    plan_hash_field(h, 'B', v->bindir);
    plan_hash_field(h, 'O', v->configure);
    plan_hash_field(h, 'N', v->meson);
    plan_hash_field(h, 'F', v->cflags);
    plan_hash_field(h, 'C', v->conninfo);
    plan_hash_pairs(h, 'G', v->settings, v->n_settings);
}

void postgres_hash_plan(uint64_t *h, const experiment *e)
{
    const postgres_options *pg = postgres_options_of(e);
    plan_hash_field(h, 'T', "postgres");
    plan_hash_number(h, 'z', (uint64_t)pg->scale);
    plan_hash_pairs(h, 'g', pg->settings, pg->n_settings);
    plan_hash_number(h, 'f', pg->fresh);
    plan_hash_number(h, 'i', pg->pin);
    if (pg->warm_runs > 0) /* absent from older plans: they stay resumable */
        plan_hash_number(h, 'w', (uint64_t)pg->warm_runs);
    plan_hash_field(h, 'a', pg->run_as);
    plan_hash_number(h, 'L', pg->n_workload);
    for (size_t i = 0; i < pg->n_workload; i++)
        plan_hash_field(h, 'l', pg->workload[i]);
    postgres_hash_analytic(h, pg);
    if (pg->counters != PG_COUNTERS_NONE) /* absent from older plans: they stay resumable */
        plan_hash_number(h, 'k', (uint64_t)pg->counters);
}

/* ---- freeing ---- */

void postgres_free_variant(experiment_variant *ev)
{
    postgres_variant *v = ev->options;
    if (v == NULL)
        return;
    free(v->bindir);
    free(v->configure);
    free(v->meson);
    free(v->cflags);
    free(v->conninfo);
    loader_free_pairs(v->settings, v->n_settings);
    command_words_free(&v->configure_words);
    command_words_free(&v->meson_words);
    free(v);
    ev->options = NULL;
}

void postgres_free_options(experiment *e)
{
    postgres_options *pg = e->target_options;
    if (pg == NULL)
        return;
    loader_free_pairs(pg->settings, pg->n_settings);
    free(pg->run_as);
    free(pg->cache_dir);
    for (size_t i = 0; i < pg->n_workload; i++)
        free(pg->workload[i]);
    free(pg->workload);
    free(pg->workload_line);
    postgres_free_analytic(pg);
    free(pg);
    e->target_options = NULL;
}

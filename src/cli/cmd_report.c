/* `verdict report STORE`: re-analyses the experiment a store keeps (a file's, or one the
 * command line described) from the text stored with it, exactly as its run reported it. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/command_list.h"
#include "cli/commands.h"
#include "cli/experiment_run.h"
#include "cli/options.h"
#include "common/array.h"
#include "common/error.h"
#include "core/experiment.h"
#include "report/machine_table.h"
#include "store/store.h"
#include "targets/targets.h"

typedef struct {
    report_choices report;
    const char *store_path;
    const char *experiment;  /* --experiment NAME; NULL: the latest */
    const char *directory;   /* --dir: where the experiment's relative paths lead */
    bool list, machines;
} report_settings;

enum { REPORT_CMD_LIST = 0x2000, REPORT_CMD_EXPERIMENT, REPORT_CMD_MACHINES, REPORT_CMD_DIR };

const char cmd_report_help[] =
    "usage: verdict report STORE [OPTIONS]\n"
    "\n"
    "Re-analyses the experiment kept in STORE (a SQLite file written by verdict run, or by\n"
    "verdict and verdict kernel with --store; or a fleet's PostgreSQL URI) and prints the\n"
    "same report; with options, analyses it differently or exports it. Nothing is run.\n"
    "\n"
    "      --list              list the experiments the store holds\n"
    "      --experiment NAME   report this one (default: the one run last)\n"
    "      --dir DIR           where the experiment's files are (its sources, patches):\n"
    "                          relative paths of the stored text are relative to DIR\n"
    "                          (default: the current directory)\n"
    "      --machines          tabulate the machines that ran or joined the store's\n"
    "                          experiments: CPU, ISA extensions, the CRC-32C path,\n"
    "                          compiler, kernel (with --json FILE: as JSON)\n"
    "@report-options\n"
    "  -h, --help              show this help\n"
    "\n"
    "exit status: 0 done, 1 internal failure, 2 usage or no such store, 4 --fail-if.\n";

static int apply_report_option(int opt, const char *arg, void *settings, verdict_error *err)
{
    report_settings *s = settings;
    if (opt == REPORT_CMD_LIST || opt == REPORT_CMD_MACHINES) {
        *(opt == REPORT_CMD_LIST ? &s->list : &s->machines) = true;
        return 0;
    }
    if (opt == REPORT_CMD_EXPERIMENT || opt == REPORT_CMD_DIR) {
        *(opt == REPORT_CMD_EXPERIMENT ? &s->experiment : &s->directory) = arg;
        return 0;
    }
    int rc = report_choice_apply(&s->report, opt, arg, err);
    if (rc <= 0)
        return rc;
    error_set(err, ERROR_USAGE, "unknown option (see verdict report --help)");
    return -1;
}

static int parse_report_args(int argc, char **argv, report_settings *s, verdict_error *err)
{
    static const struct option options[] = {
        REPORT_LONG_OPTIONS, {"list", no_argument, NULL, REPORT_CMD_LIST},
        {"experiment", required_argument, NULL, REPORT_CMD_EXPERIMENT},
        {"machines", no_argument, NULL, REPORT_CMD_MACHINES},
        {"dir", required_argument, NULL, REPORT_CMD_DIR},
        {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0},
    };
    memset(s, 0, sizeof *s);
    int first = walk_options(argc, argv, "h", options, "verdict report",
                             apply_report_option, s, err);
    if (first == OPTIONS_HELP)
        return 1;
    if (first == OPTIONS_ERROR)
        return -1;
    if (argc - optind != 1) {
        error_set(err, ERROR_USAGE, "report needs exactly one store (see verdict report --help)");
        return -1;
    }
    s->store_path = argv[optind];
    return 0;
}

/* Reads the experiment back from the text stored with its results: the one named, or the
 * one run last. */
static int load_stored_experiment(store *db, const char *wanted, const char *directory,
                                  int64_t *id, experiment *e, const char *path, verdict_error *err)
{
    store_experiment stored;
    if ((wanted ? store_find_experiment(db, wanted, id, err)
              : store_latest_experiment(db, id, err)) != 0 ||
        store_get_experiment(db, *id, &stored, err) != 0)
        return -1;
    char name[4096];
    snprintf(name, sizeof name, "%s (experiment %s as stored)", path, stored.name);
    if (targets_parse_experiment_in(name, stored.text, stored.text_length, directory, e, err) != 0)
        return -1;
    /* the seed the run settled: from the plan when the text has none */
    e->seed = stored.seed;
    return 0;
}

static int print_experiment_line(void *context, int64_t id, const store_experiment *e)
{
    (void)id;
    FILE *out = context;
    fprintf(out, "%s\tverdict %s\tseed %llu\n", e->name, e->tool_version,
            (unsigned long long)e->seed);
    return 0;
}

/* --list: one line per experiment, oldest first: name, the verdict that made it, its seed. */
static int list_experiments(store *db, verdict_error *err)
{
    return store_for_each_experiment(db, print_experiment_line, stdout, err) == 0
               ? EXIT_DONE : error_exit_status(err->kind);
}

/* Every machine's facts, copied out of the store's callback, as the survey's rows. */
typedef struct {
    machine_table_row *rows;
    size_t *first;                /* each row's first fact: the facts array moves as it grows */
    report_fact *facts;           /* every row's, contiguous per machine */
    char **strings;
    size_t n_rows, n_facts, n_strings, rows_capacity, first_capacity, facts_capacity,
        strings_capacity;
} machine_survey;

static const char *survey_keep(machine_survey *m, const char *text)
{
    if (array_reserve((void **)&m->strings, &m->strings_capacity, m->n_strings + 1,
                      sizeof *m->strings) != 0)
        return NULL;
    char *copy = strdup(text);
    if (copy)
        m->strings[m->n_strings++] = copy;
    return copy;
}

static int survey_fact(void *context, const char *machine, const char *key, const char *value)
{
    machine_survey *m = context;
    bool new_row = m->n_rows == 0 || strcmp(m->rows[m->n_rows - 1].machine, machine) != 0;
    if (new_row) {
        const char *name = survey_keep(m, machine);
        if (name == NULL ||
            array_reserve((void **)&m->rows, &m->rows_capacity, m->n_rows + 1,
                          sizeof *m->rows) != 0 ||
            array_reserve((void **)&m->first, &m->first_capacity, m->n_rows + 1,
                          sizeof *m->first) != 0)
            return -1;
        m->first[m->n_rows] = m->n_facts;
        m->rows[m->n_rows++] = (machine_table_row){name, NULL, 0};
    }
    const char *k = survey_keep(m, key), *v = survey_keep(m, value);
    if (k == NULL || v == NULL || array_reserve((void **)&m->facts, &m->facts_capacity,
                                                m->n_facts + 1, sizeof *m->facts) != 0)
        return -1;
    m->facts[m->n_facts++] = (report_fact){k, v};
    m->rows[m->n_rows - 1].n_facts++;
    return 0;
}

static void survey_free(machine_survey *m)
{
    for (size_t i = 0; i < m->n_strings; i++)
        free(m->strings[i]);
    free(m->strings);
    free(m->rows);
    free(m->first);
    free(m->facts);
}

/* --machines: the fleet's survey, as text or (with --json) as JSON. */
static int report_machines(store *db, const report_choices *c, verdict_error *err)
{
    machine_survey m = {0};
    int rc = store_for_each_machine_fact(db, survey_fact, &m, err);
    if (rc > 0 || (rc < 0 && err->kind == ERROR_NONE))
        error_no_memory(err);
    for (size_t i = 0; rc == 0 && i < m.n_rows; i++)
        m.rows[i].facts = m.facts + m.first[i];
    const char *json = c->exports.json;
    FILE *out = json && strcmp(json, "-") != 0 ? fopen(json, "w") : stdout;
    if (rc == 0 && out == NULL) {
        error_set(err, ERROR_USAGE, "%s: cannot open for writing: %s", json, strerror(errno));
        rc = -1;
    }
    if (rc == 0 && m.n_rows == 0) {
        error_set(err, ERROR_USAGE, "the store holds no machine yet (verdict env --store records "
                  "one; every run records its own)");
        rc = -1;
    }
    if (rc == 0)
        rc = json ? machine_table_write_json(out, m.rows, m.n_rows, err)
                  : machine_table_write_text(out, m.rows, m.n_rows, err);
    if (out && out != stdout && fclose(out) != 0 && rc == 0) {
        error_set(err, ERROR_USAGE, "%s: cannot write: %s", json, strerror(errno));
        rc = -1;
    }
    survey_free(&m);
    return rc == 0 ? EXIT_DONE : error_exit_status(err->kind);
}

static int report_store(const report_settings *s, store *db, verdict_error *err)
{
    if (s->list)
        return list_experiments(db, err);
    if (s->machines)
        return report_machines(db, &s->report, err);
    experiment e;
    int64_t id = 0;
    int rc = -1;
    experiment_init(&e);
    char *shown = store_display_name(s->store_path);
    if (shown == NULL)
        error_no_memory(err);
    else if (load_stored_experiment(db, s->experiment, s->directory ? s->directory : ".", &id,
                                    &e, shown, err) == 0)
        rc = cli_report("verdict report", db, id, &e, &s->report);
    if (rc < 0)
        rc = error_exit_status(err->kind);
    free(shown);
    experiment_free(&e);
    return rc;
}

int cmd_report(int argc, char **argv)
{
    report_settings s;
    verdict_error err = {0};
    int parsed = parse_report_args(argc, argv, &s, &err);
    if (parsed == 1) {
        cli_help_write(cmd_report_help, stdout);
        return EXIT_DONE;
    }
    if (parsed != 0 || report_exports_check(&s.report.exports, &err) != 0) {
        fprintf(stderr, "verdict report: %s\n", err.message);
        return EXIT_USAGE;
    }
    if (!store_is_postgres(s.store_path) && access(s.store_path, R_OK) != 0) {
        fprintf(stderr, "verdict report: %s: no such store\n", s.store_path);
        return EXIT_USAGE;
    }
    store *db = NULL;
    int rc = store_open(s.store_path, &db, &err) == 0 ? report_store(&s, db, &err)
                                                       : error_exit_status(err.kind);
    if (err.kind != ERROR_NONE && rc != EXIT_DONE && rc != EXIT_GATE)
        fprintf(stderr, "verdict report: %s\n", err.message);
    if (db)
        store_close(db);
    return rc;
}

/* `verdict env`: prints the machine's facts, the noise checks (pass/warn/info) and which
 * counters it can count, and optionally writes them as a verdict-env/1 JSON document. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <getopt.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/command_list.h"
#include "cli/calibration_state.h"
#include "cli/commands.h"
#include "cli/experiment_run.h"
#include "cli/options.h"
#include "common/error.h"
#include "core/cachegrind.h"
#include "env/checks.h"
#include "env/machine.h"
#include "env/perf_counters.h"
#include "lab/lab_store.h"
#include "store/store.h"
#include "version.h"

#define DEFAULT_SAMPLE_SECONDS 1.0
/* A longer sample is a benchmark of its own, not a check. */
#define MAX_SAMPLE_SECONDS 600.0

typedef struct {
    const char *json_path;
    double seconds;
    const char *store, *machine;
} env_settings;

const char cmd_env_help[] =
    "usage: verdict env [--json FILE|-] [--seconds S] [--store STORE [--machine NAME]]\n"
    "\n"
    "Prints facts about this machine (CPU, kernel, frequency governor, turbo, SMT,\n"
    "virtualization, load, compilers) and checks what would make timings noisy.\n"
    "Steal time and other load are measured while verdict sleeps for S seconds.\n"
    "Then every counter --metric can name, whether this machine can count it (and\n"
    "why not), and whether valgrind is there for --counters valgrind.\n"
    "\n"
    "options:\n"
    "      --json FILE     write the verdict-env/1 JSON document ('-' for stdout; the\n"
    "                      table then goes to stderr)\n"
    "      --seconds S     measure steal and other load over S seconds (default 1;\n"
    "                      0 skips the measurement)\n"
    "      --store STORE   also record the facts as this machine's in a fleet's store\n"
    "                      (a PostgreSQL URI or a SQLite file), for verdict report\n"
    "                      STORE --machines; nothing is run\n"
    "      --machine NAME  the machine's name there (default: the host name)\n"
    "  -h, --help          show this help\n"
    "\n"
    "After the counters, the calibration verdict calibrate kept for this machine: when,\n"
    "its false-positive rate with its interval, the noise, the method that decides fastest.\n"
    "\n"
    "Each check prints pass, warn or info with a stable code; docs/environment.md says\n"
    "what each one means and what to do about a warning.\n"
    "exit status: 0 done (whatever the checks say), 1 internal failure, 2 bad options.\n";

static int parse_seconds(const char *text, double *out, verdict_error *err)
{
    char *end = NULL;
    errno = 0;
    double value = strtod(text, &end);
    if (end == text || *end != '\0' || errno == ERANGE || !(value >= 0.0) ||
        value > MAX_SAMPLE_SECONDS) {
        error_set(err, ERROR_USAGE, "--seconds '%s': must be a number of seconds from 0 to %.0f",
                  text, MAX_SAMPLE_SECONDS);
        return -1;
    }
    *out = value;
    return 0;
}

/* Returns 0, 1 after --help, or -1 on a bad option (message in err). */
static int parse_env_args(int argc, char **argv, env_settings *s, verdict_error *err)
{
    static const struct option long_options[] = {
        {"json", required_argument, NULL, 'j'},
        {"seconds", required_argument, NULL, 's'},
        {"store", required_argument, NULL, 'S'},
        {"machine", required_argument, NULL, 'M'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int opt;
    opterr = 0;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "+h", long_options, NULL)) != -1) {
        if (opt == 'h')
            return 1;
        if (opt == 'j')
            s->json_path = optarg;
        else if (opt == 'S')
            s->store = optarg;
        else if (opt == 'M') {
            s->machine = optarg;
            if (cli_check_machine_name(optarg, err) != 0)
                return -1;
        }
        else if (opt == 's') {
            if (parse_seconds(optarg, &s->seconds, err) != 0)
                return -1;
        } else {
            error_set(err, ERROR_USAGE, "%s: unknown option or missing value (see verdict env "
                      "--help)", argv[optind - 1]);
            return -1;
        }
    }
    if (s->machine && s->store == NULL) {
        error_set(err, ERROR_USAGE, "--machine names this machine in a store: give --store too");
        return -1;
    }
    if (optind < argc) {
        error_set(err, ERROR_USAGE, "unexpected argument '%s' (see verdict env --help)",
                  argv[optind]);
        return -1;
    }
    return 0;
}

static void print_facts(const machine_facts *facts, FILE *out)
{
    int width = 0;
    for (size_t i = 0; i < facts->n; i++) {
        int len = (int)strlen(facts->facts[i].key);
        width = len > width ? len : width;
    }
    for (size_t i = 0; i < facts->n; i++)
        fprintf(out, "%-*s  %s\n", width, facts->facts[i].key, facts->facts[i].value);
}

static void print_checks(const env_check *checks, size_t n, FILE *out)
{
    int width = 0;
    for (size_t i = 0; i < n; i++) {
        int len = (int)strlen(checks[i].code);
        width = len > width ? len : width;
    }
    for (size_t i = 0; i < n; i++)
        fprintf(out, "%s  %-*s  %s\n", check_status_name(checks[i].status), width,
                checks[i].code, checks[i].message);
}

/* One counter as perf_event_open is asked for it: can it be counted here, and why not. */
typedef struct {
    char name[48];
    bool hardware, countable;
    char reason[ERROR_MESSAGE_SIZE];
} env_counter;

/* Every event of the table at its default level, probed; and valgrind, for the others. */
static size_t probe_counters(env_counter *out, size_t max, char *valgrind, size_t len)
{
    size_t n = 0;
    for (size_t i = 0; i < perf_counters_event_count() && n < max; i++, n++) {
        const perf_counters_event *event = perf_counters_event_at(i);
        perf_counters_spec spec = {event, event->default_scope};
        verdict_error why = {0};
        env_counter *c = &out[n];
        perf_counters_spec_name(&spec, c->name, sizeof c->name);
        c->hardware = event->hardware;
        c->countable = perf_counters_probe(&spec, &why) == 0;
        /* "cannot count 'instructions:u': " is the table's first column already */
        const char *words = strstr(why.message, "': ");
        snprintf(c->reason, sizeof c->reason, "%s", c->countable ? "" : words ? words + 3
                                                                            : why.message);
    }
    verdict_error why = {0};
    if (cachegrind_find_valgrind(valgrind, len, &why) != 0)
        snprintf(valgrind, len, "%s", "");
    return n;
}

static void print_counters(const env_counter *counters, size_t n, const char *valgrind,
                           FILE *out)
{
    fputs("\ncounters (--metric NAME, counted by perf_event_open; docs/metrics.md)\n", out);
    for (size_t i = 0; i < n; i++) {
        /* a PMU that is absent refuses every hardware event alike: said once */
        bool as_above = i > 0 && !counters[i].countable && !counters[i - 1].countable &&
                        strncmp(counters[i].reason, counters[i - 1].reason, 40) == 0;
        fprintf(out, "  %-24s %s%s%s\n", counters[i].name, counters[i].countable ? "yes" : "no ",
                counters[i].countable ? "" : " ", as_above ? "as above" : counters[i].reason);
    }
    fputs("  ratios: ipc (instructions / cycles), branch-miss-rate (branch-misses / branches)\n",
          out);
    if (valgrind[0] == '\0')
        fputs("valgrind: not installed (apt-get install valgrind): --counters valgrind cannot "
              "count\n", out);
    else
        fprintf(out, "valgrind: %s: --counters valgrind counts instructions exactly, and with "
                "simulation cache-misses, branch-misses and the like\n", valgrind);
}

static double number_at(const json_t *doc, const char *key)
{
    json_t *x = json_object_get(doc, key);
    return json_is_number(x) ? json_number_value(x) : NAN;
}

/* The last calibration kept (calibration_state_load), or a line saying there is none. */
static void print_calibration(const json_t *c, FILE *out)
{
    if (c == NULL) {
        fputs("calibration: none kept for this machine (verdict calibrate measures one)\n",
              out);
        return;
    }
    const json_t *ci = json_object_get(c, "rate_ci"), *noise = json_object_get(c, "noise");
    const char *fastest = json_string_value(json_object_get(c, "fastest"));
    fprintf(out, "calibration (verdict calibrate, %s): %.0f of %.0f A/A experiments called "
            "different with %s: %.1f%% (95%% interval %.1f%% to %.1f%%); CV %.1f%%, slow runs "
            "%.0f%%; decides fastest here: %s\n",
            json_string_value(json_object_get(c, "date")),
            number_at(c, "false_positives"), number_at(c, "experiments"),
            json_string_value(json_object_get(c, "method")), 100 * number_at(c, "rate"),
            100 * json_number_value(json_array_get(ci, 0)),
            100 * json_number_value(json_array_get(ci, 1)), 100 * number_at(noise, "cv"),
            100 * number_at(noise, "slow_share"), fastest ? fastest : "none (no method's "
            "rate interval reached 5%)");
}

static json_t *counters_json(const env_counter *counters, size_t n)
{
    json_t *list = json_array();
    for (size_t i = 0; list && i < n; i++)
        json_array_append_new(list, json_pack("{s:s, s:b, s:b, s:s?}", "name", counters[i].name,
                                              "hardware", counters[i].hardware, "countable",
                                              counters[i].countable, "reason",
                                              counters[i].countable ? NULL
                                                                    : counters[i].reason));
    return list;
}

static json_t *env_document(const machine_facts *facts, const env_check *checks, size_t n,
                            const env_counter *counters, size_t n_counters,
                            const char *valgrind, json_t *calibration)
{
    json_t *facts_json = json_object();
    for (size_t i = 0; i < facts->n; i++)
        json_object_set_new(facts_json, facts->facts[i].key, json_string(facts->facts[i].value));
    json_t *checks_json = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(checks_json,
                              json_pack("{s:s, s:s, s:s}", "status",
                                        check_status_name(checks[i].status), "code",
                                        checks[i].code, "message", checks[i].message));
    return json_pack("{s:s, s:o, s:o, s:o, s:s?, s:O}", "schema", "verdict-env/1", "facts",
                     facts_json, "checks", checks_json, "counters",
                     counters_json(counters, n_counters), "valgrind",
                     valgrind[0] ? valgrind : NULL, "calibration",
                     calibration ? calibration : json_null());
}

static int write_json(const char *path, json_t *doc, verdict_error *err)
{
    bool to_stdout = strcmp(path, "-") == 0;
    FILE *out = to_stdout ? stdout : fopen(path, "w");
    if (out == NULL) {
        error_set(err, ERROR_USAGE, "%s: cannot open for writing: %s", path, strerror(errno));
        return -1;
    }
    int rc = json_dumpf(doc, out, JSON_INDENT(2)) == 0 && fputc('\n', out) != EOF ? 0 : -1;
    if (to_stdout)
        rc = fflush(out) == 0 ? rc : -1;
    else if (fclose(out) != 0)
        rc = -1;
    if (rc != 0)
        error_set(err, ERROR_USAGE, "%s: cannot write the JSON document", path);
    return rc;
}

/* The facts as this machine's in the store (replacing what it had), for the fleet survey. */
static int record_machine(const env_settings *s, machine_facts *facts)
{
    char machine[256];
    cli_machine_name(s->machine, true, machine, sizeof machine);
    verdict_error err;
    error_clear(&err);
    store *db = NULL;
    if (store_open(s->store, &db, &err) != 0) {
        fprintf(stderr, "verdict env: %s\n", err.message);
        return error_exit_status(err.kind);
    }
    int rc = lab_record_machine(db, machine, facts, &err);
    store_close(db);
    if (rc != 0) {
        fprintf(stderr, "verdict env: %s\n", err.message);
        return error_exit_status(err.kind);
    }
    char *shown = store_display_name(s->store);
    fprintf(stderr, "verdict env: recorded machine %s in %s\n", machine, shown ? shown : "");
    free(shown);
    return EXIT_DONE;
}

static int report_env(const env_settings *s, const machine_facts *facts, const env_check *checks,
                      size_t n, verdict_error *err)
{
    FILE *text = s->json_path && strcmp(s->json_path, "-") == 0 ? stderr : stdout;
    print_facts(facts, text);
    fputc('\n', text);
    print_checks(checks, n, text);
    env_counter counters[32];
    char valgrind[PATH_MAX];
    size_t n_counters = probe_counters(counters, 32, valgrind, sizeof valgrind);
    print_counters(counters, n_counters, valgrind, text);
    json_t *calibration = calibration_state_load();
    fputc('\n', text);
    print_calibration(calibration, text);
    json_t *doc = s->json_path ? env_document(facts, checks, n, counters, n_counters, valgrind,
                                              calibration)
                               : NULL;
    int rc = s->json_path == NULL ? EXIT_DONE
             : doc == NULL ? error_set(err, ERROR_NO_MEMORY, "cannot build the JSON document "
                                       "(out of memory)")
             : write_json(s->json_path, doc, err) == 0 ? EXIT_DONE : -1;
    if (rc < 0)
        rc = error_exit_status(err->kind);
    json_decref(doc);
    json_decref(calibration);
    return rc;
}

int cmd_env(int argc, char **argv)
{
    env_settings s = {.json_path = NULL, .seconds = DEFAULT_SAMPLE_SECONDS};
    verdict_error err = {0};
    int parsed = parse_env_args(argc, argv, &s, &err);
    if (parsed != 0) {
        if (parsed > 0)
            cli_help_write(cmd_env_help, stdout);
        else
            fprintf(stderr, "verdict env: %s\n", err.message);
        return parsed > 0 ? EXIT_DONE : EXIT_USAGE;
    }
    machine_facts facts;
    if (machine_facts_collect(&facts, MACHINE_FACTS_ALL, &err) != 0) {
        fprintf(stderr, "verdict env: %s\n", err.message);
        return error_exit_status(err.kind);
    }
    env_check *checks = NULL;
    size_t n = 0;
    int rc = -1;
    if (machine_facts_set(&facts, "verdict", VERDICT_VERSION) != 0)
        error_no_memory(&err);
    else if (env_checks_run(&facts, s.seconds, &checks, &n, &err) == 0)
        rc = report_env(&s, &facts, checks, n, &err);
    if (rc < 0)
        rc = error_exit_status(err.kind);
    if (rc == EXIT_DONE && s.store) {
        rc = record_machine(&s, &facts);
        error_clear(&err); /* said already */
    }
    env_checks_free(checks, n);
    machine_facts_free(&facts);
    if (rc != EXIT_DONE && err.kind != ERROR_NONE)
        fprintf(stderr, "verdict env: %s\n", err.message);
    return rc;
}

/* Unit tests for src/pg/pgbench_output.c: every field of every recorded pgbench output
 * (outputs/, PostgreSQL 9.6 to 17), the --log percentiles against R, and malformed input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"

#include "pg/pgbench_output.h"

#ifndef PGBENCH_OUTPUTS_DIR
#error "PGBENCH_OUTPUTS_DIR must name tests/pg/outputs"
#endif

/* ---- helpers ------------------------------------------------------------------------ */

static char *read_output(const char *name, size_t *length)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", PGBENCH_OUTPUTS_DIR, name);
    FILE *file = fopen(path, "rb");
    if (file == NULL)
        fail_msg("cannot open %s", path);
    char *text = NULL;
    size_t used = 0, capacity = 0;
    for (;;) {
        if (used + 4096 > capacity) {
            capacity = capacity * 2 + 8192;
            text = realloc(text, capacity);
            assert_non_null(text);
        }
        size_t got = fread(text + used, 1, capacity - used, file);
        used += got;
        if (got == 0)
            break;
    }
    fclose(file);
    *length = used;
    return text;
}

/* What a result holds when pgbench printed nothing but a tps line: the defaults are
 * spelled out here rather than taken from the parser, so that they are tested too. */
static void expect_nothing_printed(pgbench_result *e)
{
    memset(e, 0, sizeof *e);
    e->scaling_factor = -1;
    e->clients = -1;
    e->threads = -1;
    e->transactions_per_client = -1;
    e->duration_s = NAN;
    e->transactions_processed = -1;
    e->transactions_expected = -1;
    e->latency_average_ms = NAN;
    e->latency_stddev_ms = NAN;
    e->schedule_lag_ms = NAN;
    e->initial_connection_ms = NAN;
    e->average_connection_ms = NAN;
    e->tps = NAN;
    e->tps_kind = PGBENCH_TPS_UNQUALIFIED;
    e->tps_including_connections = NAN;
}

/* The header every pgbench summary starts with. */
static void expect_header(pgbench_result *e, const char *version, const char *type, long scale,
                          const char *mode, long clients, long threads)
{
    expect_nothing_printed(e);
    snprintf(e->pgbench_version, sizeof e->pgbench_version, "%s", version);
    snprintf(e->transaction_type, sizeof e->transaction_type, "%s", type);
    e->scaling_factor = scale;
    snprintf(e->mode, sizeof e->mode, "%s", mode);
    e->clients = clients;
    e->threads = threads;
}

static void expect_fixed_count(pgbench_result *e, long per_client, long processed, long expected)
{
    e->transactions_per_client = per_client;
    e->transactions_processed = processed;
    e->transactions_expected = expected;
}

static void expect_duration(pgbench_result *e, double seconds, long processed)
{
    e->duration_s = seconds;
    e->transactions_processed = processed;
}

static void expect_tps(pgbench_result *e, double tps, pgbench_tps_kind kind, double including)
{
    e->tps = tps;
    e->tps_kind = kind;
    e->tps_including_connections = including;
}

static void expect_script(pgbench_result *e, const char *name, long weight, double percent,
                          long transactions, double tps, long failed, double latency,
                          double stddev)
{
    pgbench_script_result *s = &e->scripts[e->n_scripts++];
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "%s", name);
    s->weight = weight;
    s->weight_percent = percent;
    s->transactions = transactions;
    s->tps = tps;
    s->transactions_failed = failed;
    s->latency_average_ms = latency;
    s->latency_stddev_ms = stddev;
}

static void assert_same_number(double got, double want, const char *field)
{
    if (isnan(want)) {
        if (!isnan(got))
            fail_msg("%s: got %.17g, want NaN", field, got);
        return;
    }
    if (!(fabs(got - want) <= 1e-12 * fmax(1.0, fabs(want))))
        fail_msg("%s: got %.17g, want %.17g", field, got, want);
}

static void assert_same_count(long got, long want, const char *field)
{
    if (got != want)
        fail_msg("%s: got %ld, want %ld", field, got, want);
}

static void assert_same_text(const char *got, const char *want, const char *field)
{
    if (strcmp(got, want) != 0)
        fail_msg("%s: got \"%s\", want \"%s\"", field, got, want);
}

static void assert_same_result(const pgbench_result *got, const pgbench_result *want)
{
    assert_same_text(got->pgbench_version, want->pgbench_version, "pgbench_version");
    assert_same_text(got->transaction_type, want->transaction_type, "transaction_type");
    assert_same_count(got->scaling_factor, want->scaling_factor, "scaling_factor");
    assert_same_text(got->mode, want->mode, "mode");
    assert_same_count(got->clients, want->clients, "clients");
    assert_same_count(got->threads, want->threads, "threads");
    assert_same_count(got->max_tries, want->max_tries, "max_tries");
    assert_same_count(got->transactions_per_client, want->transactions_per_client,
                      "transactions_per_client");
    assert_same_number(got->duration_s, want->duration_s, "duration_s");
    assert_same_count(got->transactions_processed, want->transactions_processed,
                      "transactions_processed");
    assert_same_count(got->transactions_expected, want->transactions_expected,
                      "transactions_expected");
    assert_same_count(got->transactions_failed, want->transactions_failed, "transactions_failed");
    assert_same_count(got->transactions_retried, want->transactions_retried,
                      "transactions_retried");
    assert_same_count(got->transactions_skipped, want->transactions_skipped,
                      "transactions_skipped");
    assert_same_number(got->latency_average_ms, want->latency_average_ms, "latency_average_ms");
    assert_same_number(got->latency_stddev_ms, want->latency_stddev_ms, "latency_stddev_ms");
    assert_same_count(got->latency_includes_failures, want->latency_includes_failures,
                      "latency_includes_failures");
    assert_same_number(got->schedule_lag_ms, want->schedule_lag_ms, "schedule_lag_ms");
    assert_same_number(got->initial_connection_ms, want->initial_connection_ms,
                       "initial_connection_ms");
    assert_same_number(got->average_connection_ms, want->average_connection_ms,
                       "average_connection_ms");
    assert_same_number(got->tps, want->tps, "tps");
    assert_same_text(pgbench_tps_kind_name(got->tps_kind), pgbench_tps_kind_name(want->tps_kind),
                     "tps_kind");
    assert_same_number(got->tps_including_connections, want->tps_including_connections,
                       "tps_including_connections");
    assert_same_count((long)got->n_scripts, (long)want->n_scripts, "n_scripts");
    for (size_t i = 0; i < want->n_scripts; i++) {
        const pgbench_script_result *g = &got->scripts[i], *w = &want->scripts[i];
        assert_same_text(g->name, w->name, "script name");
        assert_same_count(g->weight, w->weight, "script weight");
        assert_same_number(g->weight_percent, w->weight_percent, "script weight_percent");
        assert_same_count(g->transactions, w->transactions, "script transactions");
        assert_same_number(g->tps, w->tps, "script tps");
        assert_same_count(g->transactions_failed, w->transactions_failed, "script failed");
        assert_same_number(g->latency_average_ms, w->latency_average_ms, "script latency");
        assert_same_number(g->latency_stddev_ms, w->latency_stddev_ms, "script stddev");
    }
    assert_same_count(got->partial, want->partial, "partial");
    assert_same_text(got->partial_reason, want->partial_reason, "partial_reason");
}

/* ---- one expectation per recorded output ---------------------------------------------- */

typedef struct {
    const char *file;
    int exit_code;
    void (*expect)(pgbench_result *e);
} recorded_case;

static void expect_pg96_tpcb_t(pgbench_result *e)
{
    expect_header(e, "", "<builtin: TPC-B (sort of)>", 10, "simple", 10, 1);
    expect_fixed_count(e, 1000, 10000, 10000);
    e->latency_average_ms = 117.393;
    expect_tps(e, 85.296346, PGBENCH_TPS_EXCLUDING_CONNECTIONS, 85.184871);
}

static void expect_pg96_mixed_scripts(pgbench_result *e)
{
    expect_header(e, "", "multiple scripts", 100, "prepared", 40, 40);
    expect_duration(e, 300, 162817245);
    e->latency_average_ms = 0.074;
    expect_tps(e, 542776.164921, PGBENCH_TPS_EXCLUDING_CONNECTIONS, 542718.946412);
    expect_script(e, "<builtin: TPC-B (sort of)>", 1, 10.0, 16279914, 54265.806341, 0, 0.443,
                  0.512);
    expect_script(e, "<builtin: select only>", 9, 90.0, 146537331, 488453.140071, 0, 0.033,
                  0.041);
}

static void expect_pg10_select_only_progress(pgbench_result *e)
{
    expect_header(e, "", "<builtin: select only>", 1, "simple", 4, 4);
    expect_duration(e, 5, 158494);
    e->latency_average_ms = 0.126;
    e->latency_stddev_ms = 0.039;
    expect_tps(e, 31713.360744, PGBENCH_TPS_EXCLUDING_CONNECTIONS, 31697.954011);
}

static void expect_pg11_tpcb_prepared_r(pgbench_result *e)
{
    expect_header(e, "", "<builtin: TPC-B (sort of)>", 50, "prepared", 8, 8);
    expect_fixed_count(e, 10000, 80000, 80000);
    e->latency_average_ms = 3.412;
    expect_tps(e, 2346.139915, PGBENCH_TPS_EXCLUDING_CONNECTIONS, 2344.650012);
}

static void expect_pg12_rate_latency_limit(pgbench_result *e)
{
    expect_header(e, "", "<builtin: select only>", 1, "extended", 4, 2);
    expect_duration(e, 10, 9968);
    e->transactions_skipped = 12;
    e->latency_average_ms = 0.412;
    e->latency_stddev_ms = 0.598;
    e->schedule_lag_ms = 0.151;
    expect_tps(e, 996.871204, PGBENCH_TPS_EXCLUDING_CONNECTIONS, 996.652871);
}

static void expect_pg13_partitions_aborted(pgbench_result *e)
{
    expect_header(e, "", "<builtin: TPC-B (sort of)>", 10, "simple", 8, 4);
    expect_duration(e, 30, 201442);
    e->latency_average_ms = 1.191;
    expect_tps(e, 6715.184403, PGBENCH_TPS_EXCLUDING_CONNECTIONS, 6714.530270);
    e->partial = true;
    snprintf(e->partial_reason, sizeof e->partial_reason, "%s",
             "pgbench exited with 2: pgbench: error: client 3 aborted in command 8 (SQL) of "
             "script 0; ERROR:  deadlock detected");
}

static void expect_pg14_select_only_prepared(pgbench_result *e)
{
    expect_header(e, "14.10", "<builtin: select only>", 100, "prepared", 64, 64);
    expect_duration(e, 60, 38913612);
    e->latency_average_ms = 0.099;
    e->initial_connection_ms = 28.104;
    expect_tps(e, 648570.174502, PGBENCH_TPS_WITHOUT_INITIAL_CONNECTION, NAN);
}

static void expect_pg14_connect(pgbench_result *e)
{
    expect_header(e, "14.10", "<builtin: select only>", 1, "simple", 4, 4);
    expect_duration(e, 10, 21440);
    e->latency_average_ms = 1.866;
    e->average_connection_ms = 1.648;
    expect_tps(e, 2143.727816, PGBENCH_TPS_INCLUDING_RECONNECTIONS, 2143.727816);
}

static void expect_pg15_tpcb_t(pgbench_result *e)
{
    expect_header(e, "15.20", "<builtin: TPC-B (sort of)>", 1, "simple", 2, 1);
    e->max_tries = 1;
    expect_fixed_count(e, 200, 400, 400);
    e->latency_average_ms = 14.160;
    e->initial_connection_ms = 172.041;
    expect_tps(e, 141.238848, PGBENCH_TPS_WITHOUT_INITIAL_CONNECTION, NAN);
}

static void expect_pg15_select_only_T(pgbench_result *e)
{
    expect_header(e, "15.20", "<builtin: select only>", 1, "simple", 4, 2);
    e->max_tries = 1;
    expect_duration(e, 3, 19675);
    e->latency_average_ms = 0.572;
    e->initial_connection_ms = 195.288;
    expect_tps(e, 6996.881542, PGBENCH_TPS_WITHOUT_INITIAL_CONNECTION, NAN);
}

static void expect_pg15_prepared(pgbench_result *e)
{
    expect_header(e, "15.20", "<builtin: select only>", 1, "prepared", 2, 2);
    e->max_tries = 1;
    expect_duration(e, 2, 15779);
    e->latency_average_ms = 0.243;
    e->initial_connection_ms = 98.462;
    expect_tps(e, 8228.463318, PGBENCH_TPS_WITHOUT_INITIAL_CONNECTION, NAN);
}

static void expect_pg15_mixed_scripts(pgbench_result *e)
{
    expect_header(e, "15.20", "multiple scripts", 1, "simple", 4, 2);
    e->max_tries = 1;
    expect_duration(e, 3, 5981);
    e->latency_average_ms = 1.915;
    e->initial_connection_ms = 166.623;
    expect_tps(e, 2089.194383, PGBENCH_TPS_WITHOUT_INITIAL_CONNECTION, NAN);
    expect_script(e, "<builtin: TPC-B (sort of)>", 1, 10.0, 591, 206.439371, 0, 13.774, 11.648);
    expect_script(e, "<builtin: select only>", 9, 90.0, 5390, 1882.755012, 0, 0.600, 1.241);
}

static void expect_pg15_mixed_r(pgbench_result *e)
{
    expect_header(e, "15.20", "multiple scripts", 1, "extended", 2, 1);
    e->max_tries = 1;
    expect_fixed_count(e, 100, 200, 200);
    e->latency_average_ms = 1.943;
    e->initial_connection_ms = 115.839;
    expect_tps(e, 1029.261916, PGBENCH_TPS_WITHOUT_INITIAL_CONNECTION, NAN);
    expect_script(e, "<builtin: TPC-B (sort of)>", 1, 10.0, 19, 97.779882, 0, 9.905, 6.716);
    expect_script(e, "<builtin: select only>", 9, 90.0, 181, 931.482034, 0, 1.009, 1.995);
}

static void expect_pg15_progress_log(pgbench_result *e)
{
    expect_header(e, "15.20", "<builtin: select only>", 1, "simple", 2, 2);
    e->max_tries = 1;
    expect_duration(e, 4, 22154);
    e->latency_average_ms = 0.350;
    e->latency_stddev_ms = 1.154;
    e->initial_connection_ms = 91.623;
    expect_tps(e, 5657.264365, PGBENCH_TPS_WITHOUT_INITIAL_CONNECTION, NAN);
}

static void expect_pg15_serialization_retries(pgbench_result *e)
{
    expect_header(e, "15.20", "/tmp/pgrec/serial.sql", 1, "simple", 8, 4);
    e->max_tries = 3;
    expect_duration(e, 3, 397);
    e->transactions_failed = 1023;
    e->transactions_retried = 1202;
    e->latency_average_ms = 15.345;
    e->latency_includes_failures = true;
    e->initial_connection_ms = 296.399;
    expect_tps(e, 145.757235, PGBENCH_TPS_WITHOUT_INITIAL_CONNECTION, NAN);
}

static void expect_pg15_verbose_errors(pgbench_result *e)
{
    expect_header(e, "15.20", "/tmp/pgrec/serial.sql", 1, "simple", 4, 1);
    e->max_tries = 2;
    expect_fixed_count(e, 3, 6, 12);
    e->transactions_failed = 6;
    e->transactions_retried = 9;
    e->latency_average_ms = 47.707;
    e->latency_includes_failures = true;
    e->initial_connection_ms = 347.573;
    expect_tps(e, 41.922276, PGBENCH_TPS_WITHOUT_INITIAL_CONNECTION, NAN);
}

static void expect_pg15_log_failures(pgbench_result *e)
{
    expect_header(e, "15.20", "/tmp/pgrec/serial.sql", 1, "simple", 4, 1);
    e->max_tries = 2;
    expect_fixed_count(e, 25, 48, 100);
    e->transactions_failed = 52;
    e->transactions_retried = 54;
    e->latency_average_ms = 14.645;
    e->latency_includes_failures = true;
    e->initial_connection_ms = 214.539;
    expect_tps(e, 131.102407, PGBENCH_TPS_WITHOUT_INITIAL_CONNECTION, NAN);
}

static void expect_pg15_log_rate_skipped(pgbench_result *e)
{
    expect_header(e, "15.20", "<builtin: select only>", 1, "simple", 2, 1);
    e->max_tries = 1;
    expect_fixed_count(e, 40, 18, 80);
    e->transactions_skipped = 62;
    e->latency_average_ms = 3.734;
    e->latency_stddev_ms = 4.186;
    e->schedule_lag_ms = 0.480;
    e->initial_connection_ms = 119.833;
    expect_tps(e, 460.982918, PGBENCH_TPS_WITHOUT_INITIAL_CONNECTION, NAN);
}

static void expect_pg15_connect_rate_r(pgbench_result *e)
{
    expect_header(e, "15.20", "<builtin: TPC-B (sort of)>", 1, "simple", 2, 1);
    e->max_tries = 1;
    expect_duration(e, 2, 19);
    e->transactions_skipped = 373;
    e->latency_average_ms = 212.269;
    e->latency_stddev_ms = 44.462;
    e->schedule_lag_ms = 90.423;
    e->average_connection_ms = 84.499;
    expect_tps(e, 9.367912, PGBENCH_TPS_INCLUDING_RECONNECTIONS, 9.367912);
}

static void expect_pg15_partial_abort(pgbench_result *e)
{
    expect_header(e, "15.20", "/tmp/pgrec/sometimes.sql", 1, "simple", 4, 2);
    e->max_tries = 1;
    expect_duration(e, 2, 2967);
    e->latency_average_ms = 0.473;
    e->initial_connection_ms = 168.971;
    expect_tps(e, 8452.750634, PGBENCH_TPS_WITHOUT_INITIAL_CONNECTION, NAN);
    e->partial = true;
    snprintf(e->partial_reason, sizeof e->partial_reason, "%s",
             "pgbench exited with 2: pgbench: error: client 0 script 0 aborted in command 1 "
             "query 0: ERROR:  division by zero");
}

static void expect_pg15_log_threads(pgbench_result *e)
{
    expect_header(e, "15.20", "<builtin: select only>", 1, "simple", 2, 2);
    e->max_tries = 1;
    expect_fixed_count(e, 150, 300, 300);
    e->latency_average_ms = 1.011;
    e->initial_connection_ms = 129.616;
    expect_tps(e, 1977.652526, PGBENCH_TPS_WITHOUT_INITIAL_CONNECTION, NAN);
}

static void expect_pg16_mixed_progress(pgbench_result *e)
{
    expect_header(e, "16.4", "multiple scripts", 10, "simple", 8, 8);
    e->max_tries = 1;
    expect_duration(e, 6, 243643);
    e->latency_average_ms = 0.196;
    e->latency_stddev_ms = 0.397;
    e->initial_connection_ms = 12.818;
    expect_tps(e, 40607.044117, PGBENCH_TPS_WITHOUT_INITIAL_CONNECTION, NAN);
    expect_script(e, "<builtin: TPC-B (sort of)>", 1, 10.0, 24433, 4072.146480, 0, 1.195, 0.688);
    expect_script(e, "<builtin: select only>", 9, 90.0, 219210, 36534.897637, 0, 0.085, 0.031);
}

static void expect_pg17_serializable_retries(pgbench_result *e)
{
    expect_header(e, "17.2", "serializable.sql", 1, "simple", 16, 4);
    e->max_tries = 10;
    expect_duration(e, 30, 40218);
    e->transactions_failed = 37;
    e->transactions_retried = 5021;
    e->latency_average_ms = 11.924;
    e->latency_includes_failures = true;
    e->initial_connection_ms = 21.338;
    expect_tps(e, 1340.561221, PGBENCH_TPS_WITHOUT_INITIAL_CONNECTION, NAN);
}

static void expect_pg17_mixed_r_failures(pgbench_result *e)
{
    expect_header(e, "17.2", "multiple scripts", 1, "extended", 4, 2);
    e->max_tries = 3;
    expect_fixed_count(e, 500, 1994, 2000);
    e->transactions_failed = 6;
    e->transactions_retried = 58;
    e->latency_average_ms = 4.018;
    e->latency_includes_failures = true;
    e->initial_connection_ms = 9.412;
    expect_tps(e, 991.528307, PGBENCH_TPS_WITHOUT_INITIAL_CONNECTION, NAN);
    expect_script(e, "transfer.sql", 3, 75.0, 1496, 743.899203, 6, 5.101, 3.276);
    expect_script(e, "<builtin: select only>", 1, 25.0, 498, 247.629104, 0, 0.756, 0.402);
}

/* ---- outputs recorded by others (see outputs/README.md, "Outputs recorded by others") -- */

/* PostgreSQL 10.2: a custom script on a database without pgbench's tables, so the vacuum
 * step prints 10's unprefixed "ERROR: ... (ignoring this error ...)" lines. */
static void expect_pg10_yamaguchi_custom_vacuum_errors(pgbench_result *e)
{
    expect_header(e, "", "test.sql", 1, "simple", 1, 1);
    expect_fixed_count(e, 1000, 1000, 1000);
    e->latency_average_ms = 84.343;
    expect_tps(e, 11.856866, PGBENCH_TPS_EXCLUDING_CONNECTIONS, 11.856389);
}

/* PostgreSQL 11.5: -C -t 100 through HAProxy; both old tps lines differ noticeably. */
static void expect_pg11_timlok_connect_t(pgbench_result *e)
{
    expect_header(e, "", "<builtin: TPC-B (sort of)>", 1, "simple", 10, 1);
    expect_fixed_count(e, 100, 1000, 1000);
    e->latency_average_ms = 144.658;
    expect_tps(e, 74.130792, PGBENCH_TPS_EXCLUDING_CONNECTIONS, 69.128670);
}

/* PostgreSQL 12.3: -N -P 60 -T 600, a "Password: " prompt before the output. */
static void expect_pg12_patsevanton_simple_update_progress(pgbench_result *e)
{
    expect_header(e, "", "<builtin: simple update>", 150, "simple", 50, 2);
    expect_duration(e, 600, 49527);
    e->latency_average_ms = 606.825;
    e->latency_stddev_ms = 608.772;
    expect_tps(e, 82.006115, PGBENCH_TPS_EXCLUDING_CONNECTIONS, 82.005351);
}

/* PostgreSQL 12.3: -S on a hot standby; the vacuum step's errors are ignored, no abort. */
static void expect_pg12_patsevanton_replica_select_only(pgbench_result *e)
{
    expect_header(e, "", "<builtin: select only>", 150, "simple", 50, 2);
    expect_duration(e, 600, 148638);
    e->latency_average_ms = 201.815;
    e->latency_stddev_ms = 169.752;
    expect_tps(e, 247.556199, PGBENCH_TPS_EXCLUDING_CONNECTIONS, 247.553623);
}

/* PostgreSQL 13 (13.6 packages): -S -M prepared on 10 range partitions: partition lines
 * between the scaling factor and the query mode. */
static void expect_pg13_dgapitts_partitions_prepared(pgbench_result *e)
{
    expect_header(e, "", "<builtin: select only>", 5, "prepared", 1, 1);
    expect_fixed_count(e, 100000, 100000, 100000);
    e->latency_average_ms = 0.091;
    expect_tps(e, 11036.548307, PGBENCH_TPS_EXCLUDING_CONNECTIONS, 11030.661562);
}

/* PostgreSQL 14.7: -P 10 -T 30: progress lines without a failed column, stddev. */
static void expect_pg14_alexterent_tpcb_progress(pgbench_result *e)
{
    expect_header(e, "14.7", "<builtin: TPC-B (sort of)>", 1, "simple", 50, 2);
    expect_duration(e, 30, 15561);
    e->latency_average_ms = 96.391;
    e->latency_stddev_ms = 105.781;
    e->initial_connection_ms = 55.356;
    expect_tps(e, 517.550744, PGBENCH_TPS_WITHOUT_INITIAL_CONNECTION, NAN);
}

/* PostgreSQL 14.7: -C -M extended: reconnection tps is the only tps line. */
static void expect_pg14_alexterent_connect_extended(pgbench_result *e)
{
    expect_header(e, "14.7", "<builtin: TPC-B (sort of)>", 1, "extended", 50, 2);
    expect_duration(e, 30, 8132);
    e->latency_average_ms = 182.141;
    e->latency_stddev_ms = 215.902;
    e->average_connection_ms = 2.439;
    expect_tps(e, 270.250726, PGBENCH_TPS_INCLUDING_RECONNECTIONS, 270.250726);
}

/* PostgreSQL 16.4 (Debian package banner): plain -c 10 -j 2 -T 60. */
static void expect_pg16_kkknkp_tpcb_T(pgbench_result *e)
{
    expect_header(e, "16.4", "<builtin: TPC-B (sort of)>", 10, "simple", 10, 2);
    e->max_tries = 1;
    expect_duration(e, 60, 48232);
    e->latency_average_ms = 12.440;
    e->initial_connection_ms = 36.209;
    expect_tps(e, 803.850282, PGBENCH_TPS_WITHOUT_INITIAL_CONNECTION, NAN);
}

/* PostgreSQL 17.4: -n -f workload.sql: no vacuum line, the script path as the type. */
static void expect_pg17_morimaroo_custom_script(pgbench_result *e)
{
    expect_header(e, "17.4", "/var/lib/postgresql/workload.sql", 1, "simple", 8, 4);
    e->max_tries = 1;
    expect_duration(e, 10, 415183);
    e->latency_average_ms = 0.192;
    e->initial_connection_ms = 17.842;
    expect_tps(e, 41586.622662, PGBENCH_TPS_WITHOUT_INITIAL_CONNECTION, NAN);
}

static const recorded_case recorded_cases[] = {
    {"pg9.6-tpcb-t.txt", 0, expect_pg96_tpcb_t},
    {"pg9.6-mixed-scripts.txt", 0, expect_pg96_mixed_scripts},
    {"pg10-select-only-progress.txt", 0, expect_pg10_select_only_progress},
    {"pg11-tpcb-prepared-r.txt", 0, expect_pg11_tpcb_prepared_r},
    {"pg12-rate-latency-limit.txt", 0, expect_pg12_rate_latency_limit},
    {"pg13-partitions-aborted.txt", 2, expect_pg13_partitions_aborted},
    {"pg14-select-only-prepared.txt", 0, expect_pg14_select_only_prepared},
    {"pg14-connect.txt", 0, expect_pg14_connect},
    {"pg15-tpcb-t.txt", 0, expect_pg15_tpcb_t},
    {"pg15-select-only-T.txt", 0, expect_pg15_select_only_T},
    {"pg15-prepared.txt", 0, expect_pg15_prepared},
    {"pg15-mixed-scripts.txt", 0, expect_pg15_mixed_scripts},
    {"pg15-mixed-r.txt", 0, expect_pg15_mixed_r},
    {"pg15-progress-log.txt", 0, expect_pg15_progress_log},
    {"pg15-serialization-retries.txt", 0, expect_pg15_serialization_retries},
    {"pg15-verbose-errors.txt", 0, expect_pg15_verbose_errors},
    {"pg15-log-failures.txt", 0, expect_pg15_log_failures},
    {"pg15-log-rate-skipped.txt", 0, expect_pg15_log_rate_skipped},
    {"pg15-connect-rate-r.txt", 0, expect_pg15_connect_rate_r},
    {"pg15-partial-abort.txt", 2, expect_pg15_partial_abort},
    {"pg15-log-threads.txt", 0, expect_pg15_log_threads},
    {"pg16-mixed-progress.txt", 0, expect_pg16_mixed_progress},
    {"pg17-serializable-retries.txt", 0, expect_pg17_serializable_retries},
    {"pg17-mixed-r-failures.txt", 0, expect_pg17_mixed_r_failures},
    {"pg10-yamaguchi-custom-vacuum-errors.txt", 0, expect_pg10_yamaguchi_custom_vacuum_errors},
    {"pg11-timlok-connect-t.txt", 0, expect_pg11_timlok_connect_t},
    {"pg12-patsevanton-simple-update-progress.txt", 0,
     expect_pg12_patsevanton_simple_update_progress},
    {"pg12-patsevanton-replica-select-only.txt", 0, expect_pg12_patsevanton_replica_select_only},
    {"pg13-dgapitts-partitions-prepared.txt", 0, expect_pg13_dgapitts_partitions_prepared},
    {"pg14-alexterent-tpcb-progress.txt", 0, expect_pg14_alexterent_tpcb_progress},
    {"pg14-alexterent-connect-extended.txt", 0, expect_pg14_alexterent_connect_extended},
    {"pg16-kkknkp-tpcb-T.txt", 0, expect_pg16_kkknkp_tpcb_T},
    {"pg17-morimaroo-custom-script.txt", 0, expect_pg17_morimaroo_custom_script},
};

static void test_recorded_output(void **state)
{
    const recorded_case *c = *state;
    size_t length;
    char *text = read_output(c->file, &length);
    pgbench_result *got = malloc(sizeof *got), *want = malloc(sizeof *want);
    assert_non_null(got);
    assert_non_null(want);
    verdict_error err = {0};
    int rc = pgbench_parse(text, length, c->exit_code, got, &err);
    if (rc != 0)
        fail_msg("%s: %s", c->file, err.message);
    c->expect(want);
    assert_same_result(got, want);
    free(got);
    free(want);
    free(text);
}

/* ---- outputs without a usable summary --------------------------------------------- */

static pgbench_result *new_result(void)
{
    pgbench_result *result = malloc(sizeof *result);
    assert_non_null(result);
    return result;
}

/* Parses text and expects -1 with every fragment in the message. */
static void assert_parse_fails(const char *text, size_t length, int exit_code,
                               const char *fragment1, const char *fragment2)
{
    pgbench_result *result = new_result();
    verdict_error err = {0};
    assert_int_equal(pgbench_parse(text, length, exit_code, result, &err), -1);
    if (fragment1 != NULL && strstr(err.message, fragment1) == NULL)
        fail_msg("message \"%s\" lacks \"%s\"", err.message, fragment1);
    if (fragment2 != NULL && strstr(err.message, fragment2) == NULL)
        fail_msg("message \"%s\" lacks \"%s\"", err.message, fragment2);
    /* A failed parse leaves nothing that could be taken for a measurement. */
    assert_true(isnan(result->tps));
    free(result);
}

static void test_aborted_run_without_summary_fails(void **state)
{
    (void)state;
    size_t length;
    char *text = read_output("pg15-aborted.txt", &length);
    assert_parse_fails(text, length, 2, "no \"tps = \" line", "exit code 2");
    assert_parse_fails(text, length, 2, "pgbench said: pgbench: error: client 0 script 0",
                       "it starts: \"pgbench (15.20");
    free(text);
}

static void test_garbage_fails_quoting_the_start(void **state)
{
    (void)state;
    const char *garbage = "hello world\nthis is not pgbench\n";
    assert_parse_fails(garbage, strlen(garbage), 0, "no \"tps = \" line",
                       "it starts: \"hello world\\nthis is not pgbench\\n\"");
    assert_parse_fails("", 0, 0, "no \"tps = \" line", "it starts: \"\"");
    assert_parse_fails(NULL, 0, 0, "no \"tps = \" line", NULL);
    const char binary[] = {'t', 'p', 's', '\0', '\x01', '\n'};
    assert_parse_fails(binary, sizeof binary, 0, "no \"tps = \" line", "tps??\\n");
}

static void test_progress_lines_are_not_a_summary(void **state)
{
    (void)state;
    const char *progress = "progress: 1.0 s, 4675.8 tps, lat 0.386 ms stddev 1.181, 0 failed\n"
                           "progress: 2.0 s, tps = 5\n";
    assert_parse_fails(progress, strlen(progress), 0, "no \"tps = \" line", "progress: 1.0 s");
}

static void test_malformed_lines_fail(void **state)
{
    (void)state;
    const char *clients = "number of clients: many\ntps = 10.0\n";
    assert_parse_fails(clients, strlen(clients), 0, "line 1", "number of clients: many");
    const char *qualifier = "tps = 10.0 (including something new)\n";
    assert_parse_fails(qualifier, strlen(qualifier), 0, "line 1", "something new");
    const char *no_number = "tps = fast\n";
    assert_parse_fails(no_number, strlen(no_number), 0, "line 1", "tps = fast");
    const char *order = "tps = 10.0\nSQL script 2: <builtin: select only>\n";
    assert_parse_fails(order, strlen(order), 0, "line 2", "SQL script 2");
    const char *huge = "tps = 1\nnumber of clients: 99999999999999999999999\n";
    assert_parse_fails(huge, strlen(huge), 0, "line 2", NULL);
}

static void test_two_summaries_fail(void **state)
{
    (void)state;
    const char *two = "tps = 10.0 (without initial connection time)\n"
                      "tps = 11.0 (without initial connection time)\n";
    assert_parse_fails(two, strlen(two), 0, "2 tps lines", NULL);
    const char *mixed = "tps = 10.0 (excluding connections establishing)\n"
                        "tps = 11.0 (without initial connection time)\n";
    assert_parse_fails(mixed, strlen(mixed), 0, "2 tps lines", NULL);
}

static void test_zero_or_nonfinite_tps_fails(void **state)
{
    (void)state;
    const char *zero = "number of transactions actually processed: 0\n"
                       "tps = 0.000000 (including connections establishing)\n"
                       "tps = 0.000000 (excluding connections establishing)\n";
    assert_parse_fails(zero, strlen(zero), 0, "tps = 0", "no transaction completed");
    const char *nan = "tps = -nan (without initial connection time)\n";
    assert_parse_fails(nan, strlen(nan), 0, "no transaction completed", NULL);
    const char *inf = "tps = inf\n";
    assert_parse_fails(inf, strlen(inf), 0, "no transaction completed", NULL);
    const char *negative = "tps = -5.0\n";
    assert_parse_fails(negative, strlen(negative), 0, "no transaction completed", NULL);
}

static void test_too_many_scripts_fail(void **state)
{
    (void)state;
    size_t capacity = 64 * (PGBENCH_MAX_SCRIPTS + 2) + 64, used = 0;
    char *text = malloc(capacity);
    assert_non_null(text);
    used += (size_t)snprintf(text + used, capacity - used, "tps = 5.0\n");
    for (int i = 1; i <= PGBENCH_MAX_SCRIPTS + 1; i++)
        used += (size_t)snprintf(text + used, capacity - used, "SQL script %d: s%d.sql\n", i, i);
    assert_parse_fails(text, used, 0, "line 130", "SQL script 129");
    free(text);
}

/* ---- unusual but valid outputs -------------------------------------------------------- */

static void test_bare_tps_line(void **state)
{
    (void)state;
    pgbench_result *got = new_result(), *want = new_result();
    verdict_error err = {0};
    const char *text = "tps = 7140.253910";
    assert_int_equal(pgbench_parse(text, strlen(text), 0, got, &err), 0);
    expect_nothing_printed(want);
    expect_tps(want, 7140.253910, PGBENCH_TPS_UNQUALIFIED, NAN);
    assert_same_result(got, want);
    free(got);
    free(want);
}

/* pgbench calls setlocale, so under de_DE it prints decimal commas; Windows line ends and
 * a missing final newline must not matter either. */
static void test_decimal_commas_and_crlf(void **state)
{
    (void)state;
    const char *text = "number of clients: 4\r\n"
                       "latency average = 1,250 ms\r\n"
                       "initial connection time = 12,5 ms\r\n"
                       "tps = 1234,567890 (without initial connection time)";
    pgbench_result *got = new_result(), *want = new_result();
    verdict_error err = {0};
    assert_int_equal(pgbench_parse(text, strlen(text), 0, got, &err), 0);
    expect_nothing_printed(want);
    want->clients = 4;
    want->latency_average_ms = 1.25;
    want->initial_connection_ms = 12.5;
    expect_tps(want, 1234.56789, PGBENCH_TPS_WITHOUT_INITIAL_CONNECTION, NAN);
    assert_same_result(got, want);
    free(got);
    free(want);
}

/* A non-zero exit with a complete summary is kept, flagged; nan latencies become NaN. */
static void test_nonzero_exit_is_partial(void **state)
{
    (void)state;
    const char *text = "latency average = -nan ms\n"
                       "tps = 50.5 (without initial connection time)\n";
    pgbench_result *got = new_result(), *want = new_result();
    verdict_error err = {0};
    assert_int_equal(pgbench_parse(text, strlen(text), 1, got, &err), 0);
    expect_nothing_printed(want);
    expect_tps(want, 50.5, PGBENCH_TPS_WITHOUT_INITIAL_CONNECTION, NAN);
    want->partial = true;
    snprintf(want->partial_reason, sizeof want->partial_reason, "pgbench exited with 1");
    assert_same_result(got, want);
    free(got);
    free(want);
}

/* Without pgbench's tables the vacuum step fails and pgbench carries on (the message even
 * lands in the middle of stdout's line); that is no abort. */
static void test_ignored_vacuum_error_is_not_partial(void **state)
{
    (void)state;
    const char *text = "pgbench (14.6, server 15.1)\n"
                       "starting vacuum...pgbench: error: ERROR:  relation \"pgbench_branches\" "
                       "does not exist\n"
                       "pgbench: error: ERROR:  relation \"pgbench_tellers\" does not exist\n"
                       "pgbench: (ignoring this error and continuing anyway)\n"
                       "end.\n"
                       "tps = 321.5 (without initial connection time)\n";
    pgbench_result *got = new_result(), *want = new_result();
    verdict_error err = {0};
    assert_int_equal(pgbench_parse(text, strlen(text), 0, got, &err), 0);
    expect_nothing_printed(want);
    snprintf(want->pgbench_version, sizeof want->pgbench_version, "14.6");
    expect_tps(want, 321.5, PGBENCH_TPS_WITHOUT_INITIAL_CONNECTION, NAN);
    assert_same_result(got, want);
    free(got);
    free(want);
}

/* PostgreSQL 18 splits the per-script line: the count includes failures, the processed
 * count and tps follow on a line of their own. */
static void test_pg18_script_lines(void **state)
{
    (void)state;
    const char *text = "tps = 100.0 (without initial connection time)\n"
                       "SQL script 1: <builtin: simple update>\n"
                       " - weight: 2 (targets 100.0% of total)\n"
                       " - 210 transactions (100.0% of total)\n"
                       " - number of transactions actually processed: 200 (tps = 99.5)\n"
                       " - number of failed transactions: 10 (4.762%)\n"
                       " - latency average = 1.5 ms\n";
    pgbench_result *got = new_result(), *want = new_result();
    verdict_error err = {0};
    assert_int_equal(pgbench_parse(text, strlen(text), 0, got, &err), 0);
    expect_nothing_printed(want);
    expect_tps(want, 100.0, PGBENCH_TPS_WITHOUT_INITIAL_CONNECTION, NAN);
    expect_script(want, "<builtin: simple update>", 2, 100.0, 200, 99.5, 10, 1.5, NAN);
    assert_same_result(got, want);
    free(got);
    free(want);
}

/* Bytes after the buffer's end must never be read: parse a prefix of a longer text. */
static void test_length_bounds_the_input(void **state)
{
    (void)state;
    const char *text = "tps = 12.5\ntps = 13.5\n";
    pgbench_result *got = new_result();
    verdict_error err = {0};
    assert_int_equal(pgbench_parse(text, 11, 0, got, &err), 0);
    assert_true(got->tps == 12.5);
    free(got);
}

/* ---- the per-transaction log ------------------------------------------------------ */

typedef struct {
    const char *file;
    size_t transactions, failed, skipped;
    double p50, p95, p99; /* R: quantile(x, c(.5, .95, .99), type = 7) */
} recorded_log;

static const recorded_log recorded_logs[] = {
    /* two thread files (pgbench_log.PID and .PID.1) concatenated */
    {"pg15-log-threads.log", 300, 0, 0, 0.28050000000000003, 4.8247, 8.6125399999999974},
    /* --max-tries=2: "failed" lines and the retries column */
    {"pg15-log-failures.log", 48, 52, 0, 5.7004999999999999, 21.602349999999994,
     41.531530000000004},
    /* --rate with --latency-limit: "skipped" lines and the schedule lag column */
    {"pg15-log-rate-skipped.log", 18, 0, 62, 1.6990000000000001, 13.557899999999997,
     14.840379999999998},
};

static void test_recorded_log(void **state)
{
    const recorded_log *c = *state;
    size_t length;
    char *text = read_output(c->file, &length);
    pgbench_log_summary summary;
    verdict_error err = {0};
    if (pgbench_log_summarize(text, length, &summary, &err) != 0)
        fail_msg("%s: %s", c->file, err.message);
    assert_int_equal(summary.transactions, c->transactions);
    assert_int_equal(summary.failed, c->failed);
    assert_int_equal(summary.skipped, c->skipped);
    assert_same_number(summary.p50_ms, c->p50, "p50");
    assert_same_number(summary.p95_ms, c->p95, "p95");
    assert_same_number(summary.p99_ms, c->p99, "p99");

    double p50, p95, p99;
    assert_int_equal(pgbench_latency_percentiles(text, length, &p50, &p95, &p99, &err),
                     0);
    assert_same_number(p50, c->p50, "p50");
    assert_same_number(p95, c->p95, "p95");
    assert_same_number(p99, c->p99, "p99");
    free(text);
}

static void test_log_type7_quantiles(void **state)
{
    (void)state;
    /* Latencies 1..5 ms: type 7 gives p50 = 3, p95 = 4.8, p99 = 4.96. */
    const char *log = "0 1 5000 0 1700000000 100\n"
                      "0 2 1000 0 1700000000 200 15\n"
                      "1 1 3000 0 1700000000 300 0 2\n"
                      "1 2 failed 0 1700000000 400 0 9\n"
                      "\n"
                      "1 3 2000 0 1700000000 500\n"
                      "0 3 4000 0 1700000001 600\n";
    pgbench_log_summary summary;
    verdict_error err = {0};
    assert_int_equal(pgbench_log_summarize(log, strlen(log), &summary, &err), 0);
    assert_int_equal(summary.transactions, 5);
    assert_int_equal(summary.failed, 1);
    assert_int_equal(summary.skipped, 0);
    assert_same_number(summary.p50_ms, 3.0, "p50");
    assert_same_number(summary.p95_ms, 4.8, "p95");
    assert_same_number(summary.p99_ms, 4.96, "p99");
    /* NULL outputs are allowed: a caller may want only the median. */
    double p50 = 0;
    assert_int_equal(pgbench_latency_percentiles(log, strlen(log), &p50, NULL, NULL, &err), 0);
    assert_same_number(p50, 3.0, "p50");
}

/* A pgbench killed while writing leaves a cut last line; it is dropped, not fatal. */
static void test_log_cut_last_line_is_ignored(void **state)
{
    (void)state;
    const char *log = "0 1 1000 0 1700000000 100\n0 2 20";
    pgbench_log_summary summary;
    verdict_error err = {0};
    assert_int_equal(pgbench_log_summarize(log, strlen(log), &summary, &err), 0);
    assert_int_equal(summary.transactions, 1);
    assert_same_number(summary.p99_ms, 1.0, "p99");
}

static void assert_log_fails(const char *log, const char *fragment)
{
    pgbench_log_summary summary;
    verdict_error err = {0};
    double p50 = 1, p95 = 1, p99 = 1;
    assert_int_equal(pgbench_log_summarize(log, strlen(log), &summary, &err), -1);
    if (strstr(err.message, fragment) == NULL)
        fail_msg("message \"%s\" lacks \"%s\"", err.message, fragment);
    assert_int_equal(pgbench_latency_percentiles(log, strlen(log), &p50, &p95, &p99, &err), -1);
    assert_true(p50 == 1 && p95 == 1 && p99 == 1); /* untouched on failure */
}

static void test_log_errors(void **state)
{
    (void)state;
    assert_log_fails("", "no completed transaction");
    assert_log_fails("0 1 failed 0 1700000000 1\n0 2 skipped 0 1700000000 2\n",
                     "no completed transaction (1 failed, 1 skipped)");
    assert_log_fails("0 1 1000 0 1700000000 100\nhello\n0 2 1000 0 1700000000 100\n",
                     "line 2 is not");
    assert_log_fails("0 1 -5 0 1700000000 100\n", "line 1 is not");
    assert_log_fails("0 1 5 0 1700000000 1000000\n", "line 1 is not"); /* time_us < 10^6 */
    assert_log_fails("0 1 5 0 1700000000 10 1 2 3\n", "aggregated log");
    assert_log_fails("1700000000 42 51234 67890123 300 4000\n", "aggregated log");
    assert_log_fails("0 1 99999999999999999999 0 1700000000 1\n", "line 1 is not");
}

int main(void)
{
    enum { RECORDED = sizeof recorded_cases / sizeof recorded_cases[0],
           LOGS = sizeof recorded_logs / sizeof recorded_logs[0] };
    struct CMUnitTest tests[RECORDED + LOGS + 32];
    size_t n = 0;
    for (size_t i = 0; i < RECORDED; i++) {
        tests[n] = (struct CMUnitTest)cmocka_unit_test_prestate(test_recorded_output,
                                                                (void *)&recorded_cases[i]);
        tests[n++].name = recorded_cases[i].file;
    }
    for (size_t i = 0; i < LOGS; i++) {
        tests[n] = (struct CMUnitTest)cmocka_unit_test_prestate(test_recorded_log,
                                                                (void *)&recorded_logs[i]);
        tests[n++].name = recorded_logs[i].file;
    }
    const struct CMUnitTest others[] = {
        cmocka_unit_test(test_aborted_run_without_summary_fails),
        cmocka_unit_test(test_garbage_fails_quoting_the_start),
        cmocka_unit_test(test_progress_lines_are_not_a_summary),
        cmocka_unit_test(test_malformed_lines_fail),
        cmocka_unit_test(test_two_summaries_fail),
        cmocka_unit_test(test_zero_or_nonfinite_tps_fails),
        cmocka_unit_test(test_too_many_scripts_fail),
        cmocka_unit_test(test_bare_tps_line),
        cmocka_unit_test(test_decimal_commas_and_crlf),
        cmocka_unit_test(test_nonzero_exit_is_partial),
        cmocka_unit_test(test_ignored_vacuum_error_is_not_partial),
        cmocka_unit_test(test_pg18_script_lines),
        cmocka_unit_test(test_length_bounds_the_input),
        cmocka_unit_test(test_log_type7_quantiles),
        cmocka_unit_test(test_log_cut_last_line_is_ignored),
        cmocka_unit_test(test_log_errors),
    };
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
        tests[n++] = others[i];
    return _cmocka_run_group_tests("pgbench_output", tests, n, NULL, NULL);
}

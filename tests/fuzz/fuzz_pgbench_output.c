/* libFuzzer target for the pgbench parsers: any bytes must give either a summary with a
 * positive finite tps (and ordered percentiles for the log), or an error message; never a crash. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"

#include "pg/pgbench_output.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_summary(const char *text, size_t length, int exit_code)
{
    pgbench_result result;
    verdict_error err = {0};
    if (pgbench_parse(text, length, exit_code, &result, &err) == 0) {
        if (!(result.tps > 0.0) || !isfinite(result.tps))
            abort();
        if (result.n_scripts > PGBENCH_MAX_SCRIPTS)
            abort();
        if (memchr(result.pgbench_version, '\0', sizeof result.pgbench_version) == NULL ||
            memchr(result.transaction_type, '\0', sizeof result.transaction_type) == NULL ||
            memchr(result.mode, '\0', sizeof result.mode) == NULL ||
            memchr(result.partial_reason, '\0', sizeof result.partial_reason) == NULL)
            abort();
        for (size_t i = 0; i < result.n_scripts; i++)
            if (memchr(result.scripts[i].name, '\0', sizeof result.scripts[i].name) == NULL)
                abort();
        if (exit_code != 0 && (!result.partial || result.partial_reason[0] == '\0'))
            abort();
    } else if (err.kind == ERROR_NONE || err.message[0] == '\0') {
        abort();
    }
}

static void check_log(const char *text, size_t length)
{
    pgbench_log_summary summary;
    verdict_error err = {0};
    if (pgbench_log_summarize(text, length, &summary, &err) == 0) {
        if (summary.transactions == 0 || !isfinite(summary.p99_ms) || !(summary.p50_ms >= 0.0) ||
            summary.p50_ms > summary.p95_ms || summary.p95_ms > summary.p99_ms)
            abort();
    } else if (err.kind == ERROR_NONE || err.message[0] == '\0') {
        abort();
    }
    double p50, p95, p99;
    (void)pgbench_latency_percentiles(text, length, &p50, &p95, &p99, &err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The whole input, as both an output and a log, under exit codes 0 and 2. */
    check_summary((const char *)data, size, 0);
    check_summary((const char *)data, size, 2);
    check_log((const char *)data, size);
    return 0;
}

/* Shared checks of the experiment-loader tests: texts parsed with targets_parse_experiment,
 * the loader's message shown beside the expected one whenever they differ. */
#include "parse_expect.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "common/error.h"
#include "targets/targets.h"

void parse_expect_ok_at(const char *file, int line, const char *text, experiment *e)
{
    verdict_error err = {0};
    if (targets_parse_experiment(PARSE_EXPECT_NAME, text, strlen(text), e, &err) != 0) {
        print_error("unexpected error: %s\n  in: %s\n", err.message, text);
        _fail(file, line);
    }
}

void parse_expect_failure_at(const char *file, int line, const char *text,
                             const char *expected, bool prefix)
{
    experiment e;
    verdict_error err = {0};
    int rc = targets_parse_experiment(PARSE_EXPECT_NAME, text, strlen(text), &e, &err);
    if (rc == 0)
        experiment_free(&e); /* it loaded: the test fails below, without a leak */
    bool same = prefix ? strncmp(err.message, expected, strlen(expected)) == 0
                       : strcmp(err.message, expected) == 0;
    if (rc != -1 || !same) {
        print_error("rc %d\n  got:      %s\n  expected: %s%s\n", rc, err.message, expected,
                    prefix ? "..." : "");
        _fail(file, line);
    }
}

uint64_t parse_expect_plan_hash_at(const char *file, int line, const char *text)
{
    experiment e;
    parse_expect_ok_at(file, line, text, &e);
    uint64_t h = experiment_plan_hash(&e);
    experiment_free(&e);
    return h;
}

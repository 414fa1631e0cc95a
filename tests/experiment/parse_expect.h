/* Shared checks of the experiment-loader tests: parse a text with every target and fail the
 * test, at the caller's line, with the loader's own message when it loads other than expected. */
#ifndef VERDICT_TESTS_PARSE_EXPECT_H
#define VERDICT_TESTS_PARSE_EXPECT_H

#include <stdbool.h>
#include <stdint.h>

#include "core/experiment.h"

/* Every text is parsed under this name, which every message starts with. */
#define PARSE_EXPECT_NAME "spin.yaml"

/* Parses text into e, failing the test with the message if it does not load. */
#define parse_expect_ok(text, e) parse_expect_ok_at(__FILE__, __LINE__, text, e)
/* Parses text expecting failure with exactly this message. */
#define parse_expect_fails(text, expected) \
    parse_expect_failure_at(__FILE__, __LINE__, text, expected, false)
/* Parses text expecting failure whose message starts with prefix. */
#define parse_expect_fails_with(text, prefix) \
    parse_expect_failure_at(__FILE__, __LINE__, text, prefix, true)
/* The plan hash of text, which must load. */
#define parse_expect_plan_hash(text) parse_expect_plan_hash_at(__FILE__, __LINE__, text)

void parse_expect_ok_at(const char *file, int line, const char *text, experiment *e);
void parse_expect_failure_at(const char *file, int line, const char *text,
                             const char *expected, bool prefix);
uint64_t parse_expect_plan_hash_at(const char *file, int line, const char *text);

#endif

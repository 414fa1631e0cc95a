/* The report writers' output as text, for the report tests: the terminal report through a
 * memory stream, a file report written into a temporary directory and read back. */
#ifndef VERDICT_TESTS_REPORT_CAPTURE_H
#define VERDICT_TESTS_REPORT_CAPTURE_H

#include <jansson.h>
#include <stddef.h>

#include "report/report.h"
#include "common/error.h"

typedef int (*capture_writer)(const report_input *in, const char *path, verdict_error *err);

/* A new directory under /tmp into dir (at least 32 bytes); the test fails without one. */
void capture_make_dir(char *dir, size_t len);
/* Removes it and everything in it. */
void capture_remove_dir(const char *dir);
/* The terminal report of in; the caller frees it. */
char *capture_text(const report_input *in);
/* The file `write` makes of in as dir/name, read back; the caller frees it. A writer's
 * error fails the test with its message. */
char *capture_file(const report_input *in, capture_writer write, const char *dir,
                   const char *name);
/* The JSON document of in, parsed; the test fails when it is not JSON. json_decref it. */
json_t *capture_json(const report_input *in, const char *dir);

/* HTML as a reader sees it: no tags, the entities the writer makes decoded; free it. */
char *capture_plain(const char *html);

#endif

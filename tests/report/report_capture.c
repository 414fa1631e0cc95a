/* The report writers' output as text, for the report tests: the terminal report through a
 * memory stream, a file report written into a temporary directory and read back. */
#include "report_capture.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void capture_make_dir(char *dir, size_t len)
{
    assert_true(len >= 32);
    snprintf(dir, len, "/tmp/verdict-report-XXXXXX");
    assert_non_null(mkdtemp(dir));
}

void capture_remove_dir(const char *dir)
{
    char command[128];
    snprintf(command, sizeof command, "rm -rf '%s'", dir);
    assert_int_equal(system(command), 0);
}

char *capture_text(const report_input *in)
{
    char *text = NULL;
    size_t length = 0;
    FILE *out = open_memstream(&text, &length);
    assert_non_null(out);
    report_write_text(in, out);
    assert_int_equal(fclose(out), 0);
    return text;
}

char *capture_file(const report_input *in, capture_writer write, const char *dir,
                   const char *name)
{
    char path[256];
    verdict_error err = {0};
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (write(in, path, &err) != 0)
        fail_msg("%s", err.message);
    FILE *file = fopen(path, "rb");
    assert_non_null(file);
    char *text = NULL;
    size_t length = 0;
    FILE *copy = open_memstream(&text, &length);
    assert_non_null(copy);
    for (int c; (c = fgetc(file)) != EOF;)
        fputc(c, copy);
    fclose(file);
    assert_int_equal(fclose(copy), 0);
    return text;
}

json_t *capture_json(const report_input *in, const char *dir)
{
    char *text = capture_file(in, report_write_json, dir, "r.json");
    json_error_t error;
    json_t *doc = json_loads(text, 0, &error);
    if (doc == NULL)
        fail_msg("not JSON: %s", error.text);
    free(text);
    return doc;
}

char *capture_plain(const char *html)
{
    static const char *const entities[][2] = {
        {"&amp;", "&"}, {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&#39;", "'"}};
    char *text = malloc(strlen(html) + 1), *to = text;
    assert_non_null(text);
    for (const char *p = html; *p;) {
        if (*p == '<') {
            const char *end = strchr(p, '>');
            p = end ? end + 1 : p + strlen(p);
            continue;
        }
        bool decoded = false;
        for (size_t e = 0; e < sizeof entities / sizeof *entities && !decoded; e++)
            if (strncmp(p, entities[e][0], strlen(entities[e][0])) == 0) {
                *to++ = entities[e][1][0];
                p += strlen(entities[e][0]);
                decoded = true;
            }
        if (!decoded)
            *to++ = *p++;
    }
    *to = '\0';
    return text;
}

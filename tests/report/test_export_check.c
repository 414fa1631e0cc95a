/* Unit tests of the check of export destinations made before a run (output_check,
 * report_exports_check): it refuses what the writers would, and touches nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/output_file.h"
#include "common/error.h"
#include "report/report.h"

typedef struct {
    char dir[64];
    char path[128];
} scratch;

static int make_scratch(void **state)
{
    scratch *s = calloc(1, sizeof *s);
    snprintf(s->dir, sizeof s->dir, "/tmp/verdict-export-check-XXXXXX");
    assert_non_null(mkdtemp(s->dir));
    *state = s;
    return 0;
}

static int remove_scratch(void **state)
{
    scratch *s = *state;
    char command[128];
    snprintf(command, sizeof command, "rm -rf '%s'", s->dir);
    assert_int_equal(system(command), 0);
    free(s);
    return 0;
}

static const char *in_scratch(scratch *s, const char *name)
{
    snprintf(s->path, sizeof s->path, "%s/%s", s->dir, name);
    return s->path;
}

static void new_file_in_missing_directory_names_the_directory(void **state)
{
    scratch *s = *state;
    char missing[128];
    verdict_error err = {0};
    snprintf(missing, sizeof missing, "%s/missing", s->dir);
    assert_int_equal(output_check(in_scratch(s, "missing/x.json"), &err), -1);
    assert_non_null(strstr(err.message, missing));
    assert_non_null(strstr(err.message, "No such file or directory"));
    assert_int_equal(output_check(in_scratch(s, "new.json"), &err), 0);
    assert_int_equal(access(s->path, F_OK), -1); /* nothing created */
    assert_int_equal(output_check("-", &err), 0);
}

static void existing_file_is_not_truncated(void **state)
{
    scratch *s = *state;
    verdict_error err = {0};
    FILE *f = fopen(in_scratch(s, "old.json"), "w");
    fputs("keep\n", f);
    fclose(f);
    assert_int_equal(output_check(s->path, &err), 0);
    struct stat st;
    assert_int_equal(stat(s->path, &st), 0);
    assert_int_equal(st.st_size, 5);
}

static void directory_fifo_and_device(void **state)
{
    scratch *s = *state;
    verdict_error err = {0};
    assert_int_equal(output_check(s->dir, &err), -1);
    assert_non_null(strstr(err.message, "it is a directory"));
    assert_int_equal(mkfifo(in_scratch(s, "fifo"), 0600), 0);
    assert_int_equal(output_check(s->path, &err), 0); /* no reader: no wait */
    assert_int_equal(output_check("/dev/null", &err), 0);
}

static void svg_directory(void **state)
{
    scratch *s = *state;
    verdict_error err = {0};
    assert_int_equal(output_check_dir(s->dir, &err), 0);
    assert_int_equal(output_check_dir(in_scratch(s, "charts/"), &err), 0);
    assert_int_equal(access(s->path, F_OK), -1);
    assert_int_equal(output_check_dir(in_scratch(s, "a/b"), &err), -1);
    assert_non_null(strstr(err.message, "No such file or directory"));
    FILE *f = fopen(in_scratch(s, "file"), "w");
    fclose(f);
    assert_int_equal(output_check_dir(s->path, &err), -1);
    assert_non_null(strstr(err.message, "not a directory"));
}

static void one_export_to_stdout_at_most(void **state)
{
    scratch *s = *state;
    verdict_error err = {0};
    report_exports to = {.json = "-", .html = "-"};
    assert_true(report_exports_use_stdout(&to));
    assert_int_equal(report_exports_check(&to, &err), -1);
    assert_non_null(strstr(err.message, "--json - and --html -"));
    to = (report_exports){.markdown = "-", .csv = in_scratch(s, "missing/x.csv")};
    assert_int_equal(report_exports_check(&to, &err), -1);
    assert_true(strncmp(err.message, "--csv ", 6) == 0);
    to = (report_exports){.svg_dir = "-"};
    assert_false(report_exports_use_stdout(&to));
    assert_int_equal(report_exports_check(&to, &err), -1);
    assert_non_null(strstr(err.message, "--svg -"));
    to = (report_exports){.csv = "-", .svg_dir = s->dir};
    assert_int_equal(report_exports_check(&to, &err), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(new_file_in_missing_directory_names_the_directory,
                                        make_scratch, remove_scratch),
        cmocka_unit_test_setup_teardown(existing_file_is_not_truncated, make_scratch,
                                        remove_scratch),
        cmocka_unit_test_setup_teardown(directory_fifo_and_device, make_scratch,
                                        remove_scratch),
        cmocka_unit_test_setup_teardown(svg_directory, make_scratch, remove_scratch),
        cmocka_unit_test_setup_teardown(one_export_to_stdout_at_most, make_scratch,
                                        remove_scratch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

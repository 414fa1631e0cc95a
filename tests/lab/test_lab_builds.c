/* Tests of the builds before any sample (src/lab/lab_builds.c): keys and directories
 * prepared before the plan, a source edited after that refused, what each variant ran. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/strbuf.h"
#include "common/error.h"
#include "core/target.h"
#include "lab/lab_builds.h"

static const target_metric plain_metrics[] = {{"wall", false}};
/* Only the loader's part: these tests build and never run. */
static const target_kind plain_target = {.name = "plain", .metrics = plain_metrics,
                                         .n_metrics = 1};
static const target_kind *const plain_kinds[] = {&plain_target};
static const target_table plain_table = {plain_kinds, 1};

static void write_file(const char *dir, const char *name, const char *text)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

typedef struct {
    char dir[64];
    char cache[128];
    experiment e;
} fixture;

/* A plain directory src/ with a script the recipe copies, and an experiment whose B is
 * built from it. */
static void setup_fixture(fixture *f)
{
    snprintf(f->dir, sizeof f->dir, "/tmp/verdict-labbuilds-XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    snprintf(f->cache, sizeof f->cache, "%s/cache", f->dir);
    char src[128];
    snprintf(src, sizeof src, "%s/src", f->dir);
    assert_int_equal(mkdir(src, 0755), 0);
    write_file(src, "prog.in", "#!/bin/sh\necho one\n");
    char text[1024];
    snprintf(text, sizeof text,
             "target: plain\nvariants:\n  A: [/bin/true]\n"
             "  B: {source: %s, build: \"cp prog.in prog && chmod +x prog\", "
             "command: [\"{tree}/prog\"]}\n", src);
    verdict_error err = {0};
    if (experiment_parse("builds.yaml", text, strlen(text), &plain_table, &f->e, &err) != 0)
        fail_msg("%s", err);
}

static void teardown_fixture(fixture *f)
{
    char command[256];
    experiment_free(&f->e);
    snprintf(command, sizeof command, "rm -rf '%s'", f->dir);
    assert_int_equal(system(command), 0);
}

static void test_prepare_gives_keys_and_directories(void **unused)
{
    (void)unused;
    fixture f;
    setup_fixture(&f);
    uint64_t before = experiment_plan_hash(&f.e);
    verdict_error err;
    assert_int_equal(lab_builds_prepare(&f.e, f.cache, &err), 0);
    const experiment_variant *b = &f.e.variants[1];
    assert_null(f.e.variants[0].build_key);
    assert_int_equal(strlen(b->build_key), 64);
    char expected[256];
    snprintf(expected, sizeof expected, "%s/builds/%.16s/tree", f.cache, b->build_key);
    assert_string_equal(b->tree, expected);
    assert_int_not_equal(before, experiment_plan_hash(&f.e));
    /* an edit in the source is another key, and another plan */
    uint64_t prepared = experiment_plan_hash(&f.e);
    char old_key[65];
    snprintf(old_key, sizeof old_key, "%s", b->build_key);
    char src[128];
    snprintf(src, sizeof src, "%s/src", f.dir);
    write_file(src, "prog.in", "#!/bin/sh\necho two\n");
    assert_int_equal(lab_builds_prepare(&f.e, f.cache, &err), 0);
    assert_string_not_equal(old_key, b->build_key);
    assert_int_not_equal(prepared, experiment_plan_hash(&f.e));
    teardown_fixture(&f);
}

static void test_ensure_builds_and_records(void **unused)
{
    (void)unused;
    fixture f;
    setup_fixture(&f);
    verdict_error err;
    volatile sig_atomic_t stop = 0;
    strbuf measured = STRBUF_INIT;
    assert_int_equal(lab_builds_prepare(&f.e, f.cache, &err), 0);
    if (lab_builds_ensure(&f.e, f.cache, NULL, &stop, NULL, NULL, NULL, &measured, &err) != 0)
        fail_msg("%s", err.message);
    const experiment_variant *b = &f.e.variants[1];
    char prog[256];
    snprintf(prog, sizeof prog, "%s/prog", b->tree);
    assert_int_equal(access(prog, X_OK), 0);
    /* "variant\tlayout\tkey\tsha256\tbinary": A names /bin/true without a key, B its build */
    const char *text = strbuf_text(&measured);
    assert_non_null(strstr(text, "A\t0\t\t"));
    char line[512];
    snprintf(line, sizeof line, "B\t0\t%s\t", b->build_key);
    const char *bline = strstr(text, line);
    assert_non_null(bline);
    const char *sha = bline + strlen(line);
    assert_int_equal(strspn(sha, "0123456789abcdef"), 64);
    assert_non_null(strstr(sha, prog));
    strbuf_free(&measured);
    teardown_fixture(&f);
}

/* The plan was hashed with the content verdict saw first: a later edit is refused, never
 * measured under the old plan. */
static void test_source_edited_after_prepare_is_refused(void **unused)
{
    (void)unused;
    fixture f;
    setup_fixture(&f);
    verdict_error err;
    volatile sig_atomic_t stop = 0;
    assert_int_equal(lab_builds_prepare(&f.e, f.cache, &err), 0);
    char src[128];
    snprintf(src, sizeof src, "%s/src", f.dir);
    write_file(src, "prog.in", "#!/bin/sh\necho edited\n");
    assert_int_equal(lab_builds_ensure(&f.e, f.cache, NULL, &stop, NULL, NULL, NULL, NULL,
                                       &err), -1);
    assert_int_equal(err.kind, ERROR_USAGE);
    assert_non_null(strstr(err.message, "variant B changed since this run began"));
    teardown_fixture(&f);
}

static void test_default_cache_dir(void **unused)
{
    (void)unused;
    setenv("VERDICT_CACHE", "/somewhere/builds", 1);
    char *dir = lab_default_cache_dir();
    assert_string_equal(dir, "/somewhere/builds");
    free(dir);
    unsetenv("VERDICT_CACHE");
    setenv("XDG_CACHE_HOME", "/xdg", 1);
    dir = lab_default_cache_dir();
    assert_string_equal(dir, "/xdg/verdict");
    free(dir);
    unsetenv("XDG_CACHE_HOME");
    setenv("HOME", "/home/someone", 1);
    dir = lab_default_cache_dir();
    assert_string_equal(dir, "/home/someone/.cache/verdict");
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_prepare_gives_keys_and_directories),
        cmocka_unit_test(test_ensure_builds_and_records),
        cmocka_unit_test(test_source_edited_after_prepare_is_refused),
        cmocka_unit_test(test_default_cache_dir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests of layout twins (src/build/build_layout*.c, build_wrapper.c, build_links.c):
 * real make, meson, cc and lld on a tiny C project in a scratch directory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build/build.h"

typedef struct {
    char root[256];  /* a private scratch directory */
    char proj[300];  /* root/proj: the tiny project, not under git */
    char cache[300]; /* root/cache */
} scratch;

/* ---- helpers ---- */

static char *format(const char *fmt, va_list ap)
{
    char *text = NULL;
    assert_true(vasprintf(&text, fmt, ap) >= 0);
    return text;
}

static void run_shell(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void run_shell(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *command = format(fmt, ap);
    va_end(ap);
    int status = system(command);
    if (status != 0)
        fail_msg("'%s' failed with status %d", command, status);
    free(command);
}

/* The command's stdout (at most 1 MiB), which must exit 0. */
static char *shell_output(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *shell_output(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *command = format(fmt, ap);
    va_end(ap);
    FILE *in = popen(command, "r");
    assert_non_null(in);
    char *text = calloc(1, 1 << 20);
    assert_non_null(text);
    size_t n = fread(text, 1, (1 << 20) - 1, in);
    text[n] = '\0';
    int status = pclose(in);
    if (status != 0)
        fail_msg("'%s' failed with status %d", command, status);
    free(command);
    return text;
}

static char *path_in(const char *dir, const char *name)
{
    char *path = NULL;
    assert_true(asprintf(&path, "%s/%s", dir, name) >= 0);
    return path;
}

static void write_in(const char *dir, const char *name, const char *text)
{
    char *path = path_in(dir, name);
    FILE *out = fopen(path, "w");
    assert_non_null(out);
    fputs(text, out);
    assert_int_equal(fclose(out), 0);
    free(path);
}

static char *read_in(const char *dir, const char *name)
{
    char *path = path_in(dir, name);
    char *text = shell_output("cat '%s'", path);
    free(path);
    return text;
}

static void expect_contains(const char *text, const char *part)
{
    if (text == NULL || strstr(text, part) == NULL)
        fail_msg("expected \"%s\" in:\n%s", part, text ? text : "(null)");
}

static void sha_in(const char *dir, const char *name, char hex[BUILD_KEY_HEX + 1])
{
    char *path = path_in(dir, name);
    verdict_error err;
    if (build_file_sha256(path, hex, &err) != 0)
        fail_msg("build_file_sha256: %s", err.message);
    free(path);
}

static struct stat stat_in(const char *dir, const char *name)
{
    char *path = path_in(dir, name);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    free(path);
    return st;
}

/* ---- the project ---- */

/* Eight small functions apart from main, so that their orders are many (8! of them)
 * and no call is inlined across the files. */
static const char funcs_c[] =
    "int f_add(int x) { return x + 11; }\n"
    "int f_mul(int x) { return x * 3; }\n"
    "int f_xor(int x) { return x ^ 0x5a; }\n"
    "int f_sub(int x) { return x - 7; }\n"
    "int f_shl(int x) { return (x << 2) & 0xffff; }\n"
    "int f_mod(int x) { return x % 1009; }\n"
    "int f_neg(int x) { return 100 - x; }\n"
    "int f_sq(int x) { return (x * x) % 4093; }\n";

static const char main_c[] =
    "#include <stdio.h>\n"
    "int f_add(int), f_mul(int), f_xor(int), f_sub(int), f_shl(int), f_mod(int),\n"
    "    f_neg(int), f_sq(int);\n"
    "int main(void)\n{\n    int x = 1;\n    for (int i = 0; i < 100; i++)\n"
    "        x = f_sq(f_neg(f_mod(f_shl(f_sub(f_xor(f_mul(f_add(x))))))));\n"
    "    printf(\"result %d\\n\", x);\n    return 0;\n}\n";

/* Compiled and linked apart, as most builds do; the install copies the program. */
static const char makefile[] =
    "prog: main.o funcs.o\n\t$(CC) -o prog main.o funcs.o\n"
    "main.o: main.c\n\t$(CC) $(CFLAGS) -c main.c\n"
    "funcs.o: funcs.c\n\t$(CC) $(CFLAGS) -c funcs.c\n"
    "install: prog\n\tmkdir -p $(PREFIX)/bin && cp prog $(PREFIX)/bin/prog\n";

static int setup(void **state)
{
    scratch *s = calloc(1, sizeof *s);
    assert_non_null(s);
    const char *tmp = getenv("TMPDIR");
    snprintf(s->root, sizeof s->root, "%s/verdict-test-layouts-XXXXXX",
             tmp && *tmp ? tmp : "/tmp");
    assert_non_null(mkdtemp(s->root));
    snprintf(s->proj, sizeof s->proj, "%s/proj", s->root);
    snprintf(s->cache, sizeof s->cache, "%s/cache", s->root);
    char *ccache = path_in(s->root, "ccache");
    setenv("CCACHE_DIR", ccache, 1); /* the tests' compilations stay in the scratch */
    free(ccache);
    assert_int_equal(mkdir(s->proj, 0755), 0);
    write_in(s->proj, "funcs.c", funcs_c);
    write_in(s->proj, "main.c", main_c);
    write_in(s->proj, "Makefile", makefile);
    *state = s;
    return 0;
}

static int teardown(void **state)
{
    scratch *s = *state;
    run_shell("rm -rf '%s'", s->root);
    free(s);
    return 0;
}

static build_spec layout_spec(const scratch *s, const char *recipe)
{
    build_spec spec = {.label = "variant A", .recipe = recipe, .cache_dir = s->cache,
                       .layouts = true};
    spec.source.kind = BUILD_SOURCE_DIR;
    spec.source.path = s->proj;
    return spec;
}

static void ensure_ok(const build_spec *spec, build_result *result)
{
    verdict_error err;
    if (build_ensure(spec, NULL, NULL, result, &err) != 0)
        fail_msg("build_ensure: %s", err.message);
}

static void layout_ok(const build_result *base, uint64_t seed, build_layout *layout)
{
    verdict_error err;
    if (build_layout_ensure(base, seed, "variant A", NULL, NULL, layout, &err) != 0)
        fail_msg("build_layout_ensure: %s", err.message);
    assert_int_equal(layout->seed, seed);
}

/* The number of link records the build's wrapper wrote. */
static int records(const build_result *r)
{
    char *text = shell_output("ls '%s/links' | wc -l", r->dir);
    int n = atoi(text);
    free(text);
    return n;
}

/* ---- keys and tools ---- */

static void test_key_with_layouts_differs(void **state)
{
    scratch *s = *state;
    build_spec with = layout_spec(s, "make"), without = with;
    without.layouts = false;
    build_key a, b;
    verdict_error err;
    assert_int_equal(build_key_compute(&with, &a, &err), 0);
    assert_int_equal(build_key_compute(&without, &b, &err), 0);
    assert_string_not_equal(a.hex, b.hex);
    expect_contains(a.ingredients, "layouts: -ffunction-sections, ld.lld --shuffle-sections (");
    expect_contains(a.ingredients, "LLD");
    assert_null(strstr(b.ingredients, "layouts:"));
    build_key_free(&a);
    build_key_free(&b);
}

static void test_lld_missing_is_a_usage_error(void **state)
{
    scratch *s = *state;
    verdict_error err;
    assert_int_equal(build_layouts_available(&err), 0);
    char *saved = strdup(getenv("PATH"));
    char *bin = path_in(s->root, "bin");
    run_shell("mkdir '%s' && ln -s \"$(command -v git)\" '%s/git'", bin, bin);
    setenv("PATH", bin, 1); /* git, for the source; no ld.lld */
    free(bin);
    int rc = build_layouts_available(&err);
    build_spec spec = layout_spec(s, "make");
    build_key key;
    verdict_error key_err;
    int key_rc = build_key_compute(&spec, &key, &key_err);
    setenv("PATH", saved, 1);
    free(saved);
    assert_int_equal(rc, -1);
    assert_int_equal(err.kind, ERROR_USAGE);
    assert_string_equal(err.message, "layouts need lld (apt-get install lld)");
    assert_int_equal(key_rc, -1);
    assert_int_equal(key_err.kind, ERROR_USAGE);
    expect_contains(key_err.message, "apt-get install lld");
}

/* ---- builds with the wrapper ---- */

static void expect_function_sections(const char *tree)
{
    char *sections = shell_output("readelf -SW '%s/funcs.o'", tree);
    expect_contains(sections, ".text.f_add");
    expect_contains(sections, ".text.f_sq");
    free(sections);
}

static void test_build_goes_through_the_wrapper(void **state)
{
    scratch *s = *state;
    build_spec spec = layout_spec(s, "make install");
    build_result r;
    ensure_ok(&spec, &r);
    expect_function_sections(r.tree);
    assert_int_equal(records(&r), 1);
    char *record = shell_output("cat '%s'/links/* | tr '\\0' '\\n'", r.dir);
    char *expected = NULL;
    assert_true(asprintf(&expected, "%s\n-o\nprog\nmain.o\nfuncs.o\n", r.tree) >= 0);
    assert_string_equal(record, expected);
    char *comment = shell_output("readelf -p .comment '%s/prog'", r.tree);
    expect_contains(comment, "Linker: "); /* lld signs what it links */
    free(comment);
    free(record);
    free(expected);
    build_result_free(&r);

    build_spec plain = spec;
    plain.layouts = false; /* the contrast: no wrapper, no sections per function */
    ensure_ok(&plain, &r);
    char *sections = shell_output("readelf -SW '%s/funcs.o'", r.tree);
    assert_null(strstr(sections, ".text.f_add"));
    free(sections);
    build_result_free(&r);
}

static void test_makefile_that_sets_cc(void **state)
{
    scratch *s = *state;
    char *text = NULL;
    assert_true(asprintf(&text, "CC = cc\n%s", makefile) >= 0);
    write_in(s->proj, "Makefile", text);
    free(text);
    build_spec spec = layout_spec(s, "make install");
    build_result r;
    ensure_ok(&spec, &r);
    expect_function_sections(r.tree);
    assert_int_equal(records(&r), 1);
    build_result_free(&r);
}

/* ---- layouts ---- */

static void test_layouts_differ_only_in_order(void **state)
{
    scratch *s = *state;
    build_spec spec = layout_spec(s, "make install");
    build_result base;
    ensure_ok(&spec, &base);
    char base_sha[BUILD_KEY_HEX + 1], sha[3][BUILD_KEY_HEX + 1];
    sha_in(base.tree, "prog", base_sha);
    char *expected = shell_output("'%s/prog'", base.tree);
    char *symbols = shell_output("nm '%s/prog' | awk '$2 == \"T\" { print $3 }' | sort",
                                 base.tree);
    char *order[3];
    for (uint64_t seed = 1; seed <= 3; seed++) {
        build_layout layout;
        layout_ok(&base, seed, &layout);
        assert_false(layout.cached);
        assert_int_equal(layout.n_relinked, 1);
        sha_in(layout.tree, "prog", sha[seed - 1]);
        char *out = shell_output("'%s/prog'", layout.tree);
        assert_string_equal(out, expected);
        char *names = shell_output("nm '%s/prog' | awk '$2 == \"T\" { print $3 }' | sort",
                                   layout.tree);
        assert_string_equal(names, symbols); /* the same functions, */
        order[seed - 1] = shell_output("nm -n '%s/prog' | awk '$3 ~ /^f_/ { print $3 }'",
                                       layout.tree); /* in another order */
        free(names);
        free(out);
        build_layout_free(&layout);
    }
    assert_string_not_equal(sha[0], sha[1]);
    assert_string_not_equal(sha[0], sha[2]);
    assert_string_not_equal(sha[1], sha[2]);
    assert_string_not_equal(order[0], order[1]);
    assert_string_not_equal(order[1], order[2]);
    char after[BUILD_KEY_HEX + 1];
    sha_in(base.tree, "prog", after);
    assert_string_equal(after, base_sha); /* the build's own binary untouched */
    for (int i = 0; i < 3; i++)
        free(order[i]);
    free(expected);
    free(symbols);
    build_result_free(&base);
}

static void test_layout_is_reused(void **state)
{
    scratch *s = *state;
    build_spec spec = layout_spec(s, "make install");
    build_result base;
    ensure_ok(&spec, &base);
    build_layout first, again;
    layout_ok(&base, 0xfeedfacecafebeefu, &first);
    char sha[BUILD_KEY_HEX + 1], sha_again[BUILD_KEY_HEX + 1];
    sha_in(first.tree, "prog", sha);
    char *notes_text = NULL;
    size_t notes_size = 0;
    FILE *notes = open_memstream(&notes_text, &notes_size);
    assert_non_null(notes);
    verdict_error err;
    assert_int_equal(build_layout_ensure(&base, 0xfeedfacecafebeefu, "variant A", NULL, notes,
                                         &again, &err), 0);
    fclose(notes);
    assert_true(again.cached);
    assert_int_equal(again.n_relinked, 1);
    assert_string_equal(again.dir, first.dir);
    expect_contains(first.dir, "/layouts/feedfacecafebeef");
    sha_in(again.tree, "prog", sha_again);
    assert_string_equal(sha, sha_again);
    expect_contains(notes_text, "variant A: layout feedfacecafebeef of build ");
    expect_contains(notes_text, " cached");
    free(notes_text);
    build_layout_free(&first);
    build_layout_free(&again);
    build_result_free(&base);
}

static void test_install_holds_the_relinked_binary(void **state)
{
    scratch *s = *state;
    build_spec spec = layout_spec(s, "make install");
    build_result base;
    ensure_ok(&spec, &base);
    char base_before[BUILD_KEY_HEX + 1], base_after[BUILD_KEY_HEX + 1],
        tree_sha[BUILD_KEY_HEX + 1], installed[BUILD_KEY_HEX + 1];
    sha_in(base.install, "bin/prog", base_before);
    struct stat before = stat_in(base.install, "bin/prog");
    build_layout layout;
    layout_ok(&base, 7, &layout);
    sha_in(layout.tree, "prog", tree_sha);
    sha_in(layout.install, "bin/prog", installed);
    assert_string_equal(installed, tree_sha);
    assert_string_not_equal(installed, base_before);
    sha_in(base.install, "bin/prog", base_after);
    assert_string_equal(base_after, base_before);
    struct stat after = stat_in(base.install, "bin/prog"), copy = stat_in(layout.install,
                                                                          "bin/prog");
    assert_int_equal(after.st_ino, before.st_ino);
    assert_int_equal(after.st_mtim.tv_sec, before.st_mtim.tv_sec);
    assert_int_equal(after.st_mtim.tv_nsec, before.st_mtim.tv_nsec);
    assert_int_equal(after.st_nlink, 1); /* the layout's copy is no longer a link to it */
    assert_true(copy.st_ino != after.st_ino);
    assert_int_equal(copy.st_mode, after.st_mode);
    char *out = shell_output("'%s/bin/prog'", layout.install);
    expect_contains(out, "result ");
    char *relinked = read_in(layout.dir, "relinked");
    expect_contains(relinked, "relinked: prog");
    expect_contains(relinked, "installed: bin/prog (the build's prog, same bytes)");
    struct stat unchanged = stat_in(layout.tree, "main.o"), original = stat_in(base.tree,
                                                                               "main.o");
    assert_int_equal(unchanged.st_ino, original.st_ino); /* the rest: hard links */
    free(relinked);
    free(out);
    build_layout_free(&layout);
    build_result_free(&base);
}

/* configure's test links leave no output; a program linked twice is redone as last linked. */
static void test_configure_links_are_not_relinked(void **state)
{
    scratch *s = *state;
    build_spec spec = layout_spec(
        s, "printf 'int main(void) { return 0; }\\n' > conftest.c && "
           "$CC -o conftest conftest.c && ./conftest && rm -f conftest conftest.c && "
           "printf 'int absent(void); int main(void) { return absent(); }\\n' > conftest.c && "
           "! $CC -o conftest conftest.c 2>/dev/null && rm -f conftest conftest.c && "
           "make install && $CC -o prog main.o funcs.o -Wl,-z,now");
    build_result base;
    ensure_ok(&spec, &base);
    assert_int_equal(records(&base), 4);
    char *last = shell_output("ls '%s/links' | tail -n 1", base.dir);
    last[strcspn(last, "\n")] = '\0';
    build_layout layout;
    layout_ok(&base, 11, &layout);
    assert_int_equal(layout.n_relinked, 1);
    char *relinked = read_in(layout.dir, "relinked");
    expect_contains(relinked, "relinked: prog (recorded in ");
    expect_contains(relinked, last);
    assert_null(strstr(relinked, "conftest"));
    char *flags = shell_output("readelf -d '%s/prog'", layout.tree);
    expect_contains(flags, "BIND_NOW"); /* the last link's -z now, not make's link */
    free(flags);
    free(relinked);
    free(last);
    build_layout_free(&layout);
    build_result_free(&base);
}

static void test_failing_relink(void **state)
{
    scratch *s = *state;
    build_spec spec = layout_spec(s, "make install");
    build_result base;
    ensure_ok(&spec, &base);
    char *object = path_in(base.tree, "funcs.o");
    assert_int_equal(unlink(object), 0);
    free(object);
    build_layout layout;
    verdict_error err;
    assert_int_equal(build_layout_ensure(&base, 5, "variant A", NULL, NULL, &layout, &err), -1);
    assert_int_equal(err.kind, ERROR_COMMAND_FAILED);
    expect_contains(err.message, "variant A: layout 0000000000000005 of build ");
    expect_contains(err.message, "relinking prog");
    expect_contains(err.message, "exited with status");
    expect_contains(err.message, "-o prog main.o funcs.o");
    expect_contains(err.message, "funcs.o: No such file");
    expect_contains(err.message, "build.log");
    char *marker = shell_output("ls '%s/layouts/0000000000000005'", base.dir);
    assert_null(strstr(marker, "complete"));
    free(marker);
    build_result_free(&base);
}

static void test_stopped_layout_is_redone(void **state)
{
    scratch *s = *state;
    build_spec spec = layout_spec(s, "make install");
    build_result base;
    ensure_ok(&spec, &base);
    volatile sig_atomic_t stop = 1;
    build_layout layout;
    verdict_error err;
    assert_int_equal(build_layout_ensure(&base, 9, NULL, &stop, NULL, &layout, &err), -1);
    assert_int_equal(err.kind, ERROR_INTERRUPTED);
    layout_ok(&base, 9, &layout);
    assert_false(layout.cached);
    assert_int_equal(layout.n_relinked, 1);
    char *out = shell_output("'%s/prog'", layout.tree);
    expect_contains(out, "result ");
    free(out);
    build_layout_free(&layout);
    build_result_free(&base);
}

static void test_build_without_layouts_is_refused(void **state)
{
    scratch *s = *state;
    build_spec spec = layout_spec(s, "make install");
    spec.layouts = false;
    build_result base;
    ensure_ok(&spec, &base);
    build_layout layout;
    verdict_error err;
    assert_int_equal(build_layout_ensure(&base, 1, "variant A", NULL, NULL, &layout, &err), -1);
    assert_int_equal(err.kind, ERROR_USAGE);
    expect_contains(err.message, "was not made with layouts");
    build_result_free(&base);
}

/* The cache's size of a build counts each file once, as du does, however many layouts
 * hold hard links to it. */
static void test_cache_size_counts_links_once(void **state)
{
    scratch *s = *state;
    build_spec spec = layout_spec(s, "make install");
    build_result base;
    ensure_ok(&spec, &base);
    build_layout layouts[2];
    layout_ok(&base, 1, &layouts[0]);
    layout_ok(&base, 2, &layouts[1]);
    build_list list;
    verdict_error err;
    assert_int_equal(build_cache_list(s->cache, &list, &err), 0);
    assert_int_equal(list.n, 1);
    char *du = shell_output("du -s -B1 '%s' | cut -f1", base.dir);
    assert_int_equal(list.items[0].bytes, strtoull(du, NULL, 10));
    free(du);
    build_list_free(&list);
    build_layout_free(&layouts[0]);
    build_layout_free(&layouts[1]);
    build_result_free(&base);
}

/* ---- meson ---- */

/* A shared library and a program using it: meson rewrites the run path of both when it
 * installs, so their installed copies are found by name. */
static const char meson_build[] =
    "project('tiny', 'c')\n"
    "f = shared_library('f', 'funcs.c', install : true)\n"
    "executable('prog', 'main.c', link_with : f, install : true)\n";

static void test_meson_project(void **state)
{
    scratch *s = *state;
    if (system("meson --version >/dev/null 2>&1 && ninja --version >/dev/null 2>&1") != 0) {
        skip();
        return;
    }
    write_in(s->proj, "meson.build", meson_build);
    build_spec spec = layout_spec(s, "meson setup _b --prefix=\"$PREFIX\" --libdir=lib && "
                                     "ninja -C _b install");
    build_result base;
    ensure_ok(&spec, &base);
    char *sections = shell_output("readelf -SW '%s'/_b/libf.so.p/funcs.c.o", base.tree);
    expect_contains(sections, ".text.f_add");
    free(sections);
    char *expected = shell_output("LD_LIBRARY_PATH='%s/lib' '%s/bin/prog'", base.install,
                                  base.install);
    build_layout layout;
    layout_ok(&base, 3, &layout);
    assert_true(layout.n_relinked >= 2); /* the library and the program, at least */
    char *relinked = read_in(layout.dir, "relinked");
    expect_contains(relinked, "relinked: _b/prog");
    expect_contains(relinked, "relinked: _b/libf.so");
    expect_contains(relinked, "installed: bin/prog (by name");
    char *log = read_in(layout.dir, "build.log");
    expect_contains(log, "by its name");
    char *out = shell_output("LD_LIBRARY_PATH='%s/lib' '%s/bin/prog'", layout.install,
                             layout.install);
    assert_string_equal(out, expected);
    char a[BUILD_KEY_HEX + 1], b[BUILD_KEY_HEX + 1];
    sha_in(base.install, "bin/prog", a);
    sha_in(layout.install, "bin/prog", b);
    assert_string_not_equal(a, b);
    free(out);
    free(log);
    free(relinked);
    free(expected);
    build_layout_free(&layout);
    build_result_free(&base);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_key_with_layouts_differs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lld_missing_is_a_usage_error, setup, teardown),
        cmocka_unit_test_setup_teardown(test_build_goes_through_the_wrapper, setup, teardown),
        cmocka_unit_test_setup_teardown(test_makefile_that_sets_cc, setup, teardown),
        cmocka_unit_test_setup_teardown(test_layouts_differ_only_in_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_layout_is_reused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_install_holds_the_relinked_binary, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_configure_links_are_not_relinked, setup, teardown),
        cmocka_unit_test_setup_teardown(test_failing_relink, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stopped_layout_is_redone, setup, teardown),
        cmocka_unit_test_setup_teardown(test_build_without_layouts_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cache_size_counts_links_once, setup, teardown),
        cmocka_unit_test_setup_teardown(test_meson_project, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests of the build layer (src/build) with real git, tar, patch, make and cc in a
 * scratch directory: keys by content, exports, failed and interrupted builds, locks, prune. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "build/build.h"

#define DAY (24 * 3600)

typedef struct {
    char root[256];  /* a private scratch directory */
    char repo[300];  /* root/repo: a git repository, tags v1 and v2, work tree at v2 */
    char cache[300]; /* root/cache */
} scratch;

/* ---- helpers ---- */

static void run_shell(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void run_shell(const char *fmt, ...)
{
    char command[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(command, sizeof command, fmt, ap);
    va_end(ap);
    int status = system(command);
    if (status != 0)
        fail_msg("'%s' failed with status %d", command, status);
}

static char *shell_output(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *shell_output(const char *fmt, ...)
{
    char command[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(command, sizeof command, fmt, ap);
    va_end(ap);
    FILE *in = popen(command, "r");
    assert_non_null(in);
    char *text = calloc(1, 1 << 20);
    assert_non_null(text);
    size_t n = fread(text, 1, (1 << 20) - 1, in);
    text[n] = '\0';
    assert_int_equal(pclose(in), 0);
    return text;
}

static void write_text(const char *path, const char *text)
{
    FILE *out = fopen(path, "w");
    assert_non_null(out);
    fputs(text, out);
    assert_int_equal(fclose(out), 0);
}

static char *read_text(const char *path)
{
    FILE *in = fopen(path, "r");
    if (in == NULL)
        fail_msg("cannot open %s", path);
    char *text = calloc(1, 1 << 20);
    assert_non_null(text);
    size_t n = fread(text, 1, (1 << 20) - 1, in);
    text[n] = '\0';
    fclose(in);
    return text;
}

static bool exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

static void expect_contains(const char *text, const char *part)
{
    if (text == NULL || strstr(text, part) == NULL)
        fail_msg("expected \"%s\" in:\n%s", part, text ? text : "(null)");
}

static build_spec dir_spec(const char *path, const char *recipe)
{
    build_spec spec = {.label = "variant A", .recipe = recipe};
    spec.source.kind = BUILD_SOURCE_DIR;
    spec.source.path = path;
    return spec;
}

static build_spec ref_spec(const scratch *s, const char *ref, const char *recipe)
{
    build_spec spec = {.label = "variant B", .recipe = recipe, .cache_dir = s->cache};
    spec.source.kind = BUILD_SOURCE_GIT;
    spec.source.path = s->repo;
    spec.source.ref = ref;
    return spec;
}

static void key_of(const build_spec *spec, char hex[BUILD_KEY_HEX + 1])
{
    build_key key;
    verdict_error err;
    if (build_key_compute(spec, &key, &err) != 0)
        fail_msg("build_key_compute: %s", err.message);
    assert_int_equal(strlen(key.hex), BUILD_KEY_HEX);
    memcpy(hex, key.hex, BUILD_KEY_HEX + 1);
    build_key_free(&key);
}

static void ensure_ok(const build_spec *spec, build_result *result)
{
    verdict_error err;
    if (build_ensure(spec, NULL, NULL, result, &err) != 0)
        fail_msg("build_ensure: %s", err.message);
}

static char *in_dir(const char *dir, const char *name)
{
    static char paths[8][1024]; /* a few at a time, for assertions only */
    static unsigned next;
    char *path = paths[next++ % 8];
    snprintf(path, sizeof paths[0], "%s/%s", dir, name);
    return path;
}

static const char hello_v1[] = "#include <stdio.h>\nint main(void)\n{\n    puts(\"hello v1\");\n"
                               "    return 0;\n}\n";
/* Compiling and linking apart, since ccache caches compilations only. */
static const char makefile[] = "hello: hello.o\n\t$(CC) -o hello hello.o\n"
                               "hello.o: hello.c\n\t$(CC) $(CFLAGS) -g -c hello.c\n"
                               "install: hello\n\tmkdir -p $(PREFIX)/bin && cp hello "
                               "$(PREFIX)/bin/hello\n";

/* The repository: hello.c, a Makefile, sub/data.txt, .gitignore; tag v1, then v2 with
 * another greeting; the work tree is left clean at v2. */
static void make_repository(const scratch *s)
{
    run_shell("git init -q -b main %s", s->repo);
    write_text(in_dir(s->repo, "hello.c"), hello_v1);
    write_text(in_dir(s->repo, "Makefile"), makefile);
    write_text(in_dir(s->repo, ".gitignore"), "ignored.txt\nhello\n*.o\n");
    assert_int_equal(mkdir(in_dir(s->repo, "sub"), 0755), 0);
    write_text(in_dir(s->repo, "sub/data.txt"), "data\n");
    run_shell("cd %s && git add -A && git commit -q -m one && git tag v1 && "
              "sed -i 's/hello v1/hello v2/' hello.c && git commit -q -am two && git tag v2",
              s->repo);
}

static int setup(void **state)
{
    scratch *s = calloc(1, sizeof *s);
    assert_non_null(s);
    const char *tmp = getenv("TMPDIR");
    snprintf(s->root, sizeof s->root, "%s/verdict-test-build-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    assert_non_null(mkdtemp(s->root));
    snprintf(s->repo, sizeof s->repo, "%s/repo", s->root);
    snprintf(s->cache, sizeof s->cache, "%s/cache", s->root);
    char ccache[400];
    snprintf(ccache, sizeof ccache, "%s/ccache", s->root);
    setenv("CCACHE_DIR", ccache, 1); /* the tests' compilations stay in the scratch */
    make_repository(s);
    *state = s;
    return 0;
}

static int teardown(void **state)
{
    scratch *s = *state;
    run_shell("rm -rf %s", s->root);
    free(s);
    return 0;
}

/* ---- keys ---- */

static void test_ref_keys_follow_commits(void **state)
{
    scratch *s = *state;
    char v1[BUILD_KEY_HEX + 1], v1_again[BUILD_KEY_HEX + 1], v2[BUILD_KEY_HEX + 1],
        main_branch[BUILD_KEY_HEX + 1];
    build_spec a = ref_spec(s, "v1", "make"), b = ref_spec(s, "v2", "make"),
               m = ref_spec(s, "main", "make");
    key_of(&a, v1);
    key_of(&a, v1_again);
    key_of(&b, v2);
    key_of(&m, main_branch);
    assert_string_equal(v1, v1_again);
    assert_string_not_equal(v1, v2);
    assert_string_equal(v2, main_branch); /* the same commit by another name */
    build_key key;
    verdict_error err;
    assert_int_equal(build_key_compute(&a, &key, &err), 0);
    char *commit = shell_output("git -C %s rev-parse v1^{commit}", s->repo);
    commit[strcspn(commit, "\n")] = '\0';
    expect_contains(key.ingredients, commit);
    expect_contains(key.ingredients, "ref v1");
    expect_contains(key.ingredients, "recipe: make");
    expect_contains(key.ingredients, "compiler: ");
    build_key_free(&key);
    free(commit);
}

static void test_work_tree_edits_count(void **state)
{
    scratch *s = *state;
    build_spec spec = dir_spec(s->repo, "make");
    char clean[BUILD_KEY_HEX + 1], key[BUILD_KEY_HEX + 1];
    key_of(&spec, clean);
    write_text(in_dir(s->repo, "hello.c"), hello_v1); /* an edit, not committed */
    key_of(&spec, key);
    assert_string_not_equal(clean, key);
    run_shell("cd %s && git add hello.c", s->repo); /* staged counts as well */
    char staged[BUILD_KEY_HEX + 1];
    key_of(&spec, staged);
    assert_string_equal(key, staged);
    run_shell("cd %s && git reset -q && git checkout -q -- hello.c", s->repo);
    key_of(&spec, key);
    assert_string_equal(clean, key);
    write_text(in_dir(s->repo, "untracked.c"), "int x;\n");
    key_of(&spec, key);
    assert_string_not_equal(clean, key);
    unlink(in_dir(s->repo, "untracked.c"));
    write_text(in_dir(s->repo, "ignored.txt"), "ignored\n");
    key_of(&spec, key);
    assert_string_equal(clean, key);
}

static void test_work_tree_dirty_ingredients(void **state)
{
    scratch *s = *state;
    build_spec spec = dir_spec(s->repo, "make");
    build_key key;
    verdict_error err;
    assert_int_equal(build_key_compute(&spec, &key, &err), 0);
    expect_contains(key.ingredients, "dirty: no");
    expect_contains(key.ingredients, "git work tree");
    build_key_free(&key);
    write_text(in_dir(s->repo, "new.txt"), "new\n");
    assert_int_equal(build_key_compute(&spec, &key, &err), 0);
    expect_contains(key.ingredients, "dirty: yes");
    build_key_free(&key);
}

/* A subdirectory of a repository counts only what is below it, and is not the whole. */
static void test_work_tree_subdirectory(void **state)
{
    scratch *s = *state;
    char sub[400];
    snprintf(sub, sizeof sub, "%s/sub", s->repo);
    build_spec spec = dir_spec(sub, "true"), whole = dir_spec(s->repo, "true");
    char clean[BUILD_KEY_HEX + 1], key[BUILD_KEY_HEX + 1];
    key_of(&spec, clean);
    key_of(&whole, key);
    assert_string_not_equal(clean, key);
    write_text(in_dir(s->repo, "hello.c"), hello_v1);
    write_text(in_dir(s->repo, "outside.txt"), "outside\n");
    key_of(&spec, key);
    assert_string_equal(clean, key);
    write_text(in_dir(sub, "data.txt"), "changed\n");
    key_of(&spec, key);
    assert_string_not_equal(clean, key);
    write_text(in_dir(sub, "data.txt"), "data\n");
    write_text(in_dir(sub, "extra.txt"), "extra\n");
    key_of(&spec, key);
    assert_string_not_equal(clean, key);
}

static void test_patch_bytes_count(void **state)
{
    scratch *s = *state;
    char patch[400];
    snprintf(patch, sizeof patch, "%s/change.patch", s->root);
    write_text(patch, "--- a/hello.c\n+++ b/hello.c\n");
    const char *patches[] = {patch};
    build_spec spec = ref_spec(s, "v2", "make");
    char none[BUILD_KEY_HEX + 1], first[BUILD_KEY_HEX + 1], second[BUILD_KEY_HEX + 1];
    key_of(&spec, none);
    spec.source.patches = patches;
    spec.source.n_patches = 1;
    key_of(&spec, first);
    write_text(patch, "--- a/hello.c\n+++ b/hello.c\n\n");
    key_of(&spec, second);
    assert_string_not_equal(none, first);
    assert_string_not_equal(first, second);
}

static void test_recipe_options_and_flags_count(void **state)
{
    scratch *s = *state;
    build_spec spec = ref_spec(s, "v2", "make");
    char plain[BUILD_KEY_HEX + 1], other[BUILD_KEY_HEX + 1];
    key_of(&spec, plain);
    const char *options[] = {"--with-x"};
    spec.options = options;
    spec.n_options = 1;
    key_of(&spec, other);
    assert_string_not_equal(plain, other);
    spec.n_options = 0;
    spec.recipe = "make all";
    key_of(&spec, other);
    assert_string_not_equal(plain, other);
    spec.recipe = "make";
    setenv("CFLAGS", "-O0", 1);
    key_of(&spec, other);
    unsetenv("CFLAGS");
    assert_string_not_equal(plain, other);
    setenv("CFLAGS", "", 1); /* set to nothing differs from unset */
    key_of(&spec, other);
    unsetenv("CFLAGS");
    assert_string_not_equal(plain, other);
    key_of(&spec, other);
    assert_string_equal(plain, other);
}

static void test_plain_directory_bytes_and_modes(void **state)
{
    scratch *s = *state;
    char dir[400];
    snprintf(dir, sizeof dir, "%s/plain", s->root);
    assert_int_equal(mkdir(dir, 0755), 0);
    assert_int_equal(mkdir(in_dir(dir, "src"), 0755), 0);
    write_text(in_dir(dir, "src/a.c"), "int a;\n");
    write_text(in_dir(dir, "b.txt"), "bbbb\n");
    assert_int_equal(symlink("b.txt", in_dir(dir, "link")), 0);
    build_spec spec = dir_spec(dir, "true");
    char clean[BUILD_KEY_HEX + 1], key[BUILD_KEY_HEX + 1];
    key_of(&spec, clean);
    key_of(&spec, key);
    assert_string_equal(clean, key);
    write_text(in_dir(dir, "b.txt"), "bbbc\n"); /* one byte */
    key_of(&spec, key);
    assert_string_not_equal(clean, key);
    write_text(in_dir(dir, "b.txt"), "bbbb\n");
    key_of(&spec, key);
    assert_string_equal(clean, key);
    assert_int_equal(chmod(in_dir(dir, "src/a.c"), 0755), 0); /* one mode */
    key_of(&spec, key);
    assert_string_not_equal(clean, key);
    assert_int_equal(chmod(in_dir(dir, "src/a.c"), 0644), 0);
    unlink(in_dir(dir, "link"));
    assert_int_equal(symlink("src/a.c", in_dir(dir, "link")), 0); /* a link's target */
    key_of(&spec, key);
    assert_string_not_equal(clean, key);
    build_key k;
    verdict_error err;
    assert_int_equal(build_key_compute(&spec, &k, &err), 0);
    expect_contains(k.ingredients, "not under git");
    build_key_free(&k);
}

/* ---- builds ---- */

static void test_export_of_ref_matches_git(void **state)
{
    scratch *s = *state;
    char *head_before = shell_output("git -C %s rev-parse HEAD && git -C %s status --porcelain",
                                     s->repo, s->repo);
    build_spec spec = ref_spec(s, "v1", "true");
    build_result r;
    ensure_ok(&spec, &r);
    assert_false(r.cached);
    const char *files[] = {"hello.c", "Makefile", "sub/data.txt", ".gitignore"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        char *expected = shell_output("git -C %s show v1:%s", s->repo, files[i]);
        char *got = read_text(in_dir(r.tree, files[i]));
        assert_string_equal(expected, got);
        free(expected);
        free(got);
    }
    char *ingredients = read_text(in_dir(r.dir, "ingredients"));
    expect_contains(ingredients, "ref v1");
    free(ingredients);
    char *head_after = shell_output("git -C %s rev-parse HEAD && git -C %s status --porcelain",
                                    s->repo, s->repo);
    assert_string_equal(head_before, head_after); /* the repository was only read */
    assert_true(exists(in_dir(r.dir, "complete")));
    assert_true(exists(in_dir(r.dir, "used")));
    assert_false(exists(in_dir(r.dir, "source.tar")));
    free(head_before);
    free(head_after);
    build_result_free(&r);
}

/* A ref of a repository's subdirectory is that subdirectory's files at the ref. */
static void test_ref_of_subdirectory(void **state)
{
    scratch *s = *state;
    char sub[400];
    snprintf(sub, sizeof sub, "%s/sub", s->repo);
    build_spec whole = ref_spec(s, "v1", "true"), part = ref_spec(s, "v1", "true");
    part.source.path = sub;
    char whole_key[BUILD_KEY_HEX + 1], part_key[BUILD_KEY_HEX + 1];
    key_of(&whole, whole_key);
    key_of(&part, part_key);
    assert_string_not_equal(whole_key, part_key);
    build_result r;
    ensure_ok(&part, &r);
    assert_true(exists(in_dir(r.tree, "data.txt")));
    assert_false(exists(in_dir(r.tree, "hello.c")));
    build_result_free(&r);
}

static void test_build_then_cached(void **state)
{
    scratch *s = *state;
    build_spec spec = dir_spec(s->repo, "make install");
    spec.cache_dir = s->cache;
    write_text(in_dir(s->repo, "ignored.txt"), "not copied\n");
    build_result r;
    ensure_ok(&spec, &r);
    assert_false(r.cached);
    char *out = shell_output("%s/bin/hello", r.install);
    assert_string_equal(out, "hello v2\n");
    free(out);
    assert_false(exists(in_dir(r.tree, "ignored.txt")));
    assert_true(exists(in_dir(r.tree, "sub/data.txt")));
    char *log = read_text(r.log);
    expect_contains(log, "hello.c"); /* make's command line went to the log */
    free(log);
    char hex[BUILD_KEY_HEX + 1];
    verdict_error err;
    char binary[1024];
    snprintf(binary, sizeof binary, "%s/bin/hello", r.install);
    assert_int_equal(build_file_sha256(binary, hex, &err), 0);
    char *sum = shell_output("sha256sum %s", binary);
    assert_memory_equal(sum, hex, BUILD_KEY_HEX);
    free(sum);
    char first_key[BUILD_KEY_HEX + 1];
    memcpy(first_key, r.key, sizeof first_key);
    build_result_free(&r);

    char notes_text[4096] = "";
    FILE *notes = fmemopen(notes_text, sizeof notes_text, "w");
    assert_int_equal(build_ensure(&spec, NULL, notes, &r, &err), 0);
    fclose(notes);
    assert_true(r.cached);
    assert_string_equal(first_key, r.key);
    char expected[128];
    snprintf(expected, sizeof expected, "variant A: build %.16s cached", r.key);
    expect_contains(notes_text, expected);
    build_result_free(&r);
}

static void test_recipe_environment(void **state)
{
    scratch *s = *state;
    build_spec spec = ref_spec(s, "v2",
                               "printf '%s|%s|%s|%s\\n' \"$MAKEFLAGS\" \"$PREFIX\" \"$1\" \"$PATH\" "
                               "> env.txt");
    const char *options[] = {"first option"};
    spec.options = options;
    spec.n_options = 1;
    build_result r;
    ensure_ok(&spec, &r);
    char *text = read_text(in_dir(r.tree, "env.txt"));
    char expected[2048];
    cpu_set_t set;
    assert_int_equal(sched_getaffinity(0, sizeof set, &set), 0);
    snprintf(expected, sizeof expected, "-j%d|%s|first option|", CPU_COUNT(&set), r.install);
    expect_contains(text, expected);
    if (exists("/usr/lib/ccache"))
        expect_contains(text, "|/usr/lib/ccache:");
    free(text);
    build_result_free(&r);
}

/* Two builds of the same file in different trees (a ref, then the work tree at that ref
 * with one more file): the second compilation is a ccache hit, debug information and all. */
static void test_ccache_shares_compilations(void **state)
{
    scratch *s = *state;
    if (!exists("/usr/lib/ccache")) {
        skip();
        return;
    }
    build_spec ref = ref_spec(s, "v2", "make install");
    build_spec dir = dir_spec(s->repo, "make install");
    dir.cache_dir = s->cache;
    write_text(in_dir(s->repo, "extra.txt"), "another tree, the same hello.c\n");
    build_result a, b;
    ensure_ok(&ref, &a);
    ensure_ok(&dir, &b);
    assert_string_not_equal(a.key, b.key);
    char *hits = shell_output("ccache --print-stats | awk '$1 == \"direct_cache_hit\" || "
                              "$1 == \"preprocessed_cache_hit\" { n += $2 } END { print n + 0 }'");
    assert_string_equal(hits, "1\n");
    free(hits);
    build_result_free(&a);
    build_result_free(&b);
}

static void test_failed_recipe_is_redone(void **state)
{
    scratch *s = *state;
    char recipe[1024];
    snprintf(recipe, sizeof recipe,
             "echo first line; test -e %s/allow || { echo boom-line >&2; exit 7; }; echo built",
             s->root);
    build_spec spec = ref_spec(s, "v1", recipe);
    build_result r;
    verdict_error err;
    assert_int_equal(build_ensure(&spec, NULL, NULL, &r, &err), -1);
    assert_int_equal(err.kind, ERROR_COMMAND_FAILED);
    expect_contains(err.message, "variant B: build ");
    expect_contains(err.message, "exited with status 7");
    expect_contains(err.message, "boom-line");
    expect_contains(err.message, "build.log");
    build_list list;
    assert_int_equal(build_cache_list(s->cache, &list, &err), 0);
    assert_int_equal(list.n, 1);
    assert_false(list.items[0].complete);
    build_list_free(&list);
    write_text(in_dir(s->root, "allow"), "");
    ensure_ok(&spec, &r);
    assert_false(r.cached);
    char *log = read_text(r.log);
    expect_contains(log, "built");
    assert_null(strstr(log, "\nboom-line\n")); /* a fresh directory, a fresh log */
    free(log);
    build_result_free(&r);
}

static void test_interrupted_build_is_redone(void **state)
{
    scratch *s = *state;
    build_spec spec = ref_spec(s, "v2", "echo done > done.txt");
    char key[BUILD_KEY_HEX + 1], dir[1024];
    key_of(&spec, key);
    snprintf(dir, sizeof dir, "%s/builds/%.16s", s->cache, key);
    run_shell("mkdir -p %s/tree %s/install && echo junk > %s/tree/junk && echo %s > %s/key", dir,
              dir, dir, key, dir);
    build_result r;
    ensure_ok(&spec, &r);
    assert_false(r.cached);
    assert_string_equal(r.dir, dir);
    assert_false(exists(in_dir(r.tree, "junk")));
    assert_true(exists(in_dir(r.tree, "done.txt")));
    assert_true(exists(in_dir(r.dir, "complete")));
    build_result_free(&r);
}

static void test_stop_interrupts_the_recipe(void **state)
{
    scratch *s = *state;
    build_spec spec = ref_spec(s, "v2", "sleep 30");
    volatile sig_atomic_t stop = 1;
    build_result r;
    verdict_error err;
    time_t start = time(NULL);
    assert_int_equal(build_ensure(&spec, &stop, NULL, &r, &err), -1);
    assert_true(time(NULL) - start < 10);
    assert_int_equal(err.kind, ERROR_INTERRUPTED);
    build_list list;
    assert_int_equal(build_cache_list(s->cache, &list, &err), 0);
    assert_int_equal(list.n, 1);
    assert_false(list.items[0].complete);
    build_list_free(&list);
}

/* Two processes ensure the same key at once: one builds, the other waits and reuses it. */
static void test_concurrent_ensures_build_once(void **state)
{
    scratch *s = *state;
    char recipe[1024];
    snprintf(recipe, sizeof recipe, "echo x >> %s/count; sleep 1", s->root);
    build_spec spec = ref_spec(s, "v1", recipe);
    pid_t children[2];
    for (int i = 0; i < 2; i++) {
        children[i] = fork();
        assert_true(children[i] >= 0);
        if (children[i] == 0) {
            build_result r;
            verdict_error err;
            int rc = build_ensure(&spec, NULL, NULL, &r, &err);
            _exit(rc != 0 ? 1 : r.cached ? 20 : 10);
        }
    }
    int outcomes = 0;
    for (int i = 0; i < 2; i++) {
        int status;
        assert_int_equal(waitpid(children[i], &status, 0), children[i]);
        assert_true(WIFEXITED(status));
        outcomes += WEXITSTATUS(status);
    }
    assert_int_equal(outcomes, 30); /* one built (10), one reused (20) */
    char *count = read_text(in_dir(s->root, "count"));
    assert_string_equal(count, "x\n");
    free(count);
}

static void test_patches_apply_in_order(void **state)
{
    scratch *s = *state;
    char first[400], second[400];
    snprintf(first, sizeof first, "%s/1.patch", s->root);
    snprintf(second, sizeof second, "%s/2.patch", s->root);
    write_text(first, "--- a/sub/data.txt\n+++ b/sub/data.txt\n@@ -1 +1 @@\n-data\n+first\n");
    write_text(second, "--- a/sub/data.txt\n+++ b/sub/data.txt\n@@ -1 +1 @@\n-first\n+second\n");
    const char *patches[] = {first, second};
    build_spec spec = ref_spec(s, "v2", "true");
    spec.source.patches = patches;
    spec.source.n_patches = 2;
    build_result r;
    ensure_ok(&spec, &r);
    char *text = read_text(in_dir(r.tree, "sub/data.txt"));
    assert_string_equal(text, "second\n");
    free(text);
    char *copy = read_text(in_dir(s->repo, "sub/data.txt"));
    assert_string_equal(copy, "data\n"); /* the user's tree is untouched */
    free(copy);
    build_result_free(&r);
}

static void test_patch_that_does_not_apply(void **state)
{
    scratch *s = *state;
    char patch[400];
    snprintf(patch, sizeof patch, "%s/stale.patch", s->root);
    write_text(patch, "--- a/hello.c\n+++ b/hello.c\n@@ -1,3 +1,3 @@\n #include <stdio.h>\n"
                      "-int main(int argc, char **argv)\n+int main(int unmatched_hunk_marker)\n"
                      " {\n");
    const char *patches[] = {patch};
    build_spec spec = ref_spec(s, "v2", "true");
    spec.source.patches = patches;
    spec.source.n_patches = 1;
    build_result r;
    verdict_error err;
    assert_int_equal(build_ensure(&spec, NULL, NULL, &r, &err), -1);
    assert_int_equal(err.kind, ERROR_BAD_INPUT);
    expect_contains(err.message, patch);
    expect_contains(err.message, "does not apply");
    expect_contains(err.message, "+int main(int unmatched_hunk_marker)");
}

static void test_errors_name_what_is_wrong(void **state)
{
    scratch *s = *state;
    build_key key;
    verdict_error err;
    build_spec spec = ref_spec(s, "no-such-tag", "make");
    assert_int_equal(build_key_compute(&spec, &key, &err), -1);
    assert_int_equal(err.kind, ERROR_USAGE);
    expect_contains(err.message, "no-such-tag");
    expect_contains(err.message, s->repo);

    build_spec file = dir_spec(in_dir(s->repo, "hello.c"), "make");
    assert_int_equal(build_key_compute(&file, &key, &err), -1);
    assert_int_equal(err.kind, ERROR_USAGE);
    expect_contains(err.message, "hello.c");
    expect_contains(err.message, "not a directory");

    build_spec missing = dir_spec(in_dir(s->root, "absent"), "make");
    assert_int_equal(build_key_compute(&missing, &key, &err), -1);
    assert_int_equal(err.kind, ERROR_USAGE);
    expect_contains(err.message, "absent");

    build_spec not_repo = ref_spec(s, "v1", "make");
    not_repo.source.path = s->root;
    assert_int_equal(build_key_compute(&not_repo, &key, &err), -1);
    expect_contains(err.message, "not a git repository");

    const char *patches[] = {in_dir(s->root, "missing.patch")};
    build_spec patched = ref_spec(s, "v1", "make");
    patched.source.patches = patches;
    patched.source.n_patches = 1;
    assert_int_equal(build_key_compute(&patched, &key, &err), -1);
    assert_int_equal(err.kind, ERROR_USAGE);
    expect_contains(err.message, "missing.patch");
}

static void test_cache_that_cannot_be_created(void **state)
{
    scratch *s = *state;
    char cache[600];
    snprintf(cache, sizeof cache, "%s/hello.c/cache", s->repo);
    build_spec spec = ref_spec(s, "v1", "true");
    spec.cache_dir = cache;
    build_result r;
    verdict_error err;
    assert_int_equal(build_ensure(&spec, NULL, NULL, &r, &err), -1);
    assert_int_equal(err.kind, ERROR_USAGE);
    expect_contains(err.message, cache);

    char plain[400];
    snprintf(plain, sizeof plain, "%s/plain", s->root);
    assert_int_equal(mkdir(plain, 0755), 0);
    snprintf(cache, sizeof cache, "%s/cache", plain);
    build_spec inside = dir_spec(plain, "true");
    inside.cache_dir = cache;
    assert_int_equal(build_ensure(&inside, NULL, NULL, &r, &err), -1);
    assert_int_equal(err.kind, ERROR_USAGE);
    expect_contains(err.message, "inside the source");

    snprintf(cache, sizeof cache, "%s/.verdict-cache", s->repo); /* in a work tree */
    build_spec work = dir_spec(s->repo, "true");
    work.cache_dir = cache;
    assert_int_equal(build_ensure(&work, NULL, NULL, &r, &err), -1);
    assert_int_equal(err.kind, ERROR_USAGE);
    expect_contains(err.message, "git does not ignore it");
    run_shell("echo .verdict-cache/ >> %s/.git/info/exclude", s->repo);
    ensure_ok(&work, &r); /* ignored: allowed, and not part of the key */
    build_result again;
    ensure_ok(&work, &again);
    assert_true(again.cached);
    build_result_free(&r);
    build_result_free(&again);
}

/* ---- the cache ---- */

static void age(const char *dir, const char *name, time_t seconds)
{
    struct timespec times[2] = {{time(NULL) - seconds, 0}, {time(NULL) - seconds, 0}};
    assert_int_equal(utimensat(AT_FDCWD, in_dir(dir, name), times, 0), 0);
}

static void test_list_and_prune(void **state)
{
    scratch *s = *state;
    build_result old, recent;
    build_spec a = ref_spec(s, "v1", "true"), b = ref_spec(s, "v2", "true");
    ensure_ok(&a, &old);
    ensure_ok(&b, &recent);
    age(old.dir, "used", 3 * DAY);
    char leftover[1024];
    snprintf(leftover, sizeof leftover, "%s/builds/00000000deadbeef", s->cache);
    run_shell("mkdir -p %s/tree && head -c 100000 /dev/zero > %s/tree/big", leftover, leftover);

    build_list list;
    verdict_error err;
    assert_int_equal(build_cache_list(s->cache, &list, &err), 0);
    assert_int_equal(list.n, 3);
    for (size_t i = 0; i < list.n; i++) {
        const build_entry *e = &list.items[i];
        assert_true(e->bytes > 0);
        assert_false(e->busy);
        if (strcmp(e->name, "00000000deadbeef") == 0) {
            assert_false(e->complete);
            assert_null(e->ingredients);
        } else {
            assert_true(e->complete);
            expect_contains(e->ingredients, "source: git");
            assert_int_equal(strlen(e->key), BUILD_KEY_HEX);
        }
        if (strcmp(e->dir, old.dir) == 0)
            assert_true(e->last_used < time(NULL) - 2 * DAY);
    }
    build_list_free(&list);

    build_list removed;
    uint64_t freed = 0;
    assert_int_equal(build_cache_prune(s->cache, DAY, &removed, &freed, &err), 0);
    assert_int_equal(removed.n, 2);
    assert_true(freed >= 100000);
    assert_false(exists(old.dir));
    assert_false(exists(leftover));
    assert_true(exists(in_dir(recent.dir, "complete")));
    char lock[1100];
    snprintf(lock, sizeof lock, "%s.lock", old.dir);
    assert_false(exists(lock));
    build_list_free(&removed);
    assert_int_equal(build_cache_list(s->cache, &list, &err), 0);
    assert_int_equal(list.n, 1);
    assert_string_equal(list.items[0].key, recent.key);
    build_list_free(&list);
    build_result_free(&old);
    build_result_free(&recent);
}

static void test_prune_of_absent_cache(void **state)
{
    scratch *s = *state;
    build_list removed;
    uint64_t freed = 1;
    verdict_error err;
    assert_int_equal(build_cache_prune(s->cache, 0, &removed, &freed, &err), 0);
    assert_int_equal(removed.n, 0);
    assert_int_equal(freed, 0);
    build_list_free(&removed);
    assert_int_equal(build_cache_prune(s->cache, -1, NULL, NULL, &err), -1);
    assert_int_equal(err.kind, ERROR_USAGE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_ref_keys_follow_commits, setup, teardown),
        cmocka_unit_test_setup_teardown(test_work_tree_edits_count, setup, teardown),
        cmocka_unit_test_setup_teardown(test_work_tree_dirty_ingredients, setup, teardown),
        cmocka_unit_test_setup_teardown(test_work_tree_subdirectory, setup, teardown),
        cmocka_unit_test_setup_teardown(test_patch_bytes_count, setup, teardown),
        cmocka_unit_test_setup_teardown(test_recipe_options_and_flags_count, setup, teardown),
        cmocka_unit_test_setup_teardown(test_plain_directory_bytes_and_modes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_export_of_ref_matches_git, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ref_of_subdirectory, setup, teardown),
        cmocka_unit_test_setup_teardown(test_build_then_cached, setup, teardown),
        cmocka_unit_test_setup_teardown(test_recipe_environment, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ccache_shares_compilations, setup, teardown),
        cmocka_unit_test_setup_teardown(test_failed_recipe_is_redone, setup, teardown),
        cmocka_unit_test_setup_teardown(test_interrupted_build_is_redone, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stop_interrupts_the_recipe, setup, teardown),
        cmocka_unit_test_setup_teardown(test_concurrent_ensures_build_once, setup, teardown),
        cmocka_unit_test_setup_teardown(test_patches_apply_in_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_patch_that_does_not_apply, setup, teardown),
        cmocka_unit_test_setup_teardown(test_errors_name_what_is_wrong, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cache_that_cannot_be_created, setup, teardown),
        cmocka_unit_test_setup_teardown(test_list_and_prune, setup, teardown),
        cmocka_unit_test_setup_teardown(test_prune_of_absent_cache, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

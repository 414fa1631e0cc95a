/* Unit tests for the data-directory copy and removal (src/pg/file_tree.c, copy_tree and
 * remove_tree in cluster_files.c): contents, modes, links, read-only directories, errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pg/cluster_internal.h"
#include "common/error.h"
#include "pg/file_tree.h"

#define FILES_PER_DIR 150
#define BIG_FILE_SIZE (3 * 1024 * 1024 + 17)

typedef struct {
    char root[256];   /* a private scratch directory */
    char source[300]; /* root/source: the tree to copy */
    char copy[300];   /* root/copy */
} scratch;

static void write_bytes(const char *path, const unsigned char *bytes, size_t length, mode_t mode)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, bytes, length), (ssize_t)length);
    assert_int_equal(fchmod(fd, mode), 0);
    assert_int_equal(close(fd), 0);
}

/* Content that differs per file, so a file copied to the wrong name is caught. */
static void fill_pattern(unsigned char *bytes, size_t length, unsigned seed)
{
    uint32_t state = seed * 2654435761u + 1;
    for (size_t i = 0; i < length; i++) {
        state = state * 1103515245u + 12345u;
        bytes[i] = (unsigned char)(state >> 16);
    }
}

/* source/ has three directories of FILES_PER_DIR small files (enough for several threads),
 * a big file, a symbolic link, an empty directory and a read-only directory with a file. */
static void make_source_tree(const scratch *s)
{
    char path[512];
    assert_int_equal(mkdir(s->source, 0750), 0);
    const char *dirs[] = {"base", "base/1", "base/5", "global", "pg_wal", "empty"};
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
        snprintf(path, sizeof path, "%s/%s", s->source, dirs[i]);
        assert_int_equal(mkdir(path, 0700), 0);
    }
    unsigned char bytes[64];
    const char *file_dirs[] = {"base/1", "base/5", "global"};
    for (unsigned d = 0; d < 3; d++)
        for (unsigned f = 0; f < FILES_PER_DIR; f++) {
            snprintf(path, sizeof path, "%s/%s/%u", s->source, file_dirs[d], 1000 + f);
            fill_pattern(bytes, sizeof bytes, d * 1000 + f);
            write_bytes(path, bytes, 1 + f % sizeof bytes, f % 2 ? 0600 : 0640);
        }
    unsigned char *big = malloc(BIG_FILE_SIZE);
    assert_non_null(big);
    fill_pattern(big, BIG_FILE_SIZE, 4242);
    snprintf(path, sizeof path, "%s/pg_wal/000000010000000000000001", s->source);
    write_bytes(path, big, BIG_FILE_SIZE, 0600);
    free(big);
    snprintf(path, sizeof path, "%s/pg_wal/link", s->source);
    assert_int_equal(symlink("000000010000000000000001", path), 0);
    snprintf(path, sizeof path, "%s/read_only", s->source);
    assert_int_equal(mkdir(path, 0700), 0);
    snprintf(path, sizeof path, "%s/read_only/PG_VERSION", s->source);
    write_bytes(path, (const unsigned char *)"15\n", 3, 0400);
    snprintf(path, sizeof path, "%s/read_only", s->source);
    assert_int_equal(chmod(path, 0500), 0);
}

static int setup(void **state)
{
    scratch *s = calloc(1, sizeof *s);
    snprintf(s->root, sizeof s->root, "%s/verdict-file-tree-XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (mkdtemp(s->root) == NULL)
        return -1;
    snprintf(s->source, sizeof s->source, "%s/source", s->root);
    snprintf(s->copy, sizeof s->copy, "%s/copy", s->root);
    make_source_tree(s);
    *state = s;
    return 0;
}

static int teardown(void **state)
{
    scratch *s = *state;
    char path[512];
    /* A non-root user could not otherwise empty the read-only directories. */
    snprintf(path, sizeof path, "%s/read_only", s->source);
    chmod(path, 0700);
    snprintf(path, sizeof path, "%s/read_only", s->copy);
    chmod(path, 0700);
    verdict_error err = {0};
    int rc = remove_tree(s->root, &err);
    free(s);
    return rc;
}

static bool same_bytes(const char *path_a, const char *path_b)
{
    FILE *a = fopen(path_a, "rb"), *b = fopen(path_b, "rb");
    bool same = a != NULL && b != NULL;
    while (same) {
        int ca = getc(a), cb = getc(b);
        same = ca == cb;
        if (ca == EOF)
            break;
    }
    if (a)
        fclose(a);
    if (b)
        fclose(b);
    return same;
}

/* Compares one entry of the source with its copy: type, mode, owner, bytes or target. */
static int compare_entry(const tree_entry *entry, void *context, verdict_error *err)
{
    const scratch *s = context;
    char copy_path[600], source_path[600];
    snprintf(copy_path, sizeof copy_path, "%s/%s", s->copy, entry->path);
    snprintf(source_path, sizeof source_path, "%s/%s", s->source, entry->path);
    struct stat st;
    if (lstat(copy_path, &st) != 0 || (st.st_mode & S_IFMT) != (entry->st.st_mode & S_IFMT) ||
        (st.st_mode & 07777) != (entry->st.st_mode & 07777) || st.st_uid != entry->st.st_uid) {
        error_set(err, ERROR_INTERNAL, "%s: type, mode or owner differs", entry->path);
        return -1;
    }
    if (S_ISLNK(st.st_mode)) {
        char a[256] = "", b[256] = "";
        if (readlink(copy_path, a, sizeof a - 1) < 0 || readlink(source_path, b, sizeof b - 1) < 0 ||
            strcmp(a, b) != 0) {
            error_set(err, ERROR_INTERNAL, "%s: link target differs", entry->path);
            return -1;
        }
        return 0;
    }
    if (S_ISDIR(st.st_mode))
        return 0;
    if (st.st_size != entry->st.st_size || !same_bytes(copy_path, source_path)) {
        error_set(err, ERROR_INTERNAL, "%s: contents differ", entry->path);
        return -1;
    }
    return 0;
}

static void list_path(const char *path, tree_listing *listing)
{
    verdict_error err = {0};
    int fd = open(path, O_RDONLY | O_DIRECTORY);
    assert_true(fd >= 0);
    int rc = tree_list(fd, path, listing, &err);
    close(fd);
    if (rc != 0)
        fail_msg("tree_list: %s", err.message);
}

static void test_copy_keeps_contents_modes_and_links(void **state)
{
    scratch *s = *state;
    verdict_error err = {0};
    if (copy_tree(s->source, s->copy, &err) != 0)
        fail_msg("copy_tree: %s", err.message);

    tree_listing source, copy;
    list_path(s->source, &source);
    list_path(s->copy, &copy);
    /* 6 directories + read_only, 450 small files, the big file, the link, PG_VERSION */
    assert_int_equal(source.count, 7 + 3 * FILES_PER_DIR + 3);
    assert_int_equal(copy.count, source.count);
    /* Both checks read files from several threads; a wrong copy fails either. */
    if (tree_for_each_file(&source, compare_entry, s, 4, &err) != 0)
        fail_msg("%s", err.message);
    for (size_t i = 0; i < source.count; i++)
        if (S_ISDIR(source.entries[i].st.st_mode) && compare_entry(&source.entries[i], s,
                                                                   &err) != 0)
            fail_msg("%s", err.message);
    struct stat root_copy;
    assert_int_equal(stat(s->copy, &root_copy), 0);
    assert_int_equal(root_copy.st_mode & 07777, 0750);
    tree_listing_free(&source);
    tree_listing_free(&copy);
}

static void test_listing_puts_directories_before_their_contents(void **state)
{
    scratch *s = *state;
    tree_listing listing;
    list_path(s->source, &listing);
    for (size_t i = 0; i < listing.count; i++) {
        const char *slash = strrchr(listing.entries[i].path, '/');
        if (slash == NULL)
            continue;
        size_t parent_length = (size_t)(slash - listing.entries[i].path);
        bool parent_seen = false;
        for (size_t j = 0; j < i && !parent_seen; j++)
            parent_seen = strlen(listing.entries[j].path) == parent_length &&
                          strncmp(listing.entries[j].path, listing.entries[i].path,
                                  parent_length) == 0;
        if (!parent_seen)
            fail_msg("%s listed before its directory", listing.entries[i].path);
    }
    tree_listing_free(&listing);
}

static void test_copy_refuses_an_existing_destination(void **state)
{
    scratch *s = *state;
    verdict_error err = {0};
    assert_int_equal(mkdir(s->copy, 0700), 0);
    assert_int_equal(copy_tree(s->source, s->copy, &err), -1);
    assert_non_null(strstr(err.message, s->copy));
    assert_non_null(strstr(err.message, "exists"));
}

static void test_remove_deletes_everything_including_read_only_directories(void **state)
{
    scratch *s = *state;
    verdict_error err = {0};
    if (copy_tree(s->source, s->copy, &err) != 0)
        fail_msg("copy_tree: %s", err.message);
    char path[512];
    snprintf(path, sizeof path, "%s/read_only", s->copy);
    assert_int_equal(chmod(path, 0700), 0); /* as a user would before rm; root needs not */
    if (remove_tree(s->copy, &err) != 0)
        fail_msg("remove_tree: %s", err.message);
    assert_int_equal(access(s->copy, F_OK), -1);
    assert_int_equal(errno, ENOENT);
    assert_int_equal(remove_tree(s->copy, &err), 0); /* already gone: fine */
}

/* Fails on one chosen file; counts calls so the test can see the work stopped early. */
typedef struct {
    const char *failing_path;
    atomic_int calls;
} failing_action;

static int fail_on_one(const tree_entry *entry, void *context, verdict_error *err)
{
    failing_action *f = context;
    atomic_fetch_add(&f->calls, 1);
    if (strcmp(entry->path, f->failing_path) != 0)
        return 0;
    error_set(err, ERROR_INTERNAL, "refused %s", entry->path);
    return -1;
}

static void test_first_failure_is_reported_and_stops_the_work(void **state)
{
    scratch *s = *state;
    tree_listing listing;
    list_path(s->source, &listing);
    size_t files = 0;
    for (size_t i = 0; i < listing.count; i++)
        files += !S_ISDIR(listing.entries[i].st.st_mode);
    /* The first file listed: whatever slice it lands in, its thread stops right there. */
    const char *first_file = NULL;
    for (size_t i = 0; i < listing.count && first_file == NULL; i++)
        if (!S_ISDIR(listing.entries[i].st.st_mode))
            first_file = listing.entries[i].path;
    char expected[600];
    snprintf(expected, sizeof expected, "refused %s", first_file);
    for (int threads = 1; threads <= 4; threads++) {
        failing_action f = {.failing_path = first_file};
        atomic_init(&f.calls, 0);
        verdict_error err = {0};
        assert_int_equal(tree_for_each_file(&listing, fail_on_one, &f, threads, &err),
                         -1);
        assert_string_equal(err.message, expected);
        assert_true((size_t)atomic_load(&f.calls) < files);
    }
    failing_action none = {.failing_path = "no such file"};
    atomic_init(&none.calls, 0);
    verdict_error err = {0};
    assert_int_equal(tree_for_each_file(&listing, fail_on_one, &none, 4, &err), 0);
    assert_int_equal((size_t)atomic_load(&none.calls), files);
    tree_listing_free(&listing);
}

static void test_copy_of_a_missing_directory_names_it(void **state)
{
    (void)state;
    verdict_error err = {0};
    assert_int_equal(copy_tree("/nonexistent/verdict-template", "/tmp/unused", &err),
                     -1);
    assert_non_null(strstr(err.message, "/nonexistent/verdict-template"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_copy_keeps_contents_modes_and_links, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_listing_puts_directories_before_their_contents,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_copy_refuses_an_existing_destination, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            test_remove_deletes_everything_including_read_only_directories, setup, teardown),
        cmocka_unit_test_setup_teardown(test_first_failure_is_reported_and_stops_the_work, setup,
                                        teardown),
        cmocka_unit_test(test_copy_of_a_missing_directory_names_it),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

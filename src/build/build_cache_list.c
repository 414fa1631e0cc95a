/* The cache as found on disk: every build directory with its key, ingredients, state, size
 * and last use; and pruning, which removes old and incomplete builds under their locks. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "build/build_internal.h"
#include "common/array.h"

static bool is_build_name(const char *name, size_t length)
{
    return length == BUILD_KEY_SHORT && strspn(name, "0123456789abcdef") == length;
}


/* A build directory's name (suffix NULL) or its lock file's (suffix ".lock"), cut to the
 * build's name; 0 for anything else. */
static size_t build_name_with(const char *name, const void *suffix_text)
{
    const char *suffix = suffix_text;
    size_t length = strlen(name), suffix_length = suffix ? strlen(suffix) : 0;
    if (length < suffix_length ||
        (suffix && strcmp(name + length - suffix_length, suffix) != 0) ||
        !is_build_name(name, length - suffix_length))
        return 0;
    return length - suffix_length;
}

/* Names in builds/ that are build directories (suffix NULL) or lock files (suffix
 * ".lock"), sorted. An absent builds/ has none. */
static int list_names(const char *builds, const char *suffix, char ***names, size_t *n,
                      verdict_error *err)
{
    if (build_list_names(builds, build_name_with, suffix, names, n) == 0)
        return 0;
    if (errno == ENOENT)
        return 0;
    if (errno == ENOMEM)
        return error_no_memory(err);
    return error_set(err, ERROR_USAGE, "cannot read the build cache %s: %s", builds,
                     strerror(errno));
}

static time_t modified(const char *dir, const char *name)
{
    char *path = build_path_join(dir, name);
    struct stat st;
    time_t t = path && stat(path, &st) == 0 ? st.st_mtime : 0;
    free(path);
    return t;
}

static void read_key(build_entry *e)
{
    char *path = build_path_join(e->dir, "key");
    char *text = NULL;
    size_t n = 0;
    if (path && build_read_file(path, &text, &n) == 0 && n >= BUILD_KEY_HEX &&
        strspn(text, "0123456789abcdef") == BUILD_KEY_HEX)
        memcpy(e->key, text, BUILD_KEY_HEX);
    free(text);
    free(path);
}

/* What the directory says of itself; busy is left to the caller, who knows the lock. */
static int read_entry(const char *builds, const char *name, build_entry *e, verdict_error *err)
{
    memset(e, 0, sizeof *e);
    snprintf(e->name, sizeof e->name, "%s", name);
    e->dir = build_path_join(builds, name);
    if (e->dir == NULL)
        return error_no_memory(err);
    read_key(e);
    char *path = build_path_join(e->dir, "ingredients");
    size_t n = 0;
    if (path == NULL || build_read_file(path, &e->ingredients, &n) != 0)
        e->ingredients = NULL;
    free(path);
    e->complete = modified(e->dir, "complete") != 0;
    e->last_used = modified(e->dir, "used");
    if (e->last_used == 0)
        e->last_used = e->complete ? modified(e->dir, "complete") : modified(e->dir, ".");
    return build_tree_bytes(e->dir, &e->bytes, err);
}

static void entry_free(build_entry *e)
{
    free(e->dir);
    free(e->ingredients);
    memset(e, 0, sizeof *e);
}

/* Moves e into the list (e is emptied). */
static int list_add(build_list *list, build_entry *e, verdict_error *err)
{
    if (array_reserve((void **)&list->items, &list->capacity, list->n + 1,
                      sizeof *list->items) != 0) {
        entry_free(e);
        return error_no_memory(err);
    }
    list->items[list->n++] = *e;
    memset(e, 0, sizeof *e);
    return 0;
}

static char *lock_path(const char *builds, const char *name)
{
    strbuf b = STRBUF_INIT;
    strbuf_appendf(&b, "%s/%s.lock", builds, name);
    return strbuf_detach(&b);
}

/* Whether another process holds the build's lock now. */
static bool is_busy(const char *builds, const char *name)
{
    char *path = lock_path(builds, name);
    int fd = -1;
    verdict_error ignored;
    int rc = path ? build_lock_take(path, BUILD_LOCK_TRY, NULL, NULL, NULL, &fd, &ignored) : -1;
    build_lock_release(fd, path, false);
    free(path);
    return rc == 1;
}

int build_cache_list(const char *cache_dir, build_list *list, verdict_error *err)
{
    *list = (build_list){NULL, 0, 0};
    char *builds = build_path_join(cache_dir, "builds");
    char **names = NULL;
    size_t n = 0;
    int rc = builds ? list_names(builds, NULL, &names, &n, err)
                    : error_no_memory(err);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        build_entry e;
        rc = read_entry(builds, names[i], &e, err);
        if (rc == 0) {
            e.busy = is_busy(builds, names[i]);
            rc = list_add(list, &e, err);
        }
        entry_free(&e);
    }
    build_free_names(names, n);
    free(builds);
    if (rc != 0)
        build_list_free(list);
    return rc;
}

/* Under the build's lock, so that no builder is inside it: removes it when it is
 * incomplete or unused since before cutoff. 1 removed, 0 kept or busy, -1 error. */
static int prune_one(const char *builds, const char *name, time_t cutoff, build_entry *e,
                     verdict_error *err)
{
    char *lock = lock_path(builds, name);
    int fd = -1;
    int rc = lock ? build_lock_take(lock, BUILD_LOCK_TRY, NULL, NULL, NULL, &fd, err)
                  : error_no_memory(err);
    bool removed = false;
    if (rc == 0) {
        rc = read_entry(builds, name, e, err);
        removed = rc == 0 && (!e->complete || e->last_used < cutoff);
        if (removed)
            rc = build_tree_remove(e->dir, err);
    }
    build_lock_release(fd, lock, removed && rc == 0);
    free(lock);
    if (rc < 0)
        return -1;
    return rc == 0 && removed ? 1 : 0;
}

/* Lock files whose build is gone (a build never begun, or one removed by hand). */
static void prune_stale_locks(const char *builds)
{
    char **names = NULL;
    size_t n = 0;
    verdict_error ignored;
    if (list_names(builds, ".lock", &names, &n, &ignored) != 0)
        return;
    for (size_t i = 0; i < n; i++) {
        char *dir = build_path_join(builds, names[i]);
        char *lock = lock_path(builds, names[i]);
        struct stat st;
        int fd = -1;
        if (dir && lock && lstat(dir, &st) != 0 &&
            build_lock_take(lock, BUILD_LOCK_TRY, NULL, NULL, NULL, &fd, &ignored) == 0)
            build_lock_release(fd, lock, lstat(dir, &st) != 0);
        free(dir);
        free(lock);
    }
    build_free_names(names, n);
}

static int prune_all(const char *builds, char **names, size_t n, time_t cutoff,
                     build_list *removed, uint64_t *bytes, verdict_error *err)
{
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        build_entry e;
        memset(&e, 0, sizeof e);
        int outcome = prune_one(builds, names[i], cutoff, &e, err);
        if (outcome < 0)
            rc = -1;
        if (outcome == 1)
            *bytes += e.bytes;
        if (outcome == 1 && removed)
            rc = list_add(removed, &e, err);
        entry_free(&e);
    }
    return rc;
}

int build_cache_prune(const char *cache_dir, double max_age_seconds, build_list *removed,
                      uint64_t *bytes_freed, verdict_error *err)
{
    if (removed)
        *removed = (build_list){NULL, 0, 0};
    uint64_t bytes = 0;
    if (!(max_age_seconds >= 0))
        return error_set(err, ERROR_USAGE, "a prune age must be 0 seconds or more, not %g",
                         max_age_seconds);
    time_t cutoff = time(NULL) - (time_t)max_age_seconds;
    char *builds = build_path_join(cache_dir, "builds");
    char **names = NULL;
    size_t n = 0;
    int rc = builds ? list_names(builds, NULL, &names, &n, err)
                    : error_no_memory(err);
    rc = rc ? rc : prune_all(builds, names, n, cutoff, removed, &bytes, err);
    if (rc == 0)
        prune_stale_locks(builds);
    build_free_names(names, n);
    free(builds);
    if (bytes_freed)
        *bytes_freed = bytes;
    return rc;
}

void build_list_free(build_list *list)
{
    for (size_t i = 0; i < list->n; i++)
        entry_free(&list->items[i]);
    free(list->items);
    *list = (build_list){NULL, 0, 0};
}

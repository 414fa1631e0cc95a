/* build_ensure: the key, then under the key's lock either a complete build reused or the
 * directory made anew (export, patches, recipe) and marked complete last, by a rename. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build/build_internal.h"

/* One call of build_ensure: what it resolved and where its build lives. */
typedef struct {
    const build_spec *spec;
    build_key key;
    build_inputs in;
    build_paths paths;
    char *builds;                /* CACHE_DIR/builds, absolute */
    char *lock;                  /* builds/KEY16.lock */
    char what[160];              /* "variant A: build 3f2a1b2c3d4e5f60" */
    FILE *notes;
} ensure_state;

static void note(const ensure_state *s, const char *text)
{
    if (s->notes) {
        fprintf(s->notes, "%s %s\n", s->what, text);
        fflush(s->notes);
    }
}

static void note_waiting(void *context)
{
    note(context, "is being built by another verdict; waiting for it");
}

/* mkdir -p: every missing directory of path. */
static int make_directories(const char *path, verdict_error *err)
{
    char *copy = strdup(path);
    if (copy == NULL)
        return error_no_memory(err);
    int rc = 0;
    for (char *p = copy + 1; rc == 0; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char saved = *p;
        *p = '\0';
        struct stat st;
        if (mkdir(copy, 0755) != 0 && errno != EEXIST)
            rc = error_set(err, ERROR_USAGE, "cannot create the build cache %s: %s: %s", path,
                           copy, strerror(errno));
        else if (stat(copy, &st) != 0 || !S_ISDIR(st.st_mode))
            rc = error_set(err, ERROR_USAGE, "cannot create the build cache %s: %s is not a "
                           "directory", path, copy);
        *p = saved;
        if (saved == '\0')
            break;
    }
    free(copy);
    return rc;
}

static int set_paths(ensure_state *s, verdict_error *err)
{
    char name[BUILD_KEY_SHORT + 1];
    snprintf(name, sizeof name, "%.*s", BUILD_KEY_SHORT, s->key.hex);
    snprintf(s->what, sizeof s->what, "%s%sbuild %s", s->spec->label ? s->spec->label : "",
             s->spec->label ? ": " : "", name);
    s->paths.dir = build_path_join(s->builds, name);
    strbuf lock = STRBUF_INIT;
    strbuf_appendf(&lock, "%s.lock", s->paths.dir ? s->paths.dir : "");
    s->lock = strbuf_detach(&lock);
    if (s->paths.dir) {
        s->paths.tree = build_path_join(s->paths.dir, "tree");
        s->paths.install = build_path_join(s->paths.dir, "install");
        s->paths.log = build_path_join(s->paths.dir, "build.log");
    }
    if (!s->paths.dir || !s->lock || !s->paths.tree || !s->paths.install || !s->paths.log)
        return error_no_memory(err);
    return 0;
}

static int prepare(ensure_state *s, verdict_error *err)
{
    if (s->spec->cache_dir == NULL || s->spec->cache_dir[0] == '\0')
        return error_set(err, ERROR_USAGE, "the build has no cache directory");
    char *builds = build_path_join(s->spec->cache_dir, "builds");
    int rc = builds ? make_directories(builds, err) : error_no_memory(err);
    if (rc == 0 && (s->builds = realpath(builds, NULL)) == NULL)
        rc = error_set(err, ERROR_USAGE, "cannot use the build cache %s: %s", builds,
                       strerror(errno));
    free(builds);
    rc = rc ? rc : build_source_check_cache(&s->in, s->builds, err);
    return rc ? rc : set_paths(s, err);
}

int build_write_file(const char *dir, const char *name, const char *text, bool sync,
                     verdict_error *err)
{
    char *path = build_path_join(dir, name);
    FILE *out = path ? fopen(path, "we") : NULL;
    int rc = 0;
    if (out == NULL || fputs(text, out) == EOF || fflush(out) != 0 ||
        (sync && fsync(fileno(out)) != 0))
        rc = error_set(err, ERROR_INTERNAL, "cannot write %s/%s: %s", dir, name,
                       strerror(errno));
    if (out && fclose(out) != 0 && rc == 0)
        rc = error_set(err, ERROR_INTERNAL, "cannot write %s/%s: %s", dir, name,
                       strerror(errno));
    free(path);
    return rc;
}

/* The last step of a build (or a layout): the marker appears whole or not at all, after
 * everything. */
int build_mark_complete(const char *dir, const char *text, verdict_error *err)
{
    char *temporary = build_path_join(dir, "complete.tmp");
    char *marker = build_path_join(dir, "complete");
    int rc = temporary && marker ? build_write_file(dir, "complete.tmp", text, true, err)
                                 : error_no_memory(err);
    if (rc == 0 && rename(temporary, marker) != 0)
        rc = error_set(err, ERROR_INTERNAL, "cannot rename %s: %s", temporary, strerror(errno));
    int dir_fd = rc == 0 ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
    if (dir_fd >= 0) {
        fsync(dir_fd); /* the rename itself, durable */
        close(dir_fd);
    }
    free(temporary);
    free(marker);
    return rc;
}

static int mark_complete(const ensure_state *s, verdict_error *err)
{
    strbuf text = STRBUF_INIT;
    strbuf_appendf(&text, "%s\n", s->key.hex);
    int rc = strbuf_status(&text) == 0
                 ? build_mark_complete(s->paths.dir, strbuf_text(&text), err)
                 : error_no_memory(err);
    strbuf_free(&text);
    return rc;
}

/* Last use, for pruning: the used file's time. */
void build_touch_used(const char *dir)
{
    char *path = build_path_join(dir, "used");
    int fd = path ? open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644) : -1;
    if (fd >= 0) {
        futimens(fd, NULL);
        close(fd);
    }
    free(path);
}

/* 1 when the directory holds a complete build of this key, 0 when not, -1 when it holds
 * another key's (two keys that share their first digits: never reuse it). */
static int complete_build(const ensure_state *s, verdict_error *err)
{
    char *marker = build_path_join(s->paths.dir, "complete");
    char *key_path = build_path_join(s->paths.dir, "key");
    struct stat st;
    int rc = marker && stat(marker, &st) == 0 ? 1 : 0;
    char *held = NULL;
    size_t n = 0;
    if (rc == 1 && (!key_path || build_read_file(key_path, &held, &n) != 0 ||
                    strncmp(held, s->key.hex, BUILD_KEY_HEX) != 0))
        rc = error_set(err, ERROR_INTERNAL, "the build directory %s does not hold the key %s "
                       "(its key file says %.64s); remove it", s->paths.dir, s->key.hex,
                       held ? held : "nothing");
    free(held);
    free(marker);
    free(key_path);
    return rc;
}

bool build_is_cached(const char *cache_dir, const char *key_hex)
{
    char name[BUILD_KEY_SHORT + 8];
    snprintf(name, sizeof name, "builds/%.*s", BUILD_KEY_SHORT, key_hex);
    char *dir = build_path_join(cache_dir, name);
    char *marker = dir ? build_path_join(dir, "complete") : NULL;
    char *key_path = dir ? build_path_join(dir, "key") : NULL;
    char *held = NULL;
    size_t n = 0;
    struct stat st;
    bool cached = marker && key_path && stat(marker, &st) == 0 &&
                  build_read_file(key_path, &held, &n) == 0 &&
                  strncmp(held, key_hex, BUILD_KEY_HEX) == 0;
    free(held);
    free(key_path);
    free(marker);
    free(dir);
    return cached;
}

static int start_directory(const ensure_state *s, verdict_error *err)
{
    const char *dirs[] = {s->paths.dir, s->paths.tree, s->paths.install};
    for (size_t i = 0; i < 3; i++)
        if (mkdir(dirs[i], 0755) != 0)
            return error_set(err, ERROR_INTERNAL, "cannot create %s: %s", dirs[i],
                             strerror(errno));
    strbuf key = STRBUF_INIT;
    strbuf_appendf(&key, "%s\n", s->key.hex);
    int rc = strbuf_status(&key) == 0 ? 0 : error_no_memory(err);
    rc = rc ? rc : build_write_file(s->paths.dir, "key", strbuf_text(&key), false, err);
    rc = rc ? rc : build_write_file(s->paths.dir, "ingredients", s->key.ingredients, false, err);
    rc = rc ? rc : build_write_file(s->paths.dir, "build.log", "", false, err);
    strbuf_free(&key);
    return rc;
}

static int build_fresh(ensure_state *s, volatile sig_atomic_t *stop, verdict_error *err)
{
    double start = runner_monotonic_seconds();
    strbuf text = STRBUF_INIT;
    strbuf_appendf(&text, "not cached; building in %s", s->paths.dir);
    note(s, strbuf_text(&text));
    strbuf_free(&text);
    int rc = start_directory(s, err);
    rc = rc ? rc : build_log_note(s->paths.log, err, "build %s", s->key.hex);
    rc = rc ? rc : build_source_export(&s->in, s->paths.tree, s->paths.dir, stop, err);
    rc = rc ? rc : build_apply_patches(&s->in, &s->paths, stop, err);
    rc = rc ? rc : build_run_recipe(s->spec, &s->paths, stop, err);
    rc = rc ? rc : mark_complete(s, err);
    if (rc != 0)
        return error_prefix(err, "%s", s->what);
    char done[64];
    snprintf(done, sizeof done, "built in %.1f s", runner_monotonic_seconds() - start);
    note(s, done);
    return 0;
}

/* Under the lock: reuse, or clear what an interrupted or failed build left and build. */
static int reuse_or_build(ensure_state *s, volatile sig_atomic_t *stop, bool *cached,
                          verdict_error *err)
{
    int complete = complete_build(s, err);
    if (complete < 0)
        return -1;
    if (complete == 0) {
        struct stat st;
        if (lstat(s->paths.dir, &st) == 0)
            note(s, "was left incomplete (interrupted or failed); removing it to build again");
        if (build_tree_remove(s->paths.dir, err) != 0 || build_fresh(s, stop, err) != 0)
            return -1;
    } else {
        note(s, "cached");
    }
    *cached = complete == 1;
    build_touch_used(s->paths.dir);
    return 0;
}

static int fill_result(const ensure_state *s, bool cached, build_result *result,
                       verdict_error *err)
{
    memcpy(result->key, s->key.hex, sizeof result->key);
    result->cached = cached;
    result->dir = strdup(s->paths.dir);
    result->tree = strdup(s->paths.tree);
    result->install = strdup(s->paths.install);
    result->log = strdup(s->paths.log);
    if (!result->dir || !result->tree || !result->install || !result->log) {
        build_result_free(result);
        return error_no_memory(err);
    }
    return 0;
}

static void ensure_state_free(ensure_state *s)
{
    build_key_free(&s->key);
    build_inputs_free(&s->in);
    free(s->paths.dir);
    free(s->paths.tree);
    free(s->paths.install);
    free(s->paths.log);
    free(s->builds);
    free(s->lock);
}

int build_ensure(const build_spec *spec, volatile sig_atomic_t *stop, FILE *notes,
                 build_result *result, verdict_error *err)
{
    *result = (build_result){{0}, NULL, NULL, NULL, NULL, false};
    ensure_state s = {.spec = spec, .notes = notes};
    int lock_fd = -1;
    bool cached = false;
    int rc = build_key_resolve(spec, &s.key, &s.in, err);
    if (rc == 0 && prepare(&s, err) != 0)
        rc = spec->label ? error_prefix(err, "%s", spec->label) : -1;
    rc = rc ? rc : build_lock_take(s.lock, BUILD_LOCK_WAIT, stop, note_waiting, &s, &lock_fd,
                                   err);
    rc = rc ? rc : reuse_or_build(&s, stop, &cached, err);
    build_lock_release(lock_fd, s.lock, false);
    rc = rc ? rc : fill_result(&s, cached, result, err);
    ensure_state_free(&s);
    return rc;
}

void build_result_free(build_result *result)
{
    free(result->dir);
    free(result->tree);
    free(result->install);
    free(result->log);
    *result = (build_result){{0}, NULL, NULL, NULL, NULL, false};
}

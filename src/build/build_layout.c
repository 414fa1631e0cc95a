/* build_layout_ensure: under the layout's own lock, a complete layout reused or made anew —
 * the build's tree and install as hard links, every recorded link redone with the seed. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build/build_internal.h"
#include "common/wait_status.h"

#define COMMAND_ROOM 600 /* of an error message, for the failed relink's command */

/* Runs the relink with its output appended to the layout's log. */
static const char relink_shell[] = "exec >>\"$1\" 2>&1 || exit 125; shift; exec \"$@\"";

/* One call of build_layout_ensure. */
typedef struct {
    const build_result *base;
    char *base_dir, *base_tree, *base_install; /* real paths */
    char *wrapper, *links;       /* BASE/cc-layouts, BASE/links */
    char name[BUILD_KEY_SHORT + 1]; /* the seed in hex */
    char lld_seed[16];           /* the seed lld is given, in decimal */
    char *lock;                  /* BASE/layouts/NAME.lock */
    build_paths paths;           /* BASE/layouts/NAME and its tree, install, build.log */
    char what[200];              /* "variant A: layout 0000000000000007 of build 3f2a1b2c" */
    FILE *notes;
} layout_state;

static void note(const layout_state *s, const char *text)
{
    if (s->notes) {
        fprintf(s->notes, "%s %s\n", s->what, text);
        fflush(s->notes);
    }
}

static void note_waiting(void *context)
{
    note(context, "is being made by another verdict; waiting for it");
}

/* lld takes 32 bits of a seed, reads 0 as "random" and -1 as "reverse": the 64 bits are
 * mixed (splitmix64's finalizer) and folded onto 1 .. 2^32 - 2, so that every seed is a
 * fixed shuffle and nearby seeds are unrelated ones. */
static uint32_t lld_seed_of(uint64_t seed)
{
    uint64_t z = seed + 0x9e3779b97f4a7c15u;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    z ^= z >> 31;
    return (uint32_t)(1 + z % 0xfffffffeu);
}

static int real_path(const char *given, char **path, verdict_error *err)
{
    *path = realpath(given, NULL);
    return *path ? 0 : error_set(err, ERROR_USAGE, "cannot use the build %s: %s", given,
                                 strerror(errno));
}

static int set_paths(layout_state *s, const char *label, uint64_t seed, verdict_error *err)
{
    snprintf(s->name, sizeof s->name, "%016" PRIx64, seed);
    snprintf(s->lld_seed, sizeof s->lld_seed, "%" PRIu32, lld_seed_of(seed));
    snprintf(s->what, sizeof s->what, "%s%slayout %s of build %.*s", label ? label : "",
             label ? ": " : "", s->name, BUILD_KEY_SHORT, s->base->key);
    if (real_path(s->base->dir, &s->base_dir, err) != 0 ||
        real_path(s->base->tree, &s->base_tree, err) != 0 ||
        real_path(s->base->install, &s->base_install, err) != 0)
        return -1;
    strbuf b = STRBUF_INIT;
    strbuf_appendf(&b, "%s/layouts/%s", s->base_dir, s->name);
    s->paths.dir = strbuf_detach(&b);
    strbuf_appendf(&b, "%s.lock", s->paths.dir ? s->paths.dir : "");
    s->lock = strbuf_detach(&b);
    s->wrapper = build_path_join(s->base_dir, BUILD_WRAPPER_NAME);
    s->links = build_path_join(s->base_dir, BUILD_LINKS_NAME);
    if (s->paths.dir) {
        s->paths.tree = build_path_join(s->paths.dir, "tree");
        s->paths.install = build_path_join(s->paths.dir, "install");
        s->paths.log = build_path_join(s->paths.dir, "build.log");
    }
    if (!s->paths.dir || !s->lock || !s->wrapper || !s->links || !s->paths.tree ||
        !s->paths.install || !s->paths.log)
        return error_no_memory(err);
    return 0;
}

/* The base must be a finished build whose recipe ran with the wrapper. */
static int check_base(const layout_state *s, verdict_error *err)
{
    char *marker = build_path_join(s->base_dir, "complete");
    struct stat st;
    int rc = 0;
    if (marker == NULL)
        rc = error_no_memory(err);
    else if (stat(marker, &st) != 0)
        rc = error_set(err, ERROR_USAGE, "the build %s is not complete", s->base_dir);
    else if (stat(s->wrapper, &st) != 0 || stat(s->links, &st) != 0 || !S_ISDIR(st.st_mode))
        rc = error_set(err, ERROR_USAGE, "the build %s was not made with layouts (it has no "
                       "%s and %s)", s->base_dir, BUILD_WRAPPER_NAME, BUILD_LINKS_NAME);
    free(marker);
    return rc;
}

static int make_layouts_dir(const layout_state *s, verdict_error *err)
{
    char *dir = build_path_join(s->base_dir, "layouts");
    int rc = dir ? 0 : error_no_memory(err);
    if (rc == 0 && mkdir(dir, 0755) != 0 && errno != EEXIST)
        rc = error_set(err, ERROR_INTERNAL, "cannot create %s: %s", dir, strerror(errno));
    free(dir);
    return rc;
}

/* cp -al: directories made anew, every file a hard link to the build's. */
static int copy_linked(const char *from, const char *to, volatile sig_atomic_t *stop,
                       verdict_error *err)
{
    const char *argv[] = {"cp", "-al", from, to, NULL};
    build_command c = {.argv = argv, .stop = stop};
    run_result r;
    if (build_command_run(&c, &r, err) != 0)
        return -1;
    char why[ERROR_MESSAGE_SIZE];
    build_command_failure("cp -al", &r, why, sizeof why);
    int rc = r.interrupted ? error_set(err, ERROR_INTERRUPTED, "interrupted while copying %s",
                                       from)
             : r.exit_code != 0 ? error_set(err, ERROR_INTERNAL, "cannot copy %s to %s as hard "
                                            "links: %s", from, to, why)
                                : 0;
    run_result_free(&r);
    return rc;
}

/* The word with the build's tree or install at its start (or after -L, -I, -o) as the
 * layout's; the run path (-Wl,-rpath,...) is left alone, as the limits in the docs say. */
static char *map_word(const layout_state *s, const char *word)
{
    const char *from[] = {s->base_tree, s->base_install};
    const char *to[] = {s->paths.tree, s->paths.install};
    bool option = strncmp(word, "-L", 2) == 0 || strncmp(word, "-I", 2) == 0 ||
                  strncmp(word, "-o", 2) == 0;
    size_t starts[] = {0, 2};
    for (size_t k = 0; k < (option ? 2u : 1u); k++)
        for (size_t i = 0; i < 2; i++) {
            size_t at = starts[k], n = strlen(from[i]);
            if (strncmp(word + at, from[i], n) == 0 && (word[at + n] == '/' || !word[at + n])) {
                strbuf b = STRBUF_INIT;
                strbuf_appendf(&b, "%.*s%s%s", (int)at, word, to[i], word + at + n);
                return strbuf_detach(&b);
            }
        }
    return strdup(word);
}

/* The relink's argv: the log shell, the wrapper, the mapped words; mapped holds what was
 * allocated. */
static int relink_argv(const layout_state *s, const build_link *l, char ***mapped,
                       const char ***argv)
{
    *mapped = calloc(l->n_words + 1, sizeof **mapped);
    *argv = calloc(l->n_words + 7, sizeof **argv);
    if (*mapped == NULL || *argv == NULL)
        return -1;
    const char *head[] = {"/bin/sh", "-c", relink_shell, "sh", s->paths.log, s->wrapper};
    memcpy(*argv, head, sizeof head);
    for (size_t i = 0; i < l->n_words; i++)
        if (((*argv)[6 + i] = (*mapped)[i] = map_word(s, l->words[i])) == NULL)
            return -1;
    return 0;
}

static void free_words(char **words)
{
    for (char **w = words; w && *w; w++)
        free(*w);
    free(words);
}

/* "WRAPPER WORD..." for people, at most room bytes of it. */
static void put_command(strbuf *b, const char *const *argv, size_t room)
{
    strbuf text = STRBUF_INIT;
    for (size_t i = 5; argv[i]; i++) {
        strbuf_append(&text, i > 5 ? " " : "");
        build_shell_word(&text, argv[i]);
    }
    size_t n = text.length;
    if (n > room)
        strbuf_appendf(b, "%.*s ... (%zu bytes more)", (int)room, strbuf_text(&text), n - room);
    else
        strbuf_append(b, strbuf_text(&text));
    strbuf_free(&text);
}

static int relink_failed(const layout_state *s, const build_link *l, const char *cwd,
                         const char *const *argv, const run_result *r, verdict_error *err)
{
    char how[128];
    snprintf(how, sizeof how, "was interrupted");
    if (!r->interrupted)
        exit_text(r->exit_code, r->term_signal, how, sizeof how);
    strbuf b = STRBUF_INIT;
    strbuf_appendf(&b, "relinking %s (recorded in %s/%s) %s; in %s: ", l->relative, s->links,
                   l->record, how, cwd);
    put_command(&b, argv, COMMAND_ROOM);
    strbuf_appendf(&b, "; its output is in %s, which ends:\n", s->paths.log);
    build_log_tail(&b, s->paths.log);
    int rc = error_set(err, r->interrupted ? ERROR_INTERRUPTED : ERROR_COMMAND_FAILED, "%s",
                       strbuf_status(&b) == 0 ? strbuf_text(&b) : "out of memory");
    strbuf_free(&b);
    return rc;
}

static int log_relink(const layout_state *s, const build_link *l, const char *cwd,
                      const char *const *argv, verdict_error *err)
{
    strbuf b = STRBUF_INIT;
    put_command(&b, argv, SIZE_MAX);
    int rc = strbuf_status(&b) == 0
                 ? build_log_note(s->paths.log, err, "relink %s (in %s): %s", l->relative, cwd,
                                  strbuf_text(&b))
                 : error_no_memory(err);
    strbuf_free(&b);
    return rc;
}

/* The output goes first: the layout's tree holds a hard link to the build's file there,
 * which the linker must not write through. */
static int unlink_output(const layout_state *s, const build_link *l, verdict_error *err)
{
    char *path = build_path_join(s->paths.tree, l->relative);
    int rc = path ? 0 : error_no_memory(err);
    if (rc == 0 && unlink(path) != 0 && errno != ENOENT)
        rc = error_set(err, ERROR_INTERNAL, "cannot remove %s: %s", path, strerror(errno));
    free(path);
    return rc;
}

static int relink_one(const layout_state *s, const build_link *l, char **envp,
                      volatile sig_atomic_t *stop, verdict_error *err)
{
    char **mapped = NULL;
    const char **argv = NULL;
    char *cwd = map_word(s, l->cwd);
    int rc = cwd && relink_argv(s, l, &mapped, &argv) == 0
                 ? 0
                 : error_no_memory(err);
    rc = rc ? rc : log_relink(s, l, cwd, argv, err);
    rc = rc ? rc : unlink_output(s, l, err);
    build_command c = {.argv = argv, .cwd = cwd, .envp = envp, .stop = stop};
    run_result r;
    if (rc == 0 && (rc = build_command_run(&c, &r, err)) == 0) {
        if (r.interrupted || r.exit_code != 0)
            rc = relink_failed(s, l, cwd, argv, &r, err);
        run_result_free(&r);
    }
    free(argv);
    free_words(mapped);
    free(cwd);
    return rc;
}

static int relink_all(const layout_state *s, const build_link_list *links,
                      volatile sig_atomic_t *stop, strbuf *report, verdict_error *err)
{
    char **envp = build_recipe_environment(&s->paths, s->wrapper, s->lld_seed);
    int rc = envp ? 0 : error_no_memory(err);
    for (size_t i = 0; rc == 0 && i < links->n; i++) {
        if (stop && *stop)
            rc = error_set(err, ERROR_INTERRUPTED, "interrupted before relinking %s",
                           links->items[i].relative);
        else
            rc = relink_one(s, &links->items[i], envp, stop, err);
        if (rc == 0)
            strbuf_appendf(report, "relinked: %s (recorded in %s)\n",
                           links->items[i].relative, links->items[i].record);
    }
    build_env_free(envp);
    return rc;
}

static int start_directory(const layout_state *s, volatile sig_atomic_t *stop,
                           verdict_error *err)
{
    if (mkdir(s->paths.dir, 0755) != 0)
        return error_set(err, ERROR_INTERNAL, "cannot create %s: %s", s->paths.dir,
                         strerror(errno));
    int rc = build_write_file(s->paths.dir, "build.log", "", false, err);
    rc = rc ? rc : build_log_note(s->paths.log, err, "layout %s of build %s: lld seed %s",
                                  s->name, s->base->key, s->lld_seed);
    rc = rc ? rc : copy_linked(s->base_tree, s->paths.tree, stop, err);
    return rc ? rc : copy_linked(s->base_install, s->paths.install, stop, err);
}

/* The layout's directory anew: copies, relinks, installed copies, the report, the marker. */
static int make_fresh(const layout_state *s, volatile sig_atomic_t *stop, size_t *n_relinked,
                      verdict_error *err)
{
    double start = runner_monotonic_seconds();
    build_link_list links = {NULL, 0, 0};
    strbuf report = STRBUF_INIT, marker = STRBUF_INIT;
    strbuf_appendf(&report, "seed: %s (ld.lld --shuffle-sections=.text*=%s)\n", s->name,
                   s->lld_seed);
    strbuf_appendf(&marker, "%s %s\n", s->base->key, s->name);
    build_install_paths install = {s->base_install, s->paths.tree, s->paths.install,
                                   s->paths.log};
    int rc = start_directory(s, stop, err);
    rc = rc ? rc : build_links_read(s->links, s->base_tree, &links, err);
    rc = rc ? rc : relink_all(s, &links, stop, &report, err);
    rc = rc ? rc : build_layout_install(&links, &install, &report, err);
    if (rc == 0 && (strbuf_status(&report) != 0 || strbuf_status(&marker) != 0))
        rc = error_no_memory(err);
    rc = rc ? rc : build_write_file(s->paths.dir, "relinked", strbuf_text(&report), false, err);
    rc = rc ? rc : build_mark_complete(s->paths.dir, strbuf_text(&marker), err);
    *n_relinked = links.n;
    char done[96];
    snprintf(done, sizeof done, "relinked %zu outputs in %.1f s", links.n,
             runner_monotonic_seconds() - start);
    if (rc == 0)
        note(s, done);
    build_link_list_free(&links);
    strbuf_free(&report);
    strbuf_free(&marker);
    return rc;
}

/* The relinked lines of a complete layout's report. */
static size_t count_relinked(const layout_state *s)
{
    char *path = build_path_join(s->paths.dir, "relinked");
    char *text = NULL;
    size_t length = 0, n = 0;
    if (path && build_read_file(path, &text, &length) == 0)
        for (const char *line = text; line && *line; line = strchr(line, '\n')) {
            line += *line == '\n';
            n += strncmp(line, "relinked: ", 10) == 0;
        }
    free(text);
    free(path);
    return n;
}

/* Under the lock: reuse, or clear what an interrupted or failed attempt left and make it. */
static int reuse_or_make(const layout_state *s, volatile sig_atomic_t *stop, bool *cached,
                         size_t *n_relinked, verdict_error *err)
{
    char *marker = build_path_join(s->paths.dir, "complete");
    struct stat st;
    *cached = marker && stat(marker, &st) == 0;
    free(marker);
    if (*cached) {
        note(s, "cached");
        *n_relinked = count_relinked(s);
        return 0;
    }
    if (lstat(s->paths.dir, &st) == 0)
        note(s, "was left incomplete (interrupted or failed); removing it to make it again");
    else
        note(s, "not cached; relinking");
    if (build_tree_remove(s->paths.dir, err) != 0 || make_fresh(s, stop, n_relinked, err) != 0)
        return error_prefix(err, "%s", s->what);
    return 0;
}

static int fill_out(const layout_state *s, uint64_t seed, bool cached, size_t n_relinked,
                    build_layout *out, verdict_error *err)
{
    *out = (build_layout){strdup(s->paths.dir), strdup(s->paths.tree),
                          strdup(s->paths.install), seed, cached, n_relinked};
    if (!out->dir || !out->tree || !out->install) {
        build_layout_free(out);
        return error_no_memory(err);
    }
    return 0;
}

static void layout_state_free(layout_state *s)
{
    free(s->base_dir);
    free(s->base_tree);
    free(s->base_install);
    free(s->wrapper);
    free(s->links);
    free(s->lock);
    free(s->paths.dir);
    free(s->paths.tree);
    free(s->paths.install);
    free(s->paths.log);
}

int build_layout_ensure(const build_result *base, uint64_t seed, const char *label,
                        volatile sig_atomic_t *stop, FILE *notes, build_layout *out,
                        verdict_error *err)
{
    *out = (build_layout){NULL, NULL, NULL, seed, false, 0};
    layout_state s = {.base = base, .notes = notes};
    int lock_fd = -1;
    bool cached = false;
    size_t n_relinked = 0;
    int rc = set_paths(&s, label, seed, err);
    rc = rc ? rc : check_base(&s, err);
    rc = rc ? rc : make_layouts_dir(&s, err);
    if (rc != 0 && label)
        error_prefix(err, "%s", label);
    rc = rc ? rc : build_lock_take(s.lock, BUILD_LOCK_WAIT, stop, note_waiting, &s, &lock_fd,
                                   err);
    rc = rc ? rc : reuse_or_make(&s, stop, &cached, &n_relinked, err);
    build_lock_release(lock_fd, s.lock, false);
    if (rc == 0)
        build_touch_used(s.base_dir); /* a layout's use is its build's */
    rc = rc ? rc : fill_out(&s, seed, cached, n_relinked, out, err);
    layout_state_free(&s);
    return rc;
}

void build_layout_free(build_layout *layout)
{
    free(layout->dir);
    free(layout->tree);
    free(layout->install);
    *layout = (build_layout){NULL, NULL, NULL, 0, false, 0};
}

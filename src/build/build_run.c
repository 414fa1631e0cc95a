/* Runs a build's recipe: /bin/sh -c LINE in the copy, every byte of its output into
 * build.log, with -j, PREFIX, ccache when it is installed, and CC the layouts' wrapper. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build/build_internal.h"
#include "common/wait_status.h"

/* Debian's ccache masquerade directory: cc, gcc and clang there are ccache. */
#define CCACHE_DIR_PATH "/usr/lib/ccache"
#define TAIL_LINES 40
#define TAIL_ROOM 1400 /* of the error message, for those lines */

/* The outer shell sends its output to the log, then becomes the recipe's shell with the
 * options as "$@"; the recipe is a parameter, so no quoting of it can go wrong. */
static const char log_wrapper[] =
    "exec >>\"$1\" 2>&1 || exit 125; line=$2; shift 2; exec /bin/sh -c \"$line\" sh \"$@\"";

static int usable_cpus(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return 1;
    int n = CPU_COUNT(&set);
    return n > 0 ? n : 1;
}

static bool have_ccache(void)
{
    struct stat st;
    return stat(CCACHE_DIR_PATH, &st) == 0 && S_ISDIR(st.st_mode);
}

/* A word in MAKEFLAGS as make reads it back: blanks and backslashes escaped, $ doubled. */
static void append_make_word(strbuf *b, const char *word)
{
    for (const char *p = word; *p; p++) {
        if (*p == ' ' || *p == '\t' || *p == '\\')
            strbuf_append(b, "\\");
        strbuf_append_bytes(b, *p == '$' ? "$$" : p, *p == '$' ? 2 : 1);
    }
}

/* MAKEFLAGS, with the wrapper as a variable of make's command line, since that beats an
 * assignment in a Makefile (CC = cc) and is passed to every make below. */
static char *make_flags(const char *wrapper)
{
    strbuf b = STRBUF_INIT;
    strbuf_appendf(&b, "MAKEFLAGS=-j%d", usable_cpus());
    if (wrapper) {
        strbuf_append(&b, " CC=");
        append_make_word(&b, wrapper);
    }
    return strbuf_detach(&b);
}

/* The additions as "NAME=value" texts into set (freed by the caller). With ccache, the
 * tree is its base directory, so that the same sources in another build's tree hit. */
static size_t recipe_additions(const build_paths *p, const char *wrapper, const char *seed,
                               char **set)
{
    size_t n = 0;
    strbuf b = STRBUF_INIT;
    set[n++] = make_flags(wrapper);
    strbuf_appendf(&b, "PREFIX=%s", p->install);
    set[n++] = strbuf_detach(&b);
    if (wrapper) {
        strbuf_appendf(&b, "CC=%s", wrapper);
        set[n++] = strbuf_detach(&b);
        strbuf_appendf(&b, "VERDICT_LAYOUT_SEED=%s", seed ? seed : "");
        set[n++] = strbuf_detach(&b);
    }
    if (!have_ccache())
        return n;
    const char *path = getenv("PATH");
    strbuf_appendf(&b, "PATH=%s:%s", CCACHE_DIR_PATH, path ? path : "/usr/local/bin:/usr/bin:/bin");
    set[n++] = strbuf_detach(&b);
    if (getenv("CCACHE_BASEDIR") == NULL) {
        strbuf_appendf(&b, "CCACHE_BASEDIR=%s", p->tree);
        set[n++] = strbuf_detach(&b);
    }
    if (getenv("CCACHE_NOHASHDIR") == NULL && getenv("CCACHE_HASHDIR") == NULL)
        set[n++] = strdup("CCACHE_NOHASHDIR=1");
    return n;
}

char **build_recipe_environment(const build_paths *p, const char *wrapper, const char *seed)
{
    char *set[7] = {NULL};
    size_t n = recipe_additions(p, wrapper, seed, set);
    bool complete = true;
    for (size_t i = 0; i < n; i++)
        complete = complete && set[i] != NULL;
    char **envp = complete ? build_env_make((const char *const *)set, n) : NULL;
    for (size_t i = 0; i < n; i++)
        free(set[i]);
    return envp;
}

/* The log's last bytes (a build's log may be large; the tail is what is wanted). */
static int read_tail(const char *log, char *text, size_t size, size_t *n)
{
    int fd = open(log, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    off_t from = st.st_size > (off_t)size ? st.st_size - (off_t)size : 0;
    ssize_t got = pread(fd, text, size, from);
    close(fd);
    *n = got > 0 ? (size_t)got : 0;
    return got < 0 ? -1 : 0;
}

/* The last TAIL_LINES lines of the log, at most TAIL_ROOM bytes of them. */
void build_log_tail(strbuf *b, const char *log)
{
    char text[4 * TAIL_ROOM];
    size_t n = 0;
    if (read_tail(log, text, sizeof text, &n) != 0) {
        strbuf_appendf(b, "(cannot read it: %s)", strerror(errno));
        return;
    }
    while (n > 0 && text[n - 1] == '\n')
        n--;
    size_t start = n, lines = 0;
    while (start > 0 && !(text[start - 1] == '\n' && ++lines == TAIL_LINES))
        start--;
    if (n - start > TAIL_ROOM) { /* long lines: fewer of them, still whole if possible */
        size_t cut = n - TAIL_ROOM;
        start = cut;
        while (start < n && text[start - 1] != '\n')
            start++;
        if (start == n)
            start = cut;
    }
    strbuf_append_bytes(b, text + start, n - start);
}

static int recipe_failed(const build_paths *p, const run_result *r, verdict_error *err)
{
    char how[128];
    exit_text(r->exit_code, r->term_signal, how, sizeof how);
    strbuf b = STRBUF_INIT;
    strbuf_appendf(&b, "the recipe %s; its output is in %s, which ends:\n", how, p->log);
    build_log_tail(&b, p->log);
    int rc = error_set(err, ERROR_COMMAND_FAILED, "%s",
                       strbuf_status(&b) == 0 ? strbuf_text(&b) : "out of memory");
    strbuf_free(&b);
    return rc;
}

static const char **recipe_argv(const build_spec *spec, const build_paths *p)
{
    const char **argv = calloc(spec->n_options + 7, sizeof *argv);
    if (argv == NULL)
        return NULL;
    const char *head[] = {"/bin/sh", "-c", log_wrapper, "sh", p->log, spec->recipe};
    memcpy(argv, head, sizeof head);
    for (size_t i = 0; i < spec->n_options; i++)
        argv[6 + i] = spec->options[i];
    return argv;
}

/* With layouts, the wrapper is written into the build's directory first: its path. */
static int layout_wrapper(const build_spec *spec, const build_paths *p, char **wrapper,
                          verdict_error *err)
{
    *wrapper = NULL;
    if (!spec->layouts)
        return 0;
    if ((*wrapper = build_path_join(p->dir, BUILD_WRAPPER_NAME)) == NULL)
        return error_no_memory(err);
    if (build_wrapper_write(p->dir, err) != 0)
        return -1;
    return build_log_note(p->log, err, "layouts: CC is %s, which records the links in %s/%s",
                          *wrapper, p->dir, BUILD_LINKS_NAME);
}

int build_run_recipe(const build_spec *spec, const build_paths *p, volatile sig_atomic_t *stop,
                     verdict_error *err)
{
    char *wrapper = NULL;
    int rc = layout_wrapper(spec, p, &wrapper, err);
    char **envp = rc == 0 ? build_recipe_environment(p, wrapper, NULL) : NULL;
    const char **argv = rc == 0 ? recipe_argv(spec, p) : NULL;
    if (rc == 0 && (!envp || !argv))
        rc = error_no_memory(err);
    rc = rc ? rc : build_log_note(p->log, err, "recipe (in %s): %s", p->tree, spec->recipe);
    build_command c = {.argv = argv, .cwd = p->tree, .envp = envp, .stop = stop};
    run_result r;
    if (rc == 0 && build_command_run(&c, &r, err) == 0) {
        if (r.interrupted)
            rc = error_set(err, ERROR_INTERRUPTED, "the recipe was interrupted; the build "
                                                    "will be redone");
        else if (r.exit_code != 0)
            rc = recipe_failed(p, &r, err);
        run_result_free(&r);
    } else if (rc == 0) {
        rc = -1;
    }
    free(argv);
    build_env_free(envp);
    free(wrapper);
    return rc;
}

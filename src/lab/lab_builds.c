/* Builds before any sample: sources through the content-keyed cache (src/build), with the
 * target's recipe or the variant's build line; in-place build lines; the binaries' SHA-256. */
#include "lab/lab_builds.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "build/build.h"
#include "common/error.h"
#include "core/runner.h"
#include "core/target.h"

extern char **environ;

#define BUILD_LOG_TAIL 1500

char *lab_user_dir(const char *own_variable, const char *xdg_variable,
                   const char *home_default)
{
    const char *own = getenv(own_variable), *xdg = getenv(xdg_variable);
    const char *home = getenv("HOME");
    strbuf dir = STRBUF_INIT;
    if (own && own[0])
        strbuf_append(&dir, own);
    else if (xdg && xdg[0] == '/') /* XDG: a relative value is to be ignored */
        strbuf_appendf(&dir, "%s/verdict", xdg);
    else if (home && home[0] == '/')
        strbuf_appendf(&dir, "%s/%s/verdict", home, home_default);
    else
        return NULL;
    return strbuf_detach(&dir);
}

char *lab_default_cache_dir(void)
{
    return lab_user_dir("VERDICT_CACHE", "XDG_CACHE_HOME", ".cache");
}

/* ---- a variant's build from its source ---- */

typedef struct {
    build_spec spec;
    strbuf label, recipe;
    command_words options;
} variant_build;

static void variant_build_free(variant_build *b)
{
    strbuf_free(&b->label);
    strbuf_free(&b->recipe);
    command_words_free(&b->options);
}

/* The recipe is the target's (PostgreSQL's configure or meson) or the variant's build line
 * at the first point (the loader refuses {tree} there: the recipe runs in the tree); without either,
 * the exported tree is the build. */
static int describe_build(const experiment *e, const experiment_variant *v,
                          const char *cache_dir, variant_build *b, verdict_error *err)
{
    *b = (variant_build){.label = STRBUF_INIT, .recipe = STRBUF_INIT};
    strbuf_appendf(&b->label, "variant %s", v->name);
    if (e->target->build_recipe) {
        if (e->target->build_recipe(e, v, &b->recipe, &b->options, err) != 0)
            return -1;
    } else if (v->build) {
        char *line = experiment_substitute_shell(e, 0, v->build, err);
        if (line == NULL)
            return error_prefix(err, "variant %s: build", v->name);
        strbuf_append(&b->recipe, line);
        free(line);
    } else {
        strbuf_append(&b->recipe, ":");
    }
    b->spec = (build_spec){
        .label = strbuf_text(&b->label),
        .source = {.kind = v->source.ref ? BUILD_SOURCE_GIT : BUILD_SOURCE_DIR,
                   .path = v->source.path, .ref = v->source.ref,
                   .patches = (const char *const *)v->source.patches,
                   .n_patches = v->source.n_patches},
        .recipe = strbuf_text(&b->recipe), .options = (const char *const *)b->options.words,
        .n_options = b->options.n, .cache_dir = cache_dir, .layouts = v->n_layouts > 1};
    if (strbuf_status(&b->label) != 0 || strbuf_status(&b->recipe) != 0)
        return error_no_memory(err);
    return 0;
}

static char *joined(const char *dir, const char *name)
{
    strbuf path = STRBUF_INIT;
    strbuf_appendf(&path, "%s/%s", dir, name);
    return strbuf_detach(&path);
}

/* Where build_layout_ensure puts layout k of the build in dir (src/build's layout). */
static int prepare_layouts(const experiment *e, experiment_variant *v, const char *dir,
                           verdict_error *err)
{
    experiment_free_layouts(v);
    if (v->n_layouts < 2)
        return 0;
    v->layouts = calloc(v->n_layouts, sizeof *v->layouts);
    if (v->layouts == NULL)
        return error_no_memory(err);
    for (size_t k = 0; k < v->n_layouts; k++) {
        experiment_layout *l = &v->layouts[k];
        strbuf at = STRBUF_INIT;
        l->seed = experiment_layout_seed(e, k);
        strbuf_appendf(&at, "%s/layouts/%016" PRIx64, dir, l->seed);
        l->tree = joined(strbuf_text(&at), "tree");
        l->install = joined(strbuf_text(&at), "install");
        int ok = strbuf_status(&at) == 0 && l->tree && l->install;
        strbuf_free(&at);
        if (!ok)
            return error_no_memory(err);
    }
    return 0;
}

/* The key, and where build_ensure will put that key's build (src/build's layout). */
static int prepare_variant(const experiment *e, experiment_variant *v, const char *cache_dir,
                           verdict_error *err)
{
    variant_build b;
    build_key key = {{0}, NULL};
    int rc = describe_build(e, v, cache_dir, &b, err);
    if (rc == 0)
        rc = build_key_compute(&b.spec, &key, err);
    if (rc == 0) {
        strbuf dir = STRBUF_INIT;
        strbuf_appendf(&dir, "%s/builds/%.*s", cache_dir, BUILD_KEY_SHORT, key.hex);
        free(v->build_key);
        free(v->tree);
        free(v->install);
        v->build_key = strdup(key.hex);
        v->tree = joined(strbuf_text(&dir), "tree");
        v->install = joined(strbuf_text(&dir), "install");
        rc = v->build_key && v->tree && v->install && strbuf_status(&dir) == 0
                 ? 0 : error_no_memory(err);
        rc = rc ? rc : prepare_layouts(e, v, strbuf_text(&dir), err);
        strbuf_free(&dir);
    }
    build_key_free(&key);
    variant_build_free(&b);
    return rc;
}

int lab_builds_prepare(experiment *e, const char *cache_dir, verdict_error *err)
{
    /* a variant with layouts needs lld: its key asks for ld.lld --version, and without it
     * fails with the usage error that says to install it */
    for (size_t i = 0; i < e->n_variants; i++)
        if (e->variants[i].source.path &&
            prepare_variant(e, &e->variants[i], cache_dir, err) != 0)
            return -1;
    return 0;
}

/* Every layout twin of the build, each where prepare_layouts said it would be. */
static int link_layouts(const experiment_variant *v, const build_result *base, const char *label,
                        volatile sig_atomic_t *stop, FILE *notes, bool *cached,
                        verdict_error *err)
{
    for (size_t k = 0; k < v->n_layouts && v->layouts; k++) {
        build_layout layout;
        if (build_layout_ensure(base, v->layouts[k].seed, label, stop, notes, &layout, err) != 0)
            return -1;
        bool where = strcmp(layout.tree, v->layouts[k].tree) == 0 &&
                     strcmp(layout.install, v->layouts[k].install) == 0;
        *cached = *cached && layout.cached;
        build_layout_free(&layout);
        if (!where)
            return error_set(err, ERROR_INTERNAL, "variant %s: layout %zu is not where it "
                             "was planned (%s)", v->name, k, v->layouts[k].tree);
    }
    return 0;
}

static int build_from_source(const experiment *e, const experiment_variant *v,
                             const char *cache_dir, volatile sig_atomic_t *stop, FILE *notes,
                             bool *cached, verdict_error *err)
{
    variant_build b;
    build_result result;
    memset(&result, 0, sizeof result);
    int rc = describe_build(e, v, cache_dir, &b, err);
    if (rc == 0)
        rc = build_ensure(&b.spec, stop, notes, &result, err);
    if (rc == 0 && (v->build_key == NULL || strcmp(result.key, v->build_key) != 0))
        rc = error_set(err, ERROR_USAGE, "the source of variant %s changed since this run "
                       "began (build %.16s, now %.16s): run again to measure what it holds "
                       "now", v->name, v->build_key ? v->build_key : "none", result.key);
    *cached = rc == 0 && result.cached;
    if (rc == 0)
        rc = link_layouts(v, &result, b.spec.label, stop, notes, cached, err);
    build_result_free(&result);
    variant_build_free(&b);
    return rc;
}

/* ---- in-place build lines (variants without a source) ---- */

/* A variant's name in a file name: '/' would make it a directory. */
/* A variant's name as part of a file name: letters, digits, '.', '_' and '-' kept, any
 * other byte ('/', a quote, a newline) '_', and then the variant's number, so that "a/b"
 * and "a_b" keep logs of their own. */
static void put_file_name(strbuf *b, const experiment *e, const experiment_variant *v)
{
    bool replaced = false;
    for (const char *c = v->name; *c; c++) {
        bool safe = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                    (*c >= '0' && *c <= '9') || *c == '.' || *c == '_' || *c == '-';
        strbuf_append_bytes(b, safe ? c : "_", 1);
        replaced |= !safe;
    }
    if (replaced)
        strbuf_appendf(b, "-%zu", (size_t)(v - e->variants) + 1);
}

/* One single-quoted shell word: a quote in the store's path ends no quoting. */
static void put_shell_word(strbuf *b, const char *text)
{
    strbuf_append(b, "'");
    for (const char *c = text; *c; c++)
        strbuf_append(b, *c == '\'' ? "'\\''" : (char[2]){*c, '\0'});
    strbuf_append(b, "'");
}

static void log_tail(const char *path, char *tail, size_t size)
{
    FILE *log = fopen(path, "r");
    tail[0] = '\0';
    if (log == NULL)
        return;
    fseek(log, 0, SEEK_END);
    long length = ftell(log);
    long keep = (long)size - 1;
    fseek(log, length > keep ? length - keep : 0, SEEK_SET);
    tail[fread(tail, 1, size - 1, log)] = '\0';
    fclose(log);
}

static int run_in_place(const experiment *e, const experiment_variant *v, const char *log_path,
                        volatile sig_atomic_t *stop, verdict_error *err)
{
    const char *cwd = v->cwd ? v->cwd : e->directory;
    if (cwd && runner_check_directory(cwd, err) != 0)
        return error_prefix(err, "variant %s: build", v->name);
    char *line = experiment_substitute_shell(e, 0, v->build, err);
    if (line == NULL)
        return error_prefix(err, "variant %s: build", v->name);
    strbuf wrapped = STRBUF_INIT;
    strbuf_appendf(&wrapped, "( %s ) > ", line);
    put_shell_word(&wrapped, log_path);
    strbuf_append(&wrapped, " 2>&1");
    free(line);
    char *argv[] = {"/bin/sh", "-c", (char *)strbuf_text(&wrapped), NULL};
    run_request request = {.argv = argv, .envp = environ, .cwd = cwd};
    run_result result;
    int rc = strbuf_status(&wrapped) == 0 ? runner_execute(&request, stop, &result, err)
                                           : error_no_memory(err);
    strbuf_free(&wrapped);
    if (rc != 0)
        return error_prefix(err, "variant %s: build", v->name);
    run_result_free(&result);
    if (result.interrupted)
        return error_set(err, ERROR_INTERRUPTED, "interrupted during the build of %s", v->name);
    if (result.exit_code != 0) {
        char tail[BUILD_LOG_TAIL + 1];
        log_tail(log_path, tail, sizeof tail);
        return error_set(err, ERROR_COMMAND_FAILED, "the build of variant %s failed (exit "
                         "status %d); the end of %s:\n%s", v->name, result.exit_code, log_path,
                         tail);
    }
    return 0;
}

static int build_in_place(const experiment *e, const experiment_variant *v,
                          const char *log_prefix, volatile sig_atomic_t *stop, FILE *notes,
                          verdict_error *err)
{
    strbuf log_path = STRBUF_INIT;
    strbuf_appendf(&log_path, "%s.build-", log_prefix);
    put_file_name(&log_path, e, v);
    strbuf_append(&log_path, ".log");
    if (strbuf_status(&log_path) != 0) {
        strbuf_free(&log_path);
        return error_no_memory(err);
    }
    if (notes)
        fprintf(notes, "verdict: building %s (log: %s)\n", v->name, strbuf_text(&log_path));
    int rc = run_in_place(e, v, strbuf_text(&log_path), stop, err);
    strbuf_free(&log_path);
    return rc;
}

/* ---- what was measured ---- */

/* The target's binary, or the first word of the command at the first point, as the run
 * will find it; "" when there is none to name (a shell line, a server of the user's). */
static void measured_binary(const experiment *e, const experiment_variant *v, size_t layout,
                            strbuf *path)
{
    verdict_error why = {0};
    char found[4096];
    if (e->target->measured_binary) {
        if (e->target->measured_binary(e, v, layout, path) != 0)
            strbuf_clear(path);
        return;
    }
    if (v->command == NULL || v->shell)
        return;
    char *word = experiment_substitute_variant(e, v, layout, 0, v->command[0], &why);
    char *absolute = NULL;
    if (word && runner_find_executable(v->cwd ? v->cwd : e->directory, word, found,
                                       sizeof found, &why) == 0)
        absolute = realpath(found, NULL);
    if (absolute)
        strbuf_append(path, absolute);
    free(absolute);
    free(word);
}

/* One line per unit: every layout of every variant is its own binary. */
static void record_measured(const experiment *e, strbuf *measured)
{
    for (size_t u = 0; u < experiment_unit_count(e); u++) {
        size_t layout;
        const experiment_variant *v = &e->variants[experiment_unit_variant(e, u, &layout)];
        strbuf binary = STRBUF_INIT;
        char sha[BUILD_KEY_HEX + 1] = "";
        verdict_error ignored;
        measured_binary(e, v, layout, &binary);
        if (binary.length && build_file_sha256(strbuf_text(&binary), sha, &ignored) != 0)
            sha[0] = '\0';
        strbuf_appendf(measured, "%s\t%zu\t%s\t%s\t%s\n", v->name, layout,
                       v->build_key ? v->build_key : "", sha, strbuf_text(&binary));
        strbuf_free(&binary);
    }
}

int lab_builds_ensure(const experiment *e, const char *cache_dir, const char *log_prefix,
                      volatile sig_atomic_t *stop, FILE *notes, lab_build_done_fn done,
                      void *context, strbuf *measured, verdict_error *err)
{
    for (size_t i = 0; i < e->n_variants; i++) {
        const experiment_variant *v = &e->variants[i];
        double start = runner_monotonic_seconds();
        bool cached = false;
        int rc = 0;
        if (v->source.path)
            rc = cache_dir ? build_from_source(e, v, cache_dir, stop, notes, &cached, err)
                           : error_set(err, ERROR_INTERNAL, "variant %s: no build cache",
                                       v->name);
        else if (v->build && log_prefix)
            rc = build_in_place(e, v, log_prefix, stop, notes, err);
        else
            cached = true; /* nothing to build */
        if (rc != 0)
            return -1;
        if (done)
            done(context, v, cached, runner_monotonic_seconds() - start);
    }
    if (measured)
        record_measured(e, measured);
    return 0;
}

/* Builds by content: a source (a directory or a git ref, plus patches) built by a recipe
 * into a cache named by the SHA-256 of everything that went in, so an edit is a new build. */
#ifndef VERDICT_BUILD_BUILD_H
#define VERDICT_BUILD_BUILD_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "common/error.h"

#define BUILD_KEY_HEX 64   /* hex digits of a key: SHA-256 */
#define BUILD_KEY_SHORT 16 /* the leading digits that name a build's directory */
/* Part of every key: bump it when what a build does changes (the export, the patching,
 * the environment of the recipe), so that no build of an older verdict is reused. */
#define BUILD_RECIPE_VERSION "verdict-build/1"

typedef enum {
    BUILD_SOURCE_DIR, /* a directory, in a git work tree or not, as it is on disk now */
    BUILD_SOURCE_GIT  /* a commit, branch or tag of a repository; the repository is only read */
} build_source_kind;

typedef struct {
    build_source_kind kind;
    const char *path;            /* DIR: the directory; GIT: the repository */
    const char *ref;             /* GIT only */
    const char *const *patches;  /* applied in order with patch -p1 in the copy */
    size_t n_patches;
} build_source;

typedef struct {
    const char *label;           /* "variant A", in notes and messages; NULL: none */
    build_source source;
    const char *recipe;          /* a shell line, run by /bin/sh -c in the copy */
    const char *const *options;  /* in the key, and the recipe's "$@" */
    size_t n_options;
    const char *cache_dir;       /* builds live in CACHE_DIR/builds/ (build_ensure only) */
    bool layouts;                /* built for layout twins: CC is verdict's wrapper, which
                                    compiles with -ffunction-sections and links with lld,
                                    recording every link so that a layout can redo it */
} build_spec;

typedef struct {
    char hex[BUILD_KEY_HEX + 1];
    char *ingredients;           /* "name: value" lines: source, commit, dirty, patches,
                                    recipe, options, compiler, CC/CFLAGS/LDFLAGS/CPPFLAGS */
} build_key;

typedef struct {
    char key[BUILD_KEY_HEX + 1];
    char *dir;                   /* CACHE_DIR/builds/KEY16 */
    char *tree, *install, *log;  /* dir/tree, dir/install, dir/build.log */
    bool cached;                 /* reused: nothing was built this time */
} build_result;

/* A layout twin of a build: the same objects relinked with lld's --shuffle-sections under
 * one seed, in BUILD/layouts/SEED16/, so that only the order of the functions differs. */
typedef struct {
    char *dir;                   /* BUILD/layouts/SEED16 */
    char *tree, *install;        /* dir/tree, dir/install: hard links to the build's files,
                                    the relinked outputs and their installed copies new */
    uint64_t seed;
    bool cached;                 /* reused: nothing was relinked this time */
    size_t n_relinked;           /* outputs relinked (as recorded in dir/relinked) */
} build_layout;

/* One build directory of a cache, as found on disk. */
typedef struct {
    char name[BUILD_KEY_SHORT + 1];
    char key[BUILD_KEY_HEX + 1]; /* "" when its key file is missing */
    char *dir;
    char *ingredients;           /* NULL when the file is missing */
    bool complete;               /* the marker is there: a finished, usable build */
    bool busy;                   /* another process holds its lock: building or reusing */
    uint64_t bytes;              /* on disk, allocated blocks */
    time_t last_used;
} build_entry;

typedef struct {
    build_entry *items;
    size_t n, capacity;
} build_list;

/* Whether cache_dir holds a complete build of key (64 hex digits): its directory's
 * marker is there and its key file names that key. Nothing is locked or changed. */
bool build_is_cached(const char *cache_dir, const char *key_hex);

/* The key of a spec and its ingredients (cache_dir is not used). Runs git and the
 * compiler's --version. 0, or -1 with err: a missing source, ref or patch is a usage error. */
int build_key_compute(const build_spec *spec, build_key *key, verdict_error *err);
void build_key_free(build_key *key);

/* Makes sure the spec's build is in the cache: reuses a complete one, otherwise exports the
 * source, applies the patches and runs the recipe, and marks it complete last. A builder
 * of the same key in another process is waited for and its result reused. Notes (NULL:
 * none) get one line per build. A failed recipe is ERROR_COMMAND_FAILED with the log's
 * tail; a stop request ERROR_INTERRUPTED; the build is then redone next time. */
int build_ensure(const build_spec *spec, volatile sig_atomic_t *stop, FILE *notes,
                 build_result *result, verdict_error *err);
void build_result_free(build_result *result);

/* 0 when layouts can be built here; -1 with ERROR_USAGE when ld.lld is missing. */
int build_layouts_available(verdict_error *err);
/* Makes sure the layout of SEED of a complete build made with layouts exists: reuses a
 * complete one, otherwise copies the tree and install as hard links, redoes every recorded
 * link whose output is still in the tree with the seed, and puts each relinked output in
 * place of its installed copies; marks it complete last. label (NULL: none) and notes (NULL:
 * none) as for build_ensure. A failing relink is ERROR_COMMAND_FAILED with the command and
 * the end of its output; a stop request ERROR_INTERRUPTED; the layout is then redone next
 * time. out is build_layout_free'd by the caller after success. */
int build_layout_ensure(const build_result *base, uint64_t seed, const char *label,
                        volatile sig_atomic_t *stop, FILE *notes, build_layout *out,
                        verdict_error *err);
void build_layout_free(build_layout *layout);

/* SHA-256 of a file's bytes, in hex (for the binaries a target measured). */
int build_file_sha256(const char *path, char hex[BUILD_KEY_HEX + 1], verdict_error *err);

/* Every build directory of the cache, by name; an absent cache is an empty list. */
int build_cache_list(const char *cache_dir, build_list *list, verdict_error *err);
/* Removes complete builds not used for more than max_age_seconds and every incomplete
 * leftover, skipping builds another process holds. What was removed goes to removed (may
 * be NULL) and the bytes freed to *bytes_freed (may be NULL). */
int build_cache_prune(const char *cache_dir, double max_age_seconds, build_list *removed,
                      uint64_t *bytes_freed, verdict_error *err);
void build_list_free(build_list *list);

/* ---- a repository's history (build_git.c), for verdict bisect ---- */

/* The commit id (40 hex digits) REF names in REPO; a ref that names none is a usage error. */
int build_git_commit(const char *repo, const char *ref, char out[BUILD_KEY_HEX + 1],
                     verdict_error *err);
/* The commit's subject line, or "" when git cannot say; caller frees (NULL: out of memory). */
char *build_git_subject(const char *repo, const char *commit);
/* *yes when older is an ancestor of newer (or the same commit). */
int build_git_is_ancestor(const char *repo, const char *older, const char *newer, bool *yes,
                          verdict_error *err);
/* The commits of good..bad, oldest first, one id a line: the first-parent chain, or every
 * commit in topological order; caller frees *list. */
int build_git_commits(const char *repo, const char *good, const char *bad, bool all_commits,
                      char **list, verdict_error *err);
/* *dirty when the work tree or the index differ from HEAD (untracked files do not count). */
int build_git_dirty(const char *repo, bool *dirty, verdict_error *err);

#endif

/* What the files of the build layer share and nobody else sees: the tagged SHA-256 hasher,
 * the directory walker, running a tool, the resolved inputs and the paths of one build. */
#ifndef VERDICT_BUILD_BUILD_INTERNAL_H
#define VERDICT_BUILD_BUILD_INTERNAL_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "build/build.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "core/runner.h"

/* ---- build_digest.c: SHA-256 over tagged, length-prefixed fields ---- */

typedef struct {
    void *ctx;                   /* EVP_MD_CTX */
    unsigned char *buffer;       /* for reading files */
    bool failed;                 /* an update failed: finish reports it */
} build_hasher;

int build_hasher_init(build_hasher *h, verdict_error *err);
/* A field: its tag, its length as 8 bytes, its bytes; so fields cannot run together. */
void build_hasher_field(build_hasher *h, char tag, const void *bytes, size_t n);
void build_hasher_text(build_hasher *h, char tag, const char *text);
void build_hasher_number(build_hasher *h, char tag, uint64_t value);
/* A field of the size bytes fd holds; a file that is not that long is an error (it
 * changed while being hashed). name is for the message. */
int build_hasher_file(build_hasher *h, char tag, int fd, uint64_t size, const char *name,
                      verdict_error *err);
int build_hasher_finish(build_hasher *h, char hex[BUILD_KEY_HEX + 1], verdict_error *err);
void build_hasher_free(build_hasher *h);

/* ---- build_tree.c: a directory's entries, sorted by relative path ---- */

typedef struct {
    char *path;                  /* relative to the root, no leading "./" */
    struct stat st;              /* lstat: symbolic links are not followed */
} build_tree_entry;

typedef struct {
    build_tree_entry *items;
    size_t n, capacity;
} build_tree;

/* Everything below root (root itself excluded), sorted bytewise by path. */
int build_tree_list(const char *root, build_tree *tree, verdict_error *err);
void build_tree_free(build_tree *tree);
/* Allocated bytes of everything below root and of root; 0 when it does not exist. */
int build_tree_bytes(const char *root, uint64_t *bytes, verdict_error *err);
/* Removes root and everything below it; a root that does not exist is fine. */
int build_tree_remove(const char *root, verdict_error *err);

/* Hashes one entry below root_fd: path, type and mode, and its bytes (a symbolic link
 * by its target text). Shared by plain directories and a work tree's untracked files. */
int build_hash_entry(build_hasher *h, int root_fd, const char *path, const struct stat *st,
                     verdict_error *err);

/* ---- build_command.c: running git, tar, patch, the compiler ---- */

typedef struct {
    const char *const *argv;     /* NULL-terminated; argv[0] through PATH */
    const char *cwd;             /* NULL: verdict's own */
    const char *output_path;     /* stdout into this file (whole); NULL: see capture */
    bool capture;                /* stdout into the result (small outputs only) */
    char *const *envp;           /* NULL: verdict's environment without GIT_DIR & co,
                                    in the C locale */
    volatile sig_atomic_t *stop;
} build_command;

/* Runs it. 0 when it ran, whatever its status (see result->exit_code, interrupted); -1 when
 * it could not be started (err names it). run_result_free the result. */
int build_command_run(const build_command *c, run_result *result, verdict_error *err);
/* "git exited with status 128: fatal: ..." from a finished run, into buf. */
void build_command_failure(const char *name, const run_result *r, char *buf, size_t size);
/* Runs it with stdout into a temporary file and returns that output whole (NUL-ended).
 * A non-zero exit is -1 with ERROR_COMMAND_FAILED naming the command. */
int build_command_output(const build_command *c, char **output, size_t *length,
                         verdict_error *err);
/* The same, its output hashed as one field (streamed, any size); *length: its size. */
int build_command_hash(const build_command *c, build_hasher *h, char tag, uint64_t *length,
                       verdict_error *err);

/* The environment verdict's own with each "NAME=value" of set replacing its name, and
 * without GIT_DIR and its kin (so that git acts on the repository it is pointed at).
 * NULL when out of memory; build_env_free it. */
char **build_env_make(const char *const *set, size_t n_set);
void build_env_free(char **envp);

/* A whole file into memory, NUL-ended. -1 with errno set. */
int build_read_file(const char *path, char **bytes, size_t *length);
/* "dir/name" or NULL when out of memory. */
char *build_path_join(const char *dir, const char *name);

/* ---- build_source.c: what the source is, its content for the key, its export ---- */

typedef enum {
    BUILD_ORIGIN_PLAIN,          /* a directory git does not track */
    BUILD_ORIGIN_WORK_TREE,      /* a directory in a git work tree */
    BUILD_ORIGIN_REF             /* a commit of a repository */
} build_origin_kind;

/* The spec's inputs, resolved once, so that the export builds what the key describes. */
typedef struct {
    build_origin_kind kind;
    char *path;                  /* the directory or repository, absolute */
    char *toplevel;              /* WORK_TREE: the work tree's root */
    char *prefix;                /* REF, WORK_TREE: path's place in the repository ("sub/"),
                                    "" at its top: only what is below it is built */
    char commit[BUILD_KEY_HEX + 1]; /* REF: the commit; WORK_TREE: HEAD */
    char **patches;              /* absolute */
    size_t n_patches;
} build_inputs;

/* Resolves the source and adds its content to the key and its lines to ingredients. */
int build_source_hash(const build_source *source, build_inputs *in, build_hasher *h,
                      strbuf *ingredients, verdict_error *err);
/* Copies the source as resolved into tree (an empty directory); scratch is a directory
 * for the archive and file list, which are removed afterwards. */
int build_source_export(const build_inputs *in, const char *tree, const char *scratch,
                        volatile sig_atomic_t *stop, verdict_error *err);
/* 0 when a cache at path may be used for the source: not inside a plain directory, nor
 * inside a work tree unless git ignores it (its files would be part of the key). */
int build_source_check_cache(const build_inputs *in, const char *path, verdict_error *err);
void build_inputs_free(build_inputs *in);

/* ---- build_key.c ---- */

/* build_key_compute, keeping the resolved inputs for the export. */
int build_key_resolve(const build_spec *spec, build_key *key, build_inputs *in,
                      verdict_error *err);

/* ---- build_patch.c, build_run.c: the steps of a build in its directory ---- */

typedef struct {
    char *dir, *tree, *install, *log;
} build_paths;

/* Appends a line "verdict: TEXT" to the log. */
int build_log_note(const char *log, verdict_error *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int build_apply_patches(const build_inputs *in, const build_paths *p,
                        volatile sig_atomic_t *stop, verdict_error *err);
int build_run_recipe(const build_spec *spec, const build_paths *p, volatile sig_atomic_t *stop,
                     verdict_error *err);

/* ---- build_lock.c: one builder per key ---- */

typedef enum { BUILD_LOCK_WAIT, BUILD_LOCK_TRY } build_lock_mode;

/* Takes the lock file's flock. 0 and *fd when held; 1 when TRY found it busy; -1 on
 * error or a stop request while waiting. waiting (may be NULL) is called once if WAIT
 * has to wait. */
int build_lock_take(const char *path, build_lock_mode mode, volatile sig_atomic_t *stop,
                    void (*waiting)(void *), void *context, int *fd, verdict_error *err);
/* Releases it; with remove, the lock file is unlinked first (while still held). */
void build_lock_release(int fd, const char *path, bool remove);

#endif

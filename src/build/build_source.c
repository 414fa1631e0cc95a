/* A build's source: a plain directory, a directory in a git work tree, or a git ref;
 * resolved once, hashed for the key (git's index does the work in a work tree), exported. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build/build_internal.h"

/* ---- asking git ---- */

/* Runs a short git query in cwd; its stdout's first line goes to line. The exit code, or
 * -1 when git could not be run at all. */
static int git_query(const char *cwd, const char *const *argv, char *line, size_t size,
                     char *failure, size_t failure_size)
{
    build_command c = {.argv = argv, .cwd = cwd, .capture = true};
    run_result r;
    verdict_error err;
    if (build_command_run(&c, &r, &err) != 0) {
        snprintf(failure, failure_size, "%s", err.message);
        return -1;
    }
    const char *out = r.stdout_text ? r.stdout_text : "";
    size_t n = strcspn(out, "\n");
    snprintf(line, size, "%.*s", (int)(n < size ? n : size - 1), out);
    build_command_failure("git", &r, failure, failure_size);
    int code = r.interrupted ? -1 : r.exit_code;
    run_result_free(&r);
    return code;
}

/* A commit id of the form git prints (40 or 64 hex digits). */
static bool is_commit_id(const char *text)
{
    size_t n = strspn(text, "0123456789abcdef");
    return text[n] == '\0' && (n == 40 || n == 64);
}

static int resolve_commit(const char *repo, const char *ref, char *commit, char *failure,
                          size_t size)
{
    strbuf spec = STRBUF_INIT;
    strbuf_appendf(&spec, "%s^{commit}", ref);
    const char *argv[] = {"git", "rev-parse", "--verify", "--quiet", strbuf_text(&spec), NULL};
    int code = strbuf_status(&spec) == 0
                   ? git_query(repo, argv, commit, BUILD_KEY_HEX + 1, failure, size)
                   : -1;
    strbuf_free(&spec);
    return code == 0 && is_commit_id(commit) ? 0 : -1;
}

/* ---- resolving ---- */

/* Where path is in its repository: git archive and git diff see only what is below it. */
static int resolve_prefix(build_inputs *in, verdict_error *err)
{
    char line[PATH_MAX], failure[ERROR_MESSAGE_SIZE];
    const char *argv[] = {"git", "rev-parse", "--show-prefix", NULL};
    if (git_query(in->path, argv, line, sizeof line, failure, sizeof failure) != 0)
        return error_set(err, ERROR_COMMAND_FAILED, "source %s: %s", in->path, failure);
    in->prefix = strdup(line);
    return in->prefix ? 0 : error_no_memory(err);
}

static int resolve_path(const char *given, const char *what, char **path, verdict_error *err)
{
    if (given == NULL || given[0] == '\0')
        return error_set(err, ERROR_USAGE, "the source has no %s", what);
    struct stat st;
    if (stat(given, &st) != 0)
        return error_set(err, ERROR_USAGE, "source %s: %s", given, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return error_set(err, ERROR_USAGE, "source %s: not a directory%s", given,
                         strcmp(what, "repository") == 0 ? " (a git source names a repository)"
                                                         : "");
    *path = realpath(given, NULL);
    if (*path == NULL)
        return error_set(err, ERROR_USAGE, "source %s: %s", given, strerror(errno));
    return 0;
}

/* A directory is a work tree's when git says so and does not ignore it; a directory git
 * would ignore whole is taken as a plain one, or it would build from nothing. */
static int classify_directory(build_inputs *in, verdict_error *err)
{
    char line[PATH_MAX], failure[ERROR_MESSAGE_SIZE];
    const char *inside[] = {"git", "rev-parse", "--is-inside-work-tree", NULL};
    const char *ignored[] = {"git", "check-ignore", "-q", ".", NULL};
    const char *top[] = {"git", "rev-parse", "--show-toplevel", NULL};
    in->kind = BUILD_ORIGIN_PLAIN;
    int code = git_query(in->path, inside, line, sizeof line, failure, sizeof failure);
    if (code > 0 && strstr(failure, "not a git repository") == NULL)
        return error_set(err, ERROR_COMMAND_FAILED, "source %s: cannot tell whether it is in a "
                         "git work tree: %s", in->path, failure); /* dubious ownership, say */
    if (code != 0 || strcmp(line, "true") != 0 ||
        git_query(in->path, ignored, line, sizeof line, failure, sizeof failure) == 0)
        return 0; /* no git, no repository, inside .git, or ignored whole */
    if (git_query(in->path, top, line, sizeof line, failure, sizeof failure) != 0)
        return error_set(err, ERROR_COMMAND_FAILED, "source %s: %s", in->path, failure);
    in->kind = BUILD_ORIGIN_WORK_TREE;
    in->toplevel = strdup(line);
    if (in->toplevel == NULL)
        return error_no_memory(err);
    if (resolve_prefix(in, err) != 0)
        return -1;
    if (resolve_commit(in->path, "HEAD", in->commit, failure, sizeof failure) != 0)
        return error_set(err, ERROR_BAD_INPUT, "source %s is in the git work tree %s, which "
                         "has no commit yet (HEAD): commit once so that its builds have a base",
                         in->path, in->toplevel);
    return 0;
}

static int resolve_ref(const build_source *source, build_inputs *in, verdict_error *err)
{
    char line[PATH_MAX], failure[ERROR_MESSAGE_SIZE];
    const char *git_dir[] = {"git", "rev-parse", "--git-dir", NULL};
    if (source->ref == NULL || source->ref[0] == '\0')
        return error_set(err, ERROR_USAGE, "source %s: a git source needs a ref (a commit, "
                         "branch or tag)", in->path);
    if (source->ref[0] == '-')
        return error_set(err, ERROR_USAGE, "source %s: '%s' is not a ref (it starts with '-')",
                         in->path, source->ref);
    if (git_query(in->path, git_dir, line, sizeof line, failure, sizeof failure) != 0)
        return error_set(err, ERROR_USAGE, "source %s: not a git repository (%s)", in->path,
                         failure);
    if (resolve_commit(in->path, source->ref, in->commit, failure, sizeof failure) != 0)
        return error_set(err, ERROR_USAGE, "source %s: no commit '%s' in this repository "
                         "(git rev-parse --verify '%s^{commit}' found none)",
                         in->path, source->ref, source->ref);
    in->kind = BUILD_ORIGIN_REF;
    return resolve_prefix(in, err);
}

/* ---- hashing ---- */

static int hash_plain(const build_inputs *in, build_hasher *h, verdict_error *err)
{
    build_tree tree;
    if (build_tree_list(in->path, &tree, err) != 0)
        return -1;
    int root_fd = open(in->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int rc = root_fd < 0 ? error_set(err, ERROR_BAD_INPUT, "cannot open %s: %s", in->path,
                                     strerror(errno))
                         : 0;
    build_hasher_number(h, 'N', tree.n);
    for (size_t i = 0; rc == 0 && i < tree.n; i++)
        if (build_hash_entry(h, root_fd, tree.items[i].path, &tree.items[i].st, err) != 0)
            rc = error_prefix(err, "source %s", in->path);
    if (root_fd >= 0)
        close(root_fd);
    build_tree_free(&tree);
    return rc;
}

/* The uncommitted changes, staged and not, under the directory, as git diff prints them;
 * options that user configuration could change are pinned. *bytes: the diff's size. */
static int hash_diff(const build_inputs *in, build_hasher *h, uint64_t *bytes,
                     verdict_error *err)
{
    const char *argv[] = {"git", "-c", "core.quotePath=true", "diff", "--binary", "--no-color",
                          "--no-ext-diff", "--no-textconv", "--no-renames", "--src-prefix=a/",
                          "--dst-prefix=b/", "HEAD", "--", ".", NULL};
    build_command c = {.argv = argv, .cwd = in->path};
    if (build_command_hash(&c, h, 'D', bytes, err) != 0)
        return error_prefix(err, "source %s: git diff", in->path);
    return 0;
}

/* Untracked files that are not ignored, below the directory, as git lists them (sorted);
 * one that vanished since the listing is not part of the tree, in the key or the copy. */
static int hash_untracked(const build_inputs *in, build_hasher *h, size_t *count,
                          verdict_error *err)
{
    const char *argv[] = {"git", "ls-files", "--others", "--exclude-standard", "-z", NULL};
    char *list = NULL;
    size_t length = 0;
    build_command c = {.argv = argv, .cwd = in->path};
    if (build_command_output(&c, &list, &length, err) != 0)
        return error_prefix(err, "source %s: git ls-files", in->path);
    int root_fd = open(in->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int rc = root_fd < 0 ? error_set(err, ERROR_BAD_INPUT, "cannot open %s: %s", in->path,
                                     strerror(errno))
                         : 0;
    *count = 0;
    for (size_t at = 0; rc == 0 && at < length; at += strlen(list + at) + 1) {
        struct stat st;
        if (fstatat(root_fd, list + at, &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue;
        if (build_hash_entry(h, root_fd, list + at, &st, err) != 0)
            rc = error_prefix(err, "source %s", in->path);
        (*count)++;
    }
    build_hasher_number(h, 'U', *count);
    if (root_fd >= 0)
        close(root_fd);
    free(list);
    return rc;
}

static int hash_work_tree(const build_inputs *in, build_hasher *h, strbuf *ingredients,
                          verdict_error *err)
{
    uint64_t diff_bytes = 0;
    size_t untracked = 0;
    build_hasher_text(h, 'C', in->commit);
    build_hasher_text(h, 'p', in->prefix);
    if (hash_diff(in, h, &diff_bytes, err) != 0 || hash_untracked(in, h, &untracked, err) != 0)
        return -1;
    strbuf_appendf(ingredients, "source: directory %s (git work tree %s)\ncommit: %s\n",
                   in->path, in->toplevel, in->commit);
    if (diff_bytes == 0 && untracked == 0)
        strbuf_append(ingredients, "dirty: no\n");
    else
        strbuf_appendf(ingredients, "dirty: yes (%llu bytes of diff, %zu untracked file%s)\n",
                       (unsigned long long)diff_bytes, untracked, untracked == 1 ? "" : "s");
    return 0;
}

int build_source_hash(const build_source *source, build_inputs *in, build_hasher *h,
                      strbuf *ingredients, verdict_error *err)
{
    bool git = source->kind == BUILD_SOURCE_GIT;
    if (source->kind != BUILD_SOURCE_DIR && !git)
        return error_set(err, ERROR_INTERNAL, "unknown source kind %d", (int)source->kind);
    if (resolve_path(source->path, git ? "repository" : "directory", &in->path, err) != 0)
        return -1;
    if ((git ? resolve_ref(source, in, err) : classify_directory(in, err)) != 0)
        return -1;
    switch (in->kind) {
    case BUILD_ORIGIN_REF:
        build_hasher_text(h, 'S', "git-ref");
        build_hasher_text(h, 'C', in->commit);
        build_hasher_text(h, 'p', in->prefix);
        strbuf_appendf(ingredients, "source: git %s, ref %s%s%s%s\ncommit: %s\ndirty: no\n",
                       in->path, source->ref, in->prefix[0] ? " (only " : "", in->prefix,
                       in->prefix[0] ? " of the repository)" : "", in->commit);
        return 0;
    case BUILD_ORIGIN_WORK_TREE:
        build_hasher_text(h, 'S', "git-work-tree");
        return hash_work_tree(in, h, ingredients, err);
    case BUILD_ORIGIN_PLAIN:
        break;
    }
    build_hasher_text(h, 'S', "directory");
    strbuf_appendf(ingredients, "source: directory %s (not under git)\ncommit: none\n"
                   "dirty: n/a\n", in->path);
    return hash_plain(in, h, err);
}

void build_inputs_free(build_inputs *in)
{
    free(in->path);
    free(in->toplevel);
    free(in->prefix);
    for (size_t i = 0; i < in->n_patches; i++)
        free(in->patches[i]);
    free(in->patches);
    *in = (build_inputs){0};
}

/* ---- exporting ---- */

static int run_step(const char *name, const char *const *argv, const char *cwd,
                    volatile sig_atomic_t *stop, verdict_error *err)
{
    build_command c = {.argv = argv, .cwd = cwd, .stop = stop};
    run_result r;
    if (build_command_run(&c, &r, err) != 0)
        return -1;
    int rc = 0;
    if (r.interrupted) {
        rc = error_set(err, ERROR_INTERRUPTED, "interrupted while exporting the source (%s)",
                       name);
    } else if (r.exit_code != 0) {
        char why[ERROR_MESSAGE_SIZE];
        build_command_failure(name, &r, why, sizeof why);
        rc = error_set(err, ERROR_COMMAND_FAILED, "exporting the source: %s", why);
    }
    run_result_free(&r);
    return rc;
}

/* The tracked and untracked-not-ignored files that exist now, NUL-separated, into list. */
static int write_work_tree_list(const build_inputs *in, const char *list, verdict_error *err)
{
    const char *argv[] = {"git", "ls-files", "-co", "--exclude-standard", "-z", NULL};
    char *names = NULL;
    size_t length = 0;
    build_command c = {.argv = argv, .cwd = in->path};
    if (build_command_output(&c, &names, &length, err) != 0)
        return error_prefix(err, "source %s: git ls-files", in->path);
    FILE *out = fopen(list, "we");
    int rc = out ? 0 : error_set(err, ERROR_INTERNAL, "cannot write %s: %s", list,
                                 strerror(errno));
    int root_fd = open(in->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (rc == 0 && root_fd < 0)
        rc = error_set(err, ERROR_BAD_INPUT, "cannot open %s: %s", in->path, strerror(errno));
    for (size_t at = 0; rc == 0 && at < length; at += strlen(names + at) + 1) {
        struct stat st;
        if (fstatat(root_fd, names + at, &st, AT_SYMLINK_NOFOLLOW) == 0) /* not deleted */
            fwrite(names + at, 1, strlen(names + at) + 1, out);
    }
    if (out && (ferror(out) | fclose(out)) != 0 && rc == 0)
        rc = error_set(err, ERROR_INTERNAL, "cannot write %s: %s", list, strerror(errno));
    if (root_fd >= 0)
        close(root_fd);
    free(names);
    return rc;
}

/* The source into an archive: git archive of the commit (the repository is only read),
 * or tar of the directory's files (a work tree's as git lists them, a plain one's all). */
static int make_archive(const build_inputs *in, const char *archive, const char *list,
                        volatile sig_atomic_t *stop, verdict_error *err)
{
    strbuf output = STRBUF_INIT;
    strbuf_appendf(&output, "--output=%s", archive);
    const char *git[] = {"git", "archive", "--format=tar", strbuf_text(&output), in->commit,
                         NULL};
    const char *listed[] = {"tar", "-c", "-f", archive, "--null", "--no-recursion",
                            "--verbatim-files-from", "-T", list, NULL};
    const char *whole[] = {"tar", "-c", "-f", archive, ".", NULL};
    int rc = strbuf_status(&output) == 0 ? 0 : error_no_memory(err);
    if (rc == 0 && in->kind == BUILD_ORIGIN_REF)
        rc = run_step("git archive", git, in->path, stop, err);
    else if (rc == 0 && in->kind == BUILD_ORIGIN_WORK_TREE)
        rc = write_work_tree_list(in, list, err) == 0
                 ? run_step("tar", listed, in->path, stop, err)
                 : -1;
    else if (rc == 0)
        rc = run_step("tar", whole, in->path, stop, err);
    strbuf_free(&output);
    return rc;
}

int build_source_export(const build_inputs *in, const char *tree, const char *scratch,
                        volatile sig_atomic_t *stop, verdict_error *err)
{
    char *archive = build_path_join(scratch, "source.tar");
    char *list = build_path_join(scratch, "source.list");
    int rc = archive && list ? 0 : error_no_memory(err);
    const char *extract[] = {"tar", "-x", "-p", "--no-same-owner", "-f", archive, NULL};
    rc = rc ? rc : make_archive(in, archive, list, stop, err);
    rc = rc ? rc : run_step("tar -x", extract, tree, stop, err);
    if (archive)
        unlink(archive);
    if (list)
        unlink(list);
    free(archive);
    free(list);
    return rc;
}

/* ---- where the cache may be ---- */

static bool is_inside(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    if (strcmp(dir, "/") == 0)
        return true;
    return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

int build_source_check_cache(const build_inputs *in, const char *path, verdict_error *err)
{
    if (in->kind == BUILD_ORIGIN_REF || !is_inside(path, in->path))
        return 0;
    char line[16], failure[ERROR_MESSAGE_SIZE];
    const char *ignored[] = {"git", "check-ignore", "-q", path, NULL};
    if (in->kind == BUILD_ORIGIN_WORK_TREE &&
        git_query(in->path, ignored, line, sizeof line, failure, sizeof failure) == 0)
        return 0;
    return error_set(err, ERROR_USAGE, "the build cache %s is inside the source %s%s, so every "
                     "build would change the source's key; put the cache elsewhere%s", path,
                     in->path, in->kind == BUILD_ORIGIN_WORK_TREE ? " and git does not ignore it"
                                                                   : "",
                     in->kind == BUILD_ORIGIN_WORK_TREE ? " or make git ignore it" : "");
}

/* Runs the tools a build uses (git, tar, patch, the compiler) through core's runner, with
 * an environment that points git at the repository named, and output kept whole. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build/build_internal.h"
#include "common/array.h"
#include "common/error.h"
#include "common/wait_status.h"

extern char **environ;

/* Variables that would make git act on another repository than the one named with -C
 * or the working directory (set when verdict itself runs from a git hook, say). */
static const char *const git_overrides[] = {
    "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_PREFIX", "GIT_COMMON_DIR",
    "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_NAMESPACE",
};

static bool has_name(const char *entry, const char *name_value_or_name)
{
    size_t n = strcspn(name_value_or_name, "=");
    return strncmp(entry, name_value_or_name, n) == 0 && entry[n] == '=';
}

static bool is_replaced(const char *entry, const char *const *set, size_t n_set)
{
    for (size_t i = 0; i < ARRAY_SIZE(git_overrides); i++)
        if (has_name(entry, git_overrides[i]))
            return true;
    for (size_t i = 0; i < n_set; i++)
        if (has_name(entry, set[i]))
            return true;
    return false;
}

static int env_add(char ***envp, size_t *n, size_t *capacity, const char *entry)
{
    if (array_reserve((void **)envp, capacity, *n + 2, sizeof **envp) != 0)
        return -1;
    (*envp)[*n] = strdup(entry);
    if ((*envp)[*n] == NULL)
        return -1;
    (*n)++;
    (*envp)[*n] = NULL;
    return 0;
}

char **build_env_make(const char *const *set, size_t n_set)
{
    char **envp = NULL;
    size_t n = 0, capacity = 0;
    int rc = array_reserve((void **)&envp, &capacity, 1, sizeof *envp);
    for (char **e = environ; rc == 0 && e && *e; e++)
        if (!is_replaced(*e, set, n_set))
            rc = env_add(&envp, &n, &capacity, *e);
    for (size_t i = 0; rc == 0 && i < n_set; i++)
        rc = env_add(&envp, &n, &capacity, set[i]);
    if (rc != 0) {
        build_env_free(envp);
        return NULL;
    }
    return envp;
}

void build_env_free(char **envp)
{
    for (char **e = envp; e && *e; e++)
        free(*e);
    free(envp);
}

char *build_path_join(const char *dir, const char *name)
{
    strbuf b = STRBUF_INIT;
    strbuf_appendf(&b, "%s/%s", dir, name);
    return strbuf_detach(&b);
}

int build_read_file(const char *path, char **bytes, size_t *length)
{
    *bytes = NULL;
    *length = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    strbuf b = STRBUF_INIT;
    char chunk[65536];
    ssize_t n;
    while ((n = read(fd, chunk, sizeof chunk)) != 0) {
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            break;
        strbuf_append_bytes(&b, chunk, (size_t)n);
    }
    int saved = errno;
    close(fd);
    if (n < 0 || strbuf_status(&b) != 0) {
        strbuf_free(&b);
        errno = n < 0 ? saved : ENOMEM;
        return -1;
    }
    *length = b.length;
    *bytes = strbuf_detach(&b);
    return 0;
}

/* The shell redirects stdout into the file and then becomes the command, so that output
 * of any size is kept (the runner's capture is bounded) and the status is the command's. */
static int redirected_argv(const build_command *c, const char ***argv)
{
    size_t n = 0;
    while (c->argv[n])
        n++;
    *argv = calloc(n + 6, sizeof **argv);
    if (*argv == NULL)
        return -1;
    (*argv)[0] = "/bin/sh";
    (*argv)[1] = "-c";
    (*argv)[2] = "out=$1; shift; exec \"$@\" >\"$out\"";
    (*argv)[3] = "sh";
    (*argv)[4] = c->output_path;
    memcpy(*argv + 5, c->argv, n * sizeof *c->argv); /* calloc left the NULL after them */
    return 0;
}

int build_command_run(const build_command *c, run_result *result, verdict_error *err)
{
    /* The C locale: messages verdict reads (git's "not a git repository") and the
     * compiler's --version line in the key must not depend on the user's language. */
    static const char *const tool_locale[] = {"LC_ALL=C"};
    const char **argv = NULL;
    char **own_env = c->envp ? NULL : build_env_make(tool_locale, 1);
    if ((c->output_path && redirected_argv(c, &argv) != 0) || (!c->envp && !own_env)) {
        free(argv);
        build_env_free(own_env);
        return error_set(err, ERROR_NO_MEMORY, "out of memory running %s", c->argv[0]);
    }
    run_request request = {
        .argv = (char *const *)(argv ? argv : (const char **)c->argv),
        .envp = c->envp ? c->envp : own_env,
        .cwd = c->cwd,
        .capture_stdout = c->capture && !c->output_path,
    };
    int rc = runner_execute(&request, c->stop, result, err);
    free(argv);
    build_env_free(own_env);
    return rc;
}

/* The stderr tail on one line, without its trailing newline, for a message. */
static void tidy_tail(const char *tail, char *out, size_t size)
{
    snprintf(out, size, "%s", tail);
    size_t n = strlen(out);
    while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == ' '))
        out[--n] = '\0';
    for (char *p = out; *p; p++)
        if (*p == '\n')
            *p = ' ';
}

void build_command_failure(const char *name, const run_result *r, char *buf, size_t size)
{
    char how[128], tail[RUNNER_STDERR_TAIL];
    exit_text(r->exit_code, r->term_signal, how, sizeof how);
    tidy_tail(r->stderr_tail, tail, sizeof tail);
    snprintf(buf, size, "%s %s%s%s", name, how, tail[0] ? ": " : "", tail);
}

static int temporary_path(char *path, size_t size)
{
    const char *dir = getenv("TMPDIR");
    snprintf(path, size, "%s/verdict-build-XXXXXX", dir && dir[0] ? dir : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    close(fd);
    return 0;
}

/* Runs c with stdout into a new temporary file, whose name goes to path; a non-zero exit
 * is an error naming the command. The caller unlinks path when it is set. */
static int run_to_temporary(const build_command *c, char *path, size_t size, verdict_error *err)
{
    if (temporary_path(path, size) != 0) {
        path[0] = '\0';
        return error_set(err, ERROR_INTERNAL, "cannot create a temporary file in %s: %s",
                         getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", strerror(errno));
    }
    build_command redirected = *c;
    redirected.output_path = path;
    run_result r;
    memset(&r, 0, sizeof r);
    int rc = build_command_run(&redirected, &r, err);
    if (rc == 0 && (r.exit_code != 0 || r.interrupted)) {
        char why[ERROR_MESSAGE_SIZE];
        build_command_failure(c->argv[0], &r, why, sizeof why);
        rc = error_set(err, r.interrupted ? ERROR_INTERRUPTED : ERROR_COMMAND_FAILED, "%s", why);
    }
    run_result_free(&r);
    return rc;
}

int build_command_output(const build_command *c, char **output, size_t *length,
                         verdict_error *err)
{
    char path[4096];
    int rc = run_to_temporary(c, path, sizeof path, err);
    if (rc == 0 && build_read_file(path, output, length) != 0)
        rc = error_set(err, ERROR_INTERNAL, "cannot read the output of %s: %s", c->argv[0],
                       strerror(errno));
    if (path[0])
        unlink(path);
    return rc;
}

int build_command_hash(const build_command *c, build_hasher *h, char tag, uint64_t *length,
                       verdict_error *err)
{
    char path[4096];
    int rc = run_to_temporary(c, path, sizeof path, err);
    int fd = rc == 0 ? open(path, O_RDONLY | O_CLOEXEC) : -1;
    struct stat st;
    if (rc == 0 && (fd < 0 || fstat(fd, &st) != 0))
        rc = error_set(err, ERROR_INTERNAL, "cannot read the output of %s: %s", c->argv[0],
                       strerror(errno));
    if (rc == 0) {
        *length = (uint64_t)st.st_size;
        rc = build_hasher_file(h, tag, fd, *length, path, err);
    }
    if (fd >= 0)
        close(fd);
    if (path[0])
        unlink(path);
    return rc;
}

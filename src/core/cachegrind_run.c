/* A run under cachegrind: its output files (one per process) read, added up and removed,
 * and one command measured that way in a directory of its own, which is removed after. */
#include "core/cachegrind.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/error.h"
#include "common/strbuf.h"
#include "common/wait_status.h"
#include "core/runner.h"

/* An output file of a long server run can be tens of megabytes; none is this large. */
#define FILE_LIMIT ((size_t)1 << 30)

extern char **environ;

static int read_one(const char *path, cachegrind_totals *sum, verdict_error *err)
{
    strbuf text = STRBUF_INIT;
    verdict_error why = {0};
    int rc = -1;
    if (strbuf_append_file(&text, path, FILE_LIMIT, &why) != 0) {
        error_set(err, ERROR_INTERNAL, "cannot read cachegrind's output: %s", why.message);
        goto done;
    }
    cachegrind_totals file;
    if (cachegrind_parse(strbuf_text(&text), text.length, path, &file, err) != 0 ||
        cachegrind_add(sum, &file, err) != 0)
        goto done;
    rc = 0;
done:
    strbuf_free(&text);
    return rc;
}

int cachegrind_collect(const char *dir, cachegrind_totals *out, verdict_error *err)
{
    memset(out, 0, sizeof *out);
    DIR *d = opendir(dir);
    if (d == NULL)
        return error_set(err, ERROR_INTERNAL, "cannot list %s: %s", dir, strerror(errno));
    int rc = 0;
    for (struct dirent *entry = readdir(d); entry != NULL; entry = readdir(d)) {
        if (strncmp(entry->d_name, "cg.", 3) != 0)
            continue;
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", dir, entry->d_name);
        /* every file is removed, the first failure kept: a run leaves nothing behind */
        if (rc == 0 && read_one(path, out, err) != 0)
            rc = -1;
        unlink(path);
    }
    closedir(d);
    if (rc == 0 && out->files == 0)
        rc = error_set(err, ERROR_COMMAND_FAILED, "cachegrind wrote no output file in %s", dir);
    return rc;
}

/* "spin 1000" for messages: the command's words, shortened past a screen line. */
static void command_text(char *const argv[], char *buf, size_t len)
{
    buf[0] = '\0';
    for (size_t i = 0; argv[i] != NULL && strlen(buf) + 1 < len; i++)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", i ? " " : "", argv[i]);
}

static int run_in(const char *dir, char *const argv[], char *const envp[],
                  const cachegrind_options *options, volatile sig_atomic_t *stop,
                  verdict_error *err)
{
    char valgrind[PATH_MAX], command[256];
    verdict_error why = {0};
    char **cg_argv = NULL;
    if (cachegrind_find_valgrind(valgrind, sizeof valgrind, err) != 0 ||
        cachegrind_argv(valgrind, argv, dir, options, &cg_argv, err) != 0)
        return -1;
    command_text(argv, command, sizeof command);
    run_request request = {.argv = cg_argv, .envp = envp ? envp : environ,
                           .output = RUN_OUTPUT_NULL};
    run_result result;
    int rc = 0;
    if (runner_execute(&request, stop, &result, &why) != 0) {
        rc = error_set(err, ERROR_COMMAND_FAILED, "cannot run '%s' under cachegrind: %s", command,
                       why.message);
    } else if (result.interrupted) {
        rc = error_set(err, ERROR_INTERRUPTED, "'%s' under cachegrind was interrupted",
                       command);
    } else if (result.exit_code != 0) {
        char how[128];
        exit_text(result.exit_code, result.term_signal, how, sizeof how);
        rc = error_set(err, ERROR_COMMAND_FAILED, "'%s' under cachegrind %s; its stderr "
                       "ends:\n%s", command, how, result.stderr_tail);
    }
    run_result_free(&result);
    cachegrind_argv_free(cg_argv);
    return rc;
}

/* Absolute, because the run may change to another directory before valgrind writes. */
int cachegrind_make_dir(char *dir, size_t len, verdict_error *err)
{
    return runner_make_temp_dir("verdict-cachegrind", "cachegrind's output", dir, len, err);
}

int cachegrind_measure_command(char *const argv[], char *const envp[],
                               const cachegrind_options *options,
                               volatile sig_atomic_t *stop, cachegrind_totals *out,
                               verdict_error *err)
{
    char dir[PATH_MAX];
    if (cachegrind_make_dir(dir, sizeof dir, err) != 0)
        return -1;
    int rc = run_in(dir, argv, envp, options, stop, err);
    verdict_error collected;
    /* read even after a failure, so that the files go; the run's error comes first */
    if (cachegrind_collect(dir, out, &collected) != 0 && rc == 0)
        rc = error_copy(err, &collected);
    rmdir(dir);
    return rc;
}

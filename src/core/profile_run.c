/* perf for profiled runs: whether this machine can sample at all (refused before anything
 * runs, in words a user can act on), the `perf record` words around a run, and the
 * recording resolved by `perf script` into a profile. */
#include "core/profile.h"

#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/wait_status.h"
#include "core/runner.h"
#include "env/perf_counters.h"

extern char **environ;

#define PERF_MISSING "perf is not installed (or not for this kernel): apt-get install linux-perf"

/* `perf --version`: Debian's perf is a wrapper that fails when no perf of the running
 * kernel's version is installed, which finding the file alone would not tell. */
static int check_perf_runs(verdict_error *err)
{
    char *const argv[] = {"perf", "--version", NULL};
    run_request request = {.argv = argv, .envp = environ, .output = RUN_OUTPUT_NULL};
    run_result result;
    volatile sig_atomic_t no_stop = 0;
    verdict_error why = {0};
    if (runner_execute(&request, &no_stop, &result, &why) != 0)
        return error_set(err, ERROR_USAGE, "cannot profile: " PERF_MISSING);
    int exit_code = result.exit_code;
    run_result_free(&result);
    if (exit_code != 0)
        return error_set(err, ERROR_USAGE, "cannot profile: `perf --version` exited with "
                         "status %d: " PERF_MISSING, exit_code);
    return 0;
}

/* The kernel's permission and the PMU, asked as the counters ask (perf_counters_probe):
 * the clocks as the software clock, other events as the PMU's, user space only (what perf
 * record falls back to under perf_event_paranoid 2). */
static int check_event(const char *event, verdict_error *err)
{
    bool clock = strcmp(event, "cpu-clock") == 0 || strcmp(event, "task-clock") == 0;
    const perf_counters_event *found = perf_counters_event_find(clock ? "task-clock" : event);
    if (found == NULL || (!clock && !found->hardware))
        return error_set(err, ERROR_USAGE, "--profile-event %s: profiles sample cpu-clock (the "
                         "default, any machine), task-clock, or an event of the CPU's "
                         "counters (cycles, instructions, ...) where the machine has them",
                         event);
    perf_counters_spec spec = {found, PERF_COUNTERS_USER};
    verdict_error why = {0};
    if (perf_counters_probe(&spec, &why) != 0)
        return error_set(err, why.kind, "cannot profile with %s: %s", event, why.message);
    return 0;
}

int profile_check(const char *event, verdict_error *err)
{
    if (check_event(event, err) != 0)
        return -1;
    return check_perf_runs(err);
}

char **profile_record_argv(const char *event, const char *path, char *const *argv)
{
    char *const head[] = {"perf", "record", "-g", "-q", "-N", "-B", "-F",
                          PROFILE_FREQUENCY_TEXT, "-e",
                          (char *)event, "-o", (char *)path, "--"};
    size_t n_head = sizeof head / sizeof head[0], n = 0;
    while (argv[n] != NULL)
        n++;
    char **words = calloc(n_head + n + 1, sizeof *words);
    if (words == NULL)
        return NULL;
    memcpy(words, head, sizeof head);
    memcpy(words + n_head, argv, n * sizeof *argv);
    return words;
}

/* `perf script` on the recording: its text, captured. */
static int run_script(const char *path, volatile sig_atomic_t *stop, run_result *result,
                      verdict_error *err)
{
    char *const argv[] = {"perf", "script", "-i", (char *)path, "-F",
                          "comm,tid,event,ip,sym,dso", NULL};
    run_request request = {.argv = argv, .envp = environ, .capture_stdout = true};
    if (runner_execute(&request, stop, result, err) != 0)
        return error_prefix(err, "perf script");
    if (result->interrupted)
        return error_set(err, ERROR_INTERRUPTED, "interrupted");
    if (result->exit_code != 0 || result->stdout_cut) {
        char how[128];
        exit_text(result->exit_code, result->term_signal, how, sizeof how);
        return error_set(err, ERROR_COMMAND_FAILED, "perf script -i %s %s%s; its stderr "
                         "ends:\n%s", path, result->stdout_cut ? "wrote more than verdict "
                         "keeps" : how, result->stdout_cut ? " (lower the run's length)" : "",
                         result->stderr_tail);
    }
    return 0;
}

int profile_make_path(char *path, size_t len, verdict_error *err)
{
    assert(len > sizeof "/perf.data");
    if (runner_make_temp_dir("verdict-profile", "perf's recording", path,
                             len - sizeof "/perf.data" + 1, err) != 0)
        return -1;
    strcat(path, "/perf.data");
    return 0;
}

void profile_remove_path(const char *path)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    unlink(path);
    if (slash != NULL) {
        *slash = '\0';
        rmdir(dir);
    }
}

int profile_resolve(const char *path, volatile sig_atomic_t *stop, profile_data *out,
                    verdict_error *err)
{
    memset(out, 0, sizeof *out);
    run_result result = {0};
    int rc = run_script(path, stop, &result, err);
    if (rc == 0)
        rc = profile_parse_script(result.stdout_text ? result.stdout_text : "",
                                  result.stdout_length, out, err);
    run_result_free(&result);
    profile_remove_path(path);
    return rc;
}

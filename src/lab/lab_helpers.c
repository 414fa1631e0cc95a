/* Helper commands (setup, teardown, prepare): substituted for the point, run through the
 * runner without measuring, their failure described with the end of their stderr. */
#include "lab/lab_helpers.h"

#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/strbuf.h"
#include "common/wait_status.h"
#include "core/runner.h"

extern char **environ;

int lab_helper_words(const experiment *e, const experiment_helper *h, size_t point,
                     command_words *out, verdict_error *err)
{
    memset(out, 0, sizeof *out);
    if (h->line == NULL)
        return 0;
    if (!h->shell) {
        char *line = experiment_substitute(e, point, h->line, err);
        int rc = line ? command_words_split(line, out, err) : -1;
        free(line);
        return rc;
    }
    char *line = experiment_substitute_shell(e, point, h->line, err);
    if (line == NULL)
        return -1;
    const char *words[] = {"/bin/sh", "-c", line};
    int rc = command_words_copy(words, 3, out) == 0 ? 0 : error_no_memory(err);
    free(line);
    return rc;
}

int lab_check_helper(const experiment *e, const experiment_helper *h, const char *role,
                     verdict_error *err)
{
    command_words words;
    if (h->line == NULL)
        return 0;
    if (lab_helper_words(e, h, 0, &words, err) != 0)
        return error_prefix(err, "--%s", role);
    int rc = words.n == 0 ? error_set(err, ERROR_USAGE, "--%s: empty command", role)
             : runner_check_executable(e->directory, words.words[0], err) != 0
                 ? error_prefix(err, "--%s", role)
                 : 0;
    command_words_free(&words);
    return rc;
}

static int describe_failure(const run_result *r, const char *what, verdict_error *err)
{
    char ended[128];
    exit_text(r->exit_code, r->term_signal, ended, sizeof ended);
    if (r->timed_out)
        snprintf(ended, sizeof ended, "timed out");
    if (r->stderr_tail[0])
        return error_set(err, ERROR_COMMAND_FAILED, "%s %s; the end of its stderr:\n%s", what,
                         ended, r->stderr_tail);
    return error_set(err, ERROR_COMMAND_FAILED, "%s %s", what, ended);
}

int lab_run_helper(const experiment *e, const command_words *words, const char *role,
                   const char *cwd, volatile sig_atomic_t *stop, verdict_error *err)
{
    if (words->n == 0)
        return 0;
    run_request request = {.argv = words->words, .envp = environ, .cwd = cwd,
                           .timeout = e->timeout};
    run_result r;
    char what[128];
    if (runner_execute(&request, stop, &r, err) != 0)
        return error_prefix(err, "the %s command", role);
    run_result_free(&r);
    if (r.interrupted)
        return error_set(err, ERROR_INTERRUPTED, "interrupted during the %s command", role);
    snprintf(what, sizeof what, "the %s command", role);
    if (r.exit_code != 0 || r.timed_out)
        return describe_failure(&r, what, err);
    return 0;
}

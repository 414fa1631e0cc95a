/* Builds and helper commands: substituted for the point, run through the runner without
 * measuring, their failure described with the end of their output, their logs kept. */
#include "lab/lab_helpers.h"

#include <stdlib.h>
#include <string.h>

#include "common/strbuf.h"
#include "common/wait_status.h"
#include "core/runner.h"

extern char **environ;

#define BUILD_LOG_TAIL 1500

int lab_helper_words(const experiment *e, const experiment_helper *h, size_t point,
                     command_words *out, verdict_error *err)
{
    char why[512] = "";
    memset(out, 0, sizeof *out);
    if (h->line == NULL)
        return 0;
    if (!h->shell) {
        char *line = experiment_substitute(e, point, h->line, why, sizeof why);
        int rc = line ? command_words_split(line, out, why, sizeof why) : -1;
        free(line);
        return rc == 0 ? 0 : error_set(err, ERROR_USAGE, "%s", why);
    }
    char *line = experiment_substitute_shell(e, point, h->line, why, sizeof why);
    const char *words[] = {"/bin/sh", "-c", line};
    int rc = line && command_words_copy(words, 3, out) == 0 ? 0 : -1;
    free(line);
    return rc == 0 ? 0 : error_set(err, why[0] ? ERROR_USAGE : ERROR_INTERNAL, "%s",
                                   why[0] ? why : "out of memory");
}

int lab_check_helper(const experiment *e, const experiment_helper *h, const char *role,
                     verdict_error *err)
{
    command_words words;
    char why[512];
    if (h->line == NULL)
        return 0;
    if (lab_helper_words(e, h, 0, &words, err) != 0)
        return error_prefix(err, "--%s", role);
    int rc = words.n == 0 ? error_set(err, ERROR_USAGE, "--%s: empty command", role)
             : runner_check_executable(e->directory, words.words[0], why, sizeof why) != 0
                 ? error_set(err, ERROR_USAGE, "--%s: %s", role, why)
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
    char why[512], what[128];
    if (runner_execute(&request, stop, &r, why, sizeof why) != 0)
        return error_set(err, ERROR_COMMAND_FAILED, "the %s command: %s", role, why);
    run_result_free(&r);
    if (r.interrupted)
        return error_set(err, ERROR_INTERRUPTED, "interrupted during the %s command", role);
    snprintf(what, sizeof what, "the %s command", role);
    if (r.exit_code != 0 || r.timed_out)
        return describe_failure(&r, what, err);
    return 0;
}

/* A variant's name in a file name: '/' would make it a directory. */
static void put_file_name(strbuf *b, const char *name)
{
    for (const char *c = name; *c; c++)
        strbuf_append_bytes(b, *c == '/' ? "_" : c, 1);
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

static int run_build(const experiment *e, const experiment_variant *v, const char *log_path,
                     volatile sig_atomic_t *stop, verdict_error *err)
{
    char why[512] = "";
    char *line = experiment_substitute_shell(e, 0, v->build, why, sizeof why);
    if (line == NULL)
        return error_set(err, ERROR_USAGE, "variant %s: build: %s", v->name, why);
    strbuf wrapped = STRBUF_INIT;
    strbuf_appendf(&wrapped, "( %s ) > '%s' 2>&1", line, log_path);
    free(line);
    char *argv[] = {"/bin/sh", "-c", (char *)strbuf_text(&wrapped), NULL};
    run_request request = {.argv = argv, .envp = environ, .cwd = v->cwd ? v->cwd : e->directory};
    run_result result;
    int rc = strbuf_status(&wrapped) == 0 ? runner_execute(&request, stop, &result, why, sizeof why)
                                           : -1;
    strbuf_free(&wrapped);
    if (rc != 0)
        return error_set(err, ERROR_COMMAND_FAILED, "variant %s: build: %s", v->name,
                         why[0] ? why : "out of memory");
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

int lab_run_builds(const experiment *e, const char *log_prefix, volatile sig_atomic_t *stop,
                   FILE *notes, verdict_error *err)
{
    for (size_t i = 0; i < e->n_variants; i++) {
        const experiment_variant *v = &e->variants[i];
        if (v->build == NULL)
            continue;
        strbuf log_path = STRBUF_INIT;
        strbuf_appendf(&log_path, "%s.build-", log_prefix);
        put_file_name(&log_path, v->name);
        strbuf_append(&log_path, ".log");
        if (strbuf_status(&log_path) != 0) {
            strbuf_free(&log_path);
            return error_set(err, ERROR_INTERNAL, "out of memory");
        }
        if (notes)
            fprintf(notes, "verdict: building %s (log: %s)\n", v->name, strbuf_text(&log_path));
        int rc = run_build(e, v, strbuf_text(&log_path), stop, err);
        strbuf_free(&log_path);
        if (rc != 0)
            return -1;
    }
    return 0;
}

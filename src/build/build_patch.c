/* Applies a build's patches in its copy of the source, in order, with patch -p1; one that
 * does not apply is named with its rejected hunks, and patch's output goes to the log. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build/build_internal.h"

/* Room in an error message for the rejected hunks and for patch's own words. */
#define HUNK_ROOM 1100
#define OUTPUT_ROOM 400

int build_log_note(const char *log, verdict_error *err, const char *fmt, ...)
{
    FILE *out = fopen(log, "ae");
    if (out == NULL)
        return error_set(err, ERROR_INTERNAL, "cannot write %s: %s", log, strerror(errno));
    va_list ap;
    va_start(ap, fmt);
    fputs("verdict: ", out);
    vfprintf(out, fmt, ap);
    fputc('\n', out);
    va_end(ap);
    if ((ferror(out) | fclose(out)) != 0)
        return error_set(err, ERROR_INTERNAL, "cannot write %s: %s", log, strerror(errno));
    return 0;
}

static int append_to_log(const char *log, const char *text, size_t n, verdict_error *err)
{
    FILE *out = fopen(log, "ae");
    if (out == NULL || fwrite(text, 1, n, out) != n || fclose(out) != 0) {
        if (out)
            fclose(out);
        return error_set(err, ERROR_INTERNAL, "cannot write %s: %s", log, strerror(errno));
    }
    return 0;
}

/* At most room bytes of text, the end kept (where the failure is), trailing space cut. */
static void put_clipped(strbuf *b, const char *text, size_t room)
{
    size_t n = strlen(text);
    while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == ' '))
        n--;
    if (n > room) {
        strbuf_appendf(b, "[%zu bytes before] ", n - room);
        text += n - room;
        n = room;
    }
    strbuf_append_bytes(b, text, n);
}

static int patch_failed(const char *patch, const char *tree, const run_result *r,
                        const char *rejects, verdict_error *err)
{
    char how[ERROR_MESSAGE_SIZE];
    build_command_failure("patch", r, how, sizeof how);
    char *hunks = NULL;
    size_t length = 0;
    strbuf b = STRBUF_INIT;
    strbuf_appendf(&b, "patch %s does not apply to %s (%s)", patch, tree, how);
    if (build_read_file(rejects, &hunks, &length) == 0 && length > 0) {
        strbuf_appendf(&b, "; rejected hunks (%s):\n", rejects);
        put_clipped(&b, hunks, HUNK_ROOM);
    }
    if (r->stdout_text && r->stdout_text[0]) {
        strbuf_append(&b, "\npatch said: ");
        put_clipped(&b, r->stdout_text, OUTPUT_ROOM);
    }
    int rc = error_set(err, ERROR_BAD_INPUT, "%s", strbuf_status(&b) == 0 ? strbuf_text(&b)
                                                                         : "out of memory");
    free(hunks);
    strbuf_free(&b);
    return rc;
}

/* Rejects go to one file per patch in the build directory rather than beside the sources,
 * backups nowhere, so that the copy holds only what the patches made of it. */
static int apply_one(const char *patch, size_t index, const build_paths *p,
                     volatile sig_atomic_t *stop, verdict_error *err)
{
    char name[64];
    snprintf(name, sizeof name, "patch-%zu.rej", index + 1);
    char *rejects = build_path_join(p->dir, name);
    if (rejects == NULL)
        return error_no_memory(err);
    const char *argv[] = {"patch", "-p1", "--batch", "--forward", "--no-backup-if-mismatch",
                          "--reject-file", rejects, "-i", patch, NULL};
    build_command c = {.argv = argv, .cwd = p->tree, .capture = true, .stop = stop};
    run_result r;
    int rc = build_log_note(p->log, err, "patch %zu: %s", index + 1, patch);
    rc = rc ? rc : build_command_run(&c, &r, err);
    if (rc == 0) {
        if (r.stdout_text)
            rc = append_to_log(p->log, r.stdout_text, r.stdout_length, err);
        if (rc == 0 && r.interrupted)
            rc = error_set(err, ERROR_INTERRUPTED, "interrupted while applying %s", patch);
        else if (rc == 0 && r.exit_code != 0)
            rc = patch_failed(patch, p->tree, &r, rejects, err);
        run_result_free(&r);
    }
    free(rejects);
    return rc;
}

int build_apply_patches(const build_inputs *in, const build_paths *p,
                        volatile sig_atomic_t *stop, verdict_error *err)
{
    for (size_t i = 0; i < in->n_patches; i++)
        if (apply_one(in->patches[i], i, p, stop, err) != 0)
            return -1;
    return 0;
}

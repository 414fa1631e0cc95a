/* The last calibration of this machine as one JSON file in verdict's state directory: written
 * whole by `verdict calibrate`, read by `verdict env`, ignored when another host wrote it. */
#include "cli/calibration_state.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/strbuf.h"
#include "lab/lab_builds.h"
#include "report/output_file.h"

#define STATE_FILE "calibration.json"

/* The directory, or NULL: verdict's own variable, XDG's, the home's default. */
static char *state_dir(void)
{
    return lab_user_dir("VERDICT_STATE", "XDG_STATE_HOME", ".local/state");
}

char *calibration_state_path(void)
{
    char *dir = state_dir();
    if (dir == NULL)
        return NULL;
    strbuf path = STRBUF_INIT;
    strbuf_appendf(&path, "%s/%s", dir, STATE_FILE);
    free(dir);
    return strbuf_detach(&path);
}

static void host_name(char *out, size_t len)
{
    if (gethostname(out, len) != 0)
        out[0] = '\0';
    out[len - 1] = '\0';
}

/* mkdir -p of dir (0700: the state is the user's), each missing component made in turn. */
static int make_dirs(char *dir, verdict_error *err)
{
    for (char *p = dir + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char was = *p;
        *p = '\0';
        int rc = mkdir(dir, 0700) == 0 || errno == EEXIST ? 0 : -1;
        if (rc != 0)
            error_set(err, ERROR_USAGE, "%s: cannot make the directory: %s", dir,
                      strerror(errno));
        *p = was;
        if (rc != 0 || was == '\0')
            return rc;
    }
}

int calibration_state_save(const json_t *doc, verdict_error *err)
{
    char *dir = state_dir(), *path = calibration_state_path(), host[256];
    json_t *kept = json_deep_copy(doc);
    output_file out = {0};
    int rc = -1;
    host_name(host, sizeof host);
    if (dir == NULL || path == NULL) {
        error_set(err, ERROR_USAGE, "no state directory: set VERDICT_STATE or HOME");
        goto done;
    }
    if (kept == NULL || json_object_set_new(kept, "host", json_string(host)) != 0) {
        error_no_memory(err);
        goto done;
    }
    if (make_dirs(dir, err) != 0 || output_open(&out, path, err) != 0)
        goto done;
    if (json_dumpf(kept, out.stream, JSON_INDENT(2)) != 0 || fputc('\n', out.stream) == EOF) {
        output_abandon(&out);
        error_set(err, ERROR_USAGE, "%s: cannot write the calibration", path);
        goto done;
    }
    rc = output_commit(&out, err);
done:
    json_decref(kept);
    free(dir);
    free(path);
    return rc;
}

json_t *calibration_state_load(void)
{
    char *path = calibration_state_path(), host[256];
    json_t *doc = path ? json_load_file(path, 0, NULL) : NULL;
    host_name(host, sizeof host);
    const char *writer = json_string_value(json_object_get(doc, "host"));
    if (doc != NULL && (writer == NULL || strcmp(writer, host) != 0 ||
                        !json_is_object(doc))) {
        json_decref(doc);
        doc = NULL;
    }
    free(path);
    return doc;
}

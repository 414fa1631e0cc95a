/* Atomic export files: write to PATH.tmp.XXXXXX, fsync, rename over PATH.
 * Standard output ("-") is written directly. */
#include "report/output_file.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int output_open(output_file *out, const char *path, char *err, size_t errlen)
{
    out->path = path;
    out->temporary = NULL;
    if (strcmp(path, "-") == 0) {
        out->stream = stdout;
        return 0;
    }
    size_t length = strlen(path) + 16;
    out->temporary = malloc(length);
    if (out->temporary == NULL) {
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    snprintf(out->temporary, length, "%s.tmp.XXXXXX", path);
    int fd = mkstemp(out->temporary);
    if (fd < 0 || (out->stream = fdopen(fd, "w")) == NULL) {
        snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
        if (fd >= 0) {
            close(fd);
            unlink(out->temporary);
        }
        free(out->temporary);
        out->temporary = NULL;
        return -1;
    }
    fchmod(fd, 0644);
    return 0;
}

int output_commit(output_file *out, char *err, size_t errlen)
{
    if (out->temporary == NULL) {
        if (fflush(out->stream) != 0) {
            snprintf(err, errlen, "<stdout>: cannot write: %s", strerror(errno));
            return -1;
        }
        return 0;
    }
    int rc = 0;
    if (fflush(out->stream) != 0 || fsync(fileno(out->stream)) != 0 || ferror(out->stream))
        rc = -1;
    if (fclose(out->stream) != 0)
        rc = -1;
    if (rc == 0 && rename(out->temporary, out->path) != 0)
        rc = -1;
    if (rc != 0) {
        snprintf(err, errlen, "%s: cannot write: %s", out->path, strerror(errno));
        unlink(out->temporary);
    }
    free(out->temporary);
    out->temporary = NULL;
    return rc;
}

void output_abandon(output_file *out)
{
    if (out->temporary) {
        fclose(out->stream);
        unlink(out->temporary);
        free(out->temporary);
        out->temporary = NULL;
    }
}

/* Export files: a regular file or a new one is written to PATH.tmp.XXXXXX, fsynced and
 * renamed over it; devices, FIFOs and verdict's own stdout/stderr are written in place. */
#include "report/output_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/error.h"

typedef enum {
    WRITE_ATOMIC,   /* temporary file renamed over the target */
    WRITE_IN_PLACE, /* opened and written: a device, a FIFO */
    WRITE_STDOUT,   /* the file verdict's stdout already writes: through that stream */
    WRITE_STDERR,
    WRITE_REFUSED
} write_mode;

static bool same_file_as_fd(const struct stat *st, int fd)
{
    struct stat other;
    return fstat(fd, &other) == 0 && other.st_dev == st->st_dev && other.st_ino == st->st_ino;
}

/* Paths whose links the kernel makes up (/dev/stdout -> /proc/self/fd/1 -> the file):
 * what they name is an open descriptor, which a rename cannot replace. */
static bool names_a_descriptor(const char *path)
{
    return strncmp(path, "/proc/", 6) == 0 || strncmp(path, "/dev/fd/", 8) == 0 ||
           strcmp(path, "/dev/stdout") == 0 || strcmp(path, "/dev/stderr") == 0;
}

/* How to write path, and for an atomic write the regular file to rename over (*target,
 * malloc'd: symbolic links resolved, so that a link stays a link). */
static write_mode choose_mode(const char *path, char **target, verdict_error *err)
{
    struct stat st;
    *target = NULL;
    if (stat(path, &st) != 0) {
        if (errno != ENOENT) {
            error_set(err, ERROR_INTERNAL, "%s: cannot write: %s", path, strerror(errno));
            return WRITE_REFUSED;
        }
        struct stat link;
        if (lstat(path, &link) == 0) { /* a link to nothing: where it leads is unclear */
            error_set(err, ERROR_INTERNAL, "%s: cannot write: a symbolic link to a file that does "
                      "not exist", path);
            return WRITE_REFUSED;
        }
        *target = strdup(path);
        return *target ? WRITE_ATOMIC : WRITE_REFUSED;
    }
    if (S_ISDIR(st.st_mode)) {
        error_set(err, ERROR_INTERNAL, "%s: cannot write: it is a directory", path);
        return WRITE_REFUSED;
    }
    /* Through the open stream, so that what verdict already wrote there (the text
     * report of `verdict ... --json /dev/stdout > out`) is kept, not truncated. */
    if (same_file_as_fd(&st, STDOUT_FILENO))
        return WRITE_STDOUT;
    if (same_file_as_fd(&st, STDERR_FILENO))
        return WRITE_STDERR;
    if (!S_ISREG(st.st_mode) || names_a_descriptor(path))
        return WRITE_IN_PLACE;
    *target = realpath(path, NULL);
    if (*target == NULL) {
        error_set(err, ERROR_INTERNAL, "%s: cannot write: %s", path, strerror(errno));
        return WRITE_REFUSED;
    }
    if (names_a_descriptor(*target)) {
        free(*target);
        *target = NULL;
        return WRITE_IN_PLACE;
    }
    return WRITE_ATOMIC;
}

static int open_in_place(output_file *out, verdict_error *err)
{
    /* O_TRUNC only matters for a regular file (one stdout is redirected to); devices and
     * FIFOs ignore it. No O_CREAT: the path exists, and must not be created elsewhere. */
    int fd = open(out->path, O_WRONLY | O_TRUNC | O_NOCTTY | O_CLOEXEC);
    if (fd < 0 || (out->stream = fdopen(fd, "w")) == NULL) {
        error_set(err, ERROR_INTERNAL, "%s: cannot write: %s", out->path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return 0;
}

static int open_temporary(output_file *out, verdict_error *err)
{
    size_t length = strlen(out->target) + 16;
    out->temporary = malloc(length);
    if (out->temporary == NULL) {
        error_set(err, ERROR_NO_MEMORY, "%s: out of memory", out->path);
        return -1;
    }
    snprintf(out->temporary, length, "%s.tmp.XXXXXX", out->target);
    int fd = mkostemp(out->temporary, O_CLOEXEC);
    if (fd < 0 || (out->stream = fdopen(fd, "w")) == NULL) {
        error_set(err, ERROR_INTERNAL, "%s: cannot write: %s", out->path, strerror(errno));
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

int output_open(output_file *out, const char *path, verdict_error *err)
{
    *out = (output_file){.path = path};
    write_mode mode = strcmp(path, "-") == 0 ? WRITE_STDOUT
                                             : choose_mode(path, &out->target, err);
    int rc = 0;
    switch (mode) {
    case WRITE_STDOUT:
    case WRITE_STDERR:
        out->stream = mode == WRITE_STDOUT ? stdout : stderr;
        out->borrowed = true;
        break;
    case WRITE_IN_PLACE: rc = open_in_place(out, err); break;
    case WRITE_ATOMIC: rc = open_temporary(out, err); break;
    case WRITE_REFUSED: rc = -1; break;
    }
    if (rc != 0) {
        free(out->target);
        out->target = NULL;
    }
    return rc;
}

/* A device, a FIFO or a borrowed stream: flush (and close what we opened); fsync is
 * meaningless there. */
static int commit_in_place(output_file *out, verdict_error *err)
{
    int rc = fflush(out->stream) != 0 || ferror(out->stream) ? -1 : 0;
    int saved = errno;
    if (!out->borrowed && fclose(out->stream) != 0 && rc == 0) {
        rc = -1;
        saved = errno;
    }
    if (rc != 0)
        error_set(err, ERROR_INTERNAL, "%s: cannot write: %s",
                  strcmp(out->path, "-") == 0 ? "<stdout>" : out->path, strerror(saved));
    out->stream = NULL;
    return rc;
}

int output_commit(output_file *out, verdict_error *err)
{
    if (out->temporary == NULL)
        return commit_in_place(out, err);
    int rc = 0;
    if (fflush(out->stream) != 0 || fsync(fileno(out->stream)) != 0 || ferror(out->stream))
        rc = -1;
    if (fclose(out->stream) != 0)
        rc = -1;
    if (rc == 0 && rename(out->temporary, out->target) != 0)
        rc = -1;
    if (rc != 0) {
        error_set(err, ERROR_INTERNAL, "%s: cannot write: %s", out->path, strerror(errno));
        unlink(out->temporary);
    }
    free(out->temporary);
    free(out->target);
    out->temporary = out->target = NULL;
    return rc;
}

void output_abandon(output_file *out)
{
    if (out->temporary) {
        fclose(out->stream);
        unlink(out->temporary);
    } else if (!out->borrowed && out->stream != NULL) {
        fclose(out->stream);
    }
    free(out->temporary);
    free(out->target);
    out->temporary = out->target = NULL;
    out->stream = NULL;
}

/* The directory a file or directory of this path is made in ("." for a bare name), with
 * trailing slashes ignored; malloc'd, NULL when out of memory. */
static char *parent_directory(const char *path)
{
    size_t end = strlen(path), slash;
    while (end > 1 && path[end - 1] == '/')
        end--;
    for (slash = end; slash > 0 && path[slash - 1] != '/'; slash--)
        ;
    if (slash == 0)
        return strdup(".");
    return strndup(path, slash > 1 ? slash - 1 : 1);
}

/* A directory takes new files when verdict's effective user may search and write it, as
 * creating the temporary file will be checked. */
static int check_takes_files(const char *path, const char *dir, verdict_error *err)
{
    if (dir == NULL) {
        error_set(err, ERROR_NO_MEMORY, "%s: out of memory", path);
        return -1;
    }
    if (faccessat(AT_FDCWD, dir, W_OK | X_OK, AT_EACCESS) == 0)
        return 0;
    if (strcmp(dir, path) == 0)
        error_set(err, ERROR_INTERNAL, "%s: cannot write: %s", path, strerror(errno));
    else
        error_set(err, ERROR_INTERNAL, "%s: cannot write: %s: %s", path, dir, strerror(errno));
    return -1;
}

int output_check(const char *path, verdict_error *err)
{
    if (strcmp(path, "-") == 0)
        return 0;
    char *target = NULL, *dir = NULL;
    int rc = 0;
    error_set(err, ERROR_NO_MEMORY, "%s: out of memory",
              path); /* choose_mode's one silent refusal */
    switch (choose_mode(path, &target, err)) {
    case WRITE_REFUSED: rc = -1; break;
    case WRITE_ATOMIC:
        dir = parent_directory(target);
        rc = check_takes_files(path, dir, err);
        break;
    case WRITE_IN_PLACE: /* opening a FIFO would wait for its reader: permission only */
        rc = faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) == 0 ? 0 : -1;
        if (rc != 0)
            error_set(err, ERROR_INTERNAL, "%s: cannot write: %s", path, strerror(errno));
        break;
    case WRITE_STDOUT:
    case WRITE_STDERR: break;
    }
    free(dir);
    free(target);
    return rc;
}

int output_check_dir(const char *path, verdict_error *err)
{
    struct stat st;
    bool exists = stat(path, &st) == 0;
    if (!exists && errno != ENOENT) {
        error_set(err, ERROR_INTERNAL, "%s: cannot write: %s", path, strerror(errno));
        return -1;
    }
    if (exists && !S_ISDIR(st.st_mode)) {
        error_set(err, ERROR_INTERNAL, "%s: cannot write: not a directory", path);
        return -1;
    }
    char *dir = exists ? strdup(path) : parent_directory(path);
    int rc = check_takes_files(path, dir, err);
    free(dir);
    return rc;
}

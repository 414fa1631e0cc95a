/* One builder per key: an flock on CACHE_DIR/builds/KEY16.lock, waited for in slices so
 * that a stop request is noticed, and checked to be the file still at that path. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "build/build_internal.h"

#define WAIT_SLICE_NS 100000000L /* 0.1 s between tries */

/* The lock is ours only if the file locked is still the one at path: a pruner removes a
 * lock file while holding it, and a locker of the removed file must try again. */
static bool still_at_path(int fd, const char *path)
{
    struct stat held, named;
    return fstat(fd, &held) == 0 && stat(path, &named) == 0 && held.st_dev == named.st_dev &&
           held.st_ino == named.st_ino;
}

/* 0 locked, 1 busy, -1 error; *fd is open in the first two cases. */
static int try_once(const char *path, int *fd, verdict_error *err)
{
    *fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (*fd < 0)
        return error_set(err, ERROR_INTERNAL, "cannot open the lock %s: %s", path,
                         strerror(errno));
    if (flock(*fd, LOCK_EX | LOCK_NB) == 0)
        return 0;
    if (errno == EWOULDBLOCK || errno == EINTR)
        return 1;
    error_set(err, ERROR_INTERNAL, "cannot lock %s: %s", path, strerror(errno));
    close(*fd);
    *fd = -1;
    return -1;
}

int build_lock_take(const char *path, build_lock_mode mode, volatile sig_atomic_t *stop,
                    void (*waiting)(void *), void *context, int *fd, verdict_error *err)
{
    bool told = false;
    for (;;) {
        int rc = try_once(path, fd, err);
        if (rc < 0)
            return -1;
        if (rc == 0 && still_at_path(*fd, path))
            return 0;
        close(*fd);
        *fd = -1;
        if (rc == 0)
            continue; /* locked a removed file: the path has a new one now */
        if (mode == BUILD_LOCK_TRY)
            return 1;
        if (stop && *stop)
            return error_set(err, ERROR_INTERRUPTED, "interrupted while waiting for %s", path);
        if (waiting && !told)
            waiting(context);
        told = true;
        struct timespec slice = {0, WAIT_SLICE_NS};
        nanosleep(&slice, NULL);
    }
}

void build_lock_release(int fd, const char *path, bool remove)
{
    if (fd < 0)
        return;
    if (remove)
        unlink(path);
    close(fd);
}

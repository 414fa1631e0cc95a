/* The cache directory's security model: a per-user default, a path walked from / without
 * trusting anyone but root and verdict's user, held descriptors, and lock files. */
#include "pg/cluster_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/error.h"

#define ROOT_DEFAULT_CACHE "/var/cache/verdict-pg"
#define MAX_LINK_HOPS 40

int cluster_default_cache_dir(char *out, size_t outlen, verdict_error *err)
{
    /* Root's cache must be reachable by the server user, so not under /root. */
    if (geteuid() == 0) {
        if (path_format(out, outlen, "%s", ROOT_DEFAULT_CACHE) == 0)
            return 0;
        error_set(err, ERROR_USAGE, "no room for the cache path");
        return -1;
    }
    /* XDG: a relative XDG_CACHE_HOME is to be ignored. */
    const char *xdg = getenv("XDG_CACHE_HOME");
    if (xdg != NULL && xdg[0] == '/') {
        if (path_format(out, outlen, "%s/verdict-pg", xdg) == 0)
            return 0;
        error_set(err, ERROR_USAGE, "XDG_CACHE_HOME is too long: %s", xdg);
        return -1;
    }
    const char *home = getenv("HOME");
    char buffer[16384];
    struct passwd entry, *found = NULL;
    if ((home == NULL || home[0] != '/') &&
        getpwuid_r(geteuid(), &entry, buffer, sizeof buffer, &found) == 0 && found != NULL)
        home = found->pw_dir;
    if (home == NULL || home[0] != '/') {
        error_set(err, ERROR_USAGE, "no home directory to keep the PostgreSQL cache in; "
                  "set XDG_CACHE_HOME or the experiment's postgres cache_dir");
        return -1;
    }
    if (path_format(out, outlen, "%s/.cache/verdict-pg", home) != 0) {
        error_set(err, ERROR_USAGE, "home directory path too long: %s", home);
        return -1;
    }
    return 0;
}

int cluster_cache_prepare(const char *cache_dir, verdict_error *err)
{
    /* Root's servers run as another user, who must pass through to its directories. */
    bool root = geteuid() == 0;
    cache_create create = {root ? 0755 : 0700, root ? 0711 : 0700};
    cluster_cache cache;
    if (cache_open(cache_dir, &create, &cache, err) != 0)
        return -1;
    cache_close(&cache);
    return 0;
}

/* Root, and the user verdict runs as: nobody else may own what the cache depends on. */
static bool trusted_owner(uid_t uid)
{
    return uid == 0 || uid == geteuid();
}

static const char *user_name(uid_t uid, char *buffer, size_t size)
{
    struct passwd entry, *found = NULL;
    char text[4096];
    if (getpwuid_r(uid, &entry, text, sizeof text, &found) == 0 && found != NULL)
        snprintf(buffer, size, "%s (uid %u)", found->pw_name, (unsigned)uid);
    else
        snprintf(buffer, size, "uid %u", (unsigned)uid);
    return buffer;
}

/* A directory the path passes through: owned by root or us, and not writable by anyone
 * else unless sticky (/tmp): then others cannot remove or rename what we put there, and
 * what we find there must be ours or root's (checked as the next component). */
static int check_passage(const struct stat *st, const char *shown, verdict_error *err)
{
    char who[128];
    if (!trusted_owner(st->st_uid)) {
        error_set(err, ERROR_COMMAND_FAILED, "cache directory: %s is owned by %s, not by root or "
                   "you: that user could replace what verdict finds below it; use a cache "
                  "directory of your own", shown, user_name(st->st_uid, who, sizeof who));
        return -1;
    }
    if ((st->st_mode & 022) != 0 && (st->st_mode & S_ISVTX) == 0) {
        error_set(err, ERROR_COMMAND_FAILED, "cache directory: %s is writable by other users "
                  "(mode %04o) and not sticky: they could replace what verdict finds below it",
                  shown, (unsigned)(st->st_mode & 07777));
        return -1;
    }
    return 0;
}

int cache_check_own_directory(const struct stat *st, const char *shown, verdict_error *err)
{
    char who[128];
    if (!S_ISDIR(st->st_mode)) {
        error_set(err, ERROR_COMMAND_FAILED, "%s is not a directory", shown);
        return -1;
    }
    if (st->st_uid != geteuid()) {
        error_set(err, ERROR_COMMAND_FAILED, "%s is owned by %s, not by you: verdict uses only a "
                  "cache it owns (another user could have planted what is in it)", shown,
                  user_name(st->st_uid, who, sizeof who));
        return -1;
    }
    if ((st->st_mode & 022) != 0) {
        error_set(err, ERROR_COMMAND_FAILED, "%s is writable by other users (mode %04o): they "
                  "could plant templates, lock files or links in it; chmod go-w it", shown,
                  (unsigned)(st->st_mode & 07777));
        return -1;
    }
    return 0;
}

/* One step of the walk. */
typedef struct {
    int dir;                         /* O_PATH descriptor of where we are */
    char shown[CLUSTER_PATH_MAX];    /* its path, links resolved */
    char rest[2 * CLUSTER_PATH_MAX]; /* what is left to walk */
    int hops;
} path_walk;

static int walk_restart_at_root(path_walk *w)
{
    if (w->dir >= 0)
        close(w->dir);
    w->dir = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
    snprintf(w->shown, sizeof w->shown, "%s", "");
    return w->dir >= 0 ? 0 : -1;
}

/* Splices a link's target in front of what is left; an absolute target starts over. */
static int walk_follow_link(path_walk *w, int link_fd, const char *name, verdict_error *err)
{
    char target[CLUSTER_PATH_MAX], rest[2 * CLUSTER_PATH_MAX];
    ssize_t n = readlinkat(link_fd, "", target, sizeof target - 1);
    if (n < 0 || ++w->hops > MAX_LINK_HOPS) {
        error_set(err, ERROR_COMMAND_FAILED, "cache directory: cannot follow %s/%s: %s", w->shown,
                  name, n < 0 ? strerror(errno) : "too many symbolic links");
        return -1;
    }
    target[n] = '\0';
    if (snprintf(rest, sizeof rest, "%s/%s", target, w->rest) >= (int)sizeof rest) {
        error_set(err, ERROR_COMMAND_FAILED, "cache directory: path too long");
        return -1;
    }
    memcpy(w->rest, rest, sizeof rest);
    if (target[0] == '/' && walk_restart_at_root(w) != 0) {
        error_set(err, ERROR_COMMAND_FAILED, "cannot open /: %s", strerror(errno));
        return -1;
    }
    return 0;
}

/* The next component of w->rest into name; false at the end. */
static bool walk_next_name(path_walk *w, char *name, size_t size)
{
    char *p = w->rest;
    while (*p == '/')
        p++;
    size_t length = strcspn(p, "/");
    if (length == 0)
        return false;
    snprintf(name, size, "%.*s", (int)length, p);
    memmove(w->rest, p + length, strlen(p + length) + 1);
    return true;
}

/* Opens (or, with create, makes) name below w->dir without following a link. */
static int walk_open_entry(path_walk *w, const char *name, const cache_create *create,
                           verdict_error *err)
{
    int fd = openat(w->dir, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT && create != NULL) {
        bool last = strspn(w->rest, "/") == strlen(w->rest);
        mode_t mode = last ? create->final_mode : create->parent_mode;
        if (mkdirat(w->dir, name, mode) != 0 && errno != EEXIST) {
            error_set(err, ERROR_COMMAND_FAILED, "cannot create the cache directory %s/%s: %s",
                      w->shown, name, strerror(errno));
            return -1;
        }
        fd = openat(w->dir, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        /* mkdir's mode went through the umask; the cache's mode is not the umask's call. */
        if (fd >= 0 && fchmodat(w->dir, name, mode, 0) != 0) {
            close(fd);
            fd = -1;
        }
    }
    if (fd < 0)
        error_set(err, ERROR_COMMAND_FAILED, "cache directory %s/%s: %s", w->shown, name,
                  strerror(errno));
    return fd;
}

/* One component: a directory we may pass, or a link root or we own. */
static int walk_step(path_walk *w, const char *name, const cache_create *create, verdict_error *err)
{
    struct stat here, st;
    if (fstat(w->dir, &here) != 0 || check_passage(&here, w->shown[0] ? w->shown : "/", err) != 0)
        return -1;
    int fd = walk_open_entry(w, name, create, err);
    if (fd < 0)
        return -1;
    char shown[CLUSTER_PATH_MAX], who[128];
    if (path_format(shown, sizeof shown, "%s/%s", w->shown, name) != 0) {
        error_set(err, ERROR_COMMAND_FAILED, "cache directory: path too long");
        close(fd);
        return -1;
    }
    int rc = fstat(fd, &st) == 0 ? 0 : -1;
    if (rc == 0 && S_ISLNK(st.st_mode)) {
        if (!trusted_owner(st.st_uid)) {
            error_set(err, ERROR_COMMAND_FAILED, "cache directory: %s is a symbolic link owned by "
                      "%s: that user chooses where it leads", shown,
                      user_name(st.st_uid, who, sizeof who));
            rc = -1;
        } else {
            rc = walk_follow_link(w, fd, name, err);
        }
        close(fd);
        return rc;
    }
    if (rc != 0 || !S_ISDIR(st.st_mode)) {
        error_set(err, ERROR_COMMAND_FAILED, "cache directory: %s is not a directory", shown);
        close(fd);
        return -1;
    }
    close(w->dir);
    w->dir = fd;
    if (strcmp(name, "..") == 0) { /* the real parent: drop the last name shown */
        char *slash = strrchr(w->shown, '/');
        if (slash != NULL)
            *slash = '\0';
    } else if (strcmp(name, ".") != 0) {
        memcpy(w->shown, shown, sizeof shown);
    }
    return 0;
}

int cache_open(const char *path, const cache_create *create, cluster_cache *out, verdict_error *err)
{
    out->root_fd = -1;
    out->path[0] = '\0';
    path_walk w = {.dir = -1};
    char cwd[CLUSTER_PATH_MAX] = "";
    if (path[0] != '/' && getcwd(cwd, sizeof cwd) == NULL) {
        error_set(err, ERROR_COMMAND_FAILED, "cannot find the current directory: %s",
                  strerror(errno));
        return -1;
    }
    if (snprintf(w.rest, sizeof w.rest, "%s/%s", cwd, path) >= (int)sizeof w.rest ||
        walk_restart_at_root(&w) != 0) {
        error_set(err, ERROR_COMMAND_FAILED, "cache directory %s: path too long or / unreadable",
                  path);
        return -1;
    }
    char name[CLUSTER_PATH_MAX];
    int rc = 0;
    while (rc == 0 && walk_next_name(&w, name, sizeof name))
        rc = walk_step(&w, name, create, err);
    struct stat st;
    if (rc == 0 && (fstat(w.dir, &st) != 0 ||
                    cache_check_own_directory(&st, w.shown[0] ? w.shown : "/", err) != 0))
        rc = -1;
    if (rc == 0 && (out->root_fd = openat(w.dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
        error_set(err, ERROR_COMMAND_FAILED, "cannot open %s: %s", w.shown, strerror(errno));
        rc = -1;
    }
    if (rc == 0)
        snprintf(out->path, sizeof out->path, "%s", w.shown[0] ? w.shown : "/");
    close(w.dir);
    return rc;
}

void cache_close(cluster_cache *cache)
{
    if (cache->root_fd >= 0)
        close(cache->root_fd);
    cache->root_fd = -1;
}

int cache_subdir(int dir_fd, const char *dir_path, const char *name, mode_t mode, bool create,
                 int *fd_out, verdict_error *err)
{
    *fd_out = -1;
    if (create && mkdirat(dir_fd, name, mode) == 0 && fchmodat(dir_fd, name, mode, 0) != 0) {
        error_set(err, ERROR_COMMAND_FAILED, "cannot set the mode of %s/%s: %s", dir_path, name,
                  strerror(errno));
        return -1;
    }
    int fd = openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT && !create)
            return 1;
        error_set(err, ERROR_COMMAND_FAILED, "cannot open %s/%s: %s%s", dir_path, name,
                  strerror(errno),
                  errno == ELOOP || errno == ENOTDIR ? " (a symbolic link, or not a "
                                                          "directory)" : "");
        return -1;
    }
    struct stat st;
    char shown[CLUSTER_PATH_MAX + 64];
    (void)path_format(shown, sizeof shown, "%s/%s", dir_path, name);
    if (fstat(fd, &st) != 0 || cache_check_own_directory(&st, shown, err) != 0) {
        close(fd);
        return -1;
    }
    *fd_out = fd;
    return 0;
}

/* Opens name in dir_fd and locks it; 0 locked, 1 held by another process (or not a
 * plain file of ours: a link is never followed), -1 on error. */
static int lock_once(int dir_fd, const char *name, bool wait, int *fd_out, bool *retry)
{
    *retry = false;
    int fd = openat(dir_fd, name, O_RDONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return errno == ELOOP ? 1 : -1;
    int locked;
    while ((locked = flock(fd, wait ? LOCK_EX : LOCK_EX | LOCK_NB)) != 0 && errno == EINTR) {
    }
    struct stat held, named;
    if (locked != 0) {
        int error = errno;
        close(fd);
        errno = error;
        return error == EWOULDBLOCK ? 1 : -1;
    }
    /* The holder before us may have removed the file after we opened it: then the lock is
     * on a file nobody else will ever open, and the name must be locked again. */
    if (fstat(fd, &held) != 0 || fstatat(dir_fd, name, &named, AT_SYMLINK_NOFOLLOW) != 0 ||
        held.st_ino != named.st_ino || held.st_dev != named.st_dev) {
        close(fd);
        *retry = true;
        return 1;
    }
    if (!S_ISREG(held.st_mode) || held.st_uid != geteuid()) {
        close(fd);
        return 1;
    }
    *fd_out = fd;
    return 0;
}

int lock_file_acquire(int dir_fd, const char *name, bool wait, int *fd_out)
{
    *fd_out = -1;
    for (;;) {
        bool retry;
        int rc = lock_once(dir_fd, name, wait, fd_out, &retry);
        if (!retry)
            return rc;
    }
}

void lock_file_release(int dir_fd, const char *name, int fd)
{
    if (fd < 0)
        return;
    /* Removed while still locked, so no one can lock the name and then lose it to us. */
    unlinkat(dir_fd, name, 0);
    close(fd);
}

int cache_make_unique_dir(int dir_fd, const char *prefix, mode_t mode, char *name,
                          size_t namelen)
{
    static const char letters[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    for (int attempt = 0; attempt < 100; attempt++) {
        unsigned char random_bytes[6];
        if (getrandom(random_bytes, sizeof random_bytes, 0) != (ssize_t)sizeof random_bytes)
            return -1;
        char suffix[7];
        for (size_t i = 0; i < 6; i++)
            suffix[i] = letters[random_bytes[i] % (sizeof letters - 1)];
        suffix[6] = '\0';
        if (path_format(name, namelen, "%s%s", prefix, suffix) != 0) {
            errno = ENAMETOOLONG;
            return -1;
        }
        if (mkdirat(dir_fd, name, mode) == 0)
            return fchmodat(dir_fd, name, mode, 0);
        if (errno != EEXIST)
            return -1;
    }
    errno = EEXIST;
    return -1;
}

/* File-tree chores of the cluster layer: copying a template data directory fast (kernel-side
 * copy_file_range, no hard links), removing and fsyncing trees, logs; never via links. */
#include "pg/cluster_internal.h"
#include "common/error.h"
#include "pg/file_tree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define COPY_CHUNK (1 << 20)

/* Plain read/write, for file systems where copy_file_range is refused. */
static int copy_by_reading(int from_fd, int to_fd)
{
    char *buffer = malloc(COPY_CHUNK);
    if (buffer == NULL)
        return ENOMEM;
    int result = 0;
    for (;;) {
        ssize_t got = read(from_fd, buffer, COPY_CHUNK);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            result = errno;
            break;
        }
        if (got == 0)
            break;
        for (ssize_t done = 0; done < got;) {
            ssize_t put = write(to_fd, buffer + done, (size_t)(got - done));
            if (put < 0 && errno == EINTR)
                continue;
            if (put < 0) {
                result = errno;
                goto out;
            }
            done += put;
        }
    }
out:
    free(buffer);
    return result;
}

/* Copies file contents in the kernel: no trip through user space, and a reflink on file
 * systems that share extents (btrfs, XFS). Hard links would let the copy's server write
 * into the template. Returns 0 or an errno. */
static int copy_contents(int from_fd, int to_fd, off_t size)
{
    off_t left = size;
    while (left > 0) {
        ssize_t copied = copy_file_range(from_fd, NULL, to_fd, NULL, (size_t)left, 0);
        if (copied < 0 && errno == EINTR)
            continue;
        if (copied < 0) {
            if (left == size && (errno == EXDEV || errno == ENOSYS || errno == EINVAL ||
                                 errno == EOPNOTSUPP))
                return copy_by_reading(from_fd, to_fd);
            return errno;
        }
        if (copied == 0)
            break; /* the file shrank under us; what was there is copied */
        left -= copied;
    }
    return 0;
}

/* Where one copy_tree call copies from and to; shared by its threads, read-only. */
typedef struct {
    int from_fd, to_fd;
    const char *from_path;
    bool keep_owner;
} tree_copy;

static int copy_symbolic_link(const tree_copy *copy, const tree_entry *entry, verdict_error *err)
{
    char target[CLUSTER_PATH_MAX];
    ssize_t n = readlinkat(copy->from_fd, entry->path, target, sizeof target - 1);
    if (n < 0 || (target[n] = '\0', symlinkat(target, copy->to_fd, entry->path) != 0) ||
        (copy->keep_owner && fchownat(copy->to_fd, entry->path, entry->st.st_uid,
                                      entry->st.st_gid, AT_SYMLINK_NOFOLLOW) != 0)) {
        error_set(err, ERROR_COMMAND_FAILED, "cannot copy symbolic link %s/%s: %s", copy->from_path,
                  entry->path, strerror(errno));
        return -1;
    }
    return 0;
}

/* tree_file_action of copy_tree: one file or link; sockets and fifos are not needed by a
 * stopped data directory. */
static int copy_one_file(const tree_entry *entry, void *context, verdict_error *err)
{
    const tree_copy *copy = context;
    if (S_ISLNK(entry->st.st_mode))
        return copy_symbolic_link(copy, entry, err);
    if (!S_ISREG(entry->st.st_mode))
        return 0;
    int from_fd = openat(copy->from_fd, entry->path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (from_fd < 0) {
        error_set(err, ERROR_COMMAND_FAILED, "cannot open %s/%s: %s", copy->from_path, entry->path,
                  strerror(errno));
        return -1;
    }
    int to_fd = openat(copy->to_fd, entry->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (to_fd < 0) {
        error_set(err, ERROR_COMMAND_FAILED, "cannot create copy of %s/%s: %s", copy->from_path,
                  entry->path, strerror(errno));
        close(from_fd);
        return -1;
    }
    int error = copy_contents(from_fd, to_fd, entry->st.st_size);
    if (error == 0 && copy->keep_owner && fchown(to_fd, entry->st.st_uid, entry->st.st_gid) != 0)
        error = errno;
    if (error == 0 && fchmod(to_fd, entry->st.st_mode & 07777) != 0)
        error = errno;
    close(from_fd);
    if (close(to_fd) != 0 && error == 0)
        error = errno;
    if (error != 0) {
        error_set(err, ERROR_COMMAND_FAILED, "cannot copy %s/%s: %s", copy->from_path, entry->path,
                  strerror(error));
        return -1;
    }
    return 0;
}

/* Directories first (pre-order, so parents exist), then the files on several threads, then
 * the directories' owners and modes, deepest first, so a read-only one is filled before it
 * is closed. */
static int copy_listed_tree(const tree_copy *copy, const tree_listing *listing, verdict_error *err)
{
    for (size_t i = 0; i < listing->count; i++) {
        const tree_entry *entry = &listing->entries[i];
        if (S_ISDIR(entry->st.st_mode) && mkdirat(copy->to_fd, entry->path, 0700) != 0) {
            error_set(err, ERROR_COMMAND_FAILED, "cannot create copy of %s/%s: %s", copy->from_path,
                      entry->path, strerror(errno));
            return -1;
        }
    }
    if (tree_for_each_file(listing, copy_one_file, (void *)copy, tree_default_threads(), err) != 0)
        return -1;
    for (size_t i = listing->count; i-- > 0;) {
        const tree_entry *entry = &listing->entries[i];
        if (!S_ISDIR(entry->st.st_mode))
            continue;
        if ((copy->keep_owner &&
             fchownat(copy->to_fd, entry->path, entry->st.st_uid, entry->st.st_gid, 0) != 0) ||
            fchmodat(copy->to_fd, entry->path, entry->st.st_mode & 07777, 0) != 0) {
            error_set(err, ERROR_COMMAND_FAILED, "cannot set owner or mode of the copy of %s/%s: "
                      "%s", copy->from_path, entry->path, strerror(errno));
            return -1;
        }
    }
    return 0;
}

int copy_tree_from(int from_fd, const char *from, const char *to, verdict_error *err)
{
    struct stat st;
    if (fstat(from_fd, &st) != 0 || !S_ISDIR(st.st_mode)) {
        error_set(err, ERROR_COMMAND_FAILED, "%s is not a directory", from);
        return -1;
    }
    if (mkdir(to, 0700) != 0) {
        error_set(err, ERROR_COMMAND_FAILED, "cannot create %s: %s", to, strerror(errno));
        return -1;
    }
    /* Root copies a tree owned by the server user; the copy must stay the server's. */
    tree_copy copy = {.from_fd = from_fd,
                      .to_fd = open(to, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC),
                      .from_path = from,
                      .keep_owner = geteuid() == 0};
    int rc = -1;
    tree_listing listing = {0};
    if (copy.to_fd < 0)
        error_set(err, ERROR_COMMAND_FAILED, "cannot open %s: %s", to, strerror(errno));
    else if (tree_list(copy.from_fd, from, &listing, err) == 0 &&
             copy_listed_tree(&copy, &listing, err) == 0) {
        rc = 0;
        if ((copy.keep_owner && fchown(copy.to_fd, st.st_uid, st.st_gid) != 0) ||
            fchmod(copy.to_fd, st.st_mode & 07777) != 0) {
            error_set(err, ERROR_COMMAND_FAILED, "cannot set owner or mode of %s: %s", to,
                      strerror(errno));
            rc = -1;
        }
    }
    tree_listing_free(&listing);
    if (copy.to_fd >= 0)
        close(copy.to_fd);
    return rc;
}

int copy_tree(const char *from, const char *to, verdict_error *err)
{
    int from_fd = open(from, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (from_fd < 0) {
        error_set(err, ERROR_COMMAND_FAILED, "%s is not a directory (%s)", from, strerror(errno));
        return -1;
    }
    int rc = copy_tree_from(from_fd, from, to, err);
    close(from_fd);
    return rc;
}

/* A listing of dir_fd that leaves dir_fd itself open (closedir closes only the copy). */
static DIR *open_listing(int dir_fd, int *error)
{
    int listing_fd = dup(dir_fd);
    DIR *listing = listing_fd >= 0 ? fdopendir(listing_fd) : NULL;
    if (listing == NULL) {
        *error = errno;
        if (listing_fd >= 0)
            close(listing_fd);
    }
    return listing;
}

/* tree_file_action of remove_tree: context is the root's descriptor. */
static int unlink_one_file(const tree_entry *entry, void *context, verdict_error *err)
{
    const int *root_fd = context;
    if (unlinkat(*root_fd, entry->path, 0) == 0 || errno == ENOENT)
        return 0;
    error_set(err, ERROR_COMMAND_FAILED, "%s: %s", entry->path, strerror(errno));
    return -1;
}

/* Removes everything below root_fd: files on several threads, then directories deepest
 * first. Returns 0 or -1 with a message relative to the root. */
static int remove_directory_contents(int root_fd, const char *root_path, verdict_error *err)
{
    tree_listing listing;
    if (tree_list(root_fd, root_path, &listing, err) != 0)
        return -1;
    int rc = tree_for_each_file(&listing, unlink_one_file, &root_fd, tree_default_threads(),
                                err);
    for (size_t i = listing.count; rc == 0 && i-- > 0;) {
        const tree_entry *entry = &listing.entries[i];
        if (S_ISDIR(entry->st.st_mode) && unlinkat(root_fd, entry->path, AT_REMOVEDIR) != 0 &&
            errno != ENOENT) {
            error_set(err, ERROR_COMMAND_FAILED, "%s: %s", entry->path, strerror(errno));
            rc = -1;
        }
    }
    tree_listing_free(&listing);
    return rc;
}

int remove_tree(const char *path, verdict_error *err)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT)
            return 0;
        if (errno == ENOTDIR && unlink(path) == 0)
            return 0;
        error_set(err, ERROR_COMMAND_FAILED, "cannot remove %s: %s", path, strerror(errno));
        return -1;
    }
    verdict_error message = {0};
    int rc = remove_directory_contents(fd, path, &message);
    close(fd);
    if (rc == 0 && rmdir(path) != 0 && errno != ENOENT) {
        error_set(&message, ERROR_COMMAND_FAILED, "%s", strerror(errno));
        rc = -1;
    }
    if (rc != 0) {
        error_set(err, ERROR_COMMAND_FAILED, "cannot remove %s: %s", path, message.message);
        return -1;
    }
    return 0;
}

static int fsync_directory_tree(int dir_fd)
{
    int open_error = 0;
    DIR *listing = open_listing(dir_fd, &open_error);
    if (listing == NULL)
        return open_error;
    int first_error = 0;
    struct dirent *entry;
    while ((entry = readdir(listing)) != NULL) {
        if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0)
            continue;
        int fd = openat(dir_fd, entry->d_name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
            continue; /* symbolic links and the like: nothing to sync */
        struct stat st;
        int error = 0;
        if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode))
            error = fsync_directory_tree(fd);
        else if (fsync(fd) != 0)
            error = errno;
        close(fd);
        if (error != 0 && first_error == 0)
            first_error = error;
    }
    closedir(listing);
    if (fsync(dir_fd) != 0 && first_error == 0)
        first_error = errno;
    return first_error;
}

int fsync_tree(const char *path, verdict_error *err)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int error = fd < 0 ? errno : fsync_directory_tree(fd);
    if (fd >= 0)
        close(fd);
    if (error != 0) {
        error_set(err, ERROR_COMMAND_FAILED, "cannot fsync %s: %s", path, strerror(error));
        return -1;
    }
    return 0;
}

void read_file_tail(const char *path, char *out, size_t outlen)
{
    if (outlen == 0)
        return;
    out[0] = '\0';
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        close(fd);
        return;
    }
    off_t start = st.st_size > (off_t)(outlen - 1) ? st.st_size - (off_t)(outlen - 1) : 0;
    ssize_t got = pread(fd, out, outlen - 1, start);
    close(fd);
    if (got <= 0)
        return;
    out[got] = '\0';
    /* Start at a whole line and drop the final newline. */
    char *text = out;
    if (start > 0) {
        char *newline = strchr(out, '\n');
        if (newline != NULL && newline[1] != '\0')
            text = newline + 1;
    }
    size_t length = strlen(text);
    while (length > 0 && text[length - 1] == '\n')
        text[--length] = '\0';
    memmove(out, text, length + 1);
}

/* Never through a link, and never into a file with other names (a hard link to a file of
 * someone else's, planted in a data directory): verdict writes there as root. */
static int write_text(const char *path, const char *text, int flags, verdict_error *err)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | flags, 0600);
    struct stat st;
    if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1)) {
        close(fd);
        fd = -1;
        errno = EPERM;
    }
    if (fd < 0) {
        error_set(err, ERROR_COMMAND_FAILED, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    size_t length = strlen(text), done = 0;
    while (done < length) {
        ssize_t put = write(fd, text + done, length - done);
        if (put < 0 && errno == EINTR)
            continue;
        if (put < 0) {
            error_set(err, ERROR_COMMAND_FAILED, "cannot write %s: %s", path, strerror(errno));
            close(fd);
            return -1;
        }
        done += (size_t)put;
    }
    if (close(fd) != 0) {
        error_set(err, ERROR_COMMAND_FAILED, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

int append_to_file(const char *path, const char *text, verdict_error *err)
{
    return write_text(path, text, O_APPEND, err);
}

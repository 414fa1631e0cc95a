/* Walks a directory into a sorted list of entries (no symbolic link followed, nothing
 * skipped) for hashing a plain directory, sizing a build and removing one. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build/build_internal.h"
#include "common/array.h"

static int add_entry(build_tree *tree, const char *dir, const char *name, const struct stat *st)
{
    if (array_reserve((void **)&tree->items, &tree->capacity, tree->n + 1,
                      sizeof *tree->items) != 0)
        return -1;
    char *path = dir[0] ? build_path_join(dir, name) : strdup(name);
    if (path == NULL)
        return -1;
    tree->items[tree->n].path = path;
    tree->items[tree->n].st = *st;
    tree->n++;
    return 0;
}

/* Opens dir (relative to root_fd; "" for the root itself) for reading its entries. */
static DIR *open_listing(int root_fd, const char *dir)
{
    int fd = dir[0] ? openat(root_fd, dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                    : openat(root_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    DIR *listing = fdopendir(fd);
    if (listing == NULL)
        close(fd);
    return listing;
}

/* Appends dir's entries; the caller's loop lists the directories among them in turn,
 * so that no descriptor is held per level of depth. */
static int list_one(int root_fd, const char *root, const char *dir, build_tree *tree,
                    verdict_error *err)
{
    DIR *listing = open_listing(root_fd, dir);
    if (listing == NULL)
        return error_set(err, ERROR_BAD_INPUT, "cannot read the directory %s%s%s: %s", root,
                         dir[0] ? "/" : "", dir, strerror(errno));
    int rc = 0;
    struct dirent *d;
    errno = 0;
    while (rc == 0 && (d = readdir(listing)) != NULL) {
        if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0)
            continue;
        struct stat st;
        if (fstatat(dirfd(listing), d->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            rc = error_set(err, ERROR_BAD_INPUT, "cannot stat %s/%s%s%s: %s", root, dir,
                           dir[0] ? "/" : "", d->d_name, strerror(errno));
        else if (add_entry(tree, dir, d->d_name, &st) != 0)
            rc = error_set(err, ERROR_NO_MEMORY, "out of memory listing %s", root);
        errno = 0;
    }
    if (rc == 0 && errno != 0)
        rc = error_set(err, ERROR_BAD_INPUT, "cannot read the directory %s/%s: %s", root, dir,
                       strerror(errno));
    closedir(listing);
    return rc;
}

static int compare_entries(const void *a, const void *b)
{
    return strcmp(((const build_tree_entry *)a)->path, ((const build_tree_entry *)b)->path);
}

int build_tree_list(const char *root, build_tree *tree, verdict_error *err)
{
    *tree = (build_tree){NULL, 0, 0};
    int root_fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (root_fd < 0)
        return error_set(err, ERROR_BAD_INPUT, "cannot open the directory %s: %s", root,
                         strerror(errno));
    int rc = list_one(root_fd, root, "", tree, err);
    for (size_t i = 0; rc == 0 && i < tree->n; i++)
        if (S_ISDIR(tree->items[i].st.st_mode)) {
            char *dir = strdup(tree->items[i].path); /* items may move as the list grows */
            rc = dir ? list_one(root_fd, root, dir, tree, err)
                     : error_set(err, ERROR_NO_MEMORY, "out of memory listing %s", root);
            free(dir);
        }
    close(root_fd);
    if (rc != 0) {
        build_tree_free(tree);
        return -1;
    }
    if (tree->n > 1)
        qsort(tree->items, tree->n, sizeof *tree->items, compare_entries);
    return 0;
}

void build_tree_free(build_tree *tree)
{
    for (size_t i = 0; i < tree->n; i++)
        free(tree->items[i].path);
    free(tree->items);
    *tree = (build_tree){NULL, 0, 0};
}

typedef struct {
    dev_t dev;
    ino_t ino;
    uint64_t bytes;
} inode_id;

static int compare_inodes(const void *a, const void *b)
{
    const inode_id *x = a, *y = b;
    if (x->dev != y->dev)
        return x->dev < y->dev ? -1 : 1;
    return x->ino < y->ino ? -1 : x->ino > y->ino;
}

/* Blocks of the entries, a file with several names below root counted once: a layout's
 * copy of its build is mostly hard links, which take no room of their own. */
static int sum_blocks(const build_tree *tree, uint64_t *bytes, verdict_error *err)
{
    inode_id *linked = calloc(tree->n + 1, sizeof *linked);
    if (linked == NULL)
        return error_no_memory(err);
    size_t n = 0;
    for (size_t i = 0; i < tree->n; i++) {
        const struct stat *st = &tree->items[i].st;
        if (!S_ISDIR(st->st_mode) && st->st_nlink > 1)
            linked[n++] = (inode_id){st->st_dev, st->st_ino, (uint64_t)st->st_blocks * 512};
        else
            *bytes += (uint64_t)st->st_blocks * 512;
    }
    if (n > 1)
        qsort(linked, n, sizeof *linked, compare_inodes);
    for (size_t i = 0; i < n; i++)
        if (i == 0 || compare_inodes(&linked[i - 1], &linked[i]) != 0)
            *bytes += linked[i].bytes;
    free(linked);
    return 0;
}

int build_tree_bytes(const char *root, uint64_t *bytes, verdict_error *err)
{
    *bytes = 0;
    struct stat st;
    if (lstat(root, &st) != 0)
        return errno == ENOENT ? 0
                               : error_set(err, ERROR_BAD_INPUT, "cannot stat %s: %s", root,
                                           strerror(errno));
    *bytes = (uint64_t)st.st_blocks * 512;
    if (!S_ISDIR(st.st_mode))
        return 0;
    build_tree tree;
    if (build_tree_list(root, &tree, err) != 0)
        return -1;
    int rc = sum_blocks(&tree, bytes, err);
    build_tree_free(&tree);
    return rc;
}

/* Entries in reverse sorted order: every directory's contents come before it. A build
 * may leave directories without write permission (Go's module cache does): they are made
 * writable first, since they are going anyway. */
static int remove_entries(int root_fd, const char *root, const build_tree *tree,
                          verdict_error *err)
{
    for (size_t i = 0; i < tree->n; i++) {
        const struct stat *st = &tree->items[i].st;
        if (S_ISDIR(st->st_mode) && (st->st_mode & S_IRWXU) != S_IRWXU)
            fchmodat(root_fd, tree->items[i].path, (st->st_mode & 07777) | S_IRWXU, 0);
    }
    for (size_t i = tree->n; i-- > 0;) {
        const build_tree_entry *e = &tree->items[i];
        int flags = S_ISDIR(e->st.st_mode) ? AT_REMOVEDIR : 0;
        if (unlinkat(root_fd, e->path, flags) != 0 && errno != ENOENT)
            return error_set(err, ERROR_INTERNAL, "cannot remove %s/%s: %s", root, e->path,
                             strerror(errno));
    }
    return 0;
}

int build_tree_remove(const char *root, verdict_error *err)
{
    struct stat st;
    if (lstat(root, &st) != 0)
        return errno == ENOENT ? 0
                               : error_set(err, ERROR_INTERNAL, "cannot remove %s: %s", root,
                                           strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return unlink(root) == 0 || errno == ENOENT
                   ? 0
                   : error_set(err, ERROR_INTERNAL, "cannot remove %s: %s", root,
                               strerror(errno));
    build_tree tree;
    if (build_tree_list(root, &tree, err) != 0)
        return error_prefix(err, "cannot remove %s", root);
    int root_fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int rc = root_fd < 0 ? error_set(err, ERROR_INTERNAL, "cannot remove %s: %s", root,
                                     strerror(errno))
                         : remove_entries(root_fd, root, &tree, err);
    if (root_fd >= 0)
        close(root_fd);
    build_tree_free(&tree);
    if (rc == 0 && rmdir(root) != 0 && errno != ENOENT)
        rc = error_set(err, ERROR_INTERNAL, "cannot remove %s: %s", root, strerror(errno));
    return rc;
}

static int hash_regular_file(build_hasher *h, int root_fd, const char *path,
                             verdict_error *err)
{
    int fd = openat(root_fd, path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        int saved = errno;
        if (fd >= 0)
            close(fd);
        return error_set(err, ERROR_BAD_INPUT, "cannot read %s: %s", path, strerror(saved));
    }
    int rc = build_hasher_file(h, 'F', fd, (uint64_t)st.st_size, path, err);
    close(fd);
    return rc;
}

static int hash_link(build_hasher *h, int root_fd, const char *path, const struct stat *st,
                     verdict_error *err)
{
    size_t size = (size_t)st->st_size + 1;
    char *target = malloc(size);
    if (target == NULL)
        return error_set(err, ERROR_NO_MEMORY, "out of memory reading the link %s", path);
    ssize_t n = readlinkat(root_fd, path, target, size);
    int rc = 0;
    if (n < 0 || (size_t)n >= size)
        rc = error_set(err, ERROR_BAD_INPUT, "cannot read the link %s: %s", path,
                       n < 0 ? strerror(errno) : "it changed while being read");
    else
        build_hasher_field(h, 'L', target, (size_t)n);
    free(target);
    return rc;
}

int build_hash_entry(build_hasher *h, int root_fd, const char *path, const struct stat *st,
                     verdict_error *err)
{
    build_hasher_text(h, 'P', path);
    build_hasher_number(h, 'M', (uint64_t)st->st_mode); /* the type and every mode bit */
    if (S_ISREG(st->st_mode))
        return hash_regular_file(h, root_fd, path, err);
    if (S_ISLNK(st->st_mode))
        return hash_link(h, root_fd, path, st, err);
    return 0; /* directories, fifos, devices: their path, type and mode are all there is */
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void build_free_names(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

int build_list_names(const char *dir, build_name_filter keep, const void *context,
                     char ***names, size_t *n)
{
    *names = NULL;
    *n = 0;
    size_t capacity = 0;
    DIR *d = opendir(dir);
    if (d == NULL)
        return -1;
    int rc = 0;
    struct dirent *e;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        size_t length = keep(e->d_name, context);
        if (length == 0)
            continue;
        if (array_reserve((void **)names, &capacity, *n + 1, sizeof **names) != 0 ||
            ((*names)[*n] = strndup(e->d_name, length)) == NULL)
            rc = -1, errno = ENOMEM;
        else
            (*n)++;
    }
    closedir(d);
    if (rc != 0) {
        build_free_names(*names, *n);
        *names = NULL, *n = 0;
        errno = ENOMEM;
    } else if (*n > 1) {
        qsort(*names, *n, sizeof **names, compare_names);
    }
    return rc;
}

/* Lists a directory tree once, then works on its files from a few threads: creating or
 * unlinking ~1000 small files is what makes a data directory slow to copy or remove. */
#include "pg/file_tree.h"

#include "common/error.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_THREADS 4
/* Below this many files a thread costs more than it saves. */
#define FILES_PER_THREAD 64

static int listing_append(tree_listing *listing, char *path, const struct stat *st)
{
    if (listing->count == listing->capacity) {
        size_t capacity = listing->capacity ? listing->capacity * 2 : 256;
        tree_entry *grown = realloc(listing->entries, capacity * sizeof *grown);
        if (grown == NULL)
            return -1;
        listing->entries = grown;
        listing->capacity = capacity;
    }
    listing->entries[listing->count++] = (tree_entry){.path = path, .st = *st};
    return 0;
}

static char *join_path(const char *parent, const char *name)
{
    size_t parent_length = parent ? strlen(parent) : 0, name_length = strlen(name);
    char *path = malloc(parent_length + name_length + 2);
    if (path == NULL)
        return NULL;
    if (parent_length > 0) {
        memcpy(path, parent, parent_length);
        path[parent_length] = '/';
        memcpy(path + parent_length + 1, name, name_length + 1);
    } else {
        memcpy(path, name, name_length + 1);
    }
    return path;
}

/* Appends the entries below dir_fd (whose path relative to the root is prefix, NULL for the
 * root itself); returns 0 or an errno and the relative path that failed. */
static int list_directory(int dir_fd, const char *prefix, tree_listing *listing,
                          const char **failed_at)
{
    int listing_fd = dup(dir_fd);
    DIR *dir = listing_fd >= 0 ? fdopendir(listing_fd) : NULL;
    if (dir == NULL) {
        int error = errno;
        if (listing_fd >= 0)
            close(listing_fd);
        *failed_at = prefix;
        return error;
    }
    int error = 0;
    struct dirent *entry;
    while (error == 0 && (entry = readdir(dir)) != NULL) {
        const char *name = entry->d_name;
        if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
            continue;
        struct stat st;
        if (fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
            if (errno == ENOENT)
                continue; /* vanished while we looked: nothing to copy or remove */
            error = errno;
            *failed_at = prefix;
            break;
        }
        char *path = join_path(prefix, name);
        if (path == NULL || listing_append(listing, path, &st) != 0) {
            free(path);
            error = ENOMEM;
            *failed_at = prefix;
            break;
        }
        if (!S_ISDIR(st.st_mode))
            continue;
        int sub = openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sub < 0) {
            error = errno;
            *failed_at = path;
            break;
        }
        error = list_directory(sub, path, listing, failed_at);
        close(sub);
    }
    closedir(dir);
    return error;
}

int tree_list(int root_fd, const char *root_path, tree_listing *out, verdict_error *err)
{
    *out = (tree_listing){0};
    const char *failed_at = NULL;
    int error = list_directory(root_fd, NULL, out, &failed_at);
    if (error == 0)
        return 0;
    error_set(err, ERROR_COMMAND_FAILED, "cannot list %s%s%s: %s", root_path, failed_at ? "/" : "",
              failed_at ? failed_at : "", strerror(error));
    tree_listing_free(out);
    return -1;
}

void tree_listing_free(tree_listing *listing)
{
    for (size_t i = 0; i < listing->count; i++)
        free(listing->entries[i].path);
    free(listing->entries);
    *listing = (tree_listing){0};
}

int tree_default_threads(void)
{
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    if (online < 1)
        return 1;
    return online > MAX_THREADS ? MAX_THREADS : (int)online;
}

/* Shared by the workers of one tree_for_each_file call. */
typedef struct {
    const tree_listing *listing;
    tree_file_action action;
    void *context;
    atomic_bool failed;
    pthread_mutex_t message_lock;
    verdict_error *err; /* the first failure */
} tree_work;

/* One worker's share: a contiguous slice of the listing, so that each works in directories
 * of its own; creating files in one directory takes that directory's lock. */
typedef struct {
    tree_work *work;
    size_t begin, end;
} tree_slice;

static void *work_on_slice(void *arg)
{
    const tree_slice *slice = arg;
    tree_work *work = slice->work;
    verdict_error failure;
    for (size_t i = slice->begin; i < slice->end && !atomic_load(&work->failed); i++) {
        const tree_entry *entry = &work->listing->entries[i];
        if (S_ISDIR(entry->st.st_mode))
            continue;
        if (work->action(entry, work->context, &failure) == 0)
            continue;
        pthread_mutex_lock(&work->message_lock);
        if (!atomic_load(&work->failed))
            error_copy(work->err, &failure);
        atomic_store(&work->failed, true);
        pthread_mutex_unlock(&work->message_lock);
    }
    return NULL;
}

int tree_for_each_file(const tree_listing *listing, tree_file_action action, void *context,
                       int max_threads, verdict_error *err)
{
    tree_work work = {.listing = listing, .action = action, .context = context,
                      .err = err};
    atomic_init(&work.failed, false);
    pthread_mutex_init(&work.message_lock, NULL);

    size_t wanted = listing->count / FILES_PER_THREAD;
    int threads = wanted < (size_t)max_threads ? (int)wanted : max_threads;
    if (threads < 1)
        threads = 1;
    if (threads > MAX_THREADS)
        threads = MAX_THREADS;
    tree_slice slices[MAX_THREADS];
    pthread_t helpers[MAX_THREADS];
    bool helper_started[MAX_THREADS] = {false};
    for (int t = 0; t < threads; t++)
        slices[t] = (tree_slice){.work = &work,
                                 .begin = listing->count * (size_t)t / (size_t)threads,
                                 .end = listing->count * (size_t)(t + 1) / (size_t)threads};
    /* The calling thread takes the first slice; a helper that fails to start leaves its
     * slice to the calling thread. */
    for (int t = 1; t < threads; t++)
        helper_started[t] = pthread_create(&helpers[t], NULL, work_on_slice, &slices[t]) == 0;
    work_on_slice(&slices[0]);
    for (int t = 1; t < threads; t++) {
        if (helper_started[t])
            pthread_join(helpers[t], NULL);
        else
            work_on_slice(&slices[t]);
    }
    pthread_mutex_destroy(&work.message_lock);
    return atomic_load(&work.failed) ? -1 : 0;
}

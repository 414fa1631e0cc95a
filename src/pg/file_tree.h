/* Lists a directory tree once, then works on its files from a few threads: creating or
 * unlinking ~1000 small files is what makes a data directory slow to copy or remove. */
#ifndef VERDICT_PG_FILE_TREE_H
#define VERDICT_PG_FILE_TREE_H

#include <stddef.h>
#include <sys/stat.h>

#include "common/error.h"

typedef struct {
    char *path; /* relative to the root, e.g. "base/5/16396" */
    struct stat st;
} tree_entry;

/* Pre-order: every directory comes before what it contains. */
typedef struct {
    tree_entry *entries;
    size_t count, capacity;
} tree_listing;

/* Lists everything below root_fd (not the root itself); 0, or -1 with a message naming
 * root_path. Symbolic links are listed, not followed. */
int tree_list(int root_fd, const char *root_path, tree_listing *out, verdict_error *err);
void tree_listing_free(tree_listing *listing);

/* What to do with one non-directory entry; 0, or -1 with a message. Called concurrently. */
typedef int (*tree_file_action)(const tree_entry *entry, void *context, verdict_error *err);

/* Calls action for every non-directory entry, spread over up to max_threads threads (one
 * thread for small trees). Stops early after a failure and returns -1 with the first
 * failure's message; 0 when every call succeeded. */
int tree_for_each_file(const tree_listing *listing, tree_file_action action, void *context,
                       int max_threads, verdict_error *err);

/* Threads worth using for file work on this machine: its online CPUs, at most 4. */
int tree_default_threads(void);

#endif

/* Reads the links a build's wrapper recorded (one file each: the directory, then the words,
 * NUL-ended), in time order, keeping the last link of each output still in the tree. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "build/build_internal.h"
#include "common/array.h"

static void link_free(build_link *l)
{
    free(l->record);
    free(l->cwd);
    for (size_t i = 0; i < l->n_words; i++)
        free(l->words[i]);
    free(l->words);
    free(l->output);
    *l = (build_link){0};
}

void build_link_list_free(build_link_list *list)
{
    for (size_t i = 0; i < list->n; i++)
        link_free(&list->items[i]);
    free(list->items);
    *list = (build_link_list){NULL, 0, 0};
}


/* Every name but . and .. (the wrapper writes no other hidden names): the records. */
static size_t record_name(const char *name, const void *context)
{
    (void)context;
    return name[0] == '.' ? 0 : strlen(name);
}

/* The records' names, sorted: the wrapper names them by time. */
static int record_names(const char *dir, char ***names, size_t *n, verdict_error *err)
{
    if (build_list_names(dir, record_name, NULL, names, n) == 0)
        return 0;
    if (errno == ENOMEM)
        return error_no_memory(err);
    return error_set(err, ERROR_USAGE, "cannot read the recorded links %s: %s (was the "
                     "build made with layouts?)", dir, strerror(errno));
}

/* Splits a record into its directory and words: 0, 1 when it was cut short (the wrapper
 * could not finish it, and then did not run the link), -1 out of memory. */
static int parse_record(const char *text, size_t length, build_link *l)
{
    if (length == 0 || text[length - 1] != '\0')
        return 1;
    size_t fields = 0;
    for (size_t i = 0; i < length; i++)
        fields += text[i] == '\0';
    l->words = calloc(fields, sizeof *l->words); /* fields - 1 words and the NULL */
    if (l->words == NULL || (l->cwd = strdup(text)) == NULL)
        return -1;
    for (size_t at = strlen(text) + 1; at < length; at += strlen(text + at) + 1)
        if ((l->words[l->n_words++] = strdup(text + at)) == NULL)
            return -1;
    return 0;
}

/* The output the compiler driver writes: the last -o, else a.out. */
static const char *output_word(const build_link *l)
{
    const char *out = "a.out";
    for (size_t i = 0; i < l->n_words; i++) {
        const char *w = l->words[i];
        if ((strcmp(w, "-o") == 0 || strcmp(w, "--output") == 0) && i + 1 < l->n_words)
            out = l->words[++i];
        else if (strncmp(w, "-o", 2) == 0 && w[2] != '\0')
            out = w + 2;
        else if (strncmp(w, "--output=", 9) == 0)
            out = w + 9;
    }
    return out;
}

static bool below(const char *path, const char *root)
{
    size_t n = strlen(root);
    return strncmp(path, root, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

/* 1 when the link's output is a regular file below tree now (output, relative and size are
 * set), 0 when not (a configure test's, removed since; one outside the tree), -1 out of
 * memory. The directory is resolved and not the file, so that a symbolic link named as the
 * output is not taken for its target. */
static int locate_output(build_link *l, const char *tree)
{
    const char *word = output_word(l);
    strbuf b = STRBUF_INIT;
    if (word[0] == '/')
        strbuf_append(&b, word);
    else
        strbuf_appendf(&b, "%s/%s", l->cwd, word);
    char *joined = strbuf_detach(&b);
    if (joined == NULL)
        return -1;
    char *slash = strrchr(joined, '/'); /* there is one: the path is absolute */
    *slash = '\0';
    char dir[PATH_MAX];
    int rc = 0;
    if (realpath(joined[0] ? joined : "/", dir) != NULL && below(dir, tree)) {
        strbuf_appendf(&b, "%s/%s", dir, slash + 1);
        l->output = strbuf_detach(&b);
        rc = l->output ? 0 : -1;
    }
    struct stat st;
    if (l->output && lstat(l->output, &st) == 0 && S_ISREG(st.st_mode)) {
        l->relative = l->output + strlen(tree) + 1;
        l->size = (uint64_t)st.st_size;
        rc = 1;
    }
    free(joined);
    return rc;
}

/* 1 when the record is a link to redo (in l), 0 when not, -1 on error. */
static int read_one(const char *dir, const char *name, const char *tree, build_link *l,
                    verdict_error *err)
{
    *l = (build_link){0};
    char *path = build_path_join(dir, name);
    char *text = NULL;
    size_t length = 0;
    int rc = path && (l->record = strdup(name)) ? 0 : error_set(err, ERROR_INTERNAL,
                                                                 "out of memory");
    if (rc == 0 && build_read_file(path, &text, &length) != 0)
        rc = error_set(err, ERROR_INTERNAL, "cannot read the link record %s: %s", path,
                       strerror(errno));
    if (rc == 0) {
        int parsed = parse_record(text, length, l);
        int located = parsed == 0 ? locate_output(l, tree) : parsed == 1 ? 0 : -1;
        rc = located < 0 ? error_set(err, ERROR_NO_MEMORY, "out of memory reading %s", path)
                         : located;
    }
    if (rc != 1)
        link_free(l);
    free(text);
    free(path);
    return rc;
}

/* Keeps the last link of each output, in time order. */
static void keep_last(build_link_list *list)
{
    size_t kept = 0;
    for (size_t i = 0; i < list->n; i++) {
        bool later = false;
        for (size_t j = i + 1; j < list->n && !later; j++)
            later = strcmp(list->items[i].output, list->items[j].output) == 0;
        if (later)
            link_free(&list->items[i]);
        else
            list->items[kept++] = list->items[i];
    }
    list->n = kept;
}

int build_links_read(const char *links_dir, const char *tree, build_link_list *list,
                     verdict_error *err)
{
    *list = (build_link_list){NULL, 0, 0};
    char **names = NULL;
    size_t n = 0;
    int rc = record_names(links_dir, &names, &n, err);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        build_link l;
        int outcome = read_one(links_dir, names[i], tree, &l, err);
        if (outcome == 1 && array_reserve((void **)&list->items, &list->capacity, list->n + 1,
                                          sizeof *list->items) != 0) {
            link_free(&l);
            outcome = error_no_memory(err);
        }
        if (outcome == 1)
            list->items[list->n++] = l;
        rc = outcome < 0 ? -1 : 0;
    }
    build_free_names(names, n);
    if (rc == 0)
        keep_last(list);
    else
        build_link_list_free(list);
    return rc;
}

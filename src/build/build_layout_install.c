/* A layout's installed copies: each file of the build's install that holds a relinked
 * output's bytes (else the one of its name) replaced by the relinked output, by a rename. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build/build_internal.h"

/* What is known of one relinked output while the install is searched. */
typedef struct {
    char sha[BUILD_KEY_HEX + 1]; /* of its base version, once hashed */
    bool hashed;
    size_t installed;            /* files replaced by it */
} output_state;

/* What is known of one file of the base install. */
typedef struct {
    char sha[BUILD_KEY_HEX + 1];
    bool hashed;
    bool replaced;
} file_state;

static int write_all(int fd, const char *bytes, size_t n)
{
    while (n > 0) {
        ssize_t done = write(fd, bytes, n);
        if (done < 0 && errno == EINTR)
            continue;
        if (done < 0)
            return -1;
        bytes += done;
        n -= (size_t)done;
    }
    return 0;
}

static int copy_bytes(int from, int to)
{
    char chunk[65536];
    for (;;) {
        ssize_t n = read(from, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return (int)n;
        if (write_all(to, chunk, (size_t)n) != 0)
            return -1;
    }
}

/* Copies source to a new file beside target with mode, and renames it over target: the
 * hard link target was is replaced, and the build's file it shared is never written. */
static int replace_file(const char *source, const char *target, mode_t mode, verdict_error *err)
{
    strbuf b = STRBUF_INIT;
    const char *slash = strrchr(target, '/');
    strbuf_appendf(&b, "%.*s/.verdict-layout-XXXXXX", (int)(slash - target), target);
    char *temporary = strbuf_detach(&b);
    int from = open(source, O_RDONLY | O_CLOEXEC);
    int to = temporary && from >= 0 ? mkostemp(temporary, O_CLOEXEC) : -1;
    int rc = 0;
    if (to < 0 || fchmod(to, mode & 07777) != 0 || copy_bytes(from, to) != 0)
        rc = error_set(err, ERROR_INTERNAL, "cannot copy %s to %s: %s", source,
                       temporary ? temporary : target, strerror(errno));
    if (to >= 0 && close(to) != 0 && rc == 0)
        rc = error_set(err, ERROR_INTERNAL, "cannot write %s: %s", temporary, strerror(errno));
    if (rc == 0 && rename(temporary, target) != 0)
        rc = error_set(err, ERROR_INTERNAL, "cannot rename %s to %s: %s", temporary, target,
                       strerror(errno));
    if (rc != 0 && to >= 0)
        unlink(temporary);
    if (from >= 0)
        close(from);
    free(temporary);
    return rc;
}

/* Replaces the layout's copy of the install's file with the layout's version of the link. */
static int install_one(const build_install_paths *p, const build_link *l, const char *file,
                       mode_t mode, verdict_error *err)
{
    char *source = build_path_join(p->tree, l->relative);
    char *target = build_path_join(p->install, file);
    int rc = source && target ? replace_file(source, target, mode, err)
                              : error_no_memory(err);
    free(source);
    free(target);
    return rc;
}

static int file_sha(const build_install_paths *p, const char *file, file_state *f,
                    verdict_error *err)
{
    if (f->hashed)
        return 0;
    char *path = build_path_join(p->base_install, file);
    int rc = path ? build_file_sha256(path, f->sha, err)
                  : error_no_memory(err);
    f->hashed = rc == 0;
    free(path);
    return rc;
}

static int output_sha(const build_link *l, output_state *o, verdict_error *err)
{
    if (o->hashed)
        return 0;
    int rc = build_file_sha256(l->output, o->sha, err);
    o->hashed = rc == 0;
    return rc;
}

/* 1 when the install's file holds the base version's bytes: sizes first, then SHA-256. */
static int same_bytes(const build_install_paths *p, const build_tree_entry *e, file_state *f,
                      const build_link *l, output_state *o, verdict_error *err)
{
    if (!S_ISREG(e->st.st_mode) || (uint64_t)e->st.st_size != l->size)
        return 0;
    if (file_sha(p, e->path, f, err) != 0 || output_sha(l, o, err) != 0)
        return -1;
    return strcmp(f->sha, o->sha) == 0;
}

/* Every file of the install with the bytes of an output, replaced by that output. */
static int by_content(const build_link_list *links, const build_install_paths *p,
                      const build_tree *files, file_state *fs, output_state *os,
                      strbuf *report, verdict_error *err)
{
    for (size_t i = 0; i < files->n; i++)
        for (size_t k = 0; k < links->n && !fs[i].replaced; k++) {
            int same = same_bytes(p, &files->items[i], &fs[i], &links->items[k], &os[k], err);
            if (same < 0 || (same == 1 && install_one(p, &links->items[k], files->items[i].path,
                                                      files->items[i].st.st_mode, err) != 0))
                return -1;
            if (same == 1) {
                fs[i].replaced = true;
                os[k].installed++;
                strbuf_appendf(report, "installed: %s (the build's %s, same bytes)\n",
                               files->items[i].path, links->items[k].relative);
            }
        }
    return 0;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* An output no installed file matched by content: the one regular file of its name, when
 * there is exactly one (meson rewrites the run path of what it installs). */
static int by_name(const build_link *l, const build_install_paths *p, const build_tree *files,
                   file_state *fs, strbuf *report, verdict_error *err)
{
    size_t found = files->n, count = 0;
    for (size_t i = 0; i < files->n; i++)
        if (S_ISREG(files->items[i].st.st_mode) && !fs[i].replaced &&
            strcmp(base_name(files->items[i].path), base_name(l->relative)) == 0) {
            found = i;
            count++;
        }
    if (count != 1) {
        strbuf_appendf(report, "not installed: %s (no installed file has its bytes; %zu have "
                       "its name)\n", l->relative, count);
        return 0;
    }
    const build_tree_entry *e = &files->items[found];
    if (install_one(p, l, e->path, e->st.st_mode, err) != 0)
        return -1;
    fs[found].replaced = true;
    strbuf_appendf(report, "installed: %s (by name: no installed file has the bytes of the "
                   "build's %s)\n", e->path, l->relative);
    return build_log_note(p->log, err, "installed %s in place of %s by its name: no file of "
                          "the install has the build's bytes of it (meson, say, rewrites the "
                          "run path of what it installs)", l->relative, e->path);
}

int build_layout_install(const build_link_list *links, const build_install_paths *p,
                         strbuf *report, verdict_error *err)
{
    build_tree files;
    if (build_tree_list(p->base_install, &files, err) != 0)
        return -1;
    file_state *fs = calloc(files.n + 1, sizeof *fs);
    output_state *os = calloc(links->n + 1, sizeof *os);
    int rc = fs && os ? by_content(links, p, &files, fs, os, report, err)
                      : error_no_memory(err);
    for (size_t k = 0; rc == 0 && k < links->n; k++)
        if (os[k].installed == 0)
            rc = by_name(&links->items[k], p, &files, fs, report, err);
    free(fs);
    free(os);
    build_tree_free(&files);
    return rc;
}

/* criterion.rs sample.json: one benchmark's samples, each the total time (ns) of iters[i]
 * iterations, read as seconds per iteration; the point named by benchmark.json beside it. */
#include <assert.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/array.h"

#include "common/strbuf.h"
#include "core/sample_file.h"

#include "common/error.h"
#include "core/peer_internal.h"

#define SAMPLE_FILE "sample.json"
#define CRITERION_DIR "criterion/"
#define NS_PER_SECOND 1e9
/* The point of a sample.json whose path names no benchmark (standard input, a copy). */
#define UNNAMED_POINT "benchmark"
/* How deep a directory is searched for new/sample.json (target/criterion/group/name/new). */
#define DEPTH_MAX 8

static const char *const criterion_metrics[] = {"time", NULL};

/* criterion writes target/criterion/<id>/{new,base}/sample.json: the point is <id>, the path
 * between "criterion/" and the last two components, or else the directory above the last. */
static void point_of_path(const char *path, char *out, size_t outlen)
{
    snprintf(out, outlen, "%s", UNNAMED_POINT);
    const char *file = strrchr(path, '/');
    if (file == NULL || strcmp(file + 1, SAMPLE_FILE) != 0)
        return;
    const char *dir = file; /* the start of "/new/sample.json" */
    while (dir > path && dir[-1] != '/')
        dir--;
    if (dir <= path + 1)
        return;
    const char *end = dir - 1, *start = end;
    while (start > path && start[-1] != '/')
        start--;
    for (const char *p = path; (p = strstr(p, CRITERION_DIR)) != NULL && p < end; p++)
        if (p == path || p[-1] == '/')
            start = p + strlen(CRITERION_DIR);
    if (end > start)
        snprintf(out, outlen, "%.*s", (int)(end - start), start);
}

/* criterion 0.2 wrote [[iters...], [times...]]; 0.3 and later {"iters": [...], "times": [...]}. */
static int sample_arrays(const char *name, const json_t *root, const json_t **iters,
                         const json_t **times, verdict_error *err)
{
    if (json_is_array(root)) {
        *iters = json_array_get(root, 0);
        *times = json_array_get(root, 1);
        if (json_array_size(root) == 2 && json_is_array(*iters) && json_is_array(*times))
            return 0;
        return error_set(err, ERROR_BAD_INPUT, "%s: an array of %zu elements, where criterion's "
                         "[[iters...], [times...]] was expected", name, json_array_size(root));
    }
    if (json_is_object(json_object_get(root, "mean")) ||
        json_is_object(json_object_get(root, "Mean")))
        return error_set(err, ERROR_BAD_INPUT, "%s: criterion's estimates.json holds summaries "
                         "(mean, median, slope), not samples: give the sample.json beside it",
                         name);
    if ((*iters = peer_json_array(name, root, "iters", "", err)) == NULL ||
        (*times = peer_json_array(name, root, "times", "", err)) == NULL)
        return -1;
    return 0;
}

static int keep_samples(const char *name, const json_t *iters, const json_t *times,
                        peer_series *s, verdict_error *err)
{
    if (json_array_size(iters) != json_array_size(times))
        return error_set(err, ERROR_BAD_INPUT, "%s: iters has %zu values and times %zu: each "
                         "sample is a pair", name, json_array_size(iters),
                         json_array_size(times));
    if (json_array_size(times) == 0)
        return error_set(err, ERROR_BAD_INPUT, "%s: times: no samples", name);
    for (size_t i = 0; i < json_array_size(times); i++) {
        char where[PEER_WHERE_SIZE], place[PEER_WHERE_SIZE + 512];
        double n, total;
        snprintf(where, sizeof where, "iters[%zu]", i);
        if (peer_json_number(name, json_array_get(iters, i), where, &n, err) != 0)
            return -1;
        if (!(n >= 1.0))
            return error_set(err, ERROR_BAD_INPUT, "%s: %s: %.15g, where a count of iterations "
                             "(1 or more) was expected", name, where, n);
        snprintf(where, sizeof where, "times[%zu]", i);
        if (peer_json_number(name, json_array_get(times, i), where, &total, err) != 0)
            return -1;
        snprintf(place, sizeof place, "%s: %s", name, where);
        if (peer_keep_value(s, total / n, NS_PER_SECOND, 0, place, err) != 0)
            return -1;
    }
    return 0;
}

int peer_criterion_read(const char *name, const json_t *root, const peer_options *o,
                        peer_file *out, verdict_error *err)
{
    if (peer_check_metric(name, "criterion", o->metric, criterion_metrics, err) != 0)
        return -1;
    const json_t *iters = NULL, *times = NULL;
    if (sample_arrays(name, root, &iters, &times, err) != 0)
        return -1;
    char point[PEER_WHERE_SIZE * 2];
    point_of_path(name, point, sizeof point);
    peer_series *s = peer_series_add(out, point, NULL, "time", false);
    if (s == NULL)
        return error_set(err, ERROR_NO_MEMORY, "%s: out of memory", name);
    return keep_samples(name, iters, times, s, err);
}

/* criterion writes benchmark.json beside sample.json; its full_id names the benchmark
 * wherever the directory was copied to ("cp -r target/criterion before"). */
int peer_criterion_name(const char *path, peer_file *f, verdict_error *err)
{
    assert(f->format == PEER_CRITERION && f->n == 1);
    const char *slash = strrchr(path, '/');
    strbuf beside = STRBUF_INIT;
    strbuf_appendf(&beside, "%.*sbenchmark.json", slash ? (int)(slash - path + 1) : 0, path);
    char *text = NULL;
    size_t length = 0;
    json_t *root = NULL;
    int rc = strbuf_status(&beside) == 0 ? 0 : error_no_memory(err);
    const char *name = strbuf_text(&beside);
    if (rc == 0 && access(name, F_OK) == 0) {
        rc = sample_file_load(name, &text, &length, err) == 0 &&
                     peer_json_load(name, text, length, &root, err) == 0
                 ? 0 : -1;
        const char *id = rc == 0 ? json_string_value(json_object_get(root, "full_id")) : NULL;
        if (rc == 0 && id == NULL)
            rc = error_set(err, ERROR_BAD_INPUT, "%s: full_id: missing or not a string", name);
        char *copy = id ? strdup(id) : NULL;
        if (id && copy == NULL)
            rc = error_no_memory(err);
        if (copy) {
            free(f->series[0].point);
            f->series[0].point = copy;
        }
    }
    json_decref(root);
    free(text);
    strbuf_free(&beside);
    return rc;
}

typedef struct {
    char **paths;
    size_t n, capacity;
} path_list;

static int compare_paths(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int add_path(path_list *list, const char *path)
{
    char *copy = strdup(path);
    if (copy == NULL ||
        array_reserve((void **)&list->paths, &list->capacity, list->n + 1, sizeof *list->paths)) {
        free(copy);
        return -1;
    }
    list->paths[list->n++] = copy;
    return 0;
}

/* Every new/sample.json below dir (criterion's latest run of each benchmark; base/ and
 * change/ are its older run and its own comparison), symbolic links not followed. */
static int find_samples(const char *dir, int depth, path_list *list, verdict_error *err)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return error_set(err, ERROR_BAD_INPUT, "%s: cannot read the directory", dir);
    int rc = 0;
    const struct dirent *e;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        strbuf path = STRBUF_INIT;
        strbuf_appendf(&path, "%s/%s", dir, e->d_name);
        struct stat st;
        const char *p = strbuf_text(&path);
        bool is_dir = strbuf_status(&path) == 0 && lstat(p, &st) == 0 && S_ISDIR(st.st_mode);
        const char *parent = strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir;
        if (strbuf_status(&path) != 0)
            rc = error_no_memory(err);
        else if (is_dir && depth < DEPTH_MAX)
            rc = find_samples(p, depth + 1, list, err);
        else if (!is_dir && strcmp(e->d_name, SAMPLE_FILE) == 0 && strcmp(parent, "new") == 0)
            rc = add_path(list, p) == 0 ? 0 : error_no_memory(err);
        strbuf_free(&path);
    }
    closedir(d);
    return rc;
}

/* Moves the one series of one benchmark's file into out, refusing a second of its name. */
static int take_series(const char *path, peer_file *one, peer_file *out, verdict_error *err)
{
    const peer_series *twin = peer_series_find(out, one->series[0].point);
    if (twin != NULL)
        return error_set(err, ERROR_BAD_INPUT, "%s: a second benchmark %s in the directory",
                         path, twin->point);
    if (array_reserve((void **)&out->series, &out->capacity, out->n + 1, sizeof *out->series))
        return error_no_memory(err);
    out->series[out->n++] = one->series[0];
    one->n = 0; /* moved: peer_file_free leaves it alone */
    return 0;
}

int peer_criterion_read_dir(const char *dir, const peer_options *o, peer_file *out,
                            verdict_error *err)
{
    memset(out, 0, sizeof *out);
    out->format = PEER_CRITERION;
    path_list list = {0};
    peer_options one_options = {.format = PEER_CRITERION, .metric = o->metric};
    int rc = find_samples(dir, 0, &list, err);
    if (rc == 0 && list.n == 0)
        rc = error_set(err, ERROR_BAD_INPUT, "%s: a directory without */new/sample.json: "
                       "verdict reads criterion's target/criterion (or a copy of it)", dir);
    if (rc == 0)
        qsort(list.paths, list.n, sizeof *list.paths, compare_paths);
    for (size_t i = 0; rc == 0 && i < list.n; i++) {
        peer_file one;
        rc = peer_file_read(list.paths[i], &one_options, &one, err);
        if (rc == 0) {
            rc = take_series(list.paths[i], &one, out, err);
            peer_file_free(&one);
        }
    }
    for (size_t i = 0; i < list.n; i++)
        free(list.paths[i]);
    free(list.paths);
    if (rc != 0)
        peer_file_free(out);
    return rc;
}

/* `verdict build EXPERIMENT` builds every variant ahead of time (saying which were cached);
 * `verdict cache list` and `verdict cache prune` show and trim the cache of builds. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "build/build.h"
#include "cli/command_list.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "cli/stop_signal.h"
#include "common/error.h"
#include "lab/lab_builds.h"
#include "lab/lab_store.h"
#include "targets/targets.h"

#define DEFAULT_PRUNE_AGE (30 * 86400.0)

typedef struct {
    const char *cache_dir;
    double older_than;
    int first_operand;
} cache_settings;

const char cmd_build_help[] =
    "usage: verdict build EXPERIMENT.yaml [--cache DIR]\n"
    "\n"
    "Builds every variant of the experiment ahead of time, as verdict run would before\n"
    "its first sample: a variant with a 'source' in the cache of builds, keyed by the\n"
    "content of its tree, patches, recipe and compiler (docs/builds.md); the build lines\n"
    "of the others in place. Says which builds were already cached.\n"
    "\n"
    "      --cache DIR         the cache (default: $VERDICT_CACHE, else ~/.cache/verdict)\n"
    "  -h, --help              show this help\n"
    "\n"
    "exit status: 0 built, 2 bad experiment file, a missing ref or patch, 3 a build\n"
    "failed (with the end of its log), 130 interrupted.\n";

const char cmd_cache_help[] =
    "usage: verdict cache list [--cache DIR]\n"
    "       verdict cache prune [--older-than DURATION] [--cache DIR]\n"
    "\n"
    "list: every build in the cache with its key, what went into it, its size and when\n"
    "it was last used. prune: removes builds not used for longer than the duration\n"
    "(default 30d; 12h, 7d, 90m) and every incomplete build an interrupted verdict left.\n"
    "\n"
    "      --cache DIR         the cache (default: $VERDICT_CACHE, else ~/.cache/verdict)\n"
    "      --older-than D      prune builds last used longer ago than D\n"
    "  -h, --help              show this help\n";

/* "30d", "12h", "90m", "45s" (or anything parse_duration takes). */
static int parse_age(const char *text, double *out, verdict_error *err)
{
    size_t n = strlen(text);
    if (n > 1 && text[n - 1] == 'd') {
        char hours[64];
        snprintf(hours, sizeof hours, "%.*s", (int)(n - 1), text);
        if (parse_duration("--older-than", hours, out, err) == 0) {
            *out *= 86400;
            return 0;
        }
        error_set(err, ERROR_USAGE, "--older-than '%s': expected a duration such as 30d, 12h, 90m",
                  text);
        return -1;
    }
    return parse_duration("--older-than", text, out, err);
}

static int apply_cache_option(int opt, const char *arg, void *settings, verdict_error *err)
{
    cache_settings *s = settings;
    if (opt == 'C') {
        s->cache_dir = arg;
        return 0;
    }
    if (opt == 'o')
        return parse_age(arg, &s->older_than, err);
    error_set(err, ERROR_USAGE, "unknown option");
    return -1;
}

/* 0 with settings, 1 after --help, -1 with a message. */
static int parse_cache_args(int argc, char **argv, const char *command, cache_settings *s,
                            verdict_error *err)
{
    static const struct option options[] = {
        {"cache", required_argument, NULL, 'C'}, {"older-than", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0},
    };
    *s = (cache_settings){.older_than = DEFAULT_PRUNE_AGE};
    int first = walk_options(argc, argv, "h", options, command, apply_cache_option, s, err);
    if (first == OPTIONS_HELP)
        return 1;
    if (first == OPTIONS_ERROR)
        return -1;
    s->first_operand = optind;
    return 0;
}

/* ---- verdict build ---- */

static void say_built(void *context, const experiment_variant *v, bool cached, double seconds)
{
    (void)context;
    if (v->source.path)
        printf("%-20s %.16s  %s\n", v->name, v->build_key,
               cached ? "cached" : "built");
    else if (v->build)
        printf("%-20s %-16s  built in place in %.1f s\n", v->name, "-", seconds);
    else
        printf("%-20s %-16s  nothing to build\n", v->name, "-");
}

static int build_file(const char *path, const char *cache_dir)
{
    experiment e;
    verdict_error err = {0};
    verdict_error error;
    if (targets_load_experiment(path, &e, &err) != 0) {
        fprintf(stderr, "verdict build: %s\n", err.message);
        return EXIT_USAGE;
    }
    char *logs = lab_default_store_path(path);
    stop_signal_install();
    int rc = EXIT_DONE;
    if (lab_builds_prepare(&e, cache_dir, &error) != 0 ||
        lab_builds_ensure(&e, cache_dir, logs, stop_signal_flag(), stderr, say_built, NULL,
                          NULL, &error) != 0) {
        fprintf(stderr, "verdict build: %s\n", error.message);
        rc = error_exit_status(error.kind);
    }
    free(logs);
    experiment_free(&e);
    return rc;
}

/* The cache given, or the default one; NULL with a message printed. */
static char *cache_of(const cache_settings *s, const char *program)
{
    char *dir = s->cache_dir ? strdup(s->cache_dir) : lab_default_cache_dir();
    if (dir == NULL)
        fprintf(stderr, "%s: no cache directory: give --cache DIR or set VERDICT_CACHE\n",
                program);
    return dir;
}

int cmd_build(int argc, char **argv)
{
    cache_settings s;
    verdict_error err = {0};
    int parsed = parse_cache_args(argc, argv, "verdict build", &s, &err);
    if (parsed == 1) {
        cli_help_write(cmd_build_help, stdout);
        return EXIT_DONE;
    }
    if (parsed == 0 && argc - s.first_operand != 1) {
        error_set(&err, ERROR_USAGE, "build needs exactly one experiment file (see verdict build "
                  "--help)");
        parsed = -1;
    }
    if (parsed != 0) {
        fprintf(stderr, "verdict build: %s\n", err.message);
        return EXIT_USAGE;
    }
    char *cache = cache_of(&s, "verdict build");
    int rc = cache ? build_file(argv[s.first_operand], cache) : EXIT_USAGE;
    free(cache);
    return rc;
}

/* ---- verdict cache ---- */

static void print_size(uint64_t bytes, char *out, size_t n)
{
    if (bytes >= (uint64_t)1 << 30)
        snprintf(out, n, "%.1f GiB", (double)bytes / (1 << 30));
    else if (bytes >= (uint64_t)1 << 20)
        snprintf(out, n, "%.1f MiB", (double)bytes / (1 << 20));
    else
        snprintf(out, n, "%.0f KiB", (double)bytes / 1024);
}

/* One build, its ingredients indented under it. */
static void print_entry(const build_entry *b)
{
    char size[32], used[32] = "never";
    struct tm tm;
    print_size(b->bytes, size, sizeof size);
    if (b->last_used && localtime_r(&b->last_used, &tm))
        strftime(used, sizeof used, "%Y-%m-%d %H:%M", &tm);
    printf("%s  %-10s  %9s  last used %s\n", b->name,
           b->busy ? "in use" : b->complete ? "complete" : "incomplete", size, used);
    for (const char *line = b->ingredients; line && *line;) {
        size_t length = strcspn(line, "\n");
        printf("    %.*s\n", (int)length, line);
        line += length + (line[length] == '\n');
    }
}

static int cache_list(const char *cache)
{
    build_list list = {NULL, 0, 0};
    verdict_error err;
    if (build_cache_list(cache, &list, &err) != 0) {
        fprintf(stderr, "verdict cache: %s\n", err.message);
        return error_exit_status(err.kind);
    }
    uint64_t total = 0;
    for (size_t i = 0; i < list.n; i++) {
        print_entry(&list.items[i]);
        total += list.items[i].bytes;
    }
    char size[32];
    print_size(total, size, sizeof size);
    printf("%zu build%s in %s/builds, %s\n", list.n, list.n == 1 ? "" : "s", cache, size);
    build_list_free(&list);
    return EXIT_DONE;
}

static int cache_prune(const char *cache, double older_than)
{
    build_list removed = {NULL, 0, 0};
    uint64_t freed = 0;
    verdict_error err;
    if (build_cache_prune(cache, older_than, &removed, &freed, &err) != 0) {
        fprintf(stderr, "verdict cache: %s\n", err.message);
        return error_exit_status(err.kind);
    }
    for (size_t i = 0; i < removed.n; i++)
        printf("removed %s (%s)\n", removed.items[i].name,
               removed.items[i].complete ? "unused" : "incomplete");
    char size[32];
    print_size(freed, size, sizeof size);
    printf("%zu build%s removed, %s freed\n", removed.n, removed.n == 1 ? "" : "s", size);
    build_list_free(&removed);
    return EXIT_DONE;
}

int cmd_cache(int argc, char **argv)
{
    cache_settings s;
    verdict_error err = {0};
    int parsed = parse_cache_args(argc, argv, "verdict cache", &s, &err);
    if (parsed == 1) {
        cli_help_write(cmd_cache_help, stdout);
        return EXIT_DONE;
    }
    const char *what = parsed == 0 && s.first_operand < argc ? argv[s.first_operand] : NULL;
    if (parsed == 0 && (argc - s.first_operand != 1 ||
                        (strcmp(what, "list") != 0 && strcmp(what, "prune") != 0))) {
        error_set(&err, ERROR_USAGE, "expected 'list' or 'prune' (see verdict cache --help)");
        parsed = -1;
    }
    if (parsed != 0) {
        fprintf(stderr, "verdict cache: %s\n", err.message);
        return EXIT_USAGE;
    }
    char *cache = cache_of(&s, "verdict cache");
    int rc = cache == NULL ? EXIT_USAGE
             : strcmp(what, "list") == 0 ? cache_list(cache)
                                         : cache_prune(cache, s.older_than);
    free(cache);
    return rc;
}

/* What a bisection asks of a repository's history: a commit's id and subject, whether one
 * commit is an ancestor of another, the commits between them, and whether the tree is clean. */
#include "build/build.h"

#include <stdlib.h>
#include <string.h>

#include "build/build_internal.h"
#include "common/error.h"

/* `git -C REPO WORDS...` (at most 8 words), its standard output whole. */
static int git_output(const char *repo, const char *const *words, char **output,
                      verdict_error *err)
{
    const char *argv[12] = {"git", "-C", repo};
    size_t n = 3;
    for (; *words && n < 11; words++)
        argv[n++] = *words;
    argv[n] = NULL;
    build_command c = {.argv = argv};
    size_t length;
    *output = NULL;
    if (build_command_output(&c, output, &length, err) == 0)
        return 0;
    free(*output);
    *output = NULL;
    return error_prefix(err, "%s", repo);
}

/* The output's first line, its newline removed (in place). */
static char *first_line(char *text)
{
    text[strcspn(text, "\n")] = '\0';
    return text;
}

int build_git_commit(const char *repo, const char *ref, char out[BUILD_KEY_HEX + 1],
                     verdict_error *err)
{
    char spec[1024];
    snprintf(spec, sizeof spec, "%s^{commit}", ref);
    const char *words[] = {"rev-parse", "--verify", "--quiet", spec, NULL};
    char *text;
    if (git_output(repo, words, &text, err) != 0)
        return error_set(err, ERROR_USAGE, "%s: %s is no commit of the repository", repo, ref);
    snprintf(out, BUILD_KEY_HEX + 1, "%s", first_line(text));
    free(text);
    return 0;
}

char *build_git_subject(const char *repo, const char *commit)
{
    const char *words[] = {"log", "-1", "--format=%s", commit, NULL};
    char *text;
    verdict_error err;
    if (git_output(repo, words, &text, &err) != 0)
        return strdup("");
    return first_line(text);
}

int build_git_is_ancestor(const char *repo, const char *older, const char *newer, bool *yes,
                          verdict_error *err)
{
    const char *words[] = {"merge-base", older, newer, NULL};
    char *text;
    if (git_output(repo, words, &text, err) != 0)
        return -1;
    *yes = strcmp(first_line(text), older) == 0;
    free(text);
    return 0;
}

int build_git_commits(const char *repo, const char *good, const char *bad, bool all_commits,
                      char **list, verdict_error *err)
{
    char range[2 * BUILD_KEY_HEX + 8];
    snprintf(range, sizeof range, "%s..%s", good, bad);
    const char *words[] = {"rev-list", "--reverse", all_commits ? "--topo-order"
                                                                : "--first-parent",
                           range, NULL};
    return git_output(repo, words, list, err);
}

int build_git_dirty(const char *repo, bool *dirty, verdict_error *err)
{
    const char *words[] = {"status", "--porcelain", "--untracked-files=no", NULL};
    char *text;
    if (git_output(repo, words, &text, err) != 0)
        return -1;
    *dirty = text[0] != '\0';
    free(text);
    return 0;
}

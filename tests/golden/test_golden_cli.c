/* Cross-checks `verdict compare --json -` against R's wilcox.test and t.test for every
 * case of r-reference.json: exact cases to 1e-9, normal approximations as the issue says.
 * Where verdict's rank interval departs from R's on purpose (paired zeros kept, rounded
 * values: tests/golden/ties.R), it is checked against R's inverted test in r-ties.json. */
#include <jansson.h>
#include <math.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

typedef struct {
    int checked, failed;
} tally;

static bool close_rel(double got, double want, double rel)
{
    return fabs(got - want) <= rel * fmax(fabs(want), 1e-300);
}

static void check(tally *t, const char *id, const char *what, double got, double want, bool ok)
{
    t->checked++;
    if (!ok) {
        t->failed++;
        printf("FAIL %s %s: got %.17g, R %.17g\n", id, what, got, want);
    }
}

static void write_values(const char *path, const json_t *values)
{
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        perror(path);
        exit(1);
    }
    for (size_t i = 0; i < json_array_size(values); i++)
        fprintf(f, "%.17g\n", json_number_value(json_array_get(values, i)));
    fclose(f);
}

/* Runs verdict and parses the JSON it writes to stdout. */
static json_t *run_verdict(const char *verdict, char **args)
{
    int pipefd[2];
    if (pipe(pipefd) != 0)
        return NULL;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, pipefd[1], 1);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", 1, 0);
    posix_spawn_file_actions_addclose(&actions, pipefd[0]);
    pid_t pid;
    int rc = posix_spawn(&pid, verdict, &actions, NULL, args, environ);
    posix_spawn_file_actions_destroy(&actions);
    close(pipefd[1]);
    if (rc != 0) {
        close(pipefd[0]);
        return NULL;
    }
    FILE *in = fdopen(pipefd[0], "r");
    json_error_t error;
    json_t *doc = json_loadf(in, 0, &error);
    fclose(in);
    int status;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        json_decref(doc);
        return NULL;
    }
    return doc;
}

static json_t *compare_case(const char *verdict, const json_t *c, const char *method,
                            const char *dir)
{
    char a_path[512], b_path[512], confidence[64];
    snprintf(a_path, sizeof a_path, "%s/a.txt", dir);
    snprintf(b_path, sizeof b_path, "%s/b.txt", dir);
    write_values(a_path, json_object_get(c, "a"));
    write_values(b_path, json_object_get(c, "b"));
    snprintf(confidence, sizeof confidence, "%.17g",
             json_number_value(json_object_get(c, "confidence")));
    char *args[12];
    int k = 0;
    args[k++] = (char *)verdict;
    args[k++] = "compare";
    args[k++] = "--json";
    args[k++] = "-";
    args[k++] = "--method";
    args[k++] = (char *)method;
    args[k++] = "--confidence";
    args[k++] = confidence;
    if (json_is_true(json_object_get(c, "paired")))
        args[k++] = "--paired";
    args[k++] = a_path;
    args[k++] = b_path;
    args[k] = NULL;
    return run_verdict(verdict, args);
}

static double field(const json_t *obj, const char *key)
{
    return json_number_value(json_object_get(obj, key));
}

static double ci_at(const json_t *obj, size_t i)
{
    return json_number_value(json_array_get(json_object_get(obj, "ci"), i));
}

/* The r-ties.json entry with this id where verdict departs from R's interval, or NULL. */
static const json_t *departure(const json_t *ties, const char *id)
{
    size_t index;
    const json_t *c;
    json_array_foreach(json_object_get(ties, "cases"), index, c)
        if (strcmp(json_string_value(json_object_get(c, "id")), id) == 0 &&
            json_is_true(json_object_get(c, "departs")))
            return c;
    return NULL;
}

static void check_departure(tally *t, const char *id, const json_t *got, const json_t *want)
{
    for (size_t i = 0; i < 2; i++) {
        check(t, id, i ? "ci high (R's inverted test)" : "ci low (R's inverted test)",
              ci_at(got, i), ci_at(want, i), close_rel(ci_at(got, i), ci_at(want, i), 1e-8));
        bool open = json_is_true(json_array_get(json_object_get(got, "ci_open"), i));
        bool want_open = json_is_true(json_array_get(json_object_get(want, "ci_open"), i));
        check(t, id, i ? "high end open" : "low end open", open, want_open, open == want_open);
    }
    const char *verdict = json_string_value(json_object_get(got, "verdict"));
    const char *want_verdict = json_string_value(json_object_get(want, "verdict"));
    check(t, id, "verdict (0 = as R's rules say)", 0, 0,
          verdict && want_verdict && strcmp(verdict, want_verdict) == 0);
}

static void check_wilcoxon(tally *t, const char *id, const json_t *got, const json_t *want,
                           const json_t *ties)
{
    double width = ci_at(want, 1) - ci_at(want, 0);
    const json_t *departed = departure(ties, id);
    if (departed != NULL) {
        check_departure(t, id, got, departed);
    } else if (json_is_true(json_object_get(want, "exact"))) {
        check(t, id, "estimate", field(got, "estimate"), field(want, "estimate"),
              close_rel(field(got, "estimate"), field(want, "estimate"), 1e-9));
        for (size_t i = 0; i < 2; i++)
            check(t, id, i ? "ci high" : "ci low", ci_at(got, i), ci_at(want, i),
                  close_rel(ci_at(got, i), ci_at(want, i), 1e-9));
    } else {
        for (size_t i = 0; i < 2; i++)
            check(t, id, i ? "ci high (approx)" : "ci low (approx)", ci_at(got, i), ci_at(want, i),
                  fabs(ci_at(got, i) - ci_at(want, i)) <= 0.02 * width);
    }
    check(t, id, "p_value", field(got, "p_value"), field(want, "p_value"),
          close_rel(field(got, "p_value"), field(want, "p_value"), 1e-9));
    check(t, id, "achieved_confidence", field(got, "achieved_confidence"),
          field(want, "achieved_confidence"),
          close_rel(field(got, "achieved_confidence"), field(want, "achieved_confidence"), 1e-9));
    check(t, id, "exact", json_is_true(json_object_get(got, "exact")),
          json_is_true(json_object_get(want, "exact")),
          json_is_true(json_object_get(got, "exact")) == json_is_true(json_object_get(want, "exact")));
}

static void check_welch(tally *t, const char *id, const json_t *got, const json_t *want)
{
    const char *keys[] = {"estimate", "p_value", "statistic", "df"};
    for (size_t i = 0; i < 4; i++)
        check(t, id, keys[i], field(got, keys[i]), field(want, keys[i]),
              close_rel(field(got, keys[i]), field(want, keys[i]), 1e-9));
    for (size_t i = 0; i < 2; i++)
        check(t, id, i ? "ci high" : "ci low", ci_at(got, i), ci_at(want, i),
              close_rel(ci_at(got, i), ci_at(want, i), 1e-9));
}

static void check_case(tally *t, const char *verdict, const json_t *c, const char *dir,
                       const json_t *ties)
{
    const char *id = json_string_value(json_object_get(c, "id"));
    const char *methods[] = {"wilcoxon", "welch"};
    const char *keys[] = {"wilcoxon", "welch_log"};
    for (size_t m = 0; m < 2; m++) {
        const json_t *want = json_object_get(c, keys[m]);
        if (want == NULL)
            continue;
        json_t *doc = compare_case(verdict, c, methods[m], dir);
        const json_t *got = json_array_get(json_object_get(doc, "comparisons"), 0);
        if (got == NULL) {
            t->checked++;
            t->failed++;
            printf("FAIL %s %s: verdict produced no comparison\n", id, methods[m]);
        } else if (m == 0) {
            check_wilcoxon(t, id, got, want, ties);
        } else {
            check_welch(t, id, got, want);
        }
        json_decref(doc);
    }
}

int main(int argc, char **argv)
{
    const char *golden = getenv("VERDICT_GOLDEN"), *ties_path = getenv("VERDICT_TIES");
    if (argc != 2 || golden == NULL || ties_path == NULL) {
        fprintf(stderr, "usage: VERDICT_GOLDEN=r-reference.json VERDICT_TIES=r-ties.json "
                        "test_golden_cli path/to/verdict\n");
        return 1;
    }
    json_error_t error;
    json_t *root = json_load_file(golden, 0, &error), *ties = json_load_file(ties_path, 0, &error);
    if (root == NULL || ties == NULL) {
        fprintf(stderr, "%s:%d: %s\n", root == NULL ? golden : ties_path, error.line, error.text);
        json_decref(root);
        return 1;
    }
    char dir[] = "/tmp/verdict-golden-XXXXXX";
    if (mkdtemp(dir) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    tally t = {0, 0};
    const json_t *cases = json_object_get(root, "cases");
    for (size_t i = 0; i < json_array_size(cases); i++)
        check_case(&t, argv[1], json_array_get(cases, i), dir, ties);
    char path[600];
    snprintf(path, sizeof path, "%s/a.txt", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/b.txt", dir);
    unlink(path);
    rmdir(dir);
    printf("%zu R cases, %d values checked: %d passed, %d failed\n", json_array_size(cases),
           t.checked, t.checked - t.failed, t.failed);
    json_decref(root);
    json_decref(ties);
    return t.failed == 0 && t.checked > 0 ? 0 : 1;
}

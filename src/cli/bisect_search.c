/* verdict bisect's search: the commits of good..bad, the ends compared, then midpoints
 * against both ends of the range left, each step a stored experiment; skips and limits. */
#include "cli/bisect_search.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "build/build.h"
#include "common/error.h"
#include "report/phrases.h"

const char *bisect_outcome_name(bisect_outcome o)
{
    static const char *const names[] = {"found", "no-change", "ends-unknown", "step-unknown",
                                        "all-skipped", "out-of-steps"};
    assert((size_t)o < sizeof names / sizeof names[0]);
    return names[o];
}

void bisect_search_free(bisect_search *s)
{
    for (size_t i = 0; s->commits && i <= s->n; i++)
        free(s->commits[i]);
    free(s->commits);
    free(s->skipped);
    free(s->steps);
    memset(s, 0, sizeof *s);
}

/* The rev-list's lines after good: commits[1..n]. */
static int split_commits(const char *good, char *list, bisect_search *s, verdict_error *err)
{
    size_t lines = 0;
    for (const char *c = list; *c; c++)
        lines += *c == '\n';
    s->commits = calloc(lines + 2, sizeof *s->commits);
    s->skipped = calloc(lines + 2, sizeof *s->skipped);
    if (s->commits == NULL || s->skipped == NULL || (s->commits[0] = strdup(good)) == NULL)
        return error_no_memory(err);
    char *save = NULL;
    for (char *line = strtok_r(list, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
        if ((s->commits[++s->n] = strdup(line)) == NULL)
            return error_no_memory(err);
    return 0;
}

int bisect_search_open(const char *repo, const bisect_request *q, bisect_search *s,
                       verdict_error *err)
{
    char good[BUILD_KEY_HEX + 1], bad[BUILD_KEY_HEX + 1];
    bool dirty = false, ancestor = false;
    char *list = NULL;
    memset(s, 0, sizeof *s);
    int rc = -1;
    if (!q->allow_dirty && build_git_dirty(repo, &dirty, err) != 0)
        goto done;
    if (dirty) {
        error_set(err, ERROR_USAGE, "%s: the work tree has changes not committed: commit or "
                  "stash them, or give --allow-dirty (the commits are built from the "
                  "repository, not from the work tree)", repo);
        goto done;
    }
    if (build_git_commit(repo, q->good, good, err) != 0 ||
        build_git_commit(repo, q->bad, bad, err) != 0 ||
        build_git_is_ancestor(repo, good, bad, &ancestor, err) != 0)
        goto done;
    if (!ancestor) {
        error_set(err, ERROR_USAGE, "--good %s (%.12s) is not an ancestor of --bad %s (%.12s) "
                  "in %s: a bisection needs good before bad in the history", q->good, good,
                  q->bad, bad, repo);
        goto done;
    }
    if (build_git_commits(repo, good, bad, q->all_commits, &list, err) != 0 ||
        split_commits(good, list, s, err) != 0)
        goto done;
    if (s->n == 0) {
        error_set(err, ERROR_USAGE, "--good %s and --bad %s are the same commit (%.12s): "
                  "nothing to bisect", q->good, q->bad, good);
        goto done;
    }
    s->planned = bisect_planned_steps(s->n);
    rc = 0;
done:
    free(list);
    return rc;
}

/* The midpoint (candidate) against an end (baseline), from the end against it. */
static comparison turned(const comparison *c)
{
    comparison t = *c;
    t.ratio = 1.0 / c->ratio;
    t.ci_low = 1.0 / c->ci_high;
    t.ci_high = 1.0 / c->ci_low;
    t.low_open = c->high_open;
    t.high_open = c->low_open;
    t.decision.kind = bisect_flip(c->decision.kind);
    return t;
}

static void put_comparison(FILE *out, const char *what, const char *commit, const comparison *c,
                           bool ok)
{
    if (!ok) {
        fprintf(out, "%s %.*s: not computed", what, BISECT_SHORT, commit);
        return;
    }
    phrases_estimate e;
    char kind[64];
    phrases_estimate_of(c->ratio, c->ci_low, c->ci_high, c->low_open, c->high_open, &e);
    phrases_kind(&c->decision, kind, sizeof kind);
    fprintf(out, "%s %.*s: %s %s %s", what, BISECT_SHORT, commit, kind, e.change, e.interval);
}

/* Compares the ends: bad against good. */
static int compare_ends(bisect_context *b, bisect_search *s, FILE *out, verdict_error *err)
{
    const char *ends[] = {s->commits[0], s->commits[s->n]};
    bisect_measured m;
    for (size_t i = 0; i < 2; i++)
        if (bisect_build(b, ends[i], err) != 0)
            return error_prefix(err, "the %s end %.*s", i ? "bad" : "good", BISECT_SHORT,
                                ends[i]);
    if (bisect_compare(b, ends, 2, &m, err) != 0)
        return -1;
    s->ends = m.against[0];
    s->ends_ok = m.ok[0];
    s->ends_blocks = m.blocks;
    fprintf(out, "ends, %zu blocks%s: ", m.blocks, m.from_store ? " (stored)" : "");
    put_comparison(out, "bad against good", ends[0], &s->ends, s->ends_ok);
    fputc('\n', out);
    verdict_kind k = s->ends_ok ? s->ends.decision.kind : VERDICT_INCONCLUSIVE;
    if (k == VERDICT_EQUIVALENT)
        s->outcome = BISECT_NO_CHANGE;
    else if (k == VERDICT_INCONCLUSIVE)
        s->outcome = BISECT_ENDS_UNKNOWN;
    return 0;
}

/* Measures commits[mid] against the ends of (lo, hi] and records it. */
static int measure_mid(bisect_context *b, bisect_search *s, size_t mid, FILE *out,
                       verdict_error *err)
{
    const char *three[] = {s->commits[mid], s->commits[s->lo], s->commits[s->hi]};
    bisect_measured m;
    if (bisect_compare(b, three, 3, &m, err) != 0)
        return -1;
    bisect_step_record *r = &s->steps[s->n_steps++];
    *r = (bisect_step_record){.lo = s->lo, .mid = mid, .hi = s->hi, .ok_good = m.ok[0],
                              .ok_bad = m.ok[1], .blocks = m.blocks, .from_store = m.from_store};
    r->vs_good = turned(&m.against[0]);
    r->vs_bad = turned(&m.against[1]);
    r->class_ = bisect_classify(r->ok_good ? r->vs_good.decision.kind : VERDICT_INCONCLUSIVE,
                                r->ok_bad ? r->vs_bad.decision.kind : VERDICT_INCONCLUSIVE,
                                s->ends.decision.kind);
    fprintf(out, "step %zu: %.*s (%zu of %zu), %zu blocks%s: ", s->n_steps, BISECT_SHORT,
            three[0], mid, s->n, m.blocks, m.from_store ? " (stored)" : "");
    put_comparison(out, "against", three[1], &r->vs_good, r->ok_good);
    put_comparison(out, "; against", three[2], &r->vs_bad, r->ok_bad);
    fprintf(out, ": %s\n", phrases_bisect_class(r->class_));
    return 0;
}

/* The effect of the first bad commit against the last good one, from the last step. */
static void settle_effect(bisect_search *s)
{
    if (s->n_steps == 0) {
        s->effect = s->ends;
        s->effect_ok = s->ends_ok;
        return;
    }
    const bisect_step_record *r = &s->steps[s->n_steps - 1];
    if (r->mid == s->hi) { /* the midpoint was bad: against the good end of its step */
        s->effect = r->vs_good;
        s->effect_ok = r->ok_good;
    } else {               /* it was good: the bad end against it */
        s->effect = turned(&r->vs_bad);
        s->effect_ok = r->ok_bad;
    }
}

/* The next midpoint built, skipping those that do not build; -1 when none is left. */
static int next_built(bisect_context *b, bisect_search *s, long *mid, FILE *out,
                      verdict_error *err)
{
    while ((*mid = bisect_next(s->lo, s->hi, s->skipped)) >= 0) {
        if (bisect_build(b, s->commits[*mid], err) == 0)
            return 0;
        if (!error_is(err, ERROR_COMMAND_FAILED))
            return -1;
        s->skipped[*mid] = true;
        /* the failure's first line names the log; its tail is in the log */
        char *why = strtok(err->message, "\n"), *tail = why ? strstr(why, ", which ends:") : NULL;
        if (tail)
            *tail = '\0';
        fprintf(out, "skipped %.*s (%ld of %zu): it does not build (%s)\n", BISECT_SHORT,
                s->commits[*mid], *mid, s->n, why ? why : "");
        error_clear(err);
    }
    return 0;
}

static int bisect_midpoints(bisect_context *b, const bisect_request *q, bisect_search *s,
                            FILE *out, verdict_error *err)
{
    while (s->hi - s->lo > 1) {
        if ((q->max_steps && s->n_steps >= q->max_steps) || s->n_steps + 1 >= s->planned) {
            s->outcome = BISECT_OUT_OF_STEPS;
            return 0;
        }
        long mid;
        if (next_built(b, s, &mid, out, err) != 0)
            return -1;
        if (mid < 0) {
            s->outcome = BISECT_ALL_SKIPPED;
            break;
        }
        if (measure_mid(b, s, (size_t)mid, out, err) != 0)
            return -1;
        bisect_class c = s->steps[s->n_steps - 1].class_;
        if (c == BISECT_UNKNOWN) {
            s->outcome = BISECT_STEP_UNKNOWN;
            return 0;
        }
        *(bisect_class_is_bad(c) ? &s->hi : &s->lo) = (size_t)mid;
    }
    settle_effect(s);
    return 0;
}

int bisect_search_run(bisect_context *b, const bisect_request *q, bisect_search *s, FILE *out,
                      verdict_error *err)
{
    s->steps = calloc(s->planned + 1, sizeof *s->steps);
    if (s->steps == NULL)
        return error_no_memory(err);
    s->lo = 0;
    s->hi = s->n;
    s->outcome = BISECT_FOUND;
    if (compare_ends(b, s, out, err) != 0)
        return -1;
    if (s->outcome != BISECT_FOUND)
        return 0;
    return bisect_midpoints(b, q, s, out, err);
}

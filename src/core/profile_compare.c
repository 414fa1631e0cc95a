/* Two variants' profiles compared: their runs paired by block (a variant's layouts averaged
 * within a block), every symbol and stack seen in either looked up in each run, and its
 * change estimated across the blocks (stats/profile_change.c); symbols ranked. */
#include "core/profile_compare.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "core/stats_error.h"

/* One run of the comparison: its block, and whether it is the candidate's. */
typedef struct {
    long block;
    bool candidate;
    const profile_run *run;
} entry;

/* A paired block: its entries (the baseline's first), and each variant's mean time. */
typedef struct {
    size_t first, n_baseline, n_candidate;
    double baseline_time, candidate_time;
} paired_block;

/* What is looked up in a run: a symbol's own samples or its children's, or a stack's. */
typedef enum { LOOK_SELF, LOOK_CHILDREN, LOOK_STACK } look_kind;

typedef struct {
    entry *entries;
    size_t n_entries;
    paired_block *blocks;
    size_t n_blocks;
    double *work;                /* 4 per block: the shares and times handed to stats */
} pairing;

static int compare_entries(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    if (x->block != y->block)
        return x->block < y->block ? -1 : 1;
    return (int)x->candidate - (int)y->candidate;
}

static int compare_symbol_pair(const char *symbol, const char *dso, const profile_symbol *s)
{
    int c = strcmp(symbol, s->symbol);
    return c != 0 ? c : strcmp(dso, s->dso);
}

/* The run's samples of the key (binary search: a run's symbols and stacks are sorted). */
static long run_count(const profile_run *r, look_kind kind, const char *key, const char *dso)
{
    size_t low = 0, high = kind == LOOK_STACK ? r->data.n_stacks : r->data.n_symbols;
    while (low < high) {
        size_t mid = low + (high - low) / 2;
        int c = kind == LOOK_STACK ? strcmp(key, r->data.stacks[mid].stack)
                                   : compare_symbol_pair(key, dso, &r->data.symbols[mid]);
        if (c == 0)
            return kind == LOOK_STACK ? r->data.stacks[mid].samples
                   : kind == LOOK_SELF ? r->data.symbols[mid].self
                                       : r->data.symbols[mid].children;
        if (c < 0)
            high = mid;
        else
            low = mid + 1;
    }
    return 0;
}

/* The mean share of the key over n entries (a variant's layouts in one block). */
static double mean_share(const entry *e, size_t n, look_kind kind, const char *key,
                         const char *dso)
{
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        const profile_run *r = e[i].run;
        sum += r->data.samples > 0 ? (double)run_count(r, kind, key, dso) /
                                         (double)r->data.samples
                                   : 0.0;
    }
    return sum / (double)n;
}

static double mean_time(const entry *e, size_t n)
{
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += e[i].run->time;
    return sum / (double)n;
}

static bool belongs(const profile_run *r, const char *point, const char *machine,
                    const char *baseline, const char *candidate)
{
    return strcmp(r->point, point) == 0 &&
           strcmp(r->machine ? r->machine : "", machine ? machine : "") == 0 &&
           (strcmp(r->variant, baseline) == 0 || strcmp(r->variant, candidate) == 0) &&
           isfinite(r->time) && r->time > 0 && r->data.samples > 0;
}

/* The runs of the comparison sorted by block, and the blocks that hold both variants. */
static int pair_runs(const profile_run *runs, size_t n_runs, const char *point,
                     const char *machine, const char *baseline, const char *candidate,
                     pairing *p)
{
    if ((p->entries = calloc(n_runs + 1, sizeof *p->entries)) == NULL ||
        (p->blocks = calloc(n_runs + 1, sizeof *p->blocks)) == NULL ||
        (p->work = calloc(4 * n_runs + 1, sizeof *p->work)) == NULL)
        return -1;
    for (size_t i = 0; i < n_runs; i++)
        if (belongs(&runs[i], point, machine, baseline, candidate))
            p->entries[p->n_entries++] = (entry){runs[i].block,
                                                 strcmp(runs[i].variant, candidate) == 0,
                                                 &runs[i]};
    if (p->n_entries > 1)
        qsort(p->entries, p->n_entries, sizeof *p->entries, compare_entries);
    for (size_t i = 0; i < p->n_entries;) {
        size_t j = i, n_base = 0;
        for (; j < p->n_entries && p->entries[j].block == p->entries[i].block; j++)
            n_base += !p->entries[j].candidate;
        if (n_base > 0 && j - i > n_base)
            p->blocks[p->n_blocks++] = (paired_block){
                i, n_base, j - i - n_base, mean_time(&p->entries[i], n_base),
                mean_time(&p->entries[i + n_base], j - i - n_base)};
        i = j;
    }
    return 0;
}

/* The key's change across the paired blocks. */
static int estimate(const pairing *p, look_kind kind, const char *key, const char *dso,
                    double confidence, profile_change *out, verdict_error *err)
{
    size_t n = p->n_blocks;
    double *bs = p->work, *cs = bs + n, *bt = cs + n, *ct = bt + n;
    for (size_t i = 0; i < n; i++) {
        const paired_block *b = &p->blocks[i];
        bs[i] = mean_share(&p->entries[b->first], b->n_baseline, kind, key, dso);
        cs[i] = mean_share(&p->entries[b->first + b->n_baseline], b->n_candidate, kind, key,
                           dso);
        bt[i] = b->baseline_time;
        ct[i] = b->candidate_time;
    }
    profile_blocks blocks = {bs, cs, bt, ct, n};
    stats_status status = profile_change_estimate(&blocks, confidence, out);
    if (status == STATS_OK || status == STATS_ERR_TOO_FEW)
        return 0; /* one block: the means without an interval */
    return stats_error_set(err, status, "estimating a profile's change");
}

static int compare_symbols_by_name(const void *a, const void *b)
{
    const profile_symbol *x = *(const void *const *)a, *y = *(const void *const *)b;
    return compare_symbol_pair(x->symbol, x->dso, y);
}

static int compare_stack_names(const void *a, const void *b)
{
    const char *x = *(const void *const *)a, *y = *(const void *const *)b;
    return strcmp(x, y);
}

/* Whether any of the variant's runs in the comparison has the symbol. */
static bool seen_in(const pairing *p, bool candidate, const profile_symbol *s)
{
    for (size_t i = 0; i < p->n_entries; i++)
        if (p->entries[i].candidate == candidate &&
            run_count(p->entries[i].run, LOOK_CHILDREN, s->symbol, s->dso) > 0)
            return true;
    return false;
}

/* What distinct_items gathers from a run: its symbols or its stacks, held as void pointers
 * (converted, never read through another pointer type). */
typedef struct {
    size_t (*count)(const profile_run *r);
    const void *(*at)(const profile_run *r, size_t i);
    int (*compare)(const void *a, const void *b); /* of two pointers to items */
} item_kind;

static size_t symbols_count(const profile_run *r)
{
    return r->data.n_symbols;
}

static const void *symbol_at(const profile_run *r, size_t i)
{
    return &r->data.symbols[i];
}

static size_t stacks_count(const profile_run *r)
{
    return r->data.n_stacks;
}

static const void *stack_at(const profile_run *r, size_t i)
{
    return r->data.stacks[i].stack;
}

static const item_kind symbol_items = {symbols_count, symbol_at, compare_symbols_by_name};
static const item_kind stack_items = {stacks_count, stack_at, compare_stack_names};

/* Every distinct item of the comparison's runs (borrowed), sorted; NULL out of memory. */
static const void **distinct_items(const pairing *p, const item_kind *kind, size_t *n)
{
    size_t total = 0, k = 0;
    for (size_t i = 0; i < p->n_entries; i++)
        total += kind->count(p->entries[i].run);
    const void **all = calloc(total + 1, sizeof *all);
    for (size_t i = 0; all && i < p->n_entries; i++)
        for (size_t j = 0; j < kind->count(p->entries[i].run); j++)
            all[k++] = kind->at(p->entries[i].run, j);
    if (all && k > 1)
        qsort(all, k, sizeof *all, kind->compare);
    *n = 0;
    for (size_t i = 0; all && i < k; i++)
        if (*n == 0 || kind->compare(&all[*n - 1], &all[i]) != 0)
            all[(*n)++] = all[i];
    return all;
}

static int add_symbol(const pairing *p, const profile_symbol *s, double confidence,
                      profile_comparison *out, verdict_error *err)
{
    profile_symbol_change c = {.in_baseline = seen_in(p, false, s),
                               .in_candidate = seen_in(p, true, s)};
    profile_change children;
    if (estimate(p, LOOK_CHILDREN, s->symbol, s->dso, confidence, &children, err) != 0)
        return -1;
    c.children_baseline = children.share_baseline;
    c.children_candidate = children.share_candidate;
    if (fmax(children.share_baseline, children.share_candidate) < PROFILE_MIN_SHARE)
        return 0;
    if ((c.symbol = strdup(s->symbol)) == NULL || (c.dso = strdup(s->dso)) == NULL) {
        free(c.symbol);
        return error_no_memory(err);
    }
    out->symbols[out->n_symbols++] = c;
    out->addresses |= profile_is_address(s->symbol);
    return 0;
}

/* Bonferroni's level for n intervals at once: "the rest within noise" is a claim about
 * every function compared, and at 95% each, one in twenty unchanged functions would be
 * called changed by chance (docs/profiles.md). */
static double adjusted_level(double confidence, size_t n)
{
    return n > 1 ? 1 - (1 - confidence) / (double)n : confidence;
}

/* The largest part of the total change first (by its size in seconds), then by name. */
static int compare_ranked(const void *a, const void *b)
{
    const profile_symbol_change *x = a, *y = b;
    double dx = fabs(x->self.seconds), dy = fabs(y->self.seconds);
    if (dx != dy)
        return dx > dy ? -1 : 1;
    return strcmp(x->symbol, y->symbol);
}

static int compare_all(const pairing *p, double confidence, profile_comparison *out,
                       verdict_error *err)
{
    size_t n_symbols = 0, n_stacks = 0;
    const void **symbols = distinct_items(p, &symbol_items, &n_symbols);
    const void **stacks = distinct_items(p, &stack_items, &n_stacks);
    int rc = -1;
    if (symbols == NULL || stacks == NULL ||
        (out->symbols = calloc(n_symbols + 1, sizeof *out->symbols)) == NULL ||
        (out->stacks = calloc(n_stacks + 1, sizeof *out->stacks)) == NULL) {
        error_no_memory(err);
        goto done;
    }
    for (size_t i = 0; i < n_symbols; i++)
        if (add_symbol(p, (const profile_symbol *)symbols[i], confidence, out, err) != 0)
            goto done;
    out->symbol_confidence = adjusted_level(confidence, out->n_symbols);
    out->stack_confidence = adjusted_level(confidence, n_stacks);
    for (size_t i = 0; i < out->n_symbols; i++)
        if (estimate(p, LOOK_SELF, out->symbols[i].symbol, out->symbols[i].dso,
                     out->symbol_confidence, &out->symbols[i].self, err) != 0)
            goto done;
    if (out->n_symbols > 1)
        qsort(out->symbols, out->n_symbols, sizeof *out->symbols, compare_ranked);
    for (size_t i = 0; i < n_stacks; i++, out->n_stacks++) {
        if ((out->stacks[i].stack = strdup(stacks[i])) == NULL) {
            error_no_memory(err);
            goto done;
        }
        if (estimate(p, LOOK_STACK, stacks[i], NULL, out->stack_confidence,
                     &out->stacks[i].change, err) != 0) {
            out->n_stacks++; /* its name is freed with the comparison */
            goto done;
        }
    }
    rc = 0;
done:
    free((void *)symbols);
    free((void *)stacks);
    return rc;
}

int profile_compare(const profile_run *runs, size_t n_runs, const char *point,
                    const char *machine, const char *baseline, const char *candidate,
                    double confidence, profile_comparison *out, verdict_error *err)
{
    memset(out, 0, sizeof *out);
    out->confidence = confidence;
    pairing p = {0};
    int rc = pair_runs(runs, n_runs, point, machine, baseline, candidate, &p) == 0
                 ? 0 : error_no_memory(err);
    out->n_blocks = p.n_blocks;
    if (rc == 0 && p.n_blocks > 0)
        rc = compare_all(&p, confidence, out, err);
    free(p.entries);
    free(p.blocks);
    free(p.work);
    if (rc != 0)
        profile_comparison_free(out);
    return rc;
}

void profile_comparison_free(profile_comparison *c)
{
    for (size_t i = 0; i < c->n_symbols; i++)
        free(c->symbols[i].symbol), free(c->symbols[i].dso);
    for (size_t i = 0; i < c->n_stacks; i++)
        free(c->stacks[i].stack);
    free(c->symbols);
    free(c->stacks);
    memset(c, 0, sizeof *c);
}

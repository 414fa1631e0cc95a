/* The words of a verdict, decided once for every writer: its kind, its direction, its size
 * and interval, why it is undecided and what would decide it. Writers only escape and style. */
#ifndef VERDICT_REPORT_PHRASES_H
#define VERDICT_REPORT_PHRASES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/bisect.h"
#include "report/report.h"

#define PHRASES_NUMBER 48     /* a change: "+143.2% (×2.43)" */
#define PHRASES_SENTENCE 2048 /* a reason: holds the analysis's message for a failed one */

/* A ratio as a signed change: "+3.1%", "-0.05%" (two decimals below 0.1%), "+∞" for an
 * unbounded end, "–" for NaN (no number). Every percentage of the report layer is this. */
void phrases_percent(double ratio, char *buf, size_t len);
/* The same with a fixed number of decimals (a column that fits its interval's width). */
void phrases_percent_decimals(double ratio, int decimals, char *buf, size_t len);
/* phrases_percent, and beyond 2x (or below 0.5x) the ratio too: "+143.2% (×2.43)". */
void phrases_change(double ratio, char *buf, size_t len);
/* The equivalence margin as every writer shows it: "±1%". */
void phrases_margin(double margin, char *buf, size_t len);
/* What follows a verdict's kind when the whole interval is inside the margin: " (negligible)",
 * or "". */
const char *phrases_negligible(const verdict_decision *d);
/* A verdict in a table's cell: "worse", "better (negligible)", "inconclusive". */
void phrases_kind(const verdict_decision *d, char *buf, size_t len);

/* The method the settings line names: "wilcoxon-signed-rank", and "(paired-t for exact
 * counts)" when some series are counts compared by the t test (analysis_method_for). */
void phrases_method(const report_input *in, char *buf, size_t len);

/* An estimate with its interval. */
typedef struct {
    char change[PHRASES_NUMBER];             /* phrases_change of the estimate */
    char low[PHRASES_NUMBER], high[PHRASES_NUMBER];
    char interval[2 * PHRASES_NUMBER + 8];   /* "[+1.0%, +5.2%]"; "(" or ")" at an end the
                                                test rejects (report_query.h's brackets) */
} phrases_estimate;

void phrases_estimate_of(double ratio, double low, double high, bool low_open, bool high_open,
                         phrases_estimate *out);

/* What a writer says of one comparison. The names are borrowed and unescaped; every other
 * text is verdict's own words and numbers (no markup characters), which writers may pass
 * through their escaping unchanged. */
typedef struct {
    bool ok;                          /* false: the comparison could not be computed */
    verdict_kind kind;                /* VERDICT_INCONCLUSIVE when !ok */
    const char *kind_word;            /* "better", "worse", "equivalent", "inconclusive" */
    const char *candidate, *baseline; /* the variants' names */
    const char *unit;                 /* what its n counts: "runs", or "layouts" across layouts */
    phrases_estimate estimate;        /* when ok */
    char level[40];                   /* the interval's level, "95" (reached, when lower) */
    const char *direction;            /* better and worse: "slower" or "faster" for a time,
                                         "more" or "fewer" for a count, "higher" or "lower"
                                         otherwise; NULL for the others */
    const char *counted;              /* a count's metric: "B uses 50.0% more allocs/op than
                                         A"; NULL for other metrics */
    char size[PHRASES_NUMBER];        /* better and worse: "3.1%" (unsigned) */
    char times[32];                   /* better and worse: "×2.43" beyond 2x, or "" */
    char note[256];                   /* "negligible: the whole interval is within ±1%", what
                                         samples that never varied mean, or "" */
    char reason[PHRASES_SENTENCE];    /* equivalent: what it rules out; inconclusive: why;
                                         !ok: why it could not be computed; else "" */
    char detectable[PHRASES_NUMBER];  /* inconclusive, the interval too wide: the minimum
                                         detectable effect, "3.1%" (query_detectable_effect),
                                         which decide begins with; else "" */
    char decide[PHRASES_SENTENCE];    /* inconclusive: what would decide it, or "" */
} phrases_comparison;

/* Fills out for comparison c of in's analysis (its indexes must be in->series'). */
void phrases_of_comparison(const report_input *in, const analysis_comparison *c,
                           phrases_comparison *out);

/* How a writer makes untrusted text safe for its format: plain_write, markup_write_escaped,
 * Markdown's escaping. */
typedef void (*phrases_escape)(FILE *out, const char *text);

/* The words after the verdict's kind, the one sentence every writer prints:
 * "B is 3.1% slower than A (×2.43)", "no difference larger than ±1%", or "<reason>;
 * <what would decide it>". */
void phrases_write_words(FILE *out, const phrases_comparison *p, phrases_escape escape);

/* Where a count (a counter such as instructions:u, or Go's allocs/op) and a time of the same
 * point and variants were decided in opposite directions, one "counts-disagree" warning in
 * words for each such pair, added to result (the analysis in->analysis points to). 0, or -1
 * when out of memory. */
int phrases_add_disagreements(const report_input *in, analysis_result *result);
/* What the method compares, in one sentence, when it is not the usual location: for
 * --method quantile "Compares the 10th percentile of each variant (Harrell-Davis): how fast
 * each runs when undisturbed, as interference only adds time."; "" for the other methods. */
void phrases_method_note(const analysis_options *o, char *buf, size_t len);

/* ---- profiles (docs/profiles.md) ---- */

/* The functions a profile sentence names at most; the JSON lists every one. */
#define PHRASES_PROFILE_NAMED 5

typedef struct {
    const char *symbol;               /* borrowed, unescaped */
    const char *only;                 /* "baseline" or "candidate" when seen in that variant's
                                         profiles alone (renamed, inlined, new), else NULL */
    phrases_estimate estimate;        /* its change as a share of the baseline's time */
} phrases_profile_item;

/* What a writer says of one comparison's profile. */
typedef struct {
    bool profiled;                    /* some block holds profiled runs of both variants */
    size_t n_blocks;
    phrases_profile_item named[PHRASES_PROFILE_NAMED]; /* beyond noise, in rank order */
    size_t n_named;
    size_t n_more;                    /* beyond noise too, not named */
    char note[PHRASES_SENTENCE];      /* too few blocks for an interval; addresses shown */
} phrases_profile;

/* The functions whose interval excludes no change, largest part of the change first. */
void phrases_of_profile(const profile_comparison *c, phrases_profile *out);
/* "of that, slow_part +12.3% [+10.1%, +14.5%]; the rest within noise (12 blocks)", the
 * names escaped by escape, then the note. */
void phrases_write_profile(FILE *out, const phrases_profile *p, const char *baseline,
                           const char *candidate, phrases_escape escape);

/* A comparison pooled over the machines of a fleet. */
typedef struct {
    phrases_estimate estimate;
    char predict_low[PHRASES_NUMBER], predict_high[PHRASES_NUMBER]; /* a new machine */
    char spread[PHRASES_NUMBER];      /* between machines (tau): "±3.1%" */
    char kind[64];                    /* phrases_kind */
} phrases_pooled;

/* f must be ok (pooled). */
void phrases_of_fleet(const analysis_fleet *f, phrases_pooled *out);

/* What verdict bisect says a midpoint was, in words ("like good: the change comes after it"). */
const char *phrases_bisect_class(bisect_class c);

#endif

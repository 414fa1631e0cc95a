/* Points of an experiment (the cartesian product of its parameters), {placeholder}
 * substitution into words and shell lines, and the plan and text hashes. */
#include "core/experiment_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t experiment_point_count(const experiment *e)
{
    size_t count = 1;
    for (size_t i = 0; i < e->n_parameters; i++)
        count *= e->parameters[i].n_values; /* the loader caps the product */
    return count;
}

void experiment_point_values(const experiment *e, size_t point, size_t *value_index)
{
    for (size_t i = e->n_parameters; i-- > 0;) {
        size_t radix = e->parameters[i].n_values;
        value_index[i] = point % radix;
        point /= radix;
    }
}

/* A growable string; a failed allocation sticks, so callers check once at the end. */
typedef struct {
    char *text;
    size_t length, capacity;
    bool failed;
} text_buffer;

static void put(text_buffer *b, const char *s, size_t n)
{
    if (b->failed)
        return;
    if (b->length + n + 1 > b->capacity) {
        size_t capacity = b->capacity ? b->capacity : 64;
        while (capacity < b->length + n + 1)
            capacity *= 2;
        char *grown = realloc(b->text, capacity);
        if (grown == NULL) {
            b->failed = true;
            return;
        }
        b->text = grown;
        b->capacity = capacity;
    }
    memcpy(b->text + b->length, s, n);
    b->length += n;
    b->text[b->length] = '\0';
}

static void put_string(text_buffer *b, const char *s)
{
    put(b, s, strlen(s));
}

/* A parameter value inside a point id: ',', '=' and '\\' get a backslash, so that values
 * holding them cannot make two points one id. Plain values stay as they were. */
static void put_id_value(text_buffer *b, const char *value)
{
    for (const char *c = value; *c; c++) {
        if (*c == ',' || *c == '=' || *c == '\\')
            put(b, "\\", 1);
        put(b, c, 1);
    }
}

static char *finish(text_buffer *b)
{
    if (b->failed || b->text == NULL) {
        free(b->text);
        return b->failed ? NULL : strdup("");
    }
    return b->text;
}

char *experiment_point_id(const experiment *e, size_t point)
{
    if (e->n_parameters == 0)
        return strdup("default");
    size_t *index = calloc(e->n_parameters, sizeof *index);
    if (index == NULL)
        return NULL;
    experiment_point_values(e, point, index);
    text_buffer b = {0};
    for (size_t i = 0; i < e->n_parameters; i++) {
        if (i)
            put_string(&b, ",");
        put_string(&b, e->parameters[i].name);
        put_string(&b, "=");
        put_id_value(&b, e->parameters[i].values[index[i]]);
    }
    free(index);
    return finish(&b);
}

static const experiment_parameter *find_parameter(const experiment *e, const char *name,
                                                  size_t length, size_t *which)
{
    for (size_t i = 0; i < e->n_parameters; i++) {
        if (strlen(e->parameters[i].name) == length &&
            memcmp(e->parameters[i].name, name, length) == 0) {
            *which = i;
            return &e->parameters[i];
        }
    }
    return NULL;
}

/* value as one single-quoted shell word (' becomes '\''); with braces_doubled, the word is
 * for a template that experiment_substitute_shell will read, so { and } are doubled. */
static void put_shell_word(text_buffer *b, const char *value, bool braces_doubled)
{
    put_string(b, "'");
    for (const char *v = value; *v; v++) {
        if (*v == '\'')
            put_string(b, "'\\''");
        else if (braces_doubled && (*v == '{' || *v == '}'))
            put(b, (char[2]){*v, *v}, 2);
        else
            put(b, v, 1);
    }
    put_string(b, "'");
}

/* One pass over text: literal runs, "{{" and "}}" as braces, {name} looked up. With out
 * NULL it only checks; with quote each value is written as one single-quoted shell word. */
static int expand(const experiment *e, const size_t *index, const char *text, bool quote,
                  text_buffer *out, char *problem, size_t problem_len)
{
    for (const char *p = text; *p;) {
        size_t literal = strcspn(p, "{}");
        if (out)
            put(out, p, literal);
        p += literal;
        if (*p == '\0')
            break;
        if (p[0] == p[1]) { /* "{{" or "}}" */
            if (out)
                put(out, p, 1);
            p += 2;
            continue;
        }
        if (*p == '}') {
            snprintf(problem, problem_len, "unmatched '}' (write }} for a literal brace)");
            return -1;
        }
        const char *close = strchr(p + 1, '}');
        if (close == NULL) {
            snprintf(problem, problem_len, "unmatched '{' (write {{ for a literal brace)");
            return -1;
        }
        size_t length = (size_t)(close - p - 1), which = 0;
        const experiment_parameter *param = find_parameter(e, p + 1, length, &which);
        if (param == NULL) {
            snprintf(problem, problem_len, "unknown placeholder {%.*s}",
                     (int)(length > 60 ? 60 : length), p + 1);
            return -1;
        }
        if (out) {
            const char *value = param->values[index[which]];
            if (!quote)
                put_string(out, value);
            else
                put_shell_word(out, value, false);
        }
        p = close + 1;
    }
    return 0;
}

int experiment_placeholders_check(const experiment *e, const char *text, char *problem,
                                  size_t problem_len)
{
    return expand(e, NULL, text, false, NULL, problem, problem_len);
}

static char *substitute(const experiment *e, size_t point, const char *text, bool quote,
                        char *err, size_t errlen)
{
    if (point >= experiment_point_count(e)) {
        snprintf(err, errlen, "point %zu does not exist", point);
        return NULL;
    }
    size_t *index = calloc(e->n_parameters + 1, sizeof *index);
    if (index == NULL) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    experiment_point_values(e, point, index);
    text_buffer b = {0};
    int rc = expand(e, index, text, quote, &b, err, errlen);
    free(index);
    if (rc != 0) {
        free(b.text);
        return NULL;
    }
    char *result = finish(&b);
    if (result == NULL)
        snprintf(err, errlen, "out of memory");
    return result;
}

char *experiment_substitute(const experiment *e, size_t point, const char *text, char *err,
                            size_t errlen)
{
    return substitute(e, point, text, false, err, errlen);
}

char *experiment_substitute_shell(const experiment *e, size_t point, const char *text,
                                  char *err, size_t errlen)
{
    return substitute(e, point, text, true, err, errlen);
}

/* Marks the parameters that text names (text is known to be well formed). */
static void mark_used(const experiment *e, const char *text, bool *used)
{
    for (const char *p = text; (p = strpbrk(p, "{}")) != NULL;) {
        if (p[0] == p[1]) {
            p += 2;
            continue;
        }
        const char *close = strchr(p + 1, '}');
        size_t which = 0;
        if (*p == '}' || close == NULL)
            return;
        if (find_parameter(e, p + 1, (size_t)(close - p - 1), &which))
            used[which] = true;
        p = close + 1;
    }
}

/* Moves index to the next combination of the used parameters' values (the last fastest);
 * false after the last one. */
static bool next_combination(const experiment *e, const bool *used, size_t *index)
{
    for (size_t i = e->n_parameters; i-- > 0;) {
        if (!used[i])
            continue;
        if (++index[i] < e->parameters[i].n_values)
            return true;
        index[i] = 0;
    }
    return false;
}

int experiment_each_substitution(const experiment *e, const char *text,
                                 int (*visit)(const char *value, void *context), void *context)
{
    size_t *index = calloc(e->n_parameters + 1, sizeof *index);
    bool *used = calloc(e->n_parameters + 1, sizeof *used);
    int rc = index && used ? 0 : -1;
    if (rc == 0)
        mark_used(e, text, used);
    do {
        text_buffer b = {0};
        char problem[128];
        if (rc == 0 && expand(e, index, text, false, &b, problem, sizeof problem) != 0)
            rc = -1;
        char *value = rc == 0 ? finish(&b) : (free(b.text), NULL);
        if (rc == 0)
            rc = value ? visit(value, context) : -1;
        free(value);
    } while (rc == 0 && next_combination(e, used, index));
    free(index);
    free(used);
    return rc;
}

/* FNV-1a, 64 bits: simple, stable across platforms and releases, good enough to notice
 * that a plan changed (it guards against mistakes, not adversaries). */
uint64_t experiment_fnv1a(uint64_t state, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        state ^= p[i];
        state *= 0x100000001b3ULL;
    }
    return state;
}

typedef struct {
    uint64_t state;
} plan_hasher;

static void hash_bytes(plan_hasher *h, const void *data, size_t n)
{
    h->state = experiment_fnv1a(h->state, data, n);
}

/* Every field is written as a tag, its length and its bytes, so that no two different
 * plans serialize to the same stream (e.g. ["ab","c"] versus ["a","bc"]). */
static void hash_field(plan_hasher *h, char tag, const char *text)
{
    uint64_t length = text ? strlen(text) : UINT64_MAX; /* NULL differs from "" */
    hash_bytes(h, &tag, 1);
    for (int shift = 0; shift < 64; shift += 8) /* byte order fixed, not the host's */
        hash_bytes(h, &(unsigned char){(unsigned char)(length >> shift)}, 1);
    if (text)
        hash_bytes(h, text, strlen(text));
}

static void hash_number(plan_hasher *h, char tag, uint64_t value)
{
    char text[32];
    snprintf(text, sizeof text, "%llu", (unsigned long long)value);
    hash_field(h, tag, text);
}

static void hash_pairs(plan_hasher *h, char tag, const experiment_env *pairs, size_t n)
{
    hash_number(h, tag, n);
    for (size_t i = 0; i < n; i++) {
        hash_field(h, 'k', pairs[i].name);
        hash_field(h, 'v', pairs[i].value);
    }
}

/* ---- builds from source ---- */

static uint64_t build_key(const experiment_variant *v, const uint64_t *patch_hashes)
{
    plan_hasher h = {EXPERIMENT_FNV_OFFSET};
    hash_field(&h, '#', "verdict-pg-build/1"); /* bump when the build recipe changes */
    hash_field(&h, 's', v->source);
    hash_field(&h, 'o', v->configure);
    hash_field(&h, 'f', v->cflags);
    hash_number(&h, 'n', v->n_patches);
    for (size_t i = 0; i < v->n_patches; i++)
        hash_number(&h, 'p', patch_hashes[i]);
    return h.state;
}

static char *joined(const char *a, const char *b)
{
    size_t n = strlen(a) + strlen(b) + 1;
    char *out = malloc(n);
    if (out)
        snprintf(out, n, "%s%s", a, b);
    return out;
}

/* put then a shell word, so that "--prefix=" and the quoted path make one word. */
static void put_word_after(text_buffer *b, const char *before, const char *word)
{
    put_string(b, before);
    put_shell_word(b, word, true);
}

/* Patches, configure and make run in a copy of the tree (the user's tree stays clean); the
 * marker file is written last, so an interrupted build is redone rather than trusted. ccache
 * goes before the user's configure options, which may still set CC themselves. */
static void put_build_line(text_buffer *b, const experiment_variant *v, const char *dir,
                           const command_words *configure)
{
    char *marker = joined(dir, "/installed"), *src = joined(dir, "/src");
    char *inst = joined(dir, "/install"), *tree = v->source ? joined(v->source, "/.") : NULL;
    if (!marker || !src || !inst || !tree) {
        b->failed = true;
    } else {
        put_word_after(b, "[ -e ", marker);
        put_word_after(b, " ] || ( rm -rf ", src);
        put_word_after(b, " ", inst);
        put_word_after(b, " && mkdir -p ", src);
        put_word_after(b, " && cp -a ", tree);
        put_word_after(b, " ", src);
        put_word_after(b, " && cd ", src);
        for (size_t i = 0; i < v->n_patches; i++)
            put_word_after(b, i == 0 ? " && for p in " : " ", v->patches[i]);
        if (v->n_patches)
            put_string(b, "; do patch -p1 < \"$p\" || exit 1; done");
        put_string(b, " && if command -v ccache >/dev/null; then set -- CC='ccache gcc'; "
                      "else set --; fi");
        put_word_after(b, " && ./configure --prefix=", inst);
        put_string(b, " \"$@\"");
        for (size_t i = 0; i < configure->n; i++)
            put_word_after(b, " ", configure->words[i]);
        if (v->cflags)
            put_word_after(b, " CFLAGS=", v->cflags);
        put_string(b, " && make -j\"$(nproc)\" && make install");
        put_word_after(b, " && touch ", marker);
        put_string(b, " )");
    }
    free(marker);
    free(src);
    free(inst);
    free(tree);
}

int experiment_source_build(experiment_variant *v, const char *cache_dir,
                            const command_words *configure, const uint64_t *patch_hashes)
{
    char key[32];
    snprintf(key, sizeof key, "/builds/%016" PRIx64, build_key(v, patch_hashes));
    char *dir = joined(cache_dir, key);
    text_buffer b = {0};
    if (dir)
        put_build_line(&b, v, dir, configure);
    free(v->bindir);
    free(v->build);
    v->bindir = dir ? joined(dir, "/install/bin") : NULL;
    v->build = dir ? finish(&b) : NULL;
    free(dir);
    return v->bindir && v->build ? 0 : -1;
}

/* ---- the plan ---- */

/* A source variant's bindir is CACHE/builds/KEY/install/bin: the plan takes the part after
 * CACHE, whose KEY stands for the patches' contents, and not the build line, which names
 * CACHE: moving the cache must not make a new plan. */
static void hash_pg_variant(plan_hasher *h, const experiment *e, const experiment_variant *v)
{
    const char *cache = e->postgres.cache_dir;
    bool in_cache = v->source && cache && v->bindir &&
                    strncmp(v->bindir, cache, strlen(cache)) == 0;
    hash_field(h, 'B', in_cache ? v->bindir + strlen(cache) : v->bindir);
    hash_field(h, 'S', v->source);
    hash_field(h, 'O', v->configure);
    hash_field(h, 'F', v->cflags);
    hash_field(h, 'C', v->conninfo);
    hash_pairs(h, 'G', v->pg_settings, v->n_pg_settings);
}

static void hash_variant(plan_hasher *h, const experiment *e, const experiment_variant *v)
{
    hash_field(h, 'V', v->name);
    hash_number(h, 'c', v->n_command);
    for (size_t i = 0; i < v->n_command; i++)
        hash_field(h, 'w', v->command[i]);
    hash_number(h, 's', v->shell);
    hash_field(h, 'b', v->source ? NULL : v->build);
    hash_field(h, 'd', v->cwd);
    hash_pairs(h, 'e', v->env, v->n_env);
    if (e->target == TARGET_POSTGRES)
        hash_pg_variant(h, e, v);
}

/* Only for target postgres, so that the plans of command experiments stay as they were. */
static void hash_postgres(plan_hasher *h, const experiment *e)
{
    const experiment_postgres *pg = &e->postgres;
    if (e->target != TARGET_POSTGRES)
        return;
    hash_field(h, 'T', "postgres");
    hash_number(h, 'z', (uint64_t)pg->scale);
    hash_pairs(h, 'g', pg->settings, pg->n_settings);
    hash_number(h, 'f', pg->fresh);
    hash_number(h, 'i', pg->pin);
    if (pg->warm_runs > 0) /* absent from older plans: they stay resumable */
        hash_number(h, 'w', (uint64_t)pg->warm_runs);
    hash_field(h, 'a', pg->run_as);
    hash_number(h, 'L', e->n_workload);
    for (size_t i = 0; i < e->n_workload; i++)
        hash_field(h, 'l', e->workload[i]);
}

static void hash_budget(plan_hasher *h, const experiment *e)
{
    char seconds[32];
    hash_number(h, 'S', e->has_seed);
    hash_number(h, 's', e->has_seed ? e->seed : 0);
    hash_number(h, 'A', e->adaptive);
    hash_number(h, 'r', e->repetitions);
    hash_number(h, 'n', e->adaptive ? e->min_blocks : 0);
    hash_number(h, 'x', e->adaptive ? e->max_blocks : 0);
    snprintf(seconds, sizeof seconds, "%.17g", e->adaptive ? e->max_seconds : 0.0);
    hash_field(h, 't', seconds);
    hash_number(h, 'W', e->warmup);
}

uint64_t experiment_plan_hash(const experiment *e)
{
    plan_hasher h = {EXPERIMENT_FNV_OFFSET};
    hash_field(&h, '#', "verdict-plan/1"); /* bump when the serialization changes */
    hash_number(&h, 'P', e->n_parameters);
    for (size_t i = 0; i < e->n_parameters; i++) {
        hash_field(&h, 'p', e->parameters[i].name);
        hash_number(&h, 'n', e->parameters[i].n_values);
        for (size_t j = 0; j < e->parameters[i].n_values; j++)
            hash_field(&h, 'v', e->parameters[i].values[j]);
    }
    hash_number(&h, 'V', e->n_variants);
    for (size_t i = 0; i < e->n_variants; i++)
        hash_variant(&h, e, &e->variants[i]);
    hash_budget(&h, e);
    hash_number(&h, 'M', e->n_metrics);
    for (size_t i = 0; i < e->n_metrics; i++) {
        hash_field(&h, 'm', e->metrics[i].name);
        hash_field(&h, 'x', e->metrics[i].regex);
        hash_number(&h, 'h', e->metrics[i].higher_is_better);
    }
    /* What runs around the measurements changes what is measured. */
    hash_field(&h, 'u', e->setup);
    hash_field(&h, 'd', e->teardown);
    hash_field(&h, 'q', e->prepare);
    hash_postgres(&h, e);
    return h.state;
}

uint64_t experiment_text_hash(const experiment *e)
{
    plan_hasher h = {EXPERIMENT_FNV_OFFSET};
    if (e->text)
        hash_bytes(&h, e->text, e->text_length);
    return h.state;
}

/* The PostgreSQL target's recipe for a source tree: copied into the cache, patched,
 * configured, built and installed once per key of its ingredients; interrupted builds redone. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"
#include "common/strbuf.h"
#include "core/experiment_loader.h"
#include "core/plan_hash.h"
#include "targets/postgres_options.h"

static uint64_t build_key(const postgres_variant *v)
{
    uint64_t h = HASH_FNV_OFFSET;
    plan_hash_field(&h, '#', "verdict-pg-build/1"); /* bump when the build recipe changes */
    plan_hash_field(&h, 's', v->source);
    plan_hash_field(&h, 'o', v->configure);
    plan_hash_field(&h, 'f', v->cflags);
    plan_hash_number(&h, 'n', v->n_patches);
    for (size_t i = 0; i < v->n_patches; i++)
        plan_hash_number(&h, 'p', v->patch_hashes[i]);
    return h;
}

static char *joined(const char *a, const char *b)
{
    strbuf out = STRBUF_INIT;
    strbuf_appendf(&out, "%s%s", a, b);
    return strbuf_detach(&out);
}

/* before, then a shell word, so that "--prefix=" and the quoted path make one word. */
static void put_word_after(strbuf *b, const char *before, const char *word)
{
    strbuf_append(b, before);
    loader_put_shell_word(b, word);
}

/* Patches, configure and make run in a copy of the tree (the user's tree stays clean); the
 * marker file is written last, so an interrupted build is redone rather than trusted. ccache
 * goes before the user's configure options, which may still set CC themselves. */
static void put_build_line(strbuf *b, const postgres_variant *v, const char *dir)
{
    char *marker = joined(dir, "/installed"), *src = joined(dir, "/src");
    char *inst = joined(dir, "/install"), *tree = joined(v->source, "/.");
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
            strbuf_append(b, "; do patch -p1 < \"$p\" || exit 1; done");
        strbuf_append(b, " && if command -v ccache >/dev/null; then set -- CC='ccache gcc'; "
                         "else set --; fi");
        put_word_after(b, " && ./configure --prefix=", inst);
        strbuf_append(b, " \"$@\"");
        for (size_t i = 0; i < v->configure_words.n; i++)
            put_word_after(b, " ", v->configure_words.words[i]);
        if (v->cflags)
            put_word_after(b, " CFLAGS=", v->cflags);
        strbuf_append(b, " && make -j\"$(nproc)\" && make install");
        put_word_after(b, " && touch ", marker);
        strbuf_append(b, " )");
    }
    free(marker);
    free(src);
    free(inst);
    free(tree);
}

int postgres_source_build(experiment_variant *ev, const char *cache_dir)
{
    postgres_variant *v = postgres_variant_of(ev);
    char key[32];
    snprintf(key, sizeof key, "/builds/%016" PRIx64, build_key(v));
    char *dir = joined(cache_dir, key);
    strbuf b = STRBUF_INIT;
    if (dir)
        put_build_line(&b, v, dir);
    free(v->bindir);
    free(ev->build);
    v->bindir = dir ? joined(dir, "/install/bin") : NULL;
    ev->build = dir ? strbuf_detach(&b) : (strbuf_free(&b), NULL);
    ev->build_is_derived = true;
    free(dir);
    return v->bindir && ev->build ? 0 : -1;
}

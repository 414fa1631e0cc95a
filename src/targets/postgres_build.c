/* The PostgreSQL target's recipe for a variant's source: ./configure, or meson (PostgreSQL
 * 16 and later build with either; 15 only with configure), installed into $PREFIX. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/strbuf.h"
#include "pg/cluster.h"
#include "targets/postgres_options.h"

/* The recipe runs in the build's copy of the tree with PREFIX, MAKEFLAGS (-jN) and, when
 * ccache is installed, ccache first in PATH (src/build). Its arguments are the options:
 * the way ("configure", "meson" or "auto"), CFLAGS (or ""), then that way's own options;
 * they are part of the build's key.
 * Nothing is installed outside PREFIX, whatever the source says: Debian's postgresql-15
 * sends extension modules to /usr/lib/postgresql/15/lib unless libdir names "postgres"
 * (so --libdir does), and the install goes through a DESTDIR staging directory first, so
 * that a file bound elsewhere stops the build instead of replacing the system's. */
static const char recipe[] =
    "way=$1; cflags=$2; shift 2\n"
    "if [ -n \"$cflags\" ]; then CFLAGS=$cflags; export CFLAGS; fi\n"
    "if [ \"$way\" = auto ]; then\n"
    "  if [ -f configure ]; then way=configure; elif [ -f meson.build ]; then way=meson;\n"
    "  else echo 'verdict: the source has neither configure nor meson.build' >&2; exit 2; fi\n"
    "fi\n"
    "stage=$PWD/_verdict_stage\n"
    "rm -rf \"$stage\"\n"
    "if [ \"$way\" = configure ]; then\n"
    "  ./configure --prefix=\"$PREFIX\" --libdir=\"$PREFIX/lib/postgresql\" \"$@\" && make &&\n"
    "    make install DESTDIR=\"$stage\" || exit\n"
    "else\n"
    "  meson setup _verdict_build --prefix=\"$PREFIX\" --libdir=lib/postgresql \"$@\" &&\n"
    "    ninja -C _verdict_build && DESTDIR=\"$stage\" meson install -C _verdict_build \\\n"
    "    --no-rebuild || exit\n"
    "fi\n"
    "outside=$(find \"$stage\" -path \"$stage$PREFIX\" -prune -o ! -type d -print | head -5)\n"
    "if [ -n \"$outside\" ]; then\n"
    "  echo \"verdict: the install writes outside its prefix $PREFIX; refused:\" >&2\n"
    "  echo \"$outside\" | sed \"s|^$stage||\" >&2; exit 2\n"
    "fi\n"
    "cp -a \"$stage$PREFIX/.\" \"$PREFIX/\" && rm -rf \"$stage\"\n";

int postgres_build_recipe(const experiment *e, const experiment_variant *ev, strbuf *out,
                          command_words *options, verdict_error *err)
{
    (void)e;
    const postgres_variant *v = postgres_variant_of(ev);
    const command_words *own = v->meson ? &v->meson_words : &v->configure_words;
    const char *way = v->meson ? "meson" : v->configure ? "configure" : "auto";
    int rc = command_words_append(options, way) |
             command_words_append(options, v->cflags ? v->cflags : "");
    for (size_t i = 0; rc == 0 && i < own->n; i++)
        rc = command_words_append(options, own->words[i]);
    strbuf_append(out, recipe);
    if (rc != 0 || strbuf_status(out) != 0)
        return error_no_memory(err);
    return 0;
}

/* The server is what a PostgreSQL experiment compares. */
int postgres_measured_binary(const experiment *e, const experiment_variant *ev, size_t layout,
                             strbuf *path)
{
    (void)e;
    const postgres_variant *v = postgres_variant_of(ev);
    const char *install = experiment_variant_install(ev, layout);
    char found[1024] = "/usr/bin";
    if (v->conninfo)
        return -1; /* a server verdict does not start: no binary of its own to name */
    if (install)
        strbuf_appendf(path, "%s/bin/postgres", install);
    else if (v->bindir)
        strbuf_appendf(path, "%s/postgres", v->bindir);
    else if (cluster_find_bindir(found, sizeof found) == 0)
        strbuf_appendf(path, "%s/postgres", found);
    else
        return -1;
    return strbuf_status(path);
}

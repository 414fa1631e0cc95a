/* The compiler wrapper of layout twins: a small sh script written into a build, which adds
 * -ffunction-sections, links with lld and records each link; and the lld it depends on. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "build/build_internal.h"

#define LLD_MISSING "layouts need lld (apt-get install lld)"

/* The script after its two settings. Every word it adds goes after the caller's, so that
 * a build's own -fno-function-sections or -fuse-ld=bfd cannot undo a layout. A record is
 * the working directory and the words as given, each ended by a NUL (no word can hold
 * one); its name, nanoseconds then the process id, sorts in time order, and noclobber
 * (set -C) makes sure two links never share one. With VERDICT_LAYOUT_SEED set the link is
 * a layout's relink: shuffled, and not recorded. The compiler is called by name through
 * PATH, so that ccache (first in PATH) stays in effect, and split into words with globbing
 * off, since CC may be "ccache gcc". */
static const char wrapper_body[] =
    "IFS=' \t\n'\n"
    "set -f\n"
    "link=yes\n"
    "for word in \"$@\"; do\n"
    "    case $word in\n"
    "    -c | -S | -E | -M | -MM | -fsyntax-only | --version | --help | --help=*) link=no ;;\n"
    "    -dumpversion | -dumpfullversion | -dumpmachine | -dumpspecs) link=no ;;\n"
    "    -print-* | '-###') link=no ;;\n"
    "    esac\n"
    "done\n"
    "if [ \"$link\" = no ]; then\n"
    "    exec $compiler \"$@\" -ffunction-sections\n"
    "fi\n"
    "if [ -n \"${VERDICT_LAYOUT_SEED-}\" ]; then\n"
    "    exec $compiler \"$@\" -ffunction-sections -fuse-ld=lld \\\n"
    "        \"-Wl,--shuffle-sections=.text*=$VERDICT_LAYOUT_SEED\"\n"
    "fi\n"
    "set -C\n"
    "record=$links/$(date +%s%N)-$$\n"
    "if ! printf '%s\\0' \"$(pwd -P)\" \"$@\" >\"$record\"; then\n"
    "    echo \"cc-layouts: cannot record this link in $links\" >&2\n"
    "    exit 125\n"
    "fi\n"
    "exec $compiler \"$@\" -ffunction-sections -fuse-ld=lld\n";

void build_shell_word(strbuf *b, const char *word)
{
    if (word[0] != '\0' && strspn(word, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                        "0123456789_-+=/.,:@%") == strlen(word)) {
        strbuf_append(b, word);
        return;
    }
    strbuf_append(b, "'");
    for (const char *p = word; *p; p++) {
        if (*p == '\'')
            strbuf_append(b, "'\\''"); /* closed, an escaped quote, reopened */
        else
            strbuf_append_bytes(b, p, 1);
    }
    strbuf_append(b, "'");
}

/* The compiler verdict itself would use: $CC (which may hold words), else cc. */
static const char *real_compiler(void)
{
    const char *cc = getenv("CC");
    return cc && cc[0] ? cc : "cc";
}

static char *wrapper_text(const char *links)
{
    strbuf b = STRBUF_INIT;
    strbuf_append(&b, "#!/bin/sh\n# Written by verdict for layout twins (docs/experiments.md): "
                      "-ffunction-sections in\n# every compilation; links by lld, recorded in "
                      "links/ to be redone per layout.\ncompiler=");
    build_shell_word(&b, real_compiler());
    strbuf_append(&b, "\nlinks=");
    build_shell_word(&b, links);
    strbuf_append(&b, "\n");
    strbuf_append(&b, wrapper_body);
    return strbuf_detach(&b);
}

int build_wrapper_write(const char *dir, verdict_error *err)
{
    char *links = build_path_join(dir, BUILD_LINKS_NAME);
    char *path = build_path_join(dir, BUILD_WRAPPER_NAME);
    char *text = links ? wrapper_text(links) : NULL;
    int rc = links && path && text ? 0 : error_no_memory(err);
    if (rc == 0 && mkdir(links, 0755) != 0)
        rc = error_set(err, ERROR_INTERNAL, "cannot create %s: %s", links, strerror(errno));
    rc = rc ? rc : build_write_file(dir, BUILD_WRAPPER_NAME, text, false, err);
    if (rc == 0 && chmod(path, 0755) != 0)
        rc = error_set(err, ERROR_INTERNAL, "cannot make %s executable: %s", path,
                       strerror(errno));
    free(links);
    free(path);
    free(text);
    return rc;
}

/* The first line of ld.lld --version into line; -1 with ERROR_USAGE when there is none. */
static int lld_version(char *line, size_t size, verdict_error *err)
{
    const char *argv[] = {"ld.lld", "--version", NULL};
    build_command c = {.argv = argv, .capture = true};
    run_result r;
    verdict_error ignored;
    if (build_command_run(&c, &r, &ignored) != 0)
        return error_set(err, ERROR_USAGE, LLD_MISSING);
    const char *out = r.stdout_text ? r.stdout_text : "";
    size_t n = strcspn(out, "\n");
    bool answered = r.exit_code == 0 && n > 0;
    if (answered)
        snprintf(line, size, "%.*s", (int)(n < size ? n : size - 1), out);
    run_result_free(&r);
    return answered ? 0 : error_set(err, ERROR_USAGE, LLD_MISSING);
}

int build_layouts_available(verdict_error *err)
{
    char line[256];
    return lld_version(line, sizeof line, err);
}

int build_layouts_hash(build_hasher *h, strbuf *ingredients, verdict_error *err)
{
    char lld[256];
    if (lld_version(lld, sizeof lld, err) != 0)
        return -1;
    strbuf line = STRBUF_INIT;
    strbuf_appendf(&line, "-ffunction-sections, ld.lld --shuffle-sections (%s)", lld);
    build_hasher_text(h, 'Y', strbuf_text(&line));
    build_hasher_text(h, 'W', wrapper_body); /* a changed wrapper builds anew */
    strbuf_appendf(ingredients, "layouts: %s\n", strbuf_text(&line));
    int rc = strbuf_status(&line) == 0 ? 0 : error_no_memory(err);
    strbuf_free(&line);
    return rc;
}

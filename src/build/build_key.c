/* A build's key: SHA-256 over the recipe version, the source's content, the patches' bytes,
 * the recipe and its options, the compiler and the flags of the environment; and the same
 * ingredients as "name: value" lines for people. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build/build_internal.h"
#include "common/array.h"

/* The variables of the environment that change what a compiler makes of the same tree. */
static const char *const flag_variables[] = {"CC", "CFLAGS", "LDFLAGS", "CPPFLAGS"};

static int hash_patch(const char *given, char **resolved, build_hasher *h, strbuf *ingredients,
                      verdict_error *err)
{
    int fd = open(given, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return error_set(err, ERROR_USAGE, "patch %s: %s", given, strerror(errno));
    struct stat st;
    int rc = 0;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        rc = error_set(err, ERROR_USAGE, "patch %s: not a regular file", given);
    if (rc == 0 && (*resolved = realpath(given, NULL)) == NULL)
        rc = error_set(err, ERROR_USAGE, "patch %s: %s", given, strerror(errno));
    rc = rc ? rc : build_hasher_file(h, 'X', fd, (uint64_t)st.st_size, given, err);
    close(fd);
    char hex[BUILD_KEY_HEX + 1];
    rc = rc ? rc : build_file_sha256(*resolved, hex, err);
    if (rc == 0)
        strbuf_appendf(ingredients, "patch: %s (sha256 %s)\n", *resolved, hex);
    return rc;
}

static int hash_patches(const build_source *source, build_inputs *in, build_hasher *h,
                        strbuf *ingredients, verdict_error *err)
{
    build_hasher_number(h, 'N', source->n_patches);
    if (source->n_patches == 0) {
        strbuf_append(ingredients, "patches: none\n");
        return 0;
    }
    in->patches = calloc(source->n_patches, sizeof *in->patches);
    if (in->patches == NULL)
        return error_no_memory(err);
    in->n_patches = source->n_patches;
    for (size_t i = 0; i < source->n_patches; i++)
        if (hash_patch(source->patches[i], &in->patches[i], h, ingredients, err) != 0)
            return -1;
    return 0;
}

static void hash_recipe(const build_spec *spec, build_hasher *h, strbuf *ingredients)
{
    build_hasher_text(h, 'R', spec->recipe);
    build_hasher_number(h, 'O', spec->n_options);
    strbuf_appendf(ingredients, "recipe: %s\n", spec->recipe);
    for (size_t i = 0; i < spec->n_options; i++) {
        build_hasher_text(h, 'o', spec->options[i]);
        strbuf_appendf(ingredients, "option: %s\n", spec->options[i]);
    }
}

/* The first line of `$CC --version` (cc when CC is unset), as a shell would run $CC, since
 * CC may hold words ("ccache gcc"). A recipe need not compile C: no compiler is no error. */
static void compiler_identity(char *line, size_t size)
{
    const char *argv[] = {"/bin/sh", "-c", "${CC:-cc} --version", NULL};
    build_command c = {.argv = argv, .capture = true};
    run_result r;
    verdict_error ignored;
    snprintf(line, size, "unknown (no compiler answered ${CC:-cc} --version)");
    if (build_command_run(&c, &r, &ignored) != 0)
        return;
    const char *out = r.stdout_text ? r.stdout_text : "";
    size_t n = strcspn(out, "\n");
    if (r.exit_code == 0 && n > 0)
        snprintf(line, size, "%.*s", (int)(n < size ? n : size - 1), out);
    run_result_free(&r);
}

static void hash_toolchain(build_hasher *h, strbuf *ingredients)
{
    char compiler[512];
    compiler_identity(compiler, sizeof compiler);
    build_hasher_text(h, 'c', compiler);
    strbuf_appendf(ingredients, "compiler: %s\n", compiler);
    for (size_t i = 0; i < ARRAY_SIZE(flag_variables); i++) {
        const char *value = getenv(flag_variables[i]);
        build_hasher_text(h, 'E', flag_variables[i]);
        if (value)
            build_hasher_text(h, 'v', value); /* set, even to "", differs from unset */
        else
            build_hasher_field(h, 'u', "", 0);
        strbuf_appendf(ingredients, "%s: %s\n", flag_variables[i], value ? value : "(unset)");
    }
}

static int resolve(const build_spec *spec, build_key *key, build_inputs *in, build_hasher *h,
                   verdict_error *err)
{
    if (spec->recipe == NULL || spec->recipe[0] == '\0')
        return error_set(err, ERROR_USAGE, "the build has no recipe (a shell line to run)");
    strbuf ingredients = STRBUF_INIT;
    build_hasher_text(h, 'V', BUILD_RECIPE_VERSION);
    int rc = build_source_hash(&spec->source, in, h, &ingredients, err);
    rc = rc ? rc : hash_patches(&spec->source, in, h, &ingredients, err);
    if (rc == 0) {
        hash_recipe(spec, h, &ingredients);
        hash_toolchain(h, &ingredients);
    }
    /* Only a build with layouts gets the field, so that the keys of others stay as they were. */
    if (rc == 0 && spec->layouts)
        rc = build_layouts_hash(h, &ingredients, err);
    rc = rc ? rc : build_hasher_finish(h, key->hex, err);
    if (rc == 0 && strbuf_status(&ingredients) != 0)
        rc = error_no_memory(err);
    if (rc == 0)
        key->ingredients = strbuf_detach(&ingredients);
    strbuf_free(&ingredients);
    return rc;
}

int build_key_resolve(const build_spec *spec, build_key *key, build_inputs *in,
                      verdict_error *err)
{
    *key = (build_key){{0}, NULL};
    *in = (build_inputs){0};
    build_hasher h;
    if (build_hasher_init(&h, err) != 0)
        return -1;
    int rc = resolve(spec, key, in, &h, err);
    build_hasher_free(&h);
    if (rc != 0) {
        build_inputs_free(in);
        if (spec->label)
            error_prefix(err, "%s", spec->label);
    }
    return rc;
}

int build_key_compute(const build_spec *spec, build_key *key, verdict_error *err)
{
    build_inputs in;
    int rc = build_key_resolve(spec, key, &in, err);
    build_inputs_free(&in);
    return rc;
}

void build_key_free(build_key *key)
{
    free(key->ingredients);
    key->ingredients = NULL;
}

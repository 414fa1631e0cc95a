/* The command target's variant keys prepare, conclude, input and output: read from files,
 * written back for the command line's experiments, hashed into the plan, substituted. */
#include "targets/command_variant.h"

#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "core/experiment_writer.h"
#include "core/plan_hash.h"
#include "core/yaml_reader.h"

command_variant *command_variant_make(experiment_variant *v)
{
    if (v->options == NULL)
        v->options = calloc(1, sizeof(command_variant));
    return v->options;
}

const command_variant *command_variant_of(const experiment_variant *v)
{
    return v->options;
}

bool command_helper_given(const command_helper *h)
{
    return h->line != NULL || h->words.n > 0;
}

int command_output_parse(const char *text, run_output *mode, const char **path)
{
    static const struct { const char *name; run_output mode; } named[] = {
        {"null", RUN_OUTPUT_NULL}, {"pipe", RUN_OUTPUT_PIPE}, {"inherit", RUN_OUTPUT_INHERIT},
    };
    *path = NULL;
    for (size_t i = 0; i < sizeof named / sizeof *named; i++)
        if (strcmp(text, named[i].name) == 0) {
            *mode = named[i].mode;
            return 0;
        }
    *mode = RUN_OUTPUT_FILE;
    *path = text;
    return text[0] ? 0 : -1;
}

/* ---- reading ---- */

/* A string is a /bin/sh line, as the top-level prepare is; a list is words run directly. */
static int read_helper(experiment_loader *l, const yaml_field *f, experiment_variant *v,
                       command_helper *h)
{
    char context[96];
    snprintf(context, sizeof context, "variant %.40s's %.20s", v->name, f->key);
    if (command_helper_given(h))
        return yaml_fail_field(loader_reader(l), f, "'%s' is given twice", f->key);
    if (!loader_is_sequence(f))
        return loader_read_template(l, f, context, LOADER_VARIANT_TEXT, &h->line);
    return loader_read_words(l, f, false, f->key, context, LOADER_VARIANT_TEXT, &h->words);
}

static int variant_prepare(experiment_loader *l, const yaml_field *f, void *target)
{
    command_variant *c = command_variant_make(target);
    return c ? read_helper(l, f, target, &c->prepare) : yaml_fail(loader_reader(l), NULL,
                                                                  "out of memory");
}

static int variant_conclude(experiment_loader *l, const yaml_field *f, void *target)
{
    command_variant *c = command_variant_make(target);
    return c ? read_helper(l, f, target, &c->conclude) : yaml_fail(loader_reader(l), NULL,
                                                                   "out of memory");
}

static int variant_input(experiment_loader *l, const yaml_field *f, void *target)
{
    command_variant *c = command_variant_make(target);
    return c ? loader_absolute_path(l, f, &c->input) : yaml_fail(loader_reader(l), NULL,
                                                                 "out of memory");
}

static int variant_output(experiment_loader *l, const yaml_field *f, void *target)
{
    command_variant *c = command_variant_make(target);
    char *text = NULL;
    const char *path;
    if (c == NULL)
        return yaml_fail(loader_reader(l), NULL, "out of memory");
    if (yaml_string(loader_reader(l), f, "null, pipe, inherit or a file", &text) != 0)
        return -1;
    int rc = command_output_parse(text, &c->output, &path);
    if (rc != 0)
        rc = yaml_fail_field(loader_reader(l), f, "'output' is empty: give null, pipe, "
                             "inherit or a file");
    else if (path)
        rc = loader_absolute_path(l, f, &c->output_path);
    free(text);
    return rc;
}

const experiment_key command_variant_keys[COMMAND_N_VARIANT_KEYS] = {
    {"prepare", variant_prepare, 1}, {"conclude", variant_conclude, 1},
    {"input", variant_input, 1},     {"output", variant_output, 1},
};

/* ---- running ---- */

int command_helper_words(const experiment *e, const experiment_variant *v, size_t layout,
                         size_t point, const command_helper *h, command_words *out,
                             verdict_error *why)
{
    memset(out, 0, sizeof *out);
    if (h->line) {
        char *line = experiment_substitute_variant_shell(e, v, layout, point, h->line, why);
        const char *words[] = {"/bin/sh", "-c", line};
        int rc = line && command_words_copy(words, 3, out) == 0 ? 0 : -1;
        free(line);
        return rc;
    }
    out->words = calloc(h->words.n + 1, sizeof *out->words);
    if (out->words == NULL)
        return -1;
    for (size_t i = 0; i < h->words.n; i++, out->n++)
        if ((out->words[i] = experiment_substitute_variant(e, v, layout, point, h->words.words[i],
                                                           why)) == NULL)
            return -1;
    return 0;
}

/* ---- the plan and the file ---- */

static void hash_helper(uint64_t *h, char tag, const command_helper *x)
{
    plan_hash_field(h, tag, x->line);
    plan_hash_number(h, tag, x->words.n);
    for (size_t i = 0; i < x->words.n; i++)
        plan_hash_field(h, 'w', x->words.words[i]);
}

/* Nothing is hashed for a variant without options: older plans keep their hash. */
void command_variant_hash(uint64_t *h, const experiment *e, const experiment_variant *v)
{
    const command_variant *c = command_variant_of(v);
    if (c == NULL)
        return;
    plan_hash_field(h, 'C', "command-variant");
    hash_helper(h, 'q', &c->prepare);
    hash_helper(h, 'z', &c->conclude);
    plan_hash_path(h, 'i', e, c->input);
    plan_hash_number(h, 'o', (uint64_t)c->output);
    plan_hash_path(h, 'O', e, c->output_path);
}

static void write_helper(strbuf *b, const char *key, const command_helper *h,
                         const char **separator)
{
    if (!command_helper_given(h))
        return;
    strbuf_appendf(b, "%s%s: ", *separator, key);
    *separator = ", ";
    if (h->line) {
        experiment_write_scalar(b, h->line);
        return;
    }
    strbuf_append(b, "[");
    for (size_t i = 0; i < h->words.n; i++) {
        strbuf_append(b, i ? ", " : "");
        experiment_write_scalar(b, h->words.words[i]);
    }
    strbuf_append(b, "]");
}

void command_variant_write(strbuf *b, const experiment_variant *v, const char *separator)
{
    static const char *const outputs[] = {"null", "pipe", "inherit"};
    const command_variant *c = command_variant_of(v);
    if (c == NULL)
        return;
    write_helper(b, "prepare", &c->prepare, &separator);
    write_helper(b, "conclude", &c->conclude, &separator);
    if (c->input) {
        strbuf_appendf(b, "%sinput: ", separator);
        experiment_write_scalar(b, c->input);
        separator = ", ";
    }
    if (c->output != RUN_OUTPUT_NULL) {
        strbuf_appendf(b, "%soutput: ", separator);
        experiment_write_scalar(b, c->output == RUN_OUTPUT_FILE ? c->output_path
                                                                : outputs[c->output]);
    }
}

static void free_helper(command_helper *h)
{
    free(h->line);
    command_words_free(&h->words);
}

void command_variant_free(experiment_variant *v)
{
    command_variant *c = v->options;
    if (c == NULL)
        return;
    free_helper(&c->prepare);
    free_helper(&c->conclude);
    free(c->input);
    free(c->output_path);
    free(c);
    v->options = NULL;
}

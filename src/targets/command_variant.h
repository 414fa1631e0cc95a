/* A command variant's own keys: the prepare and conclude commands around each of its runs,
 * its input and where its output goes (hyperfine's per-command options), in files too. */
#ifndef VERDICT_TARGETS_COMMAND_VARIANT_H
#define VERDICT_TARGETS_COMMAND_VARIANT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/strbuf.h"
#include "common/error.h"
#include "core/command_words.h"
#include "core/experiment.h"
#include "core/experiment_loader.h"
#include "core/runner.h"

/* A command run around a measured run: a /bin/sh line (placeholders' values inserted
 * single-quoted), or words executed directly (values inserted as they are). */
typedef struct {
    char *line;                  /* NULL: words, or none */
    command_words words;         /* n 0 and no line: none */
} command_helper;

typedef struct {
    command_helper prepare;      /* before each of the variant's runs, warm-up runs included */
    command_helper conclude;     /* after each of them */
    char *input;                 /* absolute; NULL: /dev/null */
    run_output output;
    char *output_path;           /* RUN_OUTPUT_FILE: absolute */
} command_variant;

#define COMMAND_N_VARIANT_KEYS 4
extern const experiment_key command_variant_keys[COMMAND_N_VARIANT_KEYS];

/* The variant's options, made when first asked for (NULL when out of memory). */
command_variant *command_variant_make(experiment_variant *v);
/* Its options, or NULL: none given. */
const command_variant *command_variant_of(const experiment_variant *v);
bool command_helper_given(const command_helper *h);
/* "null", "pipe", "inherit" or a file (hyperfine's --output): 0, or -1 for an empty text. */
int command_output_parse(const char *text, run_output *mode, const char **path);
/* The words a helper runs at a point, substituted for the variant's layout: 0 (none: n 0),
 * or -1 with why (an unknown placeholder) or why empty (out of memory). */
int command_helper_words(const experiment *e, const experiment_variant *v, size_t layout,
                         size_t point, const command_helper *h, command_words *out,
                             verdict_error *why);

void command_variant_hash(uint64_t *h, const experiment *e, const experiment_variant *v);
void command_variant_write(strbuf *b, const experiment_variant *v, const char *separator);
void command_variant_free(experiment_variant *v);

#endif

/* Splits a command string into words the way a POSIX shell would (quotes, backslash
 * escapes), without expansions: verdict executes the words directly, never through a shell. */
#ifndef VERDICT_CORE_COMMAND_WORDS_H
#define VERDICT_CORE_COMMAND_WORDS_H

#include <stddef.h>

#include "common/error.h"

typedef struct {
    char **words; /* NULL-terminated, each malloc'ed */
    size_t n;
} command_words;

/* Returns 0, or -1 with a message (unterminated quote, empty command) in err. */
int command_words_split(const char *line, command_words *out, verdict_error *err);
/* Copies an argv-style list. */
int command_words_copy(const char *const *words, size_t n, command_words *out);
/* Adds a copy of word at the end: 0, or -1 when out of memory. */
int command_words_append(command_words *words, const char *word);
void command_words_free(command_words *words);
/* Quotes the words back into one line a shell would split the same way (for messages). */
char *command_words_join(const command_words *words);

#endif

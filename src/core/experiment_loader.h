/* What the experiment loader offers the targets, which read keys of their own (postgres:,
 * workload:, a variant's bindir): key tables, the walker, and typed readers of values. */
#ifndef VERDICT_CORE_EXPERIMENT_LOADER_H
#define VERDICT_CORE_EXPERIMENT_LOADER_H

#include <stdbool.h>
#include <stddef.h>

#include "common/strbuf.h"
#include "common/error.h"
#include "core/command_words.h"
#include "core/experiment.h"
#include "core/yaml_reader.h"

typedef struct experiment_loader experiment_loader; /* one file being read */

typedef int (*experiment_key_fn)(experiment_loader *l, const yaml_field *f, void *target);

/* One key of a mapping. pass: 0 is read first (parameters, which placeholders refer to,
 * and target, which decides the keys allowed), 2 last (variants, which inherit the
 * top-level keys); everything else in pass 1. */
typedef struct {
    const char *key;
    experiment_key_fn handle;
    int pass;
} experiment_key;

experiment *loader_experiment(experiment_loader *l);
yaml_reader *loader_reader(experiment_loader *l);
/* The node of the file's 'target:' key (for messages about the target as a whole), or NULL. */
struct fy_node *loader_target_node(experiment_loader *l);
/* "'KEY' is not used with 'target: T': WHY" at the key; returns -1. */
int loader_refuse_key(experiment_loader *l, const yaml_field *f, const char *why);

/* Walks a mapping whose keys are fixed: unknown (with the closest known key suggested) and
 * repeated keys are errors naming the line. where: " in 'postgres'" for the messages. */
int loader_walk(experiment_loader *l, struct fy_node *map, const experiment_key *keys,
                size_t n_keys, const char *where, void *target);
/* Reads a pair's key, which must be a plain piece of text. */
int loader_read_key(experiment_loader *l, struct fy_node_pair *pair, yaml_field *f);
bool loader_is_mapping(const yaml_field *f);
bool loader_is_sequence(const yaml_field *f);
int loader_need_mapping(experiment_loader *l, const yaml_field *f, const char *what);
/* The node of word i of a list of words (for messages), or the string's node. */
struct fy_node *loader_word_node(const yaml_field *f, size_t i);

/* Whose text a template is: a variant's own (its command, cwd, env, build, or a top-level
 * default copied into each variant), where {tree} names the variant's built tree; or one
 * the whole experiment shares (setup, the workload, the kernel's arg), where {tree} would
 * name no tree and is refused when the file is read rather than when the run reaches it. */
typedef enum { LOADER_SHARED_TEXT, LOADER_VARIANT_TEXT } loader_text_owner;

/* A list of words, or a string split like a shell (one word with shell), placeholders
 * checked in each word. label names the list in messages ("command", "pgbench"). */
int loader_read_words(experiment_loader *l, const yaml_field *f, bool shell, const char *label,
                      const char *context, loader_text_owner owner, command_words *out);
/* A shell line or path that may hold placeholders. */
int loader_read_template(experiment_loader *l, const yaml_field *f, const char *context,
                         loader_text_owner owner, char **out);
/* Relative paths are relative to the experiment file's directory, and made absolute. */
int loader_absolute_path(experiment_loader *l, const yaml_field *f, char **out);
/* An absolute path of something that exists (symbolic links resolved). */
int loader_existing_path(experiment_loader *l, const yaml_field *f, const char *what,
                         char **out);
/* Adds or replaces NAME=value in a list of pairs; 0, or -1 when out of memory. */
int loader_set_pair(experiment_env **list, size_t *n, const char *name, const char *value);
void loader_free_pairs(experiment_env *pairs, size_t n);

/* Checks the {placeholders} of text against the experiment's parameters ({tree} too when
 * owner is LOADER_VARIANT_TEXT): 0, or -1 with the problem ("unknown placeholder {m}",
 * "unmatched '{'") in problem. */
int experiment_placeholders_check(const experiment *e, const char *text,
                                  loader_text_owner owner, verdict_error *problem);
/* Whether text (which passed the check) names {tree}; "{{tree}}" is a literal. */
bool experiment_names_tree(const experiment *e, const char *text);
/* Calls visit with every text that text becomes over the points: once per combination of
 * the values of the parameters it names. Stops at the first nonzero return and returns it;
 * -1 when out of memory. text must have passed experiment_placeholders_check. */
int experiment_each_substitution(const experiment *e, const char *text,
                                 int (*visit)(const char *value, void *context), void *context);
/* Appends value as one single-quoted shell word for a template that experiment_substitute_shell
 * will read ({ and } doubled): how a target writes paths into a build line it derives. */
void loader_put_shell_word(strbuf *b, const char *value);

#endif

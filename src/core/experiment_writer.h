/* An experiment written as an experiment file: how the command line's experiments (two
 * commands, a kernel module) are stored, so that reports read them back like any file. */
#ifndef VERDICT_CORE_EXPERIMENT_WRITER_H
#define VERDICT_CORE_EXPERIMENT_WRITER_H

#include <stdbool.h>

#include "common/strbuf.h"
#include "core/experiment.h"

/* A YAML double-quoted scalar, every byte that needs it escaped. */
void experiment_write_scalar(strbuf *b, const char *text);
/* A number as the shortest text that reads back as the same double. */
void experiment_write_number(strbuf *b, double value);
/* The whole file; NULL when out of memory. Helpers are written as shell lines (the files'
 * only kind), which is what a report needs: it runs nothing. */
char *experiment_to_yaml(const experiment *e);
/* e->text (and its length) set to experiment_to_yaml(e): 0, or -1 when out of memory. */
int experiment_set_written_text(experiment *e);
/* Why text cannot stand in an experiment file (as a key when is_key: a variant's name), or
 * NULL when it can: "is empty", "is not UTF-8 text", "is longer than 4095 bytes". */
const char *experiment_unwritable(const char *text, bool is_key);
/* text with every brace doubled, so that a template reads it as itself (no placeholder). */
char *experiment_literal_template(const char *text);

#endif

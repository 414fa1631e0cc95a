/* Small helpers to read the text files of /proc and /sys, where any file may be absent
 * (containers, VMs, other architectures) and absence must never be an error. */
#ifndef VERDICT_ENV_PROC_TEXT_H
#define VERDICT_ENV_PROC_TEXT_H

#include <stdbool.h>
#include <stddef.h>

/* Reads the start of a text file into buf (at most cap-1 bytes), NUL-terminated, with
 * trailing whitespace removed. Returns 0, or -1 when the file cannot be read. */
int read_small_file(const char *path, char *buf, size_t cap);

/* Parses a kernel CPU list such as "0-3,8,10-11" (trailing newline allowed). Stores the
 * first max ids in ids and returns how many CPUs the list names, or -1 when malformed. */
int parse_cpu_list(const char *text, int *ids, int max);

/* True when word appears as a whole blank-separated word of list. */
bool has_word(const char *list, const char *word);

/* Removes leading and trailing whitespace in place; returns s. */
char *trim_blanks(char *s);

#endif

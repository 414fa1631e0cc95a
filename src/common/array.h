/* Growable arrays: one helper that makes room for n items of any type, with the size
 * arithmetic checked for overflow, so that no list of user-sized things has a fixed cap. */
#ifndef VERDICT_COMMON_ARRAY_H
#define VERDICT_COMMON_ARRAY_H

#include <stddef.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Makes *items hold at least `needed` items of item_size bytes, doubling the capacity
 * (new items are zeroed). 0, or -1 when out of memory or the size would overflow; the
 * array is unchanged then. Use: array_reserve((void **)&list.items, &list.capacity,
 * list.n + 1, sizeof *list.items). */
int array_reserve(void **items, size_t *capacity, size_t needed, size_t item_size);

/* a * b, or -1 when it overflows size_t (for sizes computed from user input). */
int size_multiply(size_t a, size_t b, size_t *out);

#endif

/* The growable-array helper: capacity doubling with overflow checks and zeroed growth.
 * Callers keep their own typed pointer, count and capacity. */
#include "common/array.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int size_multiply(size_t a, size_t b, size_t *out)
{
    if (a != 0 && b > SIZE_MAX / a)
        return -1;
    *out = a * b;
    return 0;
}

int array_reserve(void **items, size_t *capacity, size_t needed, size_t item_size)
{
    if (needed <= *capacity)
        return 0;
    size_t grown = *capacity ? *capacity : 8;
    while (grown < needed) {
        if (grown > SIZE_MAX / 2)
            return -1;
        grown *= 2;
    }
    size_t bytes;
    if (size_multiply(grown, item_size, &bytes) != 0)
        return -1;
    void *resized = realloc(*items, bytes);
    if (resized == NULL)
        return -1;
    memset((char *)resized + *capacity * item_size, 0, (grown - *capacity) * item_size);
    *items = resized;
    *capacity = grown;
    return 0;
}

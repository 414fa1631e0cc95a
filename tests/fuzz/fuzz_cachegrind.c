/* libFuzzer target for the reader of cachegrind's output files: any bytes give either totals
 * of named events that add up consistently, or an error naming the input; never a crash. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/cachegrind.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_totals(const cachegrind_totals *totals)
{
    if (totals->n == 0 || totals->n > CACHEGRIND_MAX_EVENTS || totals->files != 1)
        abort();
    for (size_t i = 0; i < totals->n; i++) {
        if (memchr(totals->names[i], '\0', CACHEGRIND_EVENT_NAME) == NULL ||
            totals->names[i][0] == '\0')
            abort();
        for (size_t j = 0; j < i; j++)
            if (strcmp(totals->names[i], totals->names[j]) == 0)
                abort();
    }
    /* a file added twice to an empty run doubles every total, or overflows with a message */
    cachegrind_totals sum = {0};
    verdict_error err;
    if (cachegrind_add(&sum, totals, &err) != 0 || sum.n != totals->n)
        abort();
    if (cachegrind_add(&sum, totals, &err) == 0) {
        for (size_t i = 0; i < totals->n; i++)
            if (sum.totals[i] != 2 * totals->totals[i])
                abort();
    } else if (err.message[0] == '\0') {
        abort();
    }
    for (size_t i = 0; i < cachegrind_count_count(); i++) {
        uint64_t value;
        if (cachegrind_value(totals, cachegrind_count_at(i), &value, &err) != 0 &&
            err.message[0] == '\0')
            abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cachegrind_totals totals;
    verdict_error err = {ERROR_NONE, ""};
    if (cachegrind_parse((const char *)data, size, "fuzz", &totals, &err) == 0)
        check_totals(&totals);
    else if (!error_is(&err, ERROR_BAD_INPUT) || strncmp(err.message, "fuzz", 4) != 0)
        abort();
    return 0;
}

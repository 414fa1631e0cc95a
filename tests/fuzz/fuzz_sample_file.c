/* libFuzzer target for the sample-file parser: any bytes must give either samples
 * that are all positive and finite, or an error message, and never a crash or leak. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"

#include "core/sample_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    int column = data[0] % 5; /* the first byte picks -C 0..4 */
    sample_series series;
    verdict_error err = {0};
    if (sample_text_parse("fuzz", (const char *)data + 1, size - 1, column, &series, &err) == 0) {
        if (series.n == 0)
            abort();
        for (size_t i = 0; i < series.n; i++)
            if (!(series.values[i] > 0.0) || !isfinite(series.values[i]) || series.lines[i] == 0)
                abort();
        sample_series_free(&series);
    } else if (err.kind == ERROR_NONE || err.message[0] == '\0' || series.values != NULL) {
        abort();
    }
    return 0;
}

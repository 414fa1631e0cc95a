/* The one conversion of the statistics library's result codes into a verdict_error: the kind
 * of each code, and a message naming what was being done. */
#include "core/stats_error.h"

#include <assert.h>

int stats_error_set(verdict_error *err, stats_status status, const char *doing)
{
    assert(status != STATS_OK && doing != NULL);
    switch (status) {
    case STATS_ERR_NOMEM:
        return error_set(err, ERROR_NO_MEMORY, "out of memory during %s", doing);
    case STATS_ERR_TOO_FEW:
    case STATS_ERR_DEGENERATE:
        return error_set(err, ERROR_BAD_INPUT, "%s: %s", doing, stats_status_message(status));
    case STATS_ERR_DOMAIN:
    case STATS_OK:
        break;
    }
    return error_set(err, ERROR_INTERNAL, "%s: %s", doing, stats_status_message(status));
}

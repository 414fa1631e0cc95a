/* Human-readable text for stats_status codes.
 * Kept apart so every statistics file can report errors the same way. */
#include "status.h"

const char *stats_status_message(stats_status status)
{
    switch (status) {
    case STATS_OK: return "ok";
    case STATS_ERR_NOMEM: return "out of memory";
    case STATS_ERR_TOO_FEW: return "too few observations";
    case STATS_ERR_DOMAIN: return "argument out of range";
    case STATS_ERR_DEGENERATE: return "the data carry no information (all values equal)";
    }
    return "unknown error";
}

/* Status codes shared by every function of the statistics library.
 * The library does no I/O: callers turn a status into a message with stats_status_message. */
#ifndef VERDICT_STATS_STATUS_H
#define VERDICT_STATS_STATUS_H

typedef enum {
    STATS_OK = 0,
    STATS_ERR_NOMEM,     /* an allocation failed */
    STATS_ERR_TOO_FEW,   /* not enough observations for the method */
    STATS_ERR_DOMAIN,    /* an argument outside its domain (confidence not in (0,1), NaN, ...) */
    STATS_ERR_DEGENERATE /* the data carry no information (all differences zero, zero variance) */
} stats_status;

const char *stats_status_message(stats_status status);

#endif

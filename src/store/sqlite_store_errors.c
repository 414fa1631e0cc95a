/* Error messages of the SQLite store: every one names the store's path and says what to do,
 * and keeps SQLite's own words so nothing is hidden. */
#include <stdarg.h>
#include <stdio.h>

#include "common/error.h"

#include "store/sqlite_store_internal.h"

#define STORE_STRINGIFY_TEXT(x) #x
#define STORE_STRINGIFY(x) STORE_STRINGIFY_TEXT(x)

/* The words for the failures a user can act on; NULL for the rest (SQLite's text is shown). */
static const char *advice_for(int primary_code)
{
    switch (primary_code) {
    case SQLITE_FULL:
        return "disk full; what was stored before is intact, free some space and run again "
               "to resume";
    case SQLITE_NOTADB:
        return "not a SQLite database, so not a verdict store";
    case SQLITE_CANTOPEN:
        return "cannot open or create the file; does the directory exist, and is it "
               "writable?";
    case SQLITE_READONLY:
    case SQLITE_PERM:
        return "the store is read-only; check the permissions of the file and its directory";
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        return "another process kept the store locked for longer than "
               STORE_STRINGIFY(STORE_BUSY_TIMEOUT_SECONDS) " s";
    case SQLITE_CORRUPT:
        return "the file is damaged; restore it from a copy";
    case SQLITE_IOERR:
        return "input/output error from the operating system";
    case SQLITE_NOMEM:
        return "out of memory";
    default:
        return NULL;
    }
}

int sqlite_store_fail_db(sqlite3 *db, const char *path, int rc, const char *doing,
                         verdict_error *err)
{
    const char *sqlite_text = db != NULL ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    const char *advice = advice_for(rc & 0xff);
    /* a file that is not a store is the user's mistake; the rest is the store's failure */
    error_kind kind = (rc & 0xff) == SQLITE_NOTADB ? ERROR_BAD_INPUT
                      : (rc & 0xff) == SQLITE_NOMEM ? ERROR_NO_MEMORY : ERROR_STORE;
    if (advice != NULL)
        return error_set(err, kind, "%s: %s (while %s: %s)", path, advice, doing, sqlite_text);
    return error_set(err, kind, "%s: error while %s: %s", path, doing, sqlite_text);
}

int sqlite_store_fail(const sqlite_store *s, int rc, const char *doing, verdict_error *err)
{
    return sqlite_store_fail_db(s->db, s->path, rc, doing, err);
}

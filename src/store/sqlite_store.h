/* The SQLite back end's one extra: its raw connection, for tests that simulate a full disk
 * and for maintenance tools. Everything else goes through store/store.h. */
#ifndef VERDICT_STORE_SQLITE_STORE_H
#define VERDICT_STORE_SQLITE_STORE_H

#include <sqlite3.h>

#include "store/store.h"

/* Borrowed: valid until store_close. */
sqlite3 *sqlite_store_connection(store *s);

#endif

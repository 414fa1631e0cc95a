/* Values between C and the PostgreSQL store's text protocol: numbers as parameters and
 * back (exact for doubles: 17 digits out, shortest-exact digits in), arrays for unnest. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/strbuf.h"
#include "store/pg_store.h"

const char *pg_store_int(pg_store_number *slot, long long value)
{
    snprintf(slot->text, sizeof slot->text, "%lld", value);
    return slot->text;
}

static void format_double(char *out, size_t size, double value)
{
    if (isinf(value))
        snprintf(out, size, "%s", value > 0 ? "Infinity" : "-Infinity");
    else
        snprintf(out, size, "%.17g", value);
}

const char *pg_store_double(pg_store_number *slot, double value)
{
    if (isnan(value))
        return NULL;
    format_double(slot->text, sizeof slot->text, value);
    return slot->text;
}

long long pg_store_get_int(const PGresult *res, int row, int column)
{
    return PQgetisnull(res, row, column) ? 0 : strtoll(PQgetvalue(res, row, column), NULL, 10);
}

double pg_store_get_double(const PGresult *res, int row, int column)
{
    return PQgetisnull(res, row, column) ? NAN : strtod(PQgetvalue(res, row, column), NULL);
}

char *pg_store_text_array(const char *const *items, size_t n)
{
    strbuf out = STRBUF_INIT;
    strbuf_append(&out, "{");
    for (size_t i = 0; i < n; i++) {
        strbuf_append(&out, i > 0 ? ",\"" : "\"");
        for (const char *p = items[i]; *p != '\0'; p++) {
            if (*p == '"' || *p == '\\')
                strbuf_append_bytes(&out, "\\", 1);
            strbuf_append_bytes(&out, p, 1);
        }
        strbuf_append(&out, "\"");
    }
    strbuf_append(&out, "}");
    return strbuf_detach(&out);
}

char *pg_store_double_array(const double *values, size_t n)
{
    strbuf out = STRBUF_INIT;
    strbuf_append(&out, "{");
    for (size_t i = 0; i < n; i++) {
        char number[32] = "NULL";
        if (!isnan(values[i]))
            format_double(number, sizeof number, values[i]);
        strbuf_appendf(&out, "%s%s", i > 0 ? "," : "", number);
    }
    strbuf_append(&out, "}");
    return strbuf_detach(&out);
}

bool pg_store_keep(char **slot, const char *text)
{
    free(*slot);
    *slot = store_copy_string(text);
    return text == NULL || *slot != NULL;
}

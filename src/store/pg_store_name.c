/* The PostgreSQL store's name: verdict's own `verdict_schema=NAME` taken out of a URI or a
 * conninfo string before libpq sees it, and the password redacted for every message. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "common/strbuf.h"
#include "common/error.h"
#include "store/pg_store.h"

#define SCHEMA_KEY "verdict_schema="

/* An identifier of letters, digits and underscores, as long as PostgreSQL keeps them. */
static bool valid_schema(const char *name, size_t length)
{
    if (length == 0 || length > 63)
        return false;
    for (size_t i = 0; i < length; i++)
        if (!isalnum((unsigned char)name[i]) && name[i] != '_')
            return false;
    return true;
}

/* Copies text without the parameter at [start, end) of it, and one separator with it. */
static char *without(const char *text, size_t start, size_t end, char separator)
{
    strbuf out = STRBUF_INIT;
    if (text[end] == separator)
        end++;
    else if (start > 0 && text[start - 1] == separator)
        start--;
    strbuf_append_bytes(&out, text, start);
    strbuf_append(&out, text + end);
    return strbuf_detach(&out);
}

/* Where verdict_schema= begins as a parameter: after '?' or '&' in a URI, at the start or
 * after white space in a conninfo string; NULL when it is not there. */
static const char *find_schema_key(const char *name, bool uri)
{
    const char *query = uri ? strchr(name, '?') : NULL;
    if (uri && query == NULL)
        return NULL;
    for (const char *p = uri ? query : name; (p = strstr(p, SCHEMA_KEY)) != NULL; p++) {
        char before = p == name ? ' ' : p[-1];
        if (uri ? (before == '?' || before == '&') : isspace((unsigned char)before))
            return p;
    }
    return NULL;
}

int pg_store_parse_name(const char *name, const char *label, char **conninfo, char **schema,
                        verdict_error *err)
{
    bool uri = strstr(name, "://") != NULL;
    const char *key = find_schema_key(name, uri);
    const char *value = key != NULL ? key + strlen(SCHEMA_KEY) : PG_STORE_DEFAULT_SCHEMA;
    size_t length = strcspn(value, uri ? "&#" : " \t\r\n");
    if (!valid_schema(value, length))
        return error_set(err, ERROR_USAGE, "%s: verdict_schema=%.*s is not a schema name "
                         "(letters, digits and underscores, at most 63)", label, (int)length,
                         value);
    *schema = strndup(value, length);
    if (key == NULL)
        *conninfo = store_copy_string(name);
    else if (uri && key[-1] == '?' && value[length] != '&')
        *conninfo = without(name, (size_t)(key - 1 - name), (size_t)(value + length - name), '&');
    else
        *conninfo = without(name, (size_t)(key - name), (size_t)(value + length - name),
                            uri ? '&' : ' ');
    if (*schema == NULL || *conninfo == NULL)
        return error_set(err, ERROR_NO_MEMORY, "%s: out of memory", label);
    return 0;
}

/* user:PASSWORD@host in a URI's authority. */
static void redact_userinfo(strbuf *out, const char *name)
{
    const char *authority = strstr(name, "://");
    if (authority == NULL) {
        strbuf_append(out, name);
        return;
    }
    authority += 3;
    size_t span = strcspn(authority, "/?#");
    const char *at = memrchr(authority, '@', span);
    const char *colon = at != NULL ? memchr(authority, ':', (size_t)(at - authority)) : NULL;
    if (colon == NULL) {
        strbuf_append(out, name);
        return;
    }
    strbuf_append_bytes(out, name, (size_t)(colon + 1 - name));
    strbuf_append(out, "***");
    strbuf_append(out, at);
}

/* The end of a password=VALUE's value: a quoted conninfo value, or up to a separator. */
static const char *value_end(const char *value)
{
    if (*value != '\'')
        return value + strcspn(value, " \t\r\n&#");
    for (const char *p = value + 1; *p != '\0'; p++) {
        if (*p == '\\' && p[1] != '\0')
            p++;
        else if (*p == '\'')
            return p + 1;
    }
    return value + strlen(value);
}

char *pg_store_redact(const char *name)
{
    strbuf first = STRBUF_INIT, out = STRBUF_INIT;
    redact_userinfo(&first, name);
    const char *text = strbuf_text(&first), *p = text, *key;
    while ((key = strstr(p, "password")) != NULL) {
        const char *eq = key + strlen("password");
        while (*eq == ' ' || *eq == '\t')
            eq++;
        if (*eq != '=') {
            strbuf_append_bytes(&out, p, (size_t)(eq - p));
            p = eq;
            continue;
        }
        const char *value = eq + 1;
        while (*value == ' ' || *value == '\t')
            value++;
        strbuf_append_bytes(&out, p, (size_t)(value - p));
        strbuf_append(&out, "***");
        p = value_end(value);
    }
    strbuf_append(&out, p);
    strbuf_free(&first);
    return strbuf_detach(&out);
}

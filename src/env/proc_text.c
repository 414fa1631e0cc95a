/* Helpers to read /proc and /sys text files that may be absent, and to parse the
 * kernel's CPU list format. */
#include "env/proc_text.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A CPU id beyond this is garbage, not a machine. */
#define MAX_CPU_ID 1000000

int read_small_file(const char *path, char *buf, size_t cap)
{
    if (cap == 0)
        return -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t len = 0;
    while (len + 1 < cap) {
        ssize_t got = read(fd, buf + len, cap - 1 - len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            if (got < 0) {
                close(fd);
                return -1;
            }
            break;
        }
        len += (size_t)got;
    }
    close(fd);
    buf[len] = '\0';
    /* Binary files (or NULs inside sysfs text) end the text at the first NUL. */
    len = strlen(buf);
    while (len > 0 && isspace((unsigned char)buf[len - 1]))
        buf[--len] = '\0';
    return 0;
}

char *trim_blanks(char *s)
{
    size_t len = strlen(s);
    while (len > 0 && isspace((unsigned char)s[len - 1]))
        s[--len] = '\0';
    size_t start = 0;
    while (isspace((unsigned char)s[start]))
        start++;
    memmove(s, s + start, len - start + 1);
    return s;
}

/* Reads a CPU id; returns the position after it, or NULL. */
static const char *parse_cpu_id(const char *p, long *out)
{
    if (!isdigit((unsigned char)*p))
        return NULL;
    long value = 0;
    for (; isdigit((unsigned char)*p); p++) {
        value = value * 10 + (*p - '0');
        if (value > MAX_CPU_ID)
            return NULL;
    }
    *out = value;
    return p;
}

int parse_cpu_list(const char *text, int *ids, int max)
{
    int count = 0;
    const char *p = text;
    while (*p != '\0' && *p != '\n') {
        long first, last;
        p = parse_cpu_id(p, &first);
        if (p == NULL)
            return -1;
        last = first;
        if (*p == '-' && ((p = parse_cpu_id(p + 1, &last)) == NULL || last < first))
            return -1;
        if (last - first >= MAX_CPU_ID - count)
            return -1; /* more CPUs than any machine has: garbage */
        for (long id = first; id <= last; id++, count++)
            if (count < max)
                ids[count] = (int)id;
        if (*p == ',')
            p++;
        else if (*p != '\0' && *p != '\n')
            return -1;
    }
    return count;
}

bool has_word(const char *list, const char *word)
{
    size_t wlen = strlen(word);
    if (wlen == 0)
        return false;
    for (const char *p = strstr(list, word); p != NULL; p = strstr(p + 1, word)) {
        bool starts = p == list || isspace((unsigned char)p[-1]);
        bool ends = p[wlen] == '\0' || isspace((unsigned char)p[wlen]);
        if (starts && ends)
            return true;
    }
    return false;
}

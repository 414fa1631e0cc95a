/* Snapshots of /proc/stat and /proc/loadavg, and the interference between two of them.
 * Hand-written: no Debian library reads these two files without allocating. */
#include "env/interference.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Enough for the "cpu" lines of ~300 CPUs; the long "intr" line after them is cut off. */
#define STAT_BUFFER_BYTES 32768
#define LOADAVG_BUFFER_BYTES 256
/* Linux's USER_HZ, the unit of /proc/stat, when sysconf cannot tell. */
#define FALLBACK_CLK_TCK 100.0

/* Columns of a "cpu" line, in the kernel's order. */
enum { COL_USER, COL_NICE, COL_SYSTEM, COL_IDLE, COL_IOWAIT, COL_IRQ, COL_SOFTIRQ, COL_STEAL,
       COL_GUEST, COL_GUEST_NICE, COL_COUNT };
/* Linux 2.4 had only user, nice, system and idle; fewer columns is not a cpu line. */
#define MIN_COLUMNS 4

static bool is_blank(char c)
{
    return c == ' ' || c == '\t';
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Reads one unsigned decimal ending at a blank or the line's end. Returns the position
 * after it, or NULL when the token is not such a number (or overflows 64 bits). */
static const char *parse_u64_token(const char *p, const char *end, uint64_t *out)
{
    if (p == end || !is_digit(*p))
        return NULL;
    uint64_t value = 0;
    for (; p < end && is_digit(*p); p++) {
        uint64_t digit = (uint64_t)(*p - '0');
        if (value > (UINT64_MAX - digit) / 10)
            return NULL;
        value = value * 10 + digit;
    }
    if (p < end && !is_blank(*p))
        return NULL;
    *out = value;
    return p;
}

/* Reads up to COL_COUNT numbers; returns how many were read (trailing ones missing = 0). */
static int parse_columns(const char *p, const char *end, uint64_t col[COL_COUNT])
{
    int n = 0;
    memset(col, 0, COL_COUNT * sizeof col[0]);
    while (n < COL_COUNT) {
        while (p < end && is_blank(*p))
            p++;
        p = parse_u64_token(p, end, &col[n]);
        if (p == NULL)
            break;
        n++;
    }
    return n;
}

static cpu_times times_from_columns(const uint64_t col[COL_COUNT])
{
    /* guest and guest_nice are already counted inside user and nice: not added again. */
    return (cpu_times){
        .busy = col[COL_USER] + col[COL_NICE] + col[COL_SYSTEM] + col[COL_IRQ] +
                col[COL_SOFTIRQ],
        .idle = col[COL_IDLE] + col[COL_IOWAIT],
        .steal = col[COL_STEAL],
    };
}

/* Classifies a line: -1 aggregate "cpu", N for "cpuN", -2 for anything else. Sets *rest
 * to the text after the label. */
static long cpu_line_label(const char *p, const char *end, const char **rest)
{
    if (end - p < 4 || memcmp(p, "cpu", 3) != 0)
        return -2;
    p += 3;
    if (is_blank(*p)) {
        *rest = p;
        return -1;
    }
    long id = 0;
    const char *digits = p;
    for (; p < end && is_digit(*p) && id <= 1000000; p++)
        id = id * 10 + (*p - '0');
    if (p == digits || p == end || !is_blank(*p) || id > 1000000)
        return -2;
    *rest = p;
    return id;
}

static void add_cpu_line(cpu_snapshot *out, long id, cpu_times times)
{
    if (out->ncpu < INTERFERENCE_MAX_CPUS) {
        out->per_cpu[out->ncpu] = times;
        out->cpu_id[out->ncpu] = (int)id;
    }
    out->ncpu++;
}

int parse_proc_stat(const char *text, size_t len, cpu_snapshot *out)
{
    bool have_total = false;
    const char *p = text, *end = text + len;
    memset(&out->total, 0, sizeof out->total);
    out->ncpu = 0;
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        const char *line_end = eol ? eol : end;
        const char *rest = NULL;
        long id = cpu_line_label(p, line_end, &rest);
        uint64_t col[COL_COUNT];
        if (id != -2 && parse_columns(rest, line_end, col) >= MIN_COLUMNS) {
            if (id >= 0 && out->ncpu < INT_MAX)
                add_cpu_line(out, id, times_from_columns(col));
            else if (id == -1 && !have_total) {
                out->total = times_from_columns(col);
                have_total = true;
            }
        }
        p = eol ? eol + 1 : end;
    }
    if (!have_total) {
        errno = EINVAL;
        return -1;
    }
    return 0;
}

int parse_proc_loadavg(const char *text, size_t len, cpu_snapshot *out)
{
    char copy[LOADAVG_BUFFER_BYTES];
    size_t n = len < sizeof copy - 1 ? len : sizeof copy - 1;
    memcpy(copy, text, n);
    copy[n] = '\0';
    double l1, l5, l15;
    if (sscanf(copy, "%lf %lf %lf", &l1, &l5, &l15) != 3 || !isfinite(l1) || !isfinite(l5) ||
        !isfinite(l15)) {
        errno = EINVAL;
        return -1;
    }
    out->load1 = l1;
    out->load5 = l5;
    out->load15 = l15;
    return 0;
}

/* True once buf holds a line after the "cpu" lines: all of them have been read. */
static bool past_cpu_lines(const char *buf, size_t from, size_t len)
{
    for (size_t i = from; i + 1 < len; i++)
        if (buf[i] == '\n' && buf[i + 1] != 'c')
            return true;
    return false;
}

/* True once buf holds a whole first line (all of /proc/loadavg). */
static bool has_first_line(const char *buf, size_t from, size_t len)
{
    return memchr(buf + from, '\n', len - from) != NULL;
}

typedef bool (*enough_text)(const char *buf, size_t from, size_t len);

/* Reads a /proc file from offset 0 with pread(2) until enough() or end of file: for
 * /proc/stat it stops after the cpu lines, because the rest (interrupt counts) can be
 * many kilobytes. Keeps whole lines only when the buffer fills. Returns the length, or
 * -1 with errno set. */
static ssize_t read_proc_text(int fd, char *buf, size_t cap, enough_text enough)
{
    size_t len = 0;
    while (len < cap) {
        ssize_t got = pread(fd, buf + len, cap - len, (off_t)len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return -1;
        if (got == 0)
            break;
        size_t from = len > 0 ? len - 1 : 0;
        len += (size_t)got;
        if (enough(buf, from, len))
            break;
    }
    if (len == cap)
        while (len > 0 && buf[len - 1] != '\n')
            len--;
    return (ssize_t)len;
}

int interference_probe_open(interference_probe *probe)
{
    *probe = (interference_probe){.stat_fd = -1, .loadavg_fd = -1};
    probe->stat_fd = open("/proc/stat", O_RDONLY | O_CLOEXEC);
    probe->loadavg_fd = probe->stat_fd < 0 ? -1 : open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
    if (probe->loadavg_fd < 0) {
        int saved = errno;
        interference_probe_close(probe);
        errno = saved;
        return -1;
    }
    return 0;
}

void interference_probe_close(interference_probe *probe)
{
    if (probe->stat_fd >= 0)
        close(probe->stat_fd);
    if (probe->loadavg_fd >= 0)
        close(probe->loadavg_fd);
    probe->stat_fd = probe->loadavg_fd = -1;
}

static int64_t monotonic_ns(void)
{
    struct timespec now;
    if (clock_gettime(CLOCK_MONOTONIC, &now) != 0)
        return -1;
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

/* Rereads /proc/loadavg into the probe when what it keeps is older than the refresh. */
static int refresh_load(interference_probe *probe, int64_t now_ns)
{
    if (probe->loadavg_read_ns > 0 &&
        now_ns - probe->loadavg_read_ns < INTERFERENCE_LOADAVG_REFRESH_NS)
        return 0;
    char load_text[LOADAVG_BUFFER_BYTES];
    cpu_snapshot load;
    ssize_t n = read_proc_text(probe->loadavg_fd, load_text, sizeof load_text, has_first_line);
    if (n < 0 || parse_proc_loadavg(load_text, (size_t)n, &load) != 0)
        return -1;
    probe->load1 = load.load1;
    probe->load5 = load.load5;
    probe->load15 = load.load15;
    probe->loadavg_read_ns = now_ns;
    return 0;
}

int interference_probe_snapshot(interference_probe *probe, cpu_snapshot *out)
{
    char stat_text[STAT_BUFFER_BYTES];
    ssize_t n = read_proc_text(probe->stat_fd, stat_text, sizeof stat_text, past_cpu_lines);
    int64_t now_ns = monotonic_ns();
    if (n < 0 || now_ns < 0)
        return -1;
    if (parse_proc_stat(stat_text, (size_t)n, out) != 0)
        return -1;
    out->monotonic_ns = now_ns;
    if (refresh_load(probe, now_ns) != 0)
        return -1;
    out->load1 = probe->load1;
    out->load5 = probe->load5;
    out->load15 = probe->load15;
    return 0;
}

int interference_probe_load1(interference_probe *probe, double *load1)
{
    int64_t now_ns = monotonic_ns();
    if (now_ns < 0 || refresh_load(probe, now_ns) != 0)
        return -1;
    *load1 = probe->load1;
    return 0;
}

int interference_snapshot(cpu_snapshot *out)
{
    interference_probe probe;
    if (interference_probe_open(&probe) != 0)
        return -1;
    int rc = interference_probe_snapshot(&probe, out);
    int saved = errno;
    interference_probe_close(&probe);
    errno = saved;
    return rc;
}

static double clock_ticks_per_second(void)
{
    long tck = sysconf(_SC_CLK_TCK);
    return tck > 0 ? (double)tck : FALLBACK_CLK_TCK;
}

bool interference_resolvable(double seconds)
{
    return seconds * clock_ticks_per_second() >= INTERFERENCE_MIN_JIFFIES;
}

static double clamp_share(double x)
{
    return x < 0.0 ? 0.0 : x > 1.0 ? 1.0 : x;
}

static bool counters_advanced(const cpu_times *before, const cpu_times *after)
{
    return after->busy >= before->busy && after->idle >= before->idle &&
           after->steal >= before->steal;
}

void interference_between(const cpu_snapshot *before, const cpu_snapshot *after,
                          double run_cpu_seconds, interference *out)
{
    double tick = clock_ticks_per_second();
    double seconds = (double)(after->monotonic_ns - before->monotonic_ns) / 1e9;
    *out = (interference){.seconds = seconds, .steal = NAN, .other_busy = NAN,
                          .resolution = NAN, .load1 = after->load1, .ncpu = after->ncpu};
    if (after->ncpu <= 0 || !interference_resolvable(seconds) ||
        !counters_advanced(&before->total, &after->total))
        return;
    double capacity = seconds * after->ncpu; /* CPU-seconds the machine could run */
    double stolen = (double)(after->total.steal - before->total.steal) / tick;
    double busy = (double)(after->total.busy - before->total.busy) / tick;
    out->resolution = 1.0 / (seconds * tick);
    out->steal = clamp_share(stolen / capacity);
    if (run_cpu_seconds >= 0.0)
        out->other_busy = clamp_share((busy - run_cpu_seconds) / capacity);
}

/* Appends "; "-separated text to reason, truncating safely. */
static void append_reason(char *reason, size_t reasonlen, const char *text)
{
    if (reasonlen == 0)
        return;
    size_t used = strlen(reason);
    snprintf(reason + used, reasonlen - used, "%s%s", used > 0 ? "; " : "", text);
}

bool interference_is_disturbing(const interference *i, char *reason, size_t reasonlen)
{
    char text[160];
    bool disturbed = false;
    if (reasonlen > 0)
        reason[0] = '\0';
    if (!isfinite(i->resolution))
        return false;
    /* Granularity first: a reading within a jiffy or two per CPU of the limit is the
     * counter's own rounding, not evidence. */
    if (i->steal - INTERFERENCE_STEAL_SLACK_JIFFIES * i->resolution > INTERFERENCE_STEAL_LIMIT) {
        snprintf(text, sizeof text,
                 "steal: the hypervisor took %.1f%% of CPU time (limit %.0f%%)",
                 100.0 * i->steal, 100.0 * INTERFERENCE_STEAL_LIMIT);
        append_reason(reason, reasonlen, text);
        disturbed = true;
    }
    double other_cpus = i->other_busy * i->ncpu;
    double slack_cpus = INTERFERENCE_BUSY_SLACK_JIFFIES * i->resolution * i->ncpu;
    if (other_cpus - slack_cpus > INTERFERENCE_OTHER_CPUS_LIMIT) {
        snprintf(text, sizeof text,
                 "other-load: other work kept %.2f CPUs busy (limit %.2f)", other_cpus,
                 INTERFERENCE_OTHER_CPUS_LIMIT);
        append_reason(reason, reasonlen, text);
        disturbed = true;
    }
    return disturbed;
}

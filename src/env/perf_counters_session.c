/* perf_event_open for verdict: whether this machine can count an event (and why not, in
 * words a user can act on), and the counters of one child and its children, read unscaled. */
#include "env/perf_counters.h"

#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "env/proc_text.h"

#define PARANOID_PATH "/proc/sys/kernel/perf_event_paranoid"

/* The two groups of a session: the PMU's events, and the kernel's software events. */
enum { KIND_HARDWARE, KIND_SOFTWARE, KIND_COUNT };

/* When a session's counting starts: at the process's exec, at the open, or only between
 * perf_counters_enable's calls. */
typedef enum { START_AT_EXEC, START_AT_OPEN, START_PAUSED } session_start;

struct perf_counters_session {
    size_t n;
    int *fds;                /* one per spec; -1 where none is open */
    int *group;              /* per spec: the index of its group's leader, or -1 (alone) */
    bool grouped;
    session_start start;
};

static int event_open(struct perf_event_attr *attr, pid_t pid, int group_fd)
{
    return (int)syscall(SYS_perf_event_open, attr, pid, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
}

/* The attribute of one spec: perf's exclusions for its modifier (an unlisted level, the
 * hypervisor included, is excluded), counting only (no sampling). */
static struct perf_event_attr spec_attr(const perf_counters_spec *spec)
{
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    attr.type = spec->event->type;
    attr.config = spec->event->config;
    attr.exclude_user = (spec->scope & PERF_COUNTERS_USER) == 0;
    attr.exclude_kernel = (spec->scope & PERF_COUNTERS_KERNEL) == 0;
    attr.exclude_hv = 1;
    attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    return attr;
}

int perf_counters_paranoid(void)
{
    char text[32];
    if (read_small_file(PARANOID_PATH, text, sizeof text) != 0)
        return INT_MIN;
    char *end;
    long value = strtol(text, &end, 10);
    return end == text || *end != '\0' || value < INT_MIN + 1 || value > INT_MAX ? INT_MIN
                                                                                 : (int)value;
}

/* The kernel's permission check refused: perf_event_paranoid and what would allow the event
 * (kernel levels need 1 or less, anything at all 2 or less on Debian's and Ubuntu's 3 and
 * 4); when the level already allows it, something else forbids the call (a container's
 * seccomp profile refuses perf_event_open with EPERM). */
static int permission_refusal(const char *name, bool kernel, int errnum, int paranoid,
                              verdict_error *err)
{
    if (paranoid == INT_MIN)
        return error_set(err, ERROR_USAGE, "cannot count '%s': the kernel refuses (%s) and "
                         PARANOID_PATH " cannot be read", name, strerror(errnum));
    int needed = kernel ? 1 : 2;
    if (paranoid <= needed)
        return error_set(err, ERROR_USAGE, "cannot count '%s': perf_event_open is refused (%s) "
                         "although " PARANOID_PATH " is %d: a container's seccomp profile "
                         "or a security module forbids it (docker: --cap-add PERFMON, or a "
                         "profile that allows perf_event_open)", name, strerror(errnum),
                         paranoid);
    return error_set(err, ERROR_USAGE, "cannot count '%s': " PARANOID_PATH " is %d and "
                     "counting %s needs %d or less (or CAP_PERFMON); as root: sysctl "
                     "kernel.perf_event_paranoid=%d%s", name, paranoid,
                     kernel ? "kernel events" : "any event", needed, needed,
                     kernel ? ", or count user space only with ':u'" : "");
}

static int hardware_refusal(const char *name, const char *event, int errnum, bool has_pmu,
                            verdict_error *err)
{
    if (!has_pmu)
        return error_set(err, ERROR_USAGE, "cannot count '%s': this machine has no hardware "
                         "performance counters (a VM whose hypervisor hides the PMU, as most "
                         "cloud VMs and CI runners do, or a CPU this kernel does not know; "
                         "`perf stat -e %s` says <not supported> too)", name, event);
    return error_set(err, ERROR_USAGE, "cannot count '%s': this CPU's performance counters "
                     "have no such event (%s)", name, strerror(errnum));
}

int perf_counters_refusal(const perf_counters_spec *spec, int errnum, int paranoid,
                          bool has_pmu, verdict_error *err)
{
    char name[48];
    perf_counters_spec_name(spec, name, sizeof name);
    switch (errnum) {
    case EACCES:
    case EPERM:
        return permission_refusal(name, (spec->scope & PERF_COUNTERS_KERNEL) != 0, errnum,
                                  paranoid, err);
    case ENOSYS:
        return error_set(err, ERROR_USAGE, "cannot count '%s': this kernel has no "
                         "perf_event_open (built without CONFIG_PERF_EVENTS)", name);
    case EMFILE:
    case ENFILE:
        return error_set(err, ERROR_INTERNAL, "cannot count '%s': too many open files (%s)",
                         name, strerror(errnum));
    case ENOMEM:
        return error_no_memory(err);
    case EBUSY:
        return error_set(err, ERROR_USAGE, "cannot count '%s': another program holds the "
                         "performance counters for itself", name);
    case ENOENT:
    case ENODEV:
    case EOPNOTSUPP:
    case EINVAL:
        if (spec->event->hardware)
            return hardware_refusal(name, spec->event->name, errnum, has_pmu, err);
        break;
    }
    return error_set(err, ERROR_USAGE, "cannot count '%s': perf_event_open refuses it (%s)",
                     name, strerror(errnum));
}

/* Whether the PMU can count anything at all: the question behind a refused hardware event. */
static bool pmu_present(void)
{
    perf_counters_spec cycles = {perf_counters_event_find("cycles"), PERF_COUNTERS_USER};
    struct perf_event_attr attr = spec_attr(&cycles);
    attr.disabled = 1;
    int fd = event_open(&attr, 0, -1);
    if (fd >= 0)
        close(fd);
    return fd >= 0 || (errno != ENOENT && errno != ENODEV && errno != EOPNOTSUPP);
}

static int refused(const perf_counters_spec *spec, int errnum, verdict_error *err)
{
    bool has_pmu = spec->event->hardware ? pmu_present() : true;
    return perf_counters_refusal(spec, errnum, perf_counters_paranoid(), has_pmu, err);
}

int perf_counters_probe(const perf_counters_spec *spec, verdict_error *err)
{
    struct perf_event_attr attr = spec_attr(spec);
    attr.disabled = 1;
    int fd = event_open(&attr, 0, -1);
    if (fd < 0)
        return refused(spec, errno, err);
    close(fd);
    return 0;
}

static int kind_of(const perf_counters_spec *spec)
{
    return spec->event->hardware ? KIND_HARDWARE : KIND_SOFTWARE;
}

static void close_kind(perf_counters_session *s, int kind, const perf_counters_spec *specs)
{
    for (size_t i = 0; i < s->n; i++)
        if (kind_of(&specs[i]) == kind && s->fds[i] >= 0) {
            close(s->fds[i]);
            s->fds[i] = -1;
            s->group[i] = -1;
        }
}

/* Opens one event on pid: alone or as a group's leader (group_fd -1: enabled at exec, at
 * once, or disabled until perf_counters_enable) or as a sibling (enabled with its leader).
 * Every counter is inherited by the processes pid starts. */
static int open_one(const perf_counters_spec *spec, pid_t pid, int group_fd, bool in_group,
                    session_start start)
{
    struct perf_event_attr attr = spec_attr(spec);
    attr.inherit = 1;
    if (group_fd < 0 && start != START_AT_OPEN) {
        attr.disabled = 1;
        attr.enable_on_exec = start == START_AT_EXEC;
    }
    if (in_group)
        attr.read_format |= PERF_FORMAT_GROUP;
    return event_open(&attr, pid, group_fd);
}

/* The kind's events as one group: 0; 1 when the kernel refuses the group itself (EINVAL;
 * nothing stays open); -1 with the reason when an event cannot be counted at all. */
static int open_group(perf_counters_session *s, int kind, const perf_counters_spec *specs,
                      pid_t pid, verdict_error *err)
{
    int leader = -1;
    for (size_t i = 0; i < s->n; i++) {
        if (kind_of(&specs[i]) != kind)
            continue;
        int group_fd = leader < 0 ? -1 : s->fds[leader];
        s->fds[i] = open_one(&specs[i], pid, group_fd, true, s->start);
        if (s->fds[i] < 0) {
            int errnum = errno;
            close_kind(s, kind, specs);
            return errnum == EINVAL && perf_counters_probe(&specs[i], NULL) == 0
                       ? 1 : refused(&specs[i], errnum, err);
        }
        if (leader < 0)
            leader = (int)i;
        s->group[i] = leader;
    }
    return 0;
}

static int open_alone(perf_counters_session *s, int kind, const perf_counters_spec *specs,
                      pid_t pid, verdict_error *err)
{
    for (size_t i = 0; i < s->n; i++) {
        if (kind_of(&specs[i]) != kind)
            continue;
        s->fds[i] = open_one(&specs[i], pid, -1, false, s->start);
        if (s->fds[i] < 0) {
            int errnum = errno;
            close_kind(s, kind, specs);
            return refused(&specs[i], errnum, err);
        }
    }
    return 0;
}

static int open_kind(perf_counters_session *s, int kind, const perf_counters_spec *specs,
                     pid_t pid, verdict_error *err)
{
    size_t members = 0;
    for (size_t i = 0; i < s->n; i++)
        members += kind_of(&specs[i]) == kind;
    if (members < 2)
        return open_alone(s, kind, specs, pid, err);
    /* Enabled and disabled again and again, a group of software events miscounts task-clock
     * here (Linux 6.18: as a member it lost 10-20% of the CPU time of every span after the
     * first, as the leader it gained 12% in the first); alone it agrees with the thread's CPU
     * clock to 0.1%. Software events never wait for a PMU counter, so nothing is lost. */
    if (kind == KIND_SOFTWARE && s->start == START_PAUSED) {
        s->grouped = false;
        return open_alone(s, kind, specs, pid, err);
    }
    int grouped = open_group(s, kind, specs, pid, err);
    if (grouped <= 0)
        return grouped;
    s->grouped = false;
    return open_alone(s, kind, specs, pid, err);
}

static int open_session(pid_t pid, const perf_counters_spec *specs, size_t n, session_start start,
                        perf_counters_session **out, verdict_error *err)
{
    assert(pid >= 0 && n > 0);
    *out = NULL;
    perf_counters_session *s = calloc(1, sizeof *s);
    int *fds = calloc(n, sizeof *fds), *group = calloc(n, sizeof *group);
    if (s == NULL || fds == NULL || group == NULL) {
        free(s);
        free(fds);
        free(group);
        return error_no_memory(err);
    }
    *s = (perf_counters_session){.n = n, .fds = fds, .group = group, .grouped = true,
                                  .start = start};
    for (size_t i = 0; i < n; i++)
        fds[i] = group[i] = -1;
    for (int kind = 0; kind < KIND_COUNT; kind++)
        if (open_kind(s, kind, specs, pid, err) != 0) {
            perf_counters_close(s);
            return -1;
        }
    *out = s;
    return 0;
}

int perf_counters_open(pid_t pid, const perf_counters_spec *specs, size_t n,
                       perf_counters_session **out, verdict_error *err)
{
    return open_session(pid, specs, n, START_AT_EXEC, out, err);
}

int perf_counters_attach(pid_t pid, const perf_counters_spec *specs, size_t n,
                         perf_counters_session **out, verdict_error *err)
{
    assert(pid > 0);
    return open_session(pid, specs, n, START_AT_OPEN, out, err);
}

int perf_counters_open_paused(const perf_counters_spec *specs, size_t n,
                              perf_counters_session **out, verdict_error *err)
{
    return open_session(0, specs, n, START_PAUSED, out, err);
}

/* A leader (or a counter alone) switches its whole group: its members count the same span. */
int perf_counters_enable(perf_counters_session *session, bool on, verdict_error *err)
{
    assert(session->start == START_PAUSED);
    unsigned long request = on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE;
    for (size_t i = 0; i < session->n; i++)
        if ((session->group[i] < 0 || session->group[i] == (int)i) &&
            ioctl(session->fds[i], request, PERF_IOC_FLAG_GROUP) != 0)
            return error_set(err, ERROR_INTERNAL, "cannot %s a counter: %s",
                             on ? "enable" : "disable", strerror(errno));
    return 0;
}

bool perf_counters_grouped(const perf_counters_session *session)
{
    return session->grouped;
}

perf_counters_value perf_counters_value_of(uint64_t count, uint64_t enabled, uint64_t running)
{
    return (perf_counters_value){count, enabled, running, enabled == 0 || running < enabled};
}

/* A group's read: {nr, time_enabled, time_running, value[nr]}, the values in the order the
 * members were opened (the specs' order). */
static int read_group(perf_counters_session *s, size_t leader, perf_counters_value *values,
                      verdict_error *err)
{
    uint64_t *buf = calloc(s->n + 3, sizeof *buf);
    if (buf == NULL)
        return error_no_memory(err);
    int rc = -1;
    ssize_t got = read(s->fds[leader], buf, (s->n + 3) * sizeof *buf);
    if (got < (ssize_t)(3 * sizeof *buf)) {
        error_set(err, ERROR_INTERNAL, "cannot read a group of counters: %s",
                  got < 0 ? strerror(errno) : "a short read");
        goto done;
    }
    size_t member = 0, in_buffer = (size_t)got / sizeof *buf - 3;
    for (size_t i = 0; i < s->n; i++) {
        if (s->group[i] != (int)leader)
            continue;
        if (member >= buf[0] || member >= in_buffer) {
            error_set(err, ERROR_INTERNAL, "a group of counters read back %llu values, "
                      "fewer than it has", (unsigned long long)buf[0]);
            goto done;
        }
        values[i] = perf_counters_value_of(buf[3 + member], buf[1], buf[2]);
        member++;
    }
    rc = 0;
done:
    free(buf);
    return rc;
}

static int read_alone(int fd, perf_counters_value *value, verdict_error *err)
{
    uint64_t buf[3];
    ssize_t got = read(fd, buf, sizeof buf);
    if (got != (ssize_t)sizeof buf)
        return error_set(err, ERROR_INTERNAL, "cannot read a counter: %s",
                         got < 0 ? strerror(errno) : "a short read");
    *value = perf_counters_value_of(buf[0], buf[1], buf[2]);
    return 0;
}

int perf_counters_read(perf_counters_session *session, perf_counters_value *values,
                       verdict_error *err)
{
    for (size_t i = 0; i < session->n; i++) {
        int rc = session->group[i] < 0 ? read_alone(session->fds[i], &values[i], err)
                 : session->group[i] == (int)i ? read_group(session, i, values, err)
                 : 0; /* a sibling: its leader's read fills it */
        if (rc != 0)
            return -1;
    }
    return 0;
}

void perf_counters_close(perf_counters_session *session)
{
    if (session == NULL)
        return;
    for (size_t i = 0; i < session->n; i++)
        if (session->fds[i] >= 0)
            close(session->fds[i]);
    free(session->fds);
    free(session->group);
    free(session);
}

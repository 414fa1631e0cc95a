/* Machine facts about the operating system (kernel, distribution, memory, load, address
 * randomization, clocks, huge pages) and the compilers found in PATH. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "env/command_output.h"
#include "env/interference.h"
#include "env/machine_internal.h"
#include "env/proc_text.h"

#define COMPILER_TIMEOUT_MS 2000

static int add_kernel(machine_facts *facts)
{
    struct utsname u;
    if (uname(&u) != 0)
        return machine_facts_set(facts, "kernel", "unknown") ||
               machine_facts_set(facts, "arch", "unknown") ? -1 : 0;
    char kernel[2 * sizeof u.release + 2];
    snprintf(kernel, sizeof kernel, "%s %s", u.sysname, u.release);
    if (machine_facts_set(facts, "kernel", kernel) != 0)
        return -1;
    return machine_facts_set(facts, "arch", u.machine);
}

/* PRETTY_NAME="Debian GNU/Linux 12 (bookworm)" -> Debian GNU/Linux 12 (bookworm). */
static int os_pretty_name(const char *path, char *out, size_t cap)
{
    FILE *in = fopen(path, "re");
    if (in == NULL)
        return -1;
    char line[512];
    int rc = -1;
    while (rc != 0 && fgets(line, sizeof line, in) != NULL) {
        if (strncmp(line, "PRETTY_NAME=", 12) != 0)
            continue;
        char *value = trim_blanks(line + 12);
        size_t len = strlen(value);
        if (len >= 2 && (value[0] == '"' || value[0] == '\'') && value[len - 1] == value[0]) {
            value[len - 1] = '\0';
            value++;
        }
        snprintf(out, cap, "%s", value);
        rc = out[0] ? 0 : -1;
    }
    fclose(in);
    return rc;
}

static int add_os(machine_facts *facts)
{
    char name[256];
    if (os_pretty_name("/etc/os-release", name, sizeof name) != 0 &&
        os_pretty_name("/usr/lib/os-release", name, sizeof name) != 0)
        snprintf(name, sizeof name, "unknown");
    return machine_facts_set(facts, "os", name);
}

static int add_hostname(machine_facts *facts)
{
    char name[256];
    if (gethostname(name, sizeof name) != 0 || name[0] == '\0')
        snprintf(name, sizeof name, "unknown");
    name[sizeof name - 1] = '\0';
    return machine_facts_set(facts, "hostname", name);
}

static int add_memory(machine_facts *facts)
{
    char text[4096], value[64] = "unknown";
    const char *line;
    unsigned long long kib;
    if (read_small_file("/proc/meminfo", text, sizeof text) == 0 &&
        (line = strstr(text, "MemTotal:")) != NULL && sscanf(line, "MemTotal: %llu kB", &kib) == 1)
        snprintf(value, sizeof value, "%.1f GiB", (double)kib / (1024.0 * 1024.0));
    return machine_facts_set(facts, "memory_total", value);
}

static int add_load(machine_facts *facts)
{
    char text[256], l1[32] = "unknown", l5[32] = "unknown", l15[32] = "unknown";
    cpu_snapshot load; /* only its load fields are used */
    if (read_small_file("/proc/loadavg", text, sizeof text) == 0 &&
        parse_proc_loadavg(text, strlen(text), &load) == 0) {
        snprintf(l1, sizeof l1, "%.2f", load.load1);
        snprintf(l5, sizeof l5, "%.2f", load.load5);
        snprintf(l15, sizeof l15, "%.2f", load.load15);
    }
    if (machine_facts_set(facts, "load1", l1) != 0 || machine_facts_set(facts, "load5", l5) != 0)
        return -1;
    return machine_facts_set(facts, "load15", l15);
}

static int add_aslr(machine_facts *facts)
{
    char text[16];
    const char *state = "unknown";
    if (read_small_file("/proc/sys/kernel/randomize_va_space", text, sizeof text) == 0)
        state = strcmp(text, "0") == 0   ? "off"
                : strcmp(text, "1") == 0 ? "partial"
                : strcmp(text, "2") == 0 ? "full"
                                         : "unknown";
    return machine_facts_set(facts, "aslr", state);
}

static int add_clocks(machine_facts *facts)
{
    char source[64], resolution[32] = "unknown";
    if (read_small_file("/sys/devices/system/clocksource/clocksource0/current_clocksource",
                        source, sizeof source) != 0 || source[0] == '\0')
        snprintf(source, sizeof source, "unknown");
    struct timespec res;
    if (clock_getres(CLOCK_MONOTONIC, &res) == 0)
        snprintf(resolution, sizeof resolution, "%.0f ns", (double)res.tv_sec * 1e9 + res.tv_nsec);
    if (machine_facts_set(facts, "clocksource", source) != 0)
        return -1;
    return machine_facts_set(facts, "timer_resolution", resolution);
}

/* "always [madvise] never": the bracketed word is the active setting. */
static int add_transparent_hugepage(machine_facts *facts)
{
    char text[128], value[32] = "unknown";
    char *open, *close;
    if (read_small_file("/sys/kernel/mm/transparent_hugepage/enabled", text, sizeof text) == 0 &&
        (open = strchr(text, '[')) != NULL && (close = strchr(open, ']')) != NULL &&
        close - open - 1 < (long)sizeof value) {
        *close = '\0';
        snprintf(value, sizeof value, "%s", open + 1);
    }
    return machine_facts_set(facts, "transparent_hugepage", value);
}

static int add_simple_file(machine_facts *facts, const char *key, const char *path,
                           const char *empty, const char *absent)
{
    char text[512];
    if (read_small_file(path, text, sizeof text) != 0)
        return machine_facts_set(facts, key, absent);
    return machine_facts_set(facts, key, text[0] ? text : empty);
}

int collect_system_facts(machine_facts *facts)
{
    if (add_kernel(facts) || add_os(facts) || add_hostname(facts) || add_memory(facts) ||
        add_load(facts) || add_aslr(facts) || add_clocks(facts) ||
        add_transparent_hugepage(facts))
        return -1;
    if (add_simple_file(facts, "cpus_isolated", "/sys/devices/system/cpu/isolated", "none",
                        "unknown") != 0)
        return -1;
    return add_simple_file(facts, "perf_event_paranoid", "/proc/sys/kernel/perf_event_paranoid",
                           "unknown", "unknown");
}

static int add_compiler(machine_facts *facts, const char *program)
{
    char line[256];
    char *argv[] = {(char *)program, "--version", NULL};
    if (command_first_line(argv, COMPILER_TIMEOUT_MS, line, sizeof line) != 0)
        snprintf(line, sizeof line, "absent");
    return machine_facts_set(facts, program, line);
}

int collect_compiler_facts(machine_facts *facts)
{
    if (add_compiler(facts, "cc") != 0 || add_compiler(facts, "gcc") != 0)
        return -1;
    return add_compiler(facts, "clang");
}

/* Machine facts about the processors: model, the instruction-set flags that change which
 * code runs (CRC-32C, SIMD), topology and SMT, the frequency policy, and virtualization. */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "crc32c.h"
#include "env/machine_internal.h"
#include "env/proc_text.h"

#define SYSFS_CPU "/sys/devices/system/cpu"
/* Topology is read for at most this many CPUs; more only makes collection slower. */
#define MAX_TOPOLOGY_CPUS 4096

/* Flags worth recording: they select code paths in the libraries benchmarked (x86, then
 * Arm's names for the same capabilities). */
static const char *const interesting_flags[] = {
    "sse4_2", "popcnt", "pclmulqdq", "avx", "avx2", "bmi2", "avx512f", "avx512bw",
    "avx512vl", "vpclmulqdq", "sha_ni", "crc32", "pmull", "aes", "sha2", "asimd", "sve",
    "sve2",
};

/* Fields of the first processor in /proc/cpuinfo (all CPUs of a machine match). */
typedef struct {
    char *model;       /* "model name" (x86), "cpu model" (MIPS) or "cpu" (POWER) */
    char *flags;       /* "flags" (x86) or "Features" (Arm) */
    char *implementer; /* "CPU implementer" (Arm) */
    char *part;        /* "CPU part" (Arm) */
} cpuinfo_fields;

/* The value of "name<blanks>: value", or NULL when line holds another field. */
static const char *field_value(const char *line, const char *name)
{
    size_t len = strlen(name);
    if (strncmp(line, name, len) != 0)
        return NULL;
    const char *p = line + len;
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p != ':')
        return NULL;
    p++;
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

/* Stores a copy of value in *slot unless a value is already there; -1 on no memory. */
static int keep_first(char **slot, const char *value)
{
    if (value == NULL || *slot != NULL)
        return 0;
    *slot = strdup(value);
    if (*slot == NULL)
        return -1;
    trim_blanks(*slot);
    return 0;
}

static int read_cpuinfo_line(const char *line, cpuinfo_fields *f)
{
    const char *model = field_value(line, "model name");
    if (model == NULL)
        model = field_value(line, "cpu model");
    if (model == NULL)
        model = field_value(line, "cpu");
    const char *flags = field_value(line, "flags");
    if (flags == NULL)
        flags = field_value(line, "Features");
    if (keep_first(&f->model, model) != 0 || keep_first(&f->flags, flags) != 0 ||
        keep_first(&f->implementer, field_value(line, "CPU implementer")) != 0 ||
        keep_first(&f->part, field_value(line, "CPU part")) != 0)
        return -1;
    return 0;
}

/* Reads the first processor's block of /proc/cpuinfo; absent file leaves f empty. */
static int read_cpuinfo(cpuinfo_fields *f)
{
    FILE *in = fopen("/proc/cpuinfo", "re");
    if (in == NULL)
        return 0;
    char *line = NULL;
    size_t cap = 0;
    bool in_block = false;
    int rc = 0;
    while (rc == 0 && getline(&line, &cap, in) > 0) {
        bool blank = line[0] == '\n';
        if (blank && in_block)
            break;
        in_block = in_block || !blank;
        rc = read_cpuinfo_line(line, f);
    }
    free(line);
    fclose(in);
    return rc;
}

static void free_cpuinfo(cpuinfo_fields *f)
{
    free(f->model);
    free(f->flags);
    free(f->implementer);
    free(f->part);
}

static int add_cpu_model(machine_facts *facts, const cpuinfo_fields *f)
{
    char model[256] = "";
    if (f->model != NULL && f->model[0] != '\0')
        snprintf(model, sizeof model, "%s", f->model);
    else if (f->implementer != NULL && f->part != NULL)
        snprintf(model, sizeof model, "implementer %s part %s", f->implementer, f->part);
    else if (read_small_file("/sys/firmware/devicetree/base/model", model, sizeof model) != 0)
        model[0] = '\0';
    return machine_facts_set(facts, "cpu_model", model[0] ? model : "unknown");
}

static int add_cpu_flags(machine_facts *facts, const cpuinfo_fields *f)
{
    if (f->flags == NULL)
        return machine_facts_set(facts, "cpu_flags", "unknown");
    char selected[256] = "";
    for (size_t i = 0; i < sizeof interesting_flags / sizeof interesting_flags[0]; i++)
        if (has_word(f->flags, interesting_flags[i])) {
            size_t used = strlen(selected);
            snprintf(selected + used, sizeof selected - used, "%s%s", used ? " " : "",
                     interesting_flags[i]);
        }
    return machine_facts_set(facts, "cpu_flags", selected[0] ? selected : "none");
}

/* The online CPUs' ids; falls back to 0..n-1 when /sys does not list them. */
static int online_cpu_ids(int *ids, int max)
{
    char text[4096];
    int count = -1;
    if (read_small_file(SYSFS_CPU "/online", text, sizeof text) == 0)
        count = parse_cpu_list(text, ids, max);
    if (count > 0)
        return count;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    count = n > 0 ? (int)(n < max ? n : max) : 0;
    for (int i = 0; i < count; i++)
        ids[i] = i;
    return count;
}

static long read_topology_number(int cpu, const char *name)
{
    char path[128], text[32];
    snprintf(path, sizeof path, SYSFS_CPU "/cpu%d/topology/%s", cpu, name);
    if (read_small_file(path, text, sizeof text) != 0)
        return -2; /* absent (die_id is absent on older kernels: then -2 for all) */
    char *end;
    long value = strtol(text, &end, 10);
    return *end == '\0' && end != text ? value : -2;
}

typedef struct {
    long package, die, core;
} core_key;

/* Physical cores: distinct (package, die, core) among the online CPUs; -1 if unknown. */
static int count_physical_cores(const int *ids, int n)
{
    core_key *keys = malloc((size_t)(n > 0 ? n : 1) * sizeof *keys);
    if (keys == NULL)
        return -1;
    int distinct = 0;
    for (int i = 0; i < n && distinct >= 0; i++) {
        core_key k = {read_topology_number(ids[i], "physical_package_id"),
                      read_topology_number(ids[i], "die_id"),
                      read_topology_number(ids[i], "core_id")};
        if (k.package == -2 || k.core == -2) {
            distinct = -1;
            break;
        }
        bool seen = false;
        for (int j = 0; j < distinct && !seen; j++)
            seen = keys[j].package == k.package && keys[j].die == k.die && keys[j].core == k.core;
        if (!seen)
            keys[distinct++] = k;
    }
    free(keys);
    return distinct;
}

/* SMT from the kernel's own switch; otherwise from CPUs per core. */
static const char *smt_state(int online, int cores)
{
    char text[64];
    if (read_small_file(SYSFS_CPU "/smt/active", text, sizeof text) == 0 &&
        (strcmp(text, "0") == 0 || strcmp(text, "1") == 0))
        return text[0] == '1' ? "on" : "off";
    if (read_small_file(SYSFS_CPU "/smt/control", text, sizeof text) == 0) {
        if (strcmp(text, "on") == 0)
            return "on";
        if (strcmp(text, "off") == 0 || strcmp(text, "forceoff") == 0 ||
            strcmp(text, "notsupported") == 0 || strcmp(text, "notimplemented") == 0)
            return "off";
    }
    if (online > 0 && cores > 0)
        return online > cores ? "on" : "off";
    return "unknown";
}

static int add_topology(machine_facts *facts)
{
    int *ids = malloc(MAX_TOPOLOGY_CPUS * sizeof *ids);
    if (ids == NULL)
        return -1;
    int online = online_cpu_ids(ids, MAX_TOPOLOGY_CPUS);
    int cores = online > 0 && online <= MAX_TOPOLOGY_CPUS ? count_physical_cores(ids, online) : -1;
    free(ids);
    char online_text[32], cores_text[32];
    snprintf(online_text, sizeof online_text, "%d", online);
    snprintf(cores_text, sizeof cores_text, "%d", cores);
    if (machine_facts_set(facts, "cpus_online", online > 0 ? online_text : "unknown") != 0 ||
        machine_facts_set(facts, "cpus_physical", cores > 0 ? cores_text : "unknown") != 0)
        return -1;
    return machine_facts_set(facts, "smt", smt_state(online, cores));
}

/* The hypervisor's CPUID signature ("KVMKVMKVM", "Microsoft Hv"...), or "" off x86. */
static void hypervisor_signature(char *out, size_t cap)
{
    out[0] = '\0';
#if defined(__x86_64__) || defined(__i386__)
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 31)))
        return; /* CPUID.1:ECX bit 31 is the "hypervisor present" bit */
    __cpuid(0x40000000, a, b, c, d);
    char sig[13];
    memcpy(sig, &b, 4);
    memcpy(sig + 4, &c, 4);
    memcpy(sig + 8, &d, 4);
    sig[12] = '\0';
    for (char *p = sig; *p; p++)
        if (!isprint((unsigned char)*p))
            *p = ' ';
    snprintf(out, cap, "%s", sig);
    trim_blanks(out);
#else
    (void)cap;
#endif
}

static bool dmi_looks_virtual(const char *dmi)
{
    static const char *const names[] = {"qemu", "kvm", "vmware", "virtualbox", "xen",
                                        "virtual machine", "bochs", "parallels",
                                        "amazon ec2", "google compute engine", "openstack",
                                        "cloud hypervisor", "firecracker"};
    char lower[256];
    size_t i = 0;
    for (; dmi[i] && i + 1 < sizeof lower; i++)
        lower[i] = (char)tolower((unsigned char)dmi[i]);
    lower[i] = '\0';
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        if (strstr(lower, names[k]) != NULL)
            return true;
    return false;
}

/* "vm (signature; DMI vendor product)", "none", or "unknown" where nothing can tell. */
static int add_virtualization(machine_facts *facts, const cpuinfo_fields *f)
{
    char signature[16], vendor[96] = "", product[96] = "", dmi[200], value[256];
    hypervisor_signature(signature, sizeof signature);
    if (read_small_file("/sys/class/dmi/id/sys_vendor", vendor, sizeof vendor) != 0)
        vendor[0] = '\0';
    if (read_small_file("/sys/class/dmi/id/product_name", product, sizeof product) != 0)
        product[0] = '\0';
    snprintf(dmi, sizeof dmi, "%s%s%s", vendor, vendor[0] && product[0] ? " " : "", product);
    bool flag = f->flags != NULL && has_word(f->flags, "hypervisor");
    if (flag || signature[0] || dmi_looks_virtual(dmi)) {
        snprintf(value, sizeof value, "vm (%s%s%s)", signature[0] ? signature : "hypervisor",
                 dmi[0] ? "; " : "", dmi);
        return machine_facts_set(facts, "virtualization", value);
    }
    /* Only x86 announces a hypervisor in its flags; elsewhere silence proves nothing. */
    bool x86 = f->flags != NULL && has_word(f->flags, "fpu");
    return machine_facts_set(facts, "virtualization", x86 || dmi[0] ? "none" : "unknown");
}

static int add_container(machine_facts *facts)
{
    const char *kind = "none detected";
    if (access("/.dockerenv", F_OK) == 0)
        kind = "docker";
    else if (access("/run/.containerenv", F_OK) == 0)
        kind = "podman";
    return machine_facts_set(facts, "container", kind);
}

int collect_cpu_facts(machine_facts *facts)
{
    cpuinfo_fields f = {NULL, NULL, NULL, NULL};
    int rc = read_cpuinfo(&f);
    if (rc == 0)
        rc = add_cpu_model(facts, &f);
    if (rc == 0)
        rc = add_cpu_flags(facts, &f);
    if (rc == 0) /* the path lib/crc32c's dispatch picked for this CPU */
        rc = machine_facts_set(facts, "crc32c", crc32c_implementation());
    if (rc == 0)
        rc = add_topology(facts);
    if (rc == 0)
        rc = add_virtualization(facts, &f);
    if (rc == 0)
        rc = add_container(facts);
    free_cpuinfo(&f);
    return rc;
}

/* Turbo (boost) from intel_pstate, else the cpufreq boost switch (global or policy0). */
static const char *turbo_state(void)
{
    char text[16];
    if (read_small_file(SYSFS_CPU "/intel_pstate/no_turbo", text, sizeof text) == 0)
        return strcmp(text, "1") == 0 ? "off" : strcmp(text, "0") == 0 ? "on" : "unknown";
    if (read_small_file(SYSFS_CPU "/cpufreq/boost", text, sizeof text) == 0 ||
        read_small_file(SYSFS_CPU "/cpufreq/policy0/boost", text, sizeof text) == 0)
        return strcmp(text, "1") == 0 ? "on" : strcmp(text, "0") == 0 ? "off" : "unknown";
    return "unknown";
}

int collect_frequency_facts(machine_facts *facts)
{
    char governor[64], driver[64];
    if (read_small_file(SYSFS_CPU "/cpu0/cpufreq/scaling_governor", governor, sizeof governor) != 0 ||
        governor[0] == '\0')
        snprintf(governor, sizeof governor, "none");
    if (read_small_file(SYSFS_CPU "/cpu0/cpufreq/scaling_driver", driver, sizeof driver) != 0 ||
        driver[0] == '\0')
        snprintf(driver, sizeof driver, "none");
    if (machine_facts_set(facts, "governor", governor) != 0 ||
        machine_facts_set(facts, "cpufreq_driver", driver) != 0)
        return -1;
    return machine_facts_set(facts, "turbo", turbo_state());
}

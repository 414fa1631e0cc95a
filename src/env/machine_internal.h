/* Collectors of groups of machine facts, shared by the files of src/env only. Each adds
 * its facts and returns 0, or -1 when out of memory; unreadable sources are not errors. */
#ifndef VERDICT_ENV_MACHINE_INTERNAL_H
#define VERDICT_ENV_MACHINE_INTERNAL_H

#include "env/machine.h"

/* cpu_model, cpu_flags, cpus_online, cpus_physical, smt, virtualization, container. */
int collect_cpu_facts(machine_facts *facts);

/* governor, cpufreq_driver, turbo: the frequency policy. */
int collect_frequency_facts(machine_facts *facts);

/* kernel, arch, os, hostname, memory_total, load1/5/15, aslr, clocksource,
 * timer_resolution, transparent_hugepage, cpus_isolated, perf_event_paranoid. */
int collect_system_facts(machine_facts *facts);

/* cc, gcc, clang: the first line of each one's --version, or "absent". */
int collect_compiler_facts(machine_facts *facts);

#endif

/* The survey of a fleet's machines (`verdict report STORE --machines`): one row per machine
 * (CPU, cores, ISA extensions, CRC-32C path, compiler, kernel) and counts per path and level. */
#ifndef VERDICT_REPORT_MACHINE_TABLE_H
#define VERDICT_REPORT_MACHINE_TABLE_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#include "report/report.h"
#include "common/error.h"

/* One machine: its name and its facts, keyed as `verdict env` prints them
 * (docs/environment.md: cpu_model, cpu_flags, cpus_physical, cpus_online, crc32c, cc, gcc,
 * clang, kernel, arch, ...). Everything is borrowed; a missing fact is shown as "-". */
typedef struct {
    const char *machine;
    const report_fact *facts;
    size_t n_facts;
} machine_table_row;

/* What the machines are counted by. */
typedef enum {
    MACHINE_TABLE_BY_CRC32C,   /* the crc32c fact: lib/crc32c's path ("not recorded") */
    MACHINE_TABLE_BY_ISA_LEVEL /* machine_table_isa_level */
} machine_table_grouping;

typedef struct {
    const char *value;        /* borrowed from the rows, or a static level name */
    size_t machines;
} machine_table_count;

typedef struct {
    machine_table_count *items; /* most machines first; ties in byte order of the value */
    size_t n, capacity;
} machine_table_counts;

/* The row's fact of this key, or NULL. */
const char *machine_table_fact(const machine_table_row *row, const char *key);

/* The instruction-set level its cpu_flags reach: "x86-64-v4" (avx512f, bw, vl), "x86-64-v3"
 * (avx2, bmi2), "x86-64-v2" (sse4_2, popcnt), "x86-64" (arch x86_64 without those),
 * "armv8+sve2", "armv8+sve", "armv8" (arch aarch64 or Arm's flags), else "unknown". The
 * recorded flags are a selection (docs/environment.md), so the level is read from those. */
const char *machine_table_isa_level(const machine_table_row *row);

/* Counts the machines by value. 0, or -1 with a message in err (out of memory). */
int machine_table_tally(const machine_table_row *rows, size_t n, machine_table_grouping by,
                        machine_table_counts *out, verdict_error *err);
void machine_table_counts_free(machine_table_counts *counts);

/* An aligned table (widths in terminal columns, cells escaped as plain_text.h does; the
 * widest columns narrowed, their cells cut with "…", until a line fits 160 columns), then
 * the counts:
 *   crc32c: avx2_hybrid on 5 machines, avx512 on 3, sse42 on 1
 * 0, or -1 with a message in err (out of memory, a write error). */
int machine_table_write_text(FILE *out, const machine_table_row *rows, size_t n,
                             verdict_error *err);

/* {"schema": "verdict-machines/1", "machines": [{"name", "isa_level", "facts": {...}}],
 *  "counts": {"crc32c": [{"value", "machines"}], "isa_level": [...]}}: every fact, whole.
 * NULL when out of memory (err says so). */
json_t *machine_table_json(const machine_table_row *rows, size_t n, verdict_error *err);
/* That document, indented, and a newline. 0, or -1 with a message in err. */
int machine_table_write_json(FILE *out, const machine_table_row *rows, size_t n,
                             verdict_error *err);

#endif

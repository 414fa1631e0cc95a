/* The fleet's machines side by side: which CPU, which ISA extensions, which CRC-32C path
 * each one takes, as text (aligned in terminal columns) and as JSON, with the counts. */
#include "report/machine_table.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "common/error.h"
#include "common/utf8.h"
#include "report/json_text.h"
#include "report/plain_text.h"

#define NOT_RECORDED "not recorded"
#define MISSING_CELL "-"
#define DERIVED_CELL 256 /* room for a derived cell: cores, extensions, a compiler's name */

typedef enum {
    COL_MACHINE, COL_CPU, COL_CORES, COL_ISA, COL_CRC32C, COL_COMPILER, COL_KERNEL, N_COLUMNS
} table_column;

/* A line of the table stays within this many terminal columns. */
#define TABLE_WIDTH 160
#define COLUMN_GAP 2

/* Each column's widest cell, and how narrow it may get when the line is too long: the
 * widest columns give way first, so long CPU names and long extension lists share room. */
static const struct {
    const char *header;
    size_t max_width, min_width;
    bool right_aligned;
} columns[N_COLUMNS] = {
    {"machine", 32, 12, false},       {"CPU", 48, 16, false},     {"cores", 9, 5, true},
    {"ISA extensions", 56, 20, false}, {"CRC-32C", 16, 11, false}, {"compiler", 24, 10, false},
    {"kernel", 32, 10, false},
};

/* The flags of cpu_flags shown, in this order, with the names people use for them;
 * AVX-512 is written apart (avx512_text). */
static const struct {
    const char *flag, *shown;
} shown_flags[] = {
    {"sse4_2", "sse4.2"}, {"pclmulqdq", "pclmul"}, {"avx2", "avx2"}, {"bmi2", "bmi2"},
    {"avx512f", NULL},    {"vpclmulqdq", "vpclmul"}, {"sha_ni", "sha"}, {"crc32", "crc32"},
    {"pmull", "pmull"},   {"aes", "aes"},            {"sha2", "sha2"},  {"sve", "sve"},
    {"sve2", "sve2"},
};

/* ---- facts ---- */

const char *machine_table_fact(const machine_table_row *row, const char *key)
{
    for (size_t i = 0; i < row->n_facts; i++)
        if (row->facts[i].key && strcmp(row->facts[i].key, key) == 0)
            return row->facts[i].value;
    return NULL;
}

/* Whether the space-separated list holds word. */
static bool has_word(const char *list, const char *word)
{
    size_t length = strlen(word);
    for (const char *p = list ? strstr(list, word) : NULL; p; p = strstr(p + 1, word))
        if ((p == list || p[-1] == ' ') && (p[length] == ' ' || p[length] == '\0'))
            return true;
    return false;
}

static bool starts_with(const char *text, const char *prefix)
{
    return text && strncmp(text, prefix, strlen(prefix)) == 0;
}

static bool is_arm(const char *arch, const char *flags)
{
    return starts_with(arch, "aarch64") || starts_with(arch, "arm") || has_word(flags, "asimd");
}

static const char *arm_level(const char *flags)
{
    return has_word(flags, "sve2") ? "armv8+sve2" : has_word(flags, "sve") ? "armv8+sve" : "armv8";
}

const char *machine_table_isa_level(const machine_table_row *row)
{
    const char *flags = machine_table_fact(row, "cpu_flags");
    const char *arch = machine_table_fact(row, "arch");
    if (flags == NULL || strcmp(flags, "unknown") == 0)
        return "unknown";
    if (is_arm(arch, flags))
        return arm_level(flags);
    bool v2 = has_word(flags, "sse4_2") && has_word(flags, "popcnt");
    bool v3 = v2 && has_word(flags, "avx2") && has_word(flags, "bmi2");
    bool v4 = v3 && has_word(flags, "avx512f") && has_word(flags, "avx512bw") &&
              has_word(flags, "avx512vl");
    if (v2)
        return v4 ? "x86-64-v4" : v3 ? "x86-64-v3" : "x86-64-v2";
    return arch && strcmp(arch, "x86_64") == 0 ? "x86-64" : "unknown";
}

/* ---- derived cells ---- */

static void cores_text(const machine_table_row *row, char *buf, size_t len)
{
    const char *physical = machine_table_fact(row, "cpus_physical");
    const char *online = machine_table_fact(row, "cpus_online");
    if (physical && online && strcmp(physical, online) != 0)
        snprintf(buf, len, "%s/%s", physical, online); /* cores/CPUs: SMT doubles CPUs */
    else
        snprintf(buf, len, "%s", physical ? physical : online ? online : MISSING_CELL);
}

/* "avx512" for the F, BW and VL subsets that come together (x86-64-v4), else the subsets
 * there are, "avx512f/bw". */
static void avx512_text(const char *flags, char *buf, size_t len)
{
    bool bw = has_word(flags, "avx512bw"), vl = has_word(flags, "avx512vl");
    if (bw && vl)
        snprintf(buf, len, "avx512");
    else
        snprintf(buf, len, "avx512f%s%s", bw ? "/bw" : "", vl ? "/vl" : "");
}

/* "sse4.2 pclmul avx2 bmi2 avx512 vpclmul sha": the extensions present, or the fact's own
 * "none" or "unknown". */
static void extensions_text(const machine_table_row *row, char *buf, size_t len)
{
    const char *flags = machine_table_fact(row, "cpu_flags");
    size_t used = 0;
    if (flags == NULL || strcmp(flags, "unknown") == 0 || strcmp(flags, "none") == 0) {
        snprintf(buf, len, "%s", flags ? flags : MISSING_CELL);
        return;
    }
    buf[0] = '\0';
    for (size_t i = 0; i < ARRAY_SIZE(shown_flags) && used < len; i++) {
        char avx512[32];
        if (!has_word(flags, shown_flags[i].flag))
            continue;
        if (shown_flags[i].shown == NULL)
            avx512_text(flags, avx512, sizeof avx512);
        int n = snprintf(buf + used, len - used, "%s%s", used ? " " : "",
                         shown_flags[i].shown ? shown_flags[i].shown : avx512);
        used += n > 0 ? (size_t)n : 0;
    }
    if (used == 0)
        snprintf(buf, len, "none");
}

/* The word after `marker` in line, or NULL. */
static const char *word_after(const char *line, const char *marker, int *length)
{
    const char *p = strstr(line, marker);
    if (p == NULL)
        return NULL;
    p += strlen(marker);
    *length = (int)strcspn(p, " ");
    return *length > 0 ? p : NULL;
}

/* "gcc 12.2.0" from "cc (Debian 12.2.0-14) 12.2.0", "clang 14.0.6" from "Debian clang
 * version 14.0.6"; another first line as it is. The first of cc, gcc and clang present. */
static void compiler_text(const machine_table_row *row, char *buf, size_t len)
{
    static const char *const keys[] = {"cc", "gcc", "clang"};
    const char *line = NULL, *version;
    for (size_t i = 0; i < ARRAY_SIZE(keys) && line == NULL; i++) {
        line = machine_table_fact(row, keys[i]);
        if (line && (strcmp(line, "absent") == 0 || strcmp(line, "unknown") == 0))
            line = NULL;
    }
    int length = 0;
    if (line == NULL)
        snprintf(buf, len, "%s", MISSING_CELL);
    else if ((version = word_after(line, "clang version ", &length)) != NULL)
        snprintf(buf, len, "clang %.*s", length, version);
    else if (strstr(line, "(") && (version = word_after(line, ") ", &length)) != NULL &&
             (starts_with(line, "cc ") || starts_with(line, "gcc")))
        snprintf(buf, len, "gcc %.*s", length, version);
    else
        snprintf(buf, len, "%s", line);
}

static const char *fact_or_missing(const machine_table_row *row, const char *key)
{
    const char *value = machine_table_fact(row, key);
    return value ? value : MISSING_CELL;
}

/* The cell's text before escaping: a fact, or a cell derived into buf. */
static const char *cell_source(const machine_table_row *row, table_column c, char *buf,
                               size_t len)
{
    switch (c) {
    case COL_MACHINE: return row->machine ? row->machine : "";
    case COL_CPU: return fact_or_missing(row, "cpu_model");
    case COL_CORES: cores_text(row, buf, len); return buf;
    case COL_ISA: extensions_text(row, buf, len); return buf;
    case COL_CRC32C: return fact_or_missing(row, "crc32c");
    case COL_COMPILER: compiler_text(row, buf, len); return buf;
    case COL_KERNEL: return fact_or_missing(row, "kernel");
    case N_COLUMNS: break;
    }
    return "";
}

/* ---- counts ---- */

static int by_count(const void *a, const void *b)
{
    const machine_table_count *x = a, *y = b;
    if (x->machines != y->machines)
        return x->machines > y->machines ? -1 : 1;
    return strcmp(x->value, y->value);
}

static int count_value(machine_table_counts *counts, const char *value)
{
    for (size_t i = 0; i < counts->n; i++)
        if (strcmp(counts->items[i].value, value) == 0) {
            counts->items[i].machines++;
            return 0;
        }
    if (array_reserve((void **)&counts->items, &counts->capacity, counts->n + 1,
                      sizeof *counts->items) != 0)
        return -1;
    counts->items[counts->n++] = (machine_table_count){value, 1};
    return 0;
}

static const char *grouping_value(const machine_table_row *row, machine_table_grouping by)
{
    if (by == MACHINE_TABLE_BY_ISA_LEVEL)
        return machine_table_isa_level(row);
    const char *path = machine_table_fact(row, "crc32c");
    return path ? path : NOT_RECORDED;
}

int machine_table_tally(const machine_table_row *rows, size_t n, machine_table_grouping by,
                        machine_table_counts *out, verdict_error *err)
{
    int rc = 0;
    memset(out, 0, sizeof *out);
    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = count_value(out, grouping_value(&rows[i], by));
    if (rc != 0) {
        machine_table_counts_free(out);
        return error_set(err, ERROR_NO_MEMORY, "machine table: out of memory");
    }
    if (out->n > 1)
        qsort(out->items, out->n, sizeof *out->items, by_count);
    return 0;
}

void machine_table_counts_free(machine_table_counts *counts)
{
    free(counts->items);
    memset(counts, 0, sizeof *counts);
}

/* ---- the text table ---- */

typedef struct {
    char **cells;             /* n rows × N_COLUMNS, escaped and fitted */
    size_t n;
    size_t width[N_COLUMNS];  /* in terminal columns */
} text_grid;

static void free_grid(text_grid *g)
{
    for (size_t i = 0; g->cells && i < g->n * N_COLUMNS; i++)
        free(g->cells[i]);
    free(g->cells);
}

/* The cell escaped (a fact may hold any bytes) and cut to its column's widest. */
static char *make_cell(const machine_table_row *row, table_column c)
{
    char derived[DERIVED_CELL];
    char *escaped = plain_escaped_copy(cell_source(row, c, derived, sizeof derived));
    char *cell = escaped ? utf8_fit(escaped, columns[c].max_width) : NULL;
    free(escaped);
    return cell;
}

static size_t line_width(const text_grid *g)
{
    size_t total = (N_COLUMNS - 1) * COLUMN_GAP;
    for (size_t c = 0; c < N_COLUMNS; c++)
        total += g->width[c];
    return total;
}

/* Narrows the column with the most room above its least, one column at a time, until
 * the line fits. */
static void narrow_columns(text_grid *g)
{
    while (line_width(g) > TABLE_WIDTH) {
        size_t widest = N_COLUMNS, room = 0;
        for (size_t c = 0; c < N_COLUMNS; c++)
            if (g->width[c] > columns[c].min_width && g->width[c] - columns[c].min_width > room) {
                room = g->width[c] - columns[c].min_width;
                widest = c;
            }
        if (widest == N_COLUMNS)
            return;
        g->width[widest]--;
    }
}

/* Cuts the cells wider than their narrowed column. -1: out of memory. */
static int refit_cells(text_grid *g)
{
    for (size_t i = 0; i < g->n * N_COLUMNS; i++) {
        size_t c = i % N_COLUMNS;
        if (utf8_width(g->cells[i]) <= g->width[c])
            continue;
        char *cut = utf8_fit(g->cells[i], g->width[c]);
        if (cut == NULL)
            return -1;
        free(g->cells[i]);
        g->cells[i] = cut;
    }
    return 0;
}

static int build_grid(text_grid *g, const machine_table_row *rows, size_t n)
{
    size_t cells;
    memset(g, 0, sizeof *g);
    if (size_multiply(n + 1, N_COLUMNS, &cells) != 0 ||
        (g->cells = calloc(cells, sizeof *g->cells)) == NULL)
        return -1;
    g->n = n;
    for (size_t c = 0; c < N_COLUMNS; c++)
        g->width[c] = utf8_width(columns[c].header);
    for (size_t i = 0; i < n * N_COLUMNS; i++) {
        size_t c = i % N_COLUMNS;
        g->cells[i] = make_cell(&rows[i / N_COLUMNS], (table_column)c);
        if (g->cells[i] == NULL)
            return -1;
        size_t w = utf8_width(g->cells[i]);
        g->width[c] = w > g->width[c] ? w : g->width[c];
    }
    narrow_columns(g);
    return refit_cells(g);
}

static void pad(FILE *out, size_t n, char c)
{
    while (n-- > 0)
        fputc(c, out);
}

/* One line of the table: cells padded to their column, no trailing blanks. */
static void write_line(FILE *out, const text_grid *g, const char *const *cells)
{
    for (size_t c = 0; c < N_COLUMNS; c++) {
        size_t w = utf8_width(cells[c]), room = g->width[c] > w ? g->width[c] - w : 0;
        if (c > 0)
            pad(out, COLUMN_GAP, ' ');
        if (columns[c].right_aligned)
            pad(out, room, ' ');
        fputs(cells[c], out);
        if (!columns[c].right_aligned && c + 1 < N_COLUMNS)
            pad(out, room, ' ');
    }
    fputc('\n', out);
}

static void write_header(FILE *out, const text_grid *g)
{
    const char *headers[N_COLUMNS];
    for (size_t c = 0; c < N_COLUMNS; c++)
        headers[c] = columns[c].header;
    write_line(out, g, headers);
    for (size_t c = 0; c < N_COLUMNS; c++) {
        if (c > 0)
            pad(out, COLUMN_GAP, ' ');
        pad(out, g->width[c], '-');
    }
    fputc('\n', out);
}

/* "crc32c: avx2_hybrid on 5 machines, avx512 on 3, sse42 on 1" */
static void write_counts(FILE *out, const char *what, const machine_table_counts *counts)
{
    fprintf(out, "%s:", what);
    for (size_t i = 0; i < counts->n; i++) {
        fputs(i ? ", " : " ", out);
        plain_write(out, counts->items[i].value);
        fprintf(out, " on %zu", counts->items[i].machines);
        if (i == 0)
            fputs(counts->items[i].machines == 1 ? " machine" : " machines", out);
    }
    fputc('\n', out);
}

static int write_summary(FILE *out, const machine_table_row *rows, size_t n, verdict_error *err)
{
    machine_table_counts crc, isa;
    if (machine_table_tally(rows, n, MACHINE_TABLE_BY_CRC32C, &crc, err) != 0)
        return -1;
    int rc = machine_table_tally(rows, n, MACHINE_TABLE_BY_ISA_LEVEL, &isa, err);
    if (rc == 0) {
        fprintf(out, "\n%zu machine%s\n", n, n == 1 ? "" : "s");
        write_counts(out, "crc32c", &crc);
        write_counts(out, "ISA level", &isa);
        machine_table_counts_free(&isa);
    }
    machine_table_counts_free(&crc);
    return rc;
}

int machine_table_write_text(FILE *out, const machine_table_row *rows, size_t n, verdict_error *err)
{
    text_grid g;
    int rc = build_grid(&g, rows, n);
    if (rc != 0) {
        error_set(err, ERROR_NO_MEMORY, "machine table: out of memory");
    } else if (n == 0) {
        fputs("no machines recorded\n", out);
    } else {
        write_header(out, &g);
        for (size_t i = 0; i < n; i++)
            write_line(out, &g, (const char *const *)&g.cells[i * N_COLUMNS]);
        rc = write_summary(out, rows, n, err);
    }
    if (rc == 0 && ferror(out))
        rc = error_set(err, ERROR_INTERNAL, "machine table: cannot write the table");
    free_grid(&g);
    return rc;
}

/* ---- JSON ---- */

static json_t *machine_json(const machine_table_row *row)
{
    json_t *item = json_object(), *facts = json_object();
    int rc = item && facts ? 0 : -1;
    if (rc == 0)
        rc = json_text_set(item, "name", row->machine ? row->machine : "");
    if (rc == 0)
        rc = json_text_set(item, "isa_level", machine_table_isa_level(row));
    for (size_t i = 0; rc == 0 && i < row->n_facts; i++)
        rc = json_text_set_key(facts, row->facts[i].key ? row->facts[i].key : "",
                               json_text_string(row->facts[i].value ? row->facts[i].value : ""));
    if (rc == 0)
        rc = json_object_set(item, "facts", facts);
    json_decref(facts);
    if (rc != 0) {
        json_decref(item);
        return NULL;
    }
    return item;
}

static json_t *counts_json(const machine_table_counts *counts)
{
    json_t *array = json_array();
    int rc = array ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < counts->n; i++) {
        json_t *item = json_object();
        rc = item ? json_text_set(item, "value", counts->items[i].value) : -1;
        if (rc == 0)
            rc = json_object_set_new(item, "machines",
                                     json_integer((json_int_t)counts->items[i].machines));
        if (rc == 0)
            rc = json_array_append_new(array, item); /* takes item, even when it fails */
        else
            json_decref(item);
    }
    if (rc != 0) {
        json_decref(array);
        return NULL;
    }
    return array;
}

static json_t *grouping_json(const machine_table_row *rows, size_t n, machine_table_grouping by)
{
    machine_table_counts counts;
    if (machine_table_tally(rows, n, by, &counts, NULL) != 0)
        return NULL;
    json_t *array = counts_json(&counts);
    machine_table_counts_free(&counts);
    return array;
}

/* {"crc32c": [...], "isa_level": [...]}; NULL when out of memory. */
static json_t *all_counts_json(const machine_table_row *rows, size_t n)
{
    json_t *counts = json_object();
    int rc = counts ? json_object_set_new(counts, "crc32c",
                                          grouping_json(rows, n, MACHINE_TABLE_BY_CRC32C)) : -1;
    if (rc == 0)
        rc = json_object_set_new(counts, "isa_level",
                                 grouping_json(rows, n, MACHINE_TABLE_BY_ISA_LEVEL));
    if (rc != 0) {
        json_decref(counts);
        return NULL;
    }
    return counts;
}

json_t *machine_table_json(const machine_table_row *rows, size_t n, verdict_error *err)
{
    json_t *doc = json_object(), *machines = json_array();
    int rc = doc && machines ? json_object_set_new(doc, "schema",
                                                   json_string("verdict-machines/1")) : -1;
    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = json_array_append_new(machines, machine_json(&rows[i]));
    if (rc == 0)
        rc = json_object_set(doc, "machines", machines);
    if (rc == 0)
        rc = json_object_set_new(doc, "counts", all_counts_json(rows, n));
    json_decref(machines);
    if (rc != 0) {
        json_decref(doc);
        error_set(err, ERROR_NO_MEMORY, "machine table: out of memory");
        return NULL;
    }
    return doc;
}

int machine_table_write_json(FILE *out, const machine_table_row *rows, size_t n, verdict_error *err)
{
    json_t *doc = machine_table_json(rows, n, err);
    if (doc == NULL)
        return -1;
    int rc = 0;
    if (json_dumpf(doc, out, JSON_INDENT(1) | JSON_PRESERVE_ORDER) != 0 ||
        fputc('\n', out) == EOF || ferror(out))
        rc = error_set(err, ERROR_INTERNAL, "machine table: cannot write the JSON");
    json_decref(doc);
    return rc;
}

/* Unit tests of the machines survey: columns and counts on a made-up fleet, widths in
 * terminal columns with multi-byte CPU names, escaping, and the JSON document's counts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/utf8.h"
#include "common/error.h"
#include "report/machine_table.h"

#define X86_V4 "sse4_2 popcnt pclmulqdq avx avx2 bmi2 avx512f avx512bw avx512vl vpclmulqdq sha_ni"
#define X86_V3 "sse4_2 popcnt pclmulqdq avx avx2 bmi2 vpclmulqdq"
#define X86_V2 "sse4_2 popcnt pclmulqdq"
#define LONG_CPU "Intel(R) Xeon(R) Platinum 8488C Sapphire Rapids with a model name that never ends"

/* Six machines: 2 avx2_hybrid, 2 avx512, 1 sse42, and an Arm box with a wide CPU name. */
static const report_fact zen4[] = {
    {"cpu_model", "AMD EPYC 9R14 96-Core Processor"}, {"cpu_flags", X86_V4},
    {"cpus_physical", "4"}, {"cpus_online", "8"}, {"crc32c", "avx512"}, {"arch", "x86_64"},
    {"cc", "cc (Debian 12.2.0-14) 12.2.0"}, {"kernel", "6.1.0-18-amd64"}};
static const report_fact sapphire[] = {
    {"cpu_model", LONG_CPU}, {"cpu_flags", X86_V4}, {"cpus_physical", "16"},
    {"cpus_online", "16"}, {"crc32c", "avx512"}, {"arch", "x86_64"},
    {"cc", "absent"}, {"clang", "Debian clang version 14.0.6"}, {"kernel", "6.8.0"}};
static const report_fact zen3[] = {
    {"cpu_model", "AMD Ryzen\xE2\x84\xA2 9 5950X \xE2\x80\x94 16 c\xC5\x93urs"},
    {"cpu_flags", X86_V3}, {"cpus_physical", "16"}, {"cpus_online", "32"},
    {"crc32c", "avx2_hybrid"}, {"arch", "x86_64"}, {"cc", "gcc (GCC) 13.2.1 20230801"},
    {"kernel", "6.6.7-arch1-1"}};
static const report_fact icelake[] = {
    {"cpu_model", "Intel(R) Xeon(R) Silver 4314"}, {"cpu_flags", X86_V3},
    {"cpus_physical", "2"}, {"crc32c", "avx2_hybrid"}, {"kernel", "5.15.0"}};
static const report_fact westmere[] = {
    {"cpu_model", "Intel(R) Xeon(R) X5650"}, {"cpu_flags", X86_V2}, {"crc32c", "sse42"},
    {"arch", "x86_64"}, {"kernel", "4.19.0"}};
static const report_fact kunpeng[] = {
    {"cpu_model", "\xE9\xB2\xB2\xE9\xB9\x8F 920 \xE5\xA4\x84\xE7\x90\x86\xE5\x99\xA8"},
    {"cpu_flags", "crc32 pmull aes sha2 asimd"}, {"arch", "aarch64"}, {"crc32c", "armv8_pmull"},
    {"kernel", "5.10.0"}};

#define ROW(name, facts) {name, facts, sizeof facts / sizeof *facts}
static const machine_table_row fleet[] = {
    ROW("zen4", zen4), ROW("sapphire", sapphire), ROW("zen3", zen3),
    ROW("icelake", icelake), ROW("westmere", westmere), ROW("kunpeng", kunpeng),
};
#define FLEET_SIZE (sizeof fleet / sizeof *fleet)

static char *table_text(const machine_table_row *rows, size_t n)
{
    char *text = NULL;
    verdict_error err = {0};
    size_t length = 0;
    FILE *out = open_memstream(&text, &length);
    assert_non_null(out);
    int rc = machine_table_write_text(out, rows, n, &err);
    fclose(out);
    if (rc != 0)
        fail_msg("machine_table_write_text: %s", err.message);
    return text;
}

/* Line i of text (0-based) in a new allocation. */
static char *line_of(const char *text, size_t i)
{
    for (; i > 0 && text; i--)
        text = strchr(text, '\n') ? strchr(text, '\n') + 1 : NULL;
    assert_non_null(text);
    return strndup(text, strcspn(text, "\n"));
}

/* The terminal column at which `cell` starts in line. */
static size_t column_of(const char *line, const char *cell)
{
    const char *at = strstr(line, cell);
    assert_non_null(at);
    char *before = strndup(line, (size_t)(at - line));
    size_t column = utf8_width(before);
    free(before);
    return column;
}

static void lays_out_the_columns(void **state)
{
    (void)state;
    char *text = table_text(fleet, FLEET_SIZE);
    char *header = line_of(text, 0), *zen4_line = line_of(text, 2), *zen3_line = line_of(text, 4);
    const char *headers[] = {"machine", "CPU", "cores", "ISA extensions", "CRC-32C", "compiler",
                             "kernel"};
    for (size_t i = 1; i < 7; i++)
        assert_true(column_of(header, headers[i]) > column_of(header, headers[i - 1]));
    assert_non_null(strstr(zen4_line, "AMD EPYC 9R14 96-Core Processor"));
    assert_non_null(strstr(zen4_line, " 4/8 "));
    assert_non_null(strstr(zen4_line, "sse4.2 pclmul avx2 bmi2 avx512 vpclmul sha"));
    assert_non_null(strstr(zen4_line, "gcc 12.2.0"));
    assert_non_null(strstr(zen4_line, "6.1.0-18-amd64"));
    assert_non_null(strstr(zen3_line, "gcc 13.2.1"));
    char *sapphire_line = line_of(text, 3);
    assert_non_null(strstr(sapphire_line, "clang 14.0.6"));
    assert_non_null(strstr(sapphire_line, "\xE2\x80\xA6")); /* the long CPU cut with … */
    assert_null(strstr(sapphire_line, "never ends"));
    char *westmere_line = line_of(text, 6), *kunpeng_line = line_of(text, 7);
    assert_non_null(strstr(westmere_line, "sse4.2 pclmul"));
    assert_non_null(strstr(westmere_line, " - ")); /* no compiler recorded */
    assert_non_null(strstr(kunpeng_line, "crc32 pmull aes sha2"));
    for (size_t i = 0; i < 8; i++) {
        char *line = line_of(text, i);
        assert_true(utf8_width(line) <= 160);
        assert_true(line[0] == '\0' || line[strlen(line) - 1] != ' '); /* no trailing blanks */
        free(line);
    }
    free(header);
    free(zen4_line);
    free(zen3_line);
    free(sapphire_line);
    free(westmere_line);
    free(kunpeng_line);
    free(text);
}

/* The "CRC-32C" column starts at one terminal column on every line, whatever bytes the
 * CPU names before it take (™, —, œ, and double-width CJK). */
static void aligns_by_terminal_columns(void **state)
{
    (void)state;
    char *text = table_text(fleet, FLEET_SIZE);
    char *header = line_of(text, 0);
    size_t crc_column = column_of(header, "CRC-32C"), cpu_column = column_of(header, "CPU");
    const char *paths[] = {"avx512", "avx512", "avx2_hybrid", "avx2_hybrid", "sse42",
                           "armv8_pmull"};
    for (size_t i = 0; i < FLEET_SIZE; i++) {
        char *line = line_of(text, i + 2);
        /* the path after the ISA column: search from the CPU column on for "  path" */
        char needle[32];
        snprintf(needle, sizeof needle, "  %s", paths[i]);
        const char *at = strstr(line + 20, needle);
        assert_non_null(at);
        char *before = strndup(line, (size_t)(at - line) + 2);
        assert_int_equal(utf8_width(before), crc_column);
        free(before);
        char *cpu = strndup(fleet[i].facts[0].value, 9); /* long names are cut */
        assert_int_equal(column_of(line, cpu), cpu_column);
        free(cpu);
        free(line);
    }
    free(header);
    free(text);
}

static void counts_paths_and_levels(void **state)
{
    (void)state;
    char *text = table_text(fleet, FLEET_SIZE);
    assert_non_null(strstr(text, "\n6 machines\n"));
    assert_non_null(strstr(text, "crc32c: avx2_hybrid on 2 machines, avx512 on 2, armv8_pmull on 1, "
                                 "sse42 on 1\n"));
    assert_non_null(strstr(text, "ISA level: x86-64-v3 on 2 machines, x86-64-v4 on 2, "
                                 "armv8 on 1, x86-64-v2 on 1\n"));
    free(text);
    machine_table_counts counts;
    verdict_error err = {0};
    assert_int_equal(machine_table_tally(fleet, FLEET_SIZE, MACHINE_TABLE_BY_CRC32C, &counts, &err),
                     0);
    assert_int_equal(counts.n, 4);
    assert_string_equal(counts.items[0].value, "avx2_hybrid");
    assert_int_equal(counts.items[0].machines, 2);
    assert_string_equal(counts.items[3].value, "sse42");
    machine_table_counts_free(&counts);
}

/* Every column at its widest would make a line of some 220 columns: the widest give way
 * until the line fits, and every line is cut the same way. */
static void narrows_the_widest_columns(void **state)
{
    (void)state;
    static const report_fact wide[] = {
        {"cpu_model", LONG_CPU}, {"cpu_flags", X86_V4 " aes"}, {"cpus_physical", "128"},
        {"cpus_online", "256"}, {"crc32c", "avx512"},
        {"cc", "a-compiler-nobody-has-heard-of version 1.2.3-with-a-long-suffix"},
        {"kernel", "6.12.0-0.rc4.20241022git42f7652d3eb5.39.fc42.x86_64+debug"}};
    machine_table_row rows[] = {{"buildfarm-animal-with-a-very-long-name-indeed", wide, 7},
                                ROW("zen3", zen3)};
    char *text = table_text(rows, 2);
    char *header = line_of(text, 0);
    size_t kernel_column = column_of(header, "kernel");
    for (size_t i = 0; i < 4; i++) {
        char *line = line_of(text, i);
        assert_true(utf8_width(line) <= 160);
        if (i == 1) /* the rule under the headers spans the table: narrowed just enough */
            assert_int_equal(utf8_width(line), 160);
        free(line);
    }
    char *first = line_of(text, 2), *second = line_of(text, 3);
    assert_int_equal(column_of(second, "6.6.7"), kernel_column);
    assert_non_null(strstr(first, "buildfarm-anim"));
    assert_non_null(strstr(first, "\xE2\x80\xA6"));
    free(first);
    free(second);
    free(header);
    free(text);
}

static void reads_isa_levels(void **state)
{
    (void)state;
    static const report_fact sve2[] = {{"cpu_flags", "crc32 pmull sve sve2 asimd"}};
    static const report_fact unknown[] = {{"cpu_flags", "unknown"}, {"arch", "x86_64"}};
    static const report_fact bare[] = {{"cpu_flags", "none"}, {"arch", "x86_64"}};
    static const report_fact partial[] = {{"cpu_flags", "sse4_2 popcnt avx2"}};
    machine_table_row rows[] = {ROW("a", sve2), ROW("b", unknown), ROW("c", bare),
                                ROW("d", partial), {"e", NULL, 0}};
    assert_string_equal(machine_table_isa_level(&rows[0]), "armv8+sve2");
    assert_string_equal(machine_table_isa_level(&rows[1]), "unknown");
    assert_string_equal(machine_table_isa_level(&rows[2]), "x86-64");
    assert_string_equal(machine_table_isa_level(&rows[3]), "x86-64-v2"); /* no bmi2 */
    assert_string_equal(machine_table_isa_level(&rows[4]), "unknown");
    assert_string_equal(machine_table_isa_level(&fleet[0]), "x86-64-v4");
    char *text = table_text(rows, 5);
    assert_non_null(strstr(text, "crc32c: not recorded on 5 machines\n"));
    free(text);
}

static void escapes_hostile_names(void **state)
{
    (void)state;
    static const report_fact hostile[] = {{"cpu_model", "\x1b]0;owned\a\x1b[2J"},
                                          {"crc32c", "\x1b[31mred"}};
    machine_table_row rows[] = {{"box\nname", hostile, 2}};
    char *text = table_text(rows, 1);
    assert_null(strchr(text, '\x1b'));
    assert_null(strchr(text, '\a'));
    assert_non_null(strstr(text, "box\\x0aname"));
    assert_non_null(strstr(text, "\\x1b[31mred on 1 machine\n"));
    free(text);
    text = table_text(NULL, 0);
    assert_string_equal(text, "no machines recorded\n");
    free(text);
}

static void writes_json_with_the_counts(void **state)
{
    (void)state;
    char *text = NULL;
    verdict_error err = {0};
    size_t length = 0;
    FILE *out = open_memstream(&text, &length);
    assert_int_equal(machine_table_write_json(out, fleet, FLEET_SIZE, &err), 0);
    fclose(out);
    json_error_t error;
    json_t *doc = json_loads(text, 0, &error);
    assert_non_null(doc);
    assert_string_equal(json_string_value(json_object_get(doc, "schema")), "verdict-machines/1");
    json_t *machines = json_object_get(doc, "machines");
    assert_int_equal(json_array_size(machines), FLEET_SIZE);
    json_t *second = json_array_get(machines, 1);
    assert_string_equal(json_string_value(json_object_get(second, "name")), "sapphire");
    assert_string_equal(json_string_value(json_object_get(second, "isa_level")), "x86-64-v4");
    json_t *facts = json_object_get(second, "facts");
    assert_string_equal(json_string_value(json_object_get(facts, "cpu_model")), LONG_CPU);
    assert_int_equal(json_object_size(facts), 9);
    json_t *crc = json_object_get(json_object_get(doc, "counts"), "crc32c");
    assert_int_equal(json_array_size(crc), 4);
    assert_string_equal(json_string_value(json_object_get(json_array_get(crc, 0), "value")),
                        "avx2_hybrid");
    assert_int_equal(json_integer_value(json_object_get(json_array_get(crc, 0), "machines")), 2);
    json_t *isa = json_object_get(json_object_get(doc, "counts"), "isa_level");
    assert_int_equal(json_array_size(isa), 4);
    json_decref(doc);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lays_out_the_columns),
        cmocka_unit_test(aligns_by_terminal_columns),
        cmocka_unit_test(narrows_the_widest_columns),
        cmocka_unit_test(counts_paths_and_levels),
        cmocka_unit_test(reads_isa_levels),
        cmocka_unit_test(escapes_hostile_names),
        cmocka_unit_test(writes_json_with_the_counts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

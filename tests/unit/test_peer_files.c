/* Unit tests of the peer-file readers: each format told by content, its names, values and
 * units, every refusal with the place and value at fault, and ministat's -d and comments. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/error.h"

#include "core/peer_files.h"

#define ERR_SIZE 1024

static const peer_options auto_options = {.format = PEER_AUTO};

static void parse_ok(const char *text, const peer_options *o, peer_file *f)
{
    verdict_error err = {0};
    if (peer_text_parse("t", text, strlen(text), o, f, &err) != 0)
        fail_msg("refused: %s", err.message);
}

static void expect_error(const char *text, const peer_options *o, const char *fragment)
{
    peer_file f;
    verdict_error err = {0};
    assert_int_equal(peer_text_parse("t", text, strlen(text), o, &f, &err), -1);
    if (strstr(err.message, fragment) == NULL)
        fail_msg("message \"%s\" lacks \"%s\"", err.message, fragment);
    assert_null(f.series);
    assert_int_equal(f.n, 0);
}

static bool near(double a, double b)
{
    return fabs(a - b) <= 1e-12 * fabs(b);
}

static void test_hyperfine(void **state)
{
    (void)state;
    peer_file f;
    parse_ok("{\"results\": [{\"command\": \"sleep 0.02\", \"mean\": 0.02, \"times\": [0.021, "
             "0.022]}, {\"command\": \"x\", \"command_name\": \"slow\", \"times\": [0.031, "
             "0.032, 0.033], \"parameters\": {\"n\": \"3\"}}]}",
             &auto_options, &f);
    assert_int_equal(f.format, PEER_HYPERFINE);
    assert_int_equal(f.n, 2);
    assert_string_equal(f.series[0].variant, "sleep 0.02");
    assert_string_equal(f.series[1].variant, "slow");
    assert_null(f.series[0].point);
    assert_string_equal(f.series[0].metric, "time");
    assert_int_equal(f.series[1].samples.n, 3);
    assert_true(f.series[1].samples.values[2] == 0.033);
    peer_file_free(&f);
    expect_error("{\"results\": [{\"command\": \"a\", \"times\": [1, 2]}, {\"command\": \"b\", "
                 "\"times\": [1, 0]}]}", &auto_options, "t: results[1].times[1]: 0 is not positive");
    expect_error("{\"results\": [{\"command\": \"a\", \"times\": [1, \"2\"]}]}", &auto_options,
                 "results[0].times[1]: a string, where a number was expected");
    expect_error("{\"results\": [{\"command\": \"a\"}]}", &auto_options,
                 "results[0].times: missing, where an array");
    expect_error("{\"results\": [{\"times\": [1]}]}", &auto_options, "results[0].command");
    expect_error("{\"results\": []}", &auto_options, "results: empty");
    expect_error("{\"results\": [], \"results\": []}", &auto_options, "t:1:");
    expect_error("{\"results\": [{\"command\": \"a\", \"times\": [1e999]}]}", &auto_options,
                 "not valid JSON");
}

static const char go_old[] =
    "goos: linux\n"
    "goarch: amd64\n"
    "pkg: example.com/codec\n"
    "cpu: Some CPU @ 2.00GHz\n"
    "BenchmarkEncode/json-8   \t 1000000\t      1200 ns/op\t  64 B/op\t 2 allocs/op\t 85.5 MB/s\n"
    "BenchmarkDecode\n"
    "    codec_test.go:41: a log line\n"
    "BenchmarkDecode-8        \t  500000\t      2400 ns/op\t  128 B/op\t 4 allocs/op\t 40 MB/s\n"
    "BenchmarkEncode/json-8   \t 1000000\t      1300 ns/op\t  64 B/op\t 2 allocs/op\t 80 MB/s\n"
    "Benchmarking is prose here and ignored\n"
    "PASS\n"
    "ok  \texample.com/codec\t3.2s\n";

static void test_go(void **state)
{
    (void)state;
    peer_file f;
    parse_ok(go_old, &auto_options, &f);
    assert_int_equal(f.format, PEER_GO);
    assert_int_equal(f.n, 2);
    assert_string_equal(f.series[0].point, "Encode/json-8");
    assert_string_equal(f.series[1].point, "Decode-8");
    assert_string_equal(f.series[0].metric, "sec/op");
    assert_false(f.series[0].higher_is_better);
    assert_int_equal(f.series[0].samples.n, 2);
    assert_true(near(f.series[0].samples.values[1], 1300e-9));
    assert_int_equal(f.series[0].samples.lines[1], 9);
    peer_file_free(&f);
    peer_options rate = {.format = PEER_AUTO, .metric = "MB/s"};
    parse_ok(go_old, &rate, &f);
    assert_string_equal(f.series[0].metric, "MB/s");
    assert_true(f.series[0].higher_is_better);
    assert_true(f.series[1].samples.values[0] == 40.0);
    peer_file_free(&f);
}

static void test_go_refusals(void **state)
{
    (void)state;
    expect_error("BenchmarkA-8 100 12 ns/op 3\n", &auto_options, "t:1: a value without its unit");
    expect_error("BenchmarkA-8 1x 12 ns/op\n", &auto_options, "t:1: the iteration count");
    expect_error("BenchmarkA-8 10 abc ns/op\n", &auto_options, "t:1: not a number: \"abc\"");
    expect_error("BenchmarkA-8 10 0 ns/op\n", &auto_options, "t:1: ns/op of A-8: 0 is not positive");
    expect_error("goos: linux\nPASS\n", &auto_options, "t: no Go benchmark results");
    /* one name in two packages is two benchmarks: refused, not merged */
    expect_error("pkg: a/x\nBenchmarkA-8 10 12 ns/op\npkg: a/y\nBenchmarkA-8 10 13 ns/op\n",
                 &auto_options, "t:4: benchmark A-8 is in two packages (\"a/x\" and \"a/y\")");
    peer_file f;
    parse_ok("pkg: a/x\nBenchmarkA-8 10 12 ns/op\npkg: a/y\nBenchmarkB-8 10 13 ns/op\n"
             "pkg: a/x\nBenchmarkA-8 10 14 ns/op\n", &auto_options, &f);
    assert_int_equal(f.series[0].samples.n, 2);
    peer_file_free(&f);
    peer_options allocs = {.format = PEER_AUTO, .metric = "allocs/op"};
    expect_error("BenchmarkA-8 10 12 ns/op\n", &allocs,
                 "t: no benchmark line has allocs/op (line 1 has none)");
    expect_error("BenchmarkA-8 10 12 ns/op 0 allocs/op\n", &allocs, "0 is not positive");
}

static const char gbench[] =
    "{\"context\": {\"num_cpus\": 8}, \"benchmarks\": ["
    "{\"name\": \"BM_Sort/64\", \"run_name\": \"BM_Sort/64\", \"run_type\": \"iteration\","
    " \"repetition_index\": 0, \"real_time\": 350, \"cpu_time\": 300, \"time_unit\": \"ns\","
    " \"items_per_second\": 1.8e8},"
    "{\"name\": \"BM_Hash\", \"run_name\": \"BM_Hash\", \"run_type\": \"iteration\","
    " \"real_time\": 2.5, \"cpu_time\": 2, \"time_unit\": \"us\", \"items_per_second\": 4e5},"
    "{\"name\": \"BM_Sort/64\", \"run_name\": \"BM_Sort/64\", \"run_type\": \"iteration\","
    " \"repetition_index\": 1, \"real_time\": 360, \"cpu_time\": 310, \"time_unit\": \"ns\","
    " \"items_per_second\": 1.7e8},"
    "{\"name\": \"BM_Sort/64_mean\", \"run_name\": \"BM_Sort/64\", \"run_type\": \"aggregate\","
    " \"aggregate_name\": \"mean\", \"real_time\": 355, \"cpu_time\": 305, \"time_unit\": \"ns\"}"
    "]}";

static void test_gbench(void **state)
{
    (void)state;
    peer_file f;
    parse_ok(gbench, &auto_options, &f);
    assert_int_equal(f.format, PEER_GBENCH);
    assert_int_equal(f.n, 2);
    assert_string_equal(f.series[0].point, "BM_Sort/64");
    assert_int_equal(f.series[0].samples.n, 2); /* the aggregate is not a sample */
    assert_true(near(f.series[0].samples.values[1], 360e-9));
    assert_true(near(f.series[1].samples.values[0], 2.5e-6));
    assert_string_equal(f.series[0].metric, "real_time");
    peer_file_free(&f);
    peer_options cpu = {.format = PEER_AUTO, .metric = "cpu_time"};
    parse_ok(gbench, &cpu, &f);
    assert_true(near(f.series[1].samples.values[0], 2e-6));
    peer_file_free(&f);
    peer_options items = {.format = PEER_AUTO, .metric = "items_per_second"};
    parse_ok(gbench, &items, &f);
    assert_true(f.series[0].higher_is_better);
    assert_true(f.series[0].samples.values[0] == 1.8e8);
    peer_file_free(&f);
    expect_error("{\"context\": {}, \"benchmarks\": [{\"name\": \"BM_F\", \"run_type\": "
                 "\"iteration\", \"error_occurred\": true, \"error_message\": \"nope\", "
                 "\"real_time\": 0}]}", &auto_options,
                 "t: benchmarks: no iteration entry to compare: benchmark BM_F failed: nope");
    expect_error("{\"context\": {}, \"benchmarks\": [{\"name\": \"BM_F\", \"real_time\": 1, "
                 "\"time_unit\": \"ps\"}]}", &auto_options, "benchmarks[0].time_unit: ps");
    expect_error("{\"context\": {}, \"benchmarks\": [{\"name\": \"BM_F\", \"real_time\": 1}, "
                 "{\"name\": \"BM_F\", \"real_time\": -1}]}", &auto_options,
                 "benchmarks[1].real_time: -1 is not positive");
    /* failed, skipped and counter-less entries are left out, each benchmark named once */
    static const char *const mixed =
        "{\"context\": {}, \"benchmarks\": ["
        "{\"name\": \"BM_A\", \"real_time\": 1, \"items_per_second\": 5},"
        "{\"name\": \"BM_A\", \"real_time\": 2, \"items_per_second\": 6},"
        "{\"name\": \"BM_B\", \"real_time\": 3},"
        "{\"name\": \"BM_E\", \"error_occurred\": true, \"error_message\": \"no disk\"},"
        "{\"name\": \"BM_E\", \"error_occurred\": true, \"error_message\": \"no disk\"},"
        "{\"name\": \"BM_S\", \"skipped\": true, \"skip_message\": \"later\"}]}";
    peer_options counter = {.format = PEER_AUTO, .metric = "items_per_second"};
    parse_ok(mixed, &counter, &f);
    assert_int_equal(f.n, 1);
    assert_string_equal(f.series[0].point, "BM_A");
    assert_int_equal(f.n_warnings, 3);
    assert_string_equal(f.warnings[0], "benchmark BM_B has no items_per_second: not compared");
    assert_string_equal(f.warnings[1], "benchmark BM_E failed: no disk: not compared");
    assert_string_equal(f.warnings[2], "benchmark BM_S was skipped: later: not compared");
    peer_file_free(&f);
}

/* A benchmark under two values of a configuration line is two benchmarks; lines without the
 * unit and "Benchmark" then a lower-case letter are left out, each said in a warning. */
static void test_go_configurations(void **state)
{
    (void)state;
    peer_file f;
    parse_ok("goos: linux\ncpu: X\nnote: a\nBenchmarkA-8 10 12 ns/op\nBenchmarkB 10 5 ns/op\n"
             "note: b\nBenchmarkA-8 10 13 ns/op\nBenchmarkA-8 10 14 ns/op\n"
             "BenchmarkB 10 6 ns/op\nnote:\nBenchmarkA-8 10 15 ns/op\n", &auto_options, &f);
    assert_int_equal(f.n, 5);
    assert_string_equal(f.series[0].point, "A-8 (note: a)");
    assert_int_equal(f.series[0].samples.n, 1);
    assert_string_equal(f.series[1].point, "B (note: a)");
    assert_string_equal(f.series[2].point, "A-8 (note: b)");
    assert_int_equal(f.series[2].samples.n, 2);
    assert_string_equal(f.series[3].point, "B (note: b)");
    assert_string_equal(f.series[4].point, "A-8"); /* "note:" unset it */
    assert_int_equal(f.n_warnings, 0);
    peer_file_free(&f);
    /* one configuration throughout: the names stay benchstat's */
    parse_ok("note: a\nBenchmarkA-8 10 12 ns/op\nBenchmarkA-8 10 13 ns/op\n", &auto_options,
             &f);
    assert_int_equal(f.n, 1);
    assert_string_equal(f.series[0].point, "A-8");
    peer_file_free(&f);
    peer_options bytes = {.format = PEER_AUTO, .metric = "B/op"};
    parse_ok("BenchmarkA 10 12 ns/op 8 B/op\nBenchmarkA 10 12 ns/op\nBenchmarkB 10 9 ns/op\n"
             "Benchmarkfoo 10 9 ns/op 8 B/op\nBenchmarkfoo 10 9 ns/op 8 B/op\n", &bytes, &f);
    assert_int_equal(f.n, 1);
    assert_int_equal(f.series[0].samples.n, 1);
    assert_int_equal(f.n_warnings, 3);
    assert_string_equal(f.warnings[0], "line 4 and others: \"Benchmark\" then a lower-case letter "
                        "is no Go benchmark (the testing package runs none): 2 lines skipped");
    assert_string_equal(f.warnings[1], "benchmark A: 1 line without B/op (line 2): left out");
    assert_string_equal(f.warnings[2], "benchmark B has no B/op (line 3): not compared");
    peer_file_free(&f);
}

static const char pyperf[] =
    "{\"version\": \"1.0\", \"metadata\": {\"unit\": \"second\"}, \"benchmarks\": ["
    "{\"metadata\": {\"name\": \"json_dumps\"}, \"runs\": ["
    "  {\"metadata\": {\"calibrate_loops\": 128}, \"warmups\": [[1, 0.5], [2, 0.4]]},"
    "  {\"warmups\": [[128, 9.0]], \"values\": [1e-5, 1.1e-5, 1.2e-5]},"
    "  {\"warmups\": [[128, 9.0]], \"values\": [1.3e-5]}]},"
    "{\"metadata\": {\"name\": \"json_loads\", \"unit\": \"byte\"}, \"runs\": ["
    "  {\"values\": [100, 200]}]}]}";

static void test_pyperf(void **state)
{
    (void)state;
    peer_file f;
    parse_ok(pyperf, &auto_options, &f);
    assert_int_equal(f.format, PEER_PYPERF);
    assert_int_equal(f.n, 2);
    assert_string_equal(f.series[0].point, "json_dumps");
    assert_int_equal(f.series[0].samples.n, 4); /* not the warmups, not the calibration */
    assert_string_equal(f.series[0].metric, "time");
    assert_string_equal(f.series[1].metric, "byte");
    peer_file_free(&f);
    /* one benchmark, named by the file's metadata */
    parse_ok("{\"version\": \"1.0\", \"metadata\": {\"name\": \"timeit\"}, \"benchmarks\": "
             "[{\"runs\": [{\"values\": [1, 2]}]}]}", &auto_options, &f);
    assert_string_equal(f.series[0].point, "timeit");
    peer_file_free(&f);
    expect_error("{\"version\": \"1.0\", \"benchmarks\": [{\"runs\": []}]}", &auto_options,
                 "benchmarks[0].metadata.name: missing");
    expect_error("{\"version\": \"1.0\", \"benchmarks\": [{\"metadata\": {\"name\": \"a\"}, "
                 "\"runs\": [{\"values\": [1]}]}, {\"metadata\": {\"name\": \"a\"}, \"runs\": "
                 "[{\"values\": [1]}]}]}", &auto_options, "benchmarks[1]: a second benchmark");
    expect_error("{\"version\": \"1.0\", \"benchmarks\": [{\"metadata\": {\"name\": \"a\"}, "
                 "\"runs\": [{\"values\": [1, 2]}, {\"values\": [3, null]}]}]}", &auto_options,
                 "benchmarks[0].runs[1].values[1]: null, where a number");
}

static void test_numbers_delimiters_and_comments(void **state)
{
    (void)state;
    peer_file f;
    parse_ok("# ms\n0.0011 # cold cache\n0.0012\t# x\n\n0.0013\n", &auto_options, &f);
    assert_int_equal(f.format, PEER_NUMBERS);
    assert_int_equal(f.series[0].samples.n, 3);
    assert_null(f.series[0].variant);
    assert_string_equal(f.series[0].metric, "value");
    peer_file_free(&f);
    peer_options csv = {.format = PEER_AUTO, .layout = {.column = 2, .delimiters = ","}};
    parse_ok("1,0.5,x\n2,,0.6\n3, 0.7 ,y # z\n", &csv, &f);
    /* ministat's -d is strtok's: ",," is one delimiter, so line 2's column 2 is 0.6 */
    assert_int_equal(f.series[0].samples.n, 3);
    assert_true(f.series[0].samples.values[1] == 0.6 && f.series[0].samples.values[2] == 0.7);
    peer_file_free(&f);
    peer_options first = {.format = PEER_AUTO, .layout = {.delimiters = ";"}};
    parse_ok("1.5;a\n2.5;b\n", &first, &f); /* -d without -C: column 1, as ministat */
    assert_true(f.series[0].samples.values[1] == 2.5);
    peer_file_free(&f);
    expect_error("0.0012#x\n", &auto_options, "t:1: not a number: \"0.0012#x\"");
    expect_error("1\nabc\n", &auto_options, "t:2: not a number: \"abc\" (read as bare numbers");
    expect_error("1,2\n3\n", &csv, "t:2: no column 2 in \"3\" (columns split at the -d");
}

static void test_detection_and_forcing(void **state)
{
    (void)state;
    expect_error("{\"foo\": 1, \"bar\": {}}", &auto_options,
                 "t:1: JSON of no format verdict reads: tried hyperfine");
    expect_error("{\"foo\": 1, \"bar\": {}}", &auto_options, "found an object with the keys \"foo\", \"bar\"");
    expect_error("[1, 2]", &auto_options, "found an array");
    expect_error("{\"results\": [1,", &auto_options, "t:1:");
    expect_error("\x1f\x8b\x08", &auto_options, "compressed with gzip");
    peer_options go = {.format = PEER_GO};
    expect_error("1\n2\n", &go, "t: no Go benchmark results");
    peer_options numbers = {.format = PEER_NUMBERS};
    expect_error(go_old, &numbers, "t:1: not a number: \"goos: linux\"");
    peer_options hyperfine = {.format = PEER_HYPERFINE};
    expect_error(gbench, &hyperfine, "t: results: missing");
    peer_options column = {.format = PEER_AUTO, .layout = {.column = 2}};
    expect_error(gbench, &column, "-C and -d pick a column of bare numbers; this file is gbench");
    peer_options metric = {.format = PEER_AUTO, .metric = "B/op"};
    expect_error(pyperf, &metric, "--metric B/op: pyperf files have the metric time only");
    peer_format format;
    assert_int_equal(peer_format_parse("gbench", &format), 0);
    assert_int_equal(format, PEER_GBENCH);
    assert_int_equal(peer_format_parse("xml", &format), -1);
    /* a UTF-8 byte-order mark before the JSON */
    peer_file f;
    parse_ok("\xEF\xBB\xBF {\"results\": [{\"command\": \"a\", \"times\": [1, 2]}]}",
             &auto_options, &f);
    assert_int_equal(f.format, PEER_HYPERFINE);
    peer_file_free(&f);
}

/* Runs with a non-zero exit code (null: a signal) are counted as failed, never analysed. */
static void test_hyperfine_exit_codes(void **state)
{
    (void)state;
    peer_file f;
    parse_ok("{\"results\": [{\"command\": \"flaky\", \"times\": [0.5, 0.6, 0.7, 0.8], "
             "\"exit_codes\": [0, 1, 0, null]}]}", &auto_options, &f);
    assert_int_equal(f.series[0].samples.n, 2);
    assert_true(f.series[0].samples.values[1] == 0.7);
    assert_int_equal(f.series[0].failed.n, 2);
    assert_true(f.series[0].failed.values[0] == 0.6);
    assert_int_equal(f.series[0].failed_exits[0], 1);
    assert_int_equal(f.series[0].failed_exits[1], -1);
    peer_file_free(&f);
    /* every run failed: kept, so that the report can say so */
    parse_ok("{\"results\": [{\"command\": \"false\", \"times\": [0.1, 0.2], "
             "\"exit_codes\": [1, 1]}]}", &auto_options, &f);
    assert_int_equal(f.series[0].samples.n, 0);
    assert_int_equal(f.series[0].failed.n, 2);
    peer_file_free(&f);
    expect_error("{\"results\": [{\"command\": \"a\", \"times\": [1, 2], \"exit_codes\": [0]}]}",
                 &auto_options, "t: results[0].exit_codes: 1 codes for 2 times");
    expect_error("{\"results\": [{\"command\": \"a\", \"times\": [1], \"exit_codes\": [\"0\"]}]}",
                 &auto_options, "t: results[0].exit_codes[0]: a string, where a number");
    expect_error("{\"results\": [{\"command\": \"a\", \"times\": [1], \"exit_codes\": [0.5]}]}",
                 &auto_options, "results[0].exit_codes[0]: 0.5 is not an exit code");
}

/* hyperfine -L over two commands: values are points, commands variants named by template;
 * a scan of one command keeps its values as variants. */
static void test_hyperfine_scan(void **state)
{
    (void)state;
    peer_file f;
    parse_ok("{\"results\": ["
             "{\"command\": \"sleep 0.001\", \"times\": [1], \"parameters\": {\"n\": \"1\"}},"
             "{\"command\": \"sleep 0.011\", \"times\": [2], \"parameters\": {\"n\": \"1\"}},"
             "{\"command\": \"sleep 0.002\", \"times\": [3], \"parameters\": {\"n\": \"2\"}},"
             "{\"command\": \"sleep 0.012\", \"times\": [4], \"parameters\": {\"n\": \"2\"}}]}",
             &auto_options, &f);
    assert_int_equal(f.n, 4);
    assert_string_equal(f.series[0].point, "n=1");
    assert_string_equal(f.series[0].variant, "sleep 0.00{n}");
    assert_string_equal(f.series[1].variant, "sleep 0.01{n}"); /* not "sleep 0.0{n}{n}" */
    assert_string_equal(f.series[3].point, "n=2");
    assert_string_equal(f.series[3].variant, "sleep 0.01{n}");
    peer_file_free(&f);
    /* no template fits: the first command, at its point */
    parse_ok("{\"results\": ["
             "{\"command\": \"a\", \"times\": [1], \"parameters\": {\"n\": \"1\"}},"
             "{\"command\": \"b\", \"times\": [2], \"parameters\": {\"n\": \"1\"}},"
             "{\"command\": \"c\", \"times\": [3], \"parameters\": {\"n\": \"2\"}},"
             "{\"command\": \"d\", \"times\": [4], \"parameters\": {\"n\": \"2\"}}]}",
             &auto_options, &f);
    assert_string_equal(f.series[2].variant, "a (at n=1)");
    assert_string_equal(f.series[3].variant, "b (at n=1)");
    peer_file_free(&f);
    parse_ok("{\"results\": ["
             "{\"command\": \"sleep 1\", \"times\": [1], \"parameters\": {\"n\": \"1\"}},"
             "{\"command\": \"sleep 2\", \"times\": [2], \"parameters\": {\"n\": \"2\"}}]}",
             &auto_options, &f);
    assert_null(f.series[0].point);
    assert_string_equal(f.series[1].variant, "sleep 2");
    peer_file_free(&f);
}

/* criterion's sample.json: total ns of iters[i] iterations, as seconds per iteration. */
static void test_criterion(void **state)
{
    (void)state;
    static const char *const sample =
        "{\"sampling_mode\": \"Linear\", \"iters\": [2.0, 4.0, 6.0], "
        "\"times\": [3000.0, 6200.0, 9000.0]}";
    peer_file f;
    verdict_error err = {0};
    if (peer_text_parse("target/criterion/fib/recursive 15/new/sample.json", sample,
                        strlen(sample), &auto_options, &f, &err) != 0)
        fail_msg("refused: %s", err.message);
    assert_int_equal(f.format, PEER_CRITERION);
    assert_int_equal(f.n, 1);
    assert_string_equal(f.series[0].point, "fib/recursive 15");
    assert_string_equal(f.series[0].metric, "time");
    assert_int_equal(f.series[0].samples.n, 3);
    assert_true(near(f.series[0].samples.values[1], 1550e-9));
    peer_file_free(&f);
    /* criterion 0.2's [[iters], [times]]; a path that names no benchmark */
    parse_ok("[[1.0, 2.0], [10.0, 22.0]]", &auto_options, &f);
    assert_int_equal(f.format, PEER_CRITERION);
    assert_string_equal(f.series[0].point, "benchmark");
    assert_true(near(f.series[0].samples.values[1], 11e-9));
    peer_file_free(&f);
    expect_error("{\"iters\": [1.0, 2.0], \"times\": [10.0]}", &auto_options,
                 "t: iters has 2 values and times 1");
    expect_error("{\"iters\": [0.0], \"times\": [10.0]}", &auto_options,
                 "t: iters[0]: 0, where a count of iterations");
    expect_error("{\"iters\": [1.0], \"times\": [-1.0]}", &auto_options,
                 "t: times[0]: -1 is not positive");
    expect_error("{\"mean\": {\"confidence_interval\": {}, \"point_estimate\": 1.0}}",
                 &auto_options, "estimates.json holds summaries");
    peer_options criterion = {.format = PEER_CRITERION};
    expect_error("{\"iters\": [1.0]}", &criterion, "t: times: missing");
    expect_error("{\"iters\": [1.0], \"times\": [1.0", &auto_options, "t:1:");
}

static const char jmh[] =
    "[{\"benchmark\": \"a.B.decode\", \"mode\": \"avgt\", \"params\": {\"size\": \"64\"},"
    "  \"primaryMetric\": {\"score\": 2.5, \"scoreUnit\": \"us/op\","
    "                     \"rawData\": [[2.0, 3.0], [2.5]]},"
    "  \"secondaryMetrics\": {\"gc.alloc.rate.norm\": {\"scoreUnit\": \"B/op\","
    "                                                \"rawData\": [[64.0, 64.0]]}}},"
    " {\"benchmark\": \"a.B.encode\", \"mode\": \"thrpt\","
    "  \"primaryMetric\": {\"scoreUnit\": \"ops/ms\", \"rawData\": [[100.0, 110.0]]},"
    "  \"secondaryMetrics\": {}}]";

/* JMH: every benchmark with its params a point, rawData of every fork its samples. */
static void test_jmh(void **state)
{
    (void)state;
    peer_file f;
    parse_ok(jmh, &auto_options, &f);
    assert_int_equal(f.format, PEER_JMH);
    assert_int_equal(f.n, 2);
    assert_string_equal(f.series[0].point, "a.B.decode {size=64}");
    assert_string_equal(f.series[0].metric, "sec/op");
    assert_false(f.series[0].higher_is_better);
    assert_int_equal(f.series[0].samples.n, 3);
    assert_true(near(f.series[0].samples.values[2], 2.5e-6));
    assert_string_equal(f.series[1].point, "a.B.encode");
    assert_string_equal(f.series[1].metric, "ops/ms");
    assert_true(f.series[1].higher_is_better);
    assert_int_equal(f.n_warnings, 0);
    peer_file_free(&f);
    /* a secondary metric: the benchmark without it is left out with a warning */
    peer_options alloc = {.format = PEER_AUTO, .metric = "gc.alloc.rate.norm"};
    parse_ok(jmh, &alloc, &f);
    assert_int_equal(f.n, 1);
    assert_string_equal(f.series[0].metric, "B/op");
    assert_int_equal(f.n_warnings, 1);
    assert_string_equal(f.warnings[0], "benchmark a.B.encode has no gc.alloc.rate.norm: not "
                                       "compared");
    peer_file_free(&f);
    expect_error("[{\"benchmark\": \"x\", \"primaryMetric\": {\"scoreUnit\": \"ops/s\"}}]",
                 &auto_options, "t: [0].primaryMetric.rawData: missing");
    expect_error("[{\"benchmark\": \"x\", \"primaryMetric\": {\"scoreUnit\": \"ops/s\", "
                 "\"rawDataHistogram\": []}}]", &auto_options, "use -bm avgt or thrpt");
    expect_error("[{\"primaryMetric\": {}}]", &auto_options, "t: [0].benchmark: missing");
    expect_error("[{\"benchmark\": \"x\", \"primaryMetric\": {\"rawData\": [[1.0]]}}]",
                 &auto_options, "t: [0].primaryMetric.scoreUnit: missing");
    expect_error("[{\"benchmark\": \"x\", \"primaryMetric\": {\"scoreUnit\": \"ops/s\", "
                 "\"rawData\": [[1.0, \"2\"]]}}]", &auto_options,
                 "t: [0].primaryMetric.rawData[0][1]: a string");
    expect_error("[{\"benchmark\": \"x\", \"primaryMetric\": {\"scoreUnit\": \"ops/s\", "
                 "\"rawData\": [[1.0]]}}, {\"benchmark\": \"x\", \"primaryMetric\": "
                 "{\"scoreUnit\": \"ops/s\", \"rawData\": [[1.0]]}}]", &auto_options,
                 "t: [1]: a second x (another -bm mode?)");
    peer_options jmh_format = {.format = PEER_JMH};
    expect_error("{\"results\": []}", &jmh_format, "an object, where JMH's array");
    expect_error("[]", &jmh_format, "an empty array");
    expect_error(jmh, &(peer_options){.format = PEER_JMH, .metric = "nope"},
                 "t: no benchmark has the metric nope");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hyperfine),
        cmocka_unit_test(test_go),
        cmocka_unit_test(test_go_refusals),
        cmocka_unit_test(test_gbench),
        cmocka_unit_test(test_pyperf),
        cmocka_unit_test(test_numbers_delimiters_and_comments),
        cmocka_unit_test(test_detection_and_forcing),
        cmocka_unit_test(test_hyperfine_exit_codes),
        cmocka_unit_test(test_go_configurations),
        cmocka_unit_test(test_hyperfine_scan),
        cmocka_unit_test(test_criterion),
        cmocka_unit_test(test_jmh),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#!/usr/bin/env bats
# Command-line tests of `verdict compare` on the files of peer tools: a real hyperfine export,
# Go benchmark text, Google Benchmark and pyperf JSON, ministat's -d, -c and comments, and
# the message for a file of no known format.

setup() {
    VERDICT=${VERDICT:?set VERDICT to the verdict binary}
    DATA=$(mktemp -d)
}

teardown() {
    rm -rf "$DATA"
}

# Go benchmark lines: name, centre (ns/op), runs; values spread by ±2% around the centre.
go_lines() {
    awk -v name="$1" -v c="$2" -v n="${3:-10}" 'BEGIN {
        for (i = 0; i < n; i++)
            printf "%s   \t 1000000\t %.2f ns/op\t  %d B/op\t %d allocs/op\n",
                name, c * (1 + 0.02 * ((i * 7919) % 11 - 5) / 5), 64 + i % 2, 2
    }'
}

go_file() { # file scale: three benchmarks; the last one named by $3
    {
        printf 'goos: linux\ngoarch: amd64\npkg: example.com/codec\ncpu: Some CPU\n'
        go_lines BenchmarkEncode/json-8 $((1000 * $2 / 100))
        go_lines BenchmarkDecode-8 $((2000 * $2 / 100))
        printf 'BenchmarkDecode\n    codec_test.go:41: a log line\n'
        go_lines "Benchmark$3-8" 500
        printf 'PASS\nok  \texample.com/codec\t3.2s\n'
    } > "$1"
}

@test "a hyperfine export of two commands is a comparison: 0.03 s is about 50% slower than 0.02 s" {
    command -v hyperfine || skip "hyperfine is not installed (scripts/setup.sh installs it)"
    hyperfine -N --runs 12 --warmup 1 --export-json "$DATA/h.json" 'sleep 0.02' 'sleep 0.03' \
        > /dev/null 2>&1
    run "$VERDICT" compare "$DATA/h.json"
    [ "$status" -eq 0 ]
    [[ "$output" == *"== time (lower is better) =="* ]]
    [[ "$output" == *"worse: sleep 0.03 is "*"% slower than sleep 0.02"* ]]
    "$VERDICT" compare --json - "$DATA/h.json" 2>/dev/null > "$DATA/out.json"
    jq -e '[.summaries[] | .n] == [12, 12]' "$DATA/out.json"
    jq -e '[.summaries[] | .variant] == ["sleep 0.02", "sleep 0.03"]' "$DATA/out.json"
    # 10 ms more of 20 ms is +50%; sleep's own overhead (a few ms) brings it nearer +40%
    jq -e '.comparisons[0].estimate > 1.2 and .comparisons[0].estimate < 1.7' "$DATA/out.json"
    jq -e '.comparisons[0].verdict == "worse"' "$DATA/out.json"
}

@test "hyperfine exports of the same command before and after are told apart by file" {
    printf '{"results": [{"command": "make", "times": [%s]}]}' \
        "1.00, 1.01, 0.99, 1.02, 0.98, 1.00, 1.01, 0.99" > "$DATA/before.json"
    printf '{"results": [{"command": "make", "times": [%s]}]}' \
        "1.20, 1.21, 1.19, 1.22, 1.18, 1.20, 1.21, 1.19" > "$DATA/after.json"
    "$VERDICT" compare --json - "$DATA/before.json" "$DATA/after.json" 2>/dev/null > "$DATA/o.json"
    jq -e '[.summaries[] | .variant] == ["before.json: make", "after.json: make"]' "$DATA/o.json"
    jq -e '.comparisons[0].verdict == "worse" and .comparisons[0].estimate > 1.19' "$DATA/o.json"
}

@test "a bad hyperfine time is refused with its JSON path and value" {
    printf '{"results": [{"command": "a", "times": [0.1, 0.2]}, {"command": "b", "times": [0.1, -0.5]}]}' \
        > "$DATA/h.json"
    run "$VERDICT" compare "$DATA/h.json"
    [ "$status" -eq 2 ]
    [[ "$output" == *"$DATA/h.json: results[1].times[1]: -0.5 is not positive"* ]]
    printf '{"results": [{"command": "a", "times": [0.1, 0.2' > "$DATA/cut.json"
    run "$VERDICT" compare "$DATA/cut.json"
    [ "$status" -eq 2 ]
    [[ "$output" == *"$DATA/cut.json:1:"*"not valid JSON"* ]]
}

@test "Go benchmarks are matched by name, compared per benchmark and overall (geomean)" {
    go_file "$DATA/old.txt" 100 Old
    go_file "$DATA/new.txt" 110 New
    run "$VERDICT" compare "$DATA/old.txt" "$DATA/new.txt"
    [ "$status" -eq 0 ]
    [[ "$output" == *"== Encode/json-8 · sec/op (lower is better) =="* ]]
    [[ "$output" == *"== Decode-8 · sec/op (lower is better) =="* ]]
    [[ "$output" == *"worse: new.txt is 10."*"% slower than old.txt"* ]]
    [[ "$output" == *"== overall, across the points (geometric mean of the ratios) =="* ]]
    [[ "$output" == *"new.txt vs old.txt, sec/op over 2 points: +10."* ]]
    [[ "$output" == *"[missing-benchmark] benchmark Old-8 is only in the baseline old.txt: not compared"* ]]
    [[ "$output" == *"[missing-benchmark] benchmark New-8 is in new.txt but not in the baseline old.txt"* ]]
    "$VERDICT" compare --json - "$DATA/old.txt" "$DATA/new.txt" 2>/dev/null > "$DATA/o.json"
    jq -e '[.summaries[] | [.point, .variant, .n]] == [["Encode/json-8", "old.txt", 10],
        ["Encode/json-8", "new.txt", 10], ["Decode-8", "old.txt", 10], ["Decode-8", "new.txt", 10]]' \
        "$DATA/o.json"
    jq -e '[.comparisons[] | .verdict] == ["worse", "worse"]' "$DATA/o.json"
    jq -e '.comparisons[1].estimate > 1.09 and .comparisons[1].estimate < 1.11' "$DATA/o.json"
    jq -e '.overall[0] | .points == 2 and .metric == "sec/op" and .estimate > 1.09 and .estimate < 1.11' \
        "$DATA/o.json"
    jq -e '[.warnings[] | select(.code == "missing-benchmark")] | length == 2' "$DATA/o.json"
    # a third file: its benchmarks compared with the same baseline
    go_file "$DATA/newer.txt" 90 Old
    "$VERDICT" compare --json - "$DATA/old.txt" "$DATA/new.txt" "$DATA/newer.txt" 2>/dev/null > "$DATA/o3.json"
    jq -e '[.comparisons[] | [.point, .candidate, .verdict]][0:4] == [["Encode/json-8", "new.txt", "worse"],
        ["Encode/json-8", "newer.txt", "better"], ["Decode-8", "new.txt", "worse"],
        ["Decode-8", "newer.txt", "better"]]' "$DATA/o3.json"
    jq -e '[.comparisons[] | [.point, .candidate]][4] == ["Old-8", "newer.txt"]' "$DATA/o3.json"
    jq -e '[.warnings[] | .message] | index("benchmark Old-8 is not in new.txt: compared in the other files only") != null' \
        "$DATA/o3.json"
}

@test "Go: --metric B/op; a unit on no line, or zero, is refused naming the line" {
    go_file "$DATA/old.txt" 100 Old
    go_file "$DATA/new.txt" 100 Old
    "$VERDICT" compare --metric B/op --json - "$DATA/old.txt" "$DATA/new.txt" 2>/dev/null > "$DATA/o.json"
    jq -e '.experiment.metrics == [{"name": "B/op", "better": "lower"}]' "$DATA/o.json"
    jq -e '.summaries[0].median >= 64 and .summaries[0].median <= 65' "$DATA/o.json"
    run "$VERDICT" compare --metric MB/s "$DATA/old.txt" "$DATA/new.txt"
    [ "$status" -eq 2 ]
    [[ "$output" == *"$DATA/old.txt: no benchmark line has MB/s (line 5 has none)"* ]]
    printf 'BenchmarkA-8 100 12 ns/op 0 allocs/op\nBenchmarkA-8 100 13 ns/op 0 allocs/op\n' > "$DATA/z.txt"
    run "$VERDICT" compare --metric allocs/op "$DATA/z.txt" "$DATA/z.txt"
    [ "$status" -eq 2 ]
    [[ "$output" == *"$DATA/z.txt:1: allocs/op of A-8: 0 is not positive"* ]]
}

@test "Go: a benchmark run once is refused with the -count hint" {
    printf 'BenchmarkA-8 100 12 ns/op\n' > "$DATA/one.txt"
    go_lines BenchmarkA-8 12 > "$DATA/ten.txt"
    run "$VERDICT" compare "$DATA/one.txt" "$DATA/ten.txt"
    [ "$status" -eq 2 ]
    [[ "$output" == *"one.txt: A-8 has only 1 value (line 1); a comparison needs at least 2 (go test -count 10)"* ]]
}

# Google Benchmark's JSON for run_name entries (iterations, then aggregates), times in $2.
gbench_file() { # file unit scale
    awk -v unit="$2" -v s="$3" 'BEGIN {
        printf "{\"context\": {\"date\": \"2024-01-01\", \"num_cpus\": 8, \"library_build_type\": \"release\"},\n \"benchmarks\": [\n"
        split("BM_Sort/1024 BM_Hash", names, " ")
        first = 1
        for (b = 1; b <= 2; b++) {
            for (r = 0; r < 8; r++) {
                t = (b == 1 ? 5000 : 2000) * s * (1 + 0.01 * ((r * 7) % 5 - 2))
                printf "%s  {\"name\": \"%s\", \"run_name\": \"%s\", \"run_type\": \"iteration\", \"repetitions\": 8, \"repetition_index\": %d, \"threads\": 1, \"iterations\": 1000, \"real_time\": %.3f, \"cpu_time\": %.3f, \"time_unit\": \"%s\"}\n", first ? "" : ",", names[b], names[b], r, t, t * 0.9, unit
                first = 0
            }
            printf ",  {\"name\": \"%s_mean\", \"run_name\": \"%s\", \"run_type\": \"aggregate\", \"aggregate_name\": \"mean\", \"real_time\": 1, \"cpu_time\": 1, \"time_unit\": \"%s\"}\n", names[b], names[b], unit
        }
        printf "]}\n"
    }' > "$1"
}

@test "Google Benchmark JSON: iterations grouped by run_name, aggregates left out, units to seconds" {
    gbench_file "$DATA/a.json" ns 1
    gbench_file "$DATA/b.json" us 0.0012
    "$VERDICT" compare --json - "$DATA/a.json" "$DATA/b.json" 2>/dev/null > "$DATA/o.json"
    jq -e '[.summaries[] | [.point, .n]] == [["BM_Sort/1024", 8], ["BM_Sort/1024", 8], ["BM_Hash", 8], ["BM_Hash", 8]]' \
        "$DATA/o.json"
    jq -e '.experiment.metrics[0].name == "real_time"' "$DATA/o.json"
    jq -e '.summaries[0].median > 4.9e-6 and .summaries[0].median < 5.1e-6' "$DATA/o.json"
    jq -e '[.comparisons[] | .verdict] == ["worse", "worse"]' "$DATA/o.json"
    jq -e '.overall[0].estimate > 1.19 and .overall[0].estimate < 1.21' "$DATA/o.json"
    "$VERDICT" compare --metric cpu_time --json - "$DATA/a.json" "$DATA/b.json" 2>/dev/null > "$DATA/c.json"
    jq -e '.experiment.metrics[0].name == "cpu_time" and .summaries[0].median < 4.6e-6' "$DATA/c.json"
}

pyperf_file() { # file scale
    awk -v s="$2" 'BEGIN {
        printf "{\"version\": \"1.0\", \"metadata\": {\"unit\": \"second\", \"python_version\": \"3.11.2\"}, \"benchmarks\": [\n"
        split("json_dumps json_loads", names, " ")
        for (b = 1; b <= 2; b++) {
            printf "%s{\"metadata\": {\"name\": \"%s\", \"loops\": 4096}, \"runs\": [{\"metadata\": {\"calibrate_loops\": 4096}, \"warmups\": [[1, 0.5], [2, 0.4]]}", (b > 1 ? "," : ""), names[b]
            for (r = 0; r < 5; r++) {
                printf ", {\"warmups\": [[4096, 9.9]], \"values\": ["
                for (k = 0; k < 3; k++)
                    printf "%s%.9g", k ? ", " : "", b * 1e-5 * s * (1 + 0.004 * ((r * 3 + k) % 7 - 3))
                printf "]}"
            }
            printf "]}\n"
        }
        printf "]}\n"
    }' > "$1"
}

@test "pyperf JSON: the values of every run (not warmups) per benchmark" {
    pyperf_file "$DATA/p1.json" 1
    pyperf_file "$DATA/p2.json" 0.9
    "$VERDICT" compare --json - "$DATA/p1.json" "$DATA/p2.json" 2>/dev/null > "$DATA/o.json"
    jq -e '[.summaries[] | [.point, .variant, .n]] == [["json_dumps", "p1.json", 15], ["json_dumps", "p2.json", 15],
        ["json_loads", "p1.json", 15], ["json_loads", "p2.json", 15]]' "$DATA/o.json"
    jq -e '[.comparisons[] | .verdict] == ["better", "better"]' "$DATA/o.json"
    jq -e '.overall[0].estimate > 0.89 and .overall[0].estimate < 0.91' "$DATA/o.json"
    run "$VERDICT" compare --format pyperf "$DATA/p1.json"
    [ "$status" -eq 2 ]
    [[ "$output" == *"p1.json is one variant"* ]]
}

@test "-d , reads CSV like ministat; a '#' after a number is a comment" {
    printf '# run,ms\n1,0.0011\n2,0.0012 # warm\n3,0.0010\n4,0.0011\n5,0.0012\n' > "$DATA/a.csv"
    printf '1,0.0022\n2,0.0023\n3,0.0021 # slow\n4,0.0022\n5,0.0024\n' > "$DATA/b.csv"
    run "$VERDICT" compare -d , -C 2 "$DATA/a.csv" "$DATA/b.csv"
    [ "$status" -eq 0 ]
    [[ "$output" == *"     5 "* ]]
    [[ "$output" == *"worse: b.csv is "*"higher than a.csv"* ]] # plain numbers: no unit
    run "$VERDICT" compare --delimiter , -C 3 "$DATA/a.csv" "$DATA/b.csv"
    [ "$status" -eq 2 ]
    [[ "$output" == *"$DATA/a.csv:2: no column 3 in \"1,0.0011\" (columns split at the -d delimiters)"* ]]
    printf '0.0011 # c\n0.0012\t# d\n0.0013\n' > "$DATA/c.txt"
    printf '0.0021\n0.0022 # e\n0.0023\n' > "$DATA/d.txt"
    run "$VERDICT" compare "$DATA/c.txt" "$DATA/d.txt"
    [ "$status" -eq 0 ]
    [[ "$output" == *"     3 "* ]]
}

@test "-c takes ministat's percent; a fraction is refused there" {
    printf '%s\n' 1.0 1.1 1.2 1.0 1.1 > "$DATA/a"
    printf '%s\n' 2.0 2.1 2.2 2.0 2.1 > "$DATA/b"
    run "$VERDICT" compare -c 80 "$DATA/a" "$DATA/b"
    [ "$status" -eq 0 ]
    [[ "$output" == "wilcoxon-rank-sum · 80% confidence"* ]]
    run "$VERDICT" compare -c 99.5 "$DATA/a" "$DATA/b"
    [[ "$output" == *"99.5% confidence"* ]]
    run "$VERDICT" compare -c 0.95 "$DATA/a" "$DATA/b"
    [ "$status" -eq 2 ]
    [[ "$output" == *"-c '0.95': a confidence level in percent"* ]]
}

@test "--format forces a reader; a forced wrong one says what it missed" {
    go_file "$DATA/old.txt" 100 Old
    run "$VERDICT" compare --format numbers "$DATA/old.txt" "$DATA/old.txt"
    [ "$status" -eq 2 ]
    [[ "$output" == *"$DATA/old.txt:1: not a number: \"goos: linux\""* ]]
    printf '%s\n' 1.0 1.1 1.2 > "$DATA/n"
    run "$VERDICT" compare --format go "$DATA/n" "$DATA/n"
    [ "$status" -eq 2 ]
    [[ "$output" == *"$DATA/n: no Go benchmark results"* ]]
    # a benchmark's lines read as bare numbers with -C, when forced
    go_lines BenchmarkA-8 100 > "$DATA/a.txt"
    run "$VERDICT" compare --format numbers -C 3 "$DATA/a.txt" "$DATA/a.txt"
    [ "$status" -eq 0 ]
    run "$VERDICT" compare --format bogus "$DATA/n" "$DATA/n"
    [ "$status" -eq 2 ]
    [[ "$output" == *"--format 'bogus': one of hyperfine, go, gbench, pyperf, criterion, jmh, numbers"* ]]
}

@test "a file of no known format names the formats tried and what was found" {
    printf '%s\n' 1.0 1.1 1.2 > "$DATA/n"
    printf '{"runs": [1, 2], "name": "x"}\n' > "$DATA/u.json"
    run "$VERDICT" compare "$DATA/u.json" "$DATA/n"
    [ "$status" -eq 2 ]
    [[ "$output" == *"$DATA/u.json:1: JSON of no format verdict reads: tried hyperfine (\"results\"), Google Benchmark"*"pyperf"*"found an object with the keys \"runs\", \"name\""* ]]
    printf 'time: 1.5s\n' > "$DATA/t.txt"
    run "$VERDICT" compare "$DATA/n" "$DATA/t.txt"
    [ "$status" -eq 2 ]
    [[ "$output" == *"$DATA/t.txt:1: not a number: \"time: 1.5s\" (read as bare numbers: no JSON of hyperfine, Google Benchmark, pyperf, criterion or JMH, no Go \"Benchmark\" lines"* ]]
}

@test "benchmark files and variant files are not mixed" {
    go_file "$DATA/old.txt" 100 Old
    printf '%s\n' 1.0 1.1 1.2 > "$DATA/n"
    run "$VERDICT" compare "$DATA/old.txt" "$DATA/n"
    [ "$status" -eq 2 ]
    [[ "$output" == *"old.txt is go and n is numbers"* ]]
}

# Go's allocs/op and B/op are counts the testing package prints whole (issue 26, issue 30's
# items 3 and 4): exact, never rounded measurements.
go_counts() { # file allocs bytes: three benchmarks of 6 runs, ns/op varying
    {
        printf 'goos: linux\ngoarch: amd64\npkg: example.com/codec\n'
        for name in Encode Decode Parse; do
            for i in 1 2 3 4 5 6; do
                printf 'Benchmark%s-8  100000  %d ns/op  %d B/op  %d allocs/op\n' \
                    "$name" $((1000 + 7 * i)) $(($3 + i % 2)) "$2"
            done
        done
    } > "$1"
}

@test "allocs/op against itself: every benchmark equivalent, exactly, and an overall line" {
    go_counts "$DATA/old.txt" 5 64
    go_counts "$DATA/new.txt" 5 64
    run "$VERDICT" compare --metric allocs/op "$DATA/old.txt" "$DATA/new.txt"
    [ "$status" -eq 0 ]
    [ "$(grep -c 'equivalent: no difference: every run of both gave the same value, 6 runs of each' <<< "$output")" -eq 3 ]
    [[ "$output" == *"allocs/op over 3 points: +0.00% [+0.00%, +0.00%] (95% CI): equivalent"* ]]
    [[ "$output" != *"carry no information"* ]]
    "$VERDICT" compare --metric allocs/op --json - "$DATA/old.txt" "$DATA/new.txt" \
        2>/dev/null > "$DATA/o.json"
    jq -e '[.comparisons[] | .verdict] == ["equivalent", "equivalent", "equivalent"]' "$DATA/o.json"
    jq -e '[.comparisons[] | .ci] == [[1, 1], [1, 1], [1, 1]]' "$DATA/o.json"
    jq -e '.overall[0].verdict == "equivalent" and .overall[0].ci == [1, 1]' "$DATA/o.json"
}

@test "allocs/op 2 against 3: worse by exactly 50%, with no rounding allowance or advice" {
    go_counts "$DATA/old.txt" 2 64
    go_counts "$DATA/new.txt" 3 64
    run "$VERDICT" compare --metric allocs/op "$DATA/old.txt" "$DATA/new.txt"
    [ "$status" -eq 0 ]
    [ "$(grep -c 'worse: new.txt uses 50.0% more allocs/op than old.txt (exact: each gave the same value in every run, 6 runs of each)' <<< "$output")" -eq 3 ]
    [[ "$output" != *"more digits"* && "$output" != *"rounded"* ]]
    "$VERDICT" compare --metric allocs/op --json - "$DATA/old.txt" "$DATA/new.txt" \
        2>/dev/null > "$DATA/o.json"
    jq -e 'all(.comparisons[]; .ci[0] == .ci[1] and (.ci[0] - 1.5 | fabs) < 1e-12)' "$DATA/o.json"
    jq -e '[.comparisons[] | .rounding_allowance] == [0, 0, 0]' "$DATA/o.json"
}

@test "B/op that vary by a byte: the t test, no allowance, the difference found" {
    go_counts "$DATA/old.txt" 2 64
    go_counts "$DATA/new.txt" 2 96
    "$VERDICT" compare --metric B/op --json - "$DATA/old.txt" "$DATA/new.txt" \
        2>/dev/null > "$DATA/o.json"
    jq -e '[.comparisons[] | .method] == ["welch", "welch", "welch"]' "$DATA/o.json"
    jq -e '[.comparisons[] | .verdict] == ["worse", "worse", "worse"]' "$DATA/o.json"
    jq -e '[.comparisons[] | .resolution_limited] == [false, false, false]' "$DATA/o.json"
    # asked for, the rank test is kept
    "$VERDICT" compare --method wilcoxon --metric B/op --json - "$DATA/old.txt" \
        "$DATA/new.txt" 2>/dev/null > "$DATA/w.json"
    jq -e '.comparisons[0].method == "wilcoxon-rank-sum"' "$DATA/w.json"
}

#!/usr/bin/env bats
# `verdict compare` on files the peers' tools made (tests/cli/peers/README.md says where each
# came from): counts and names as their tools have them, failed runs and left-out entries said.

setup() {
    VERDICT=${VERDICT:?set VERDICT to the verdict binary}
    PEERS=${PEERS:?set PEERS to tests/cli/peers}
    DATA=$(mktemp -d)
}

teardown() {
    rm -rf "$DATA"
}

@test "benchstat's testdata: old.txt against new.txt, 10 runs per benchmark, named as benchstat" {
    "$VERDICT" compare --json - "$PEERS/go/old.txt" "$PEERS/go/new.txt" 2>/dev/null > "$DATA/o.json"
    jq -e '[.comparisons[] | .point] == ["Encode/format=json-48", "Encode/format=gob-48"]' "$DATA/o.json"
    jq -e '[.summaries[] | .n] == [10, 10, 10, 10]' "$DATA/o.json"
    jq -e '[.comparisons[] | .verdict] == ["better", "equivalent"]' "$DATA/o.json"
    jq -e '(.overall | length) == 1' "$DATA/o.json"
}

@test "Go: a benchmark under two note: values is two benchmarks, never one pooled series" {
    run "$VERDICT" compare "$PEERS/go/notes.txt" "$PEERS/go/notes.txt"
    [ "$status" -eq 0 ]
    [[ "$output" == *"== Encode/format=json-48 (note: go1.16) · sec/op"* ]]
    [[ "$output" == *"== Encode/format=json-48 (note: go1.17) · sec/op"* ]]
    "$VERDICT" compare --json - "$PEERS/go/notes.txt" "$PEERS/go/notes.txt" 2>/dev/null > "$DATA/o.json"
    jq -e '[.comparisons[] | .point] | length == 4' "$DATA/o.json"
    jq -e '[.summaries[] | .n] | all(. == 10)' "$DATA/o.json"
}

@test "hyperfine -i: the runs of a failing command are counted as failed, never analysed" {
    run "$VERDICT" compare "$PEERS/hyperfine/flaky.json"
    [ "$status" -eq 0 ]
    [[ "$output" == *"runs excluded from the analysis:"* ]]
    [[ "$output" == *"flaky: 3 of 9 runs excluded (3 failed: non-zero exit)"* ]]
    "$VERDICT" compare --json - "$PEERS/hyperfine/flaky.json" 2>/dev/null > "$DATA/o.json"
    jq -e '[.summaries[] | .n] == [6, 9]' "$DATA/o.json"
    jq -e '[.samples[] | select(.variant == "flaky" and .exit == 1)] | length == 3' "$DATA/o.json"
    jq -e '[.samples[] | select(.variant == "steady" and .exit != 0)] | length == 0' "$DATA/o.json"
    "$VERDICT" compare --csv "$DATA/o.csv" "$PEERS/hyperfine/flaky.json" > /dev/null
    [ "$(awk -F, '$3 == "flaky" && $5 == 1' "$DATA/o.csv" | wc -l)" -eq 3 ]
    # every run of `false` failed: nothing to compare, and the report says why
    run "$VERDICT" compare "$PEERS/hyperfine/failing.json"
    [ "$status" -eq 0 ]
    [[ "$output" == *"false: 6 of 6 runs excluded (6 failed: non-zero exit)"* ]]
    [[ "$output" == *"inconclusive: false vs true: cannot compare"* ]]
}

@test "hyperfine -L over two commands: each value a point, the commands compared at each by template" {
    "$VERDICT" compare --json - "$PEERS/hyperfine/scan.json" 2>/dev/null > "$DATA/o.json"
    jq -e '[.comparisons[] | [.point, .baseline, .candidate]] == [["n=1", "sleep 0.00{n}", "sleep 0.01{n}"], ["n=2", "sleep 0.00{n}", "sleep 0.01{n}"]]' "$DATA/o.json"
    jq -e '[.summaries[] | .n] == [5, 5, 5, 5]' "$DATA/o.json"
    jq -e '(.overall | length) == 1' "$DATA/o.json"
    # a scan is compared with scans only
    run "$VERDICT" compare "$PEERS/hyperfine/scan.json" "$PEERS/hyperfine/flaky.json"
    [ "$status" -eq 2 ]
    [[ "$output" == *"scan.json is a hyperfine parameter scan and flaky.json is not"* ]]
}

@test "Google Benchmark (Debian's libbenchmark): a SkipWithError entry and a missing counter are named" {
    run "$VERDICT" compare "$PEERS/gbench/before.json" "$PEERS/gbench/after.json"
    [ "$status" -eq 0 ]
    [[ "$output" == *"[left-out] $PEERS/gbench/before.json: benchmark BM_NeedsNetwork failed: no network in this sandbox: not compared"* ]]
    "$VERDICT" compare --json - "$PEERS/gbench/before.json" "$PEERS/gbench/after.json" \
        2>/dev/null > "$DATA/o.json"
    jq -e '[.comparisons[] | .point] == ["BM_Copy/1024", "BM_Sum"]' "$DATA/o.json"
    jq -e '[.summaries[] | .n] == [4, 4, 4, 4]' "$DATA/o.json"
    "$VERDICT" compare --metric bytes_per_second --json - "$PEERS/gbench/before.json" \
        "$PEERS/gbench/after.json" 2>/dev/null > "$DATA/c.json"
    jq -e '[.comparisons[] | .point] == ["BM_Copy/1024"]' "$DATA/c.json"
    jq -e '[.warnings[] | select(.code == "left-out") | .message] | map(select(test("BM_Sum has no bytes_per_second"))) | length == 2' "$DATA/c.json"
}

@test "criterion (Debian's librust-criterion-dev): sample.json named by benchmark.json's full_id" {
    before="$PEERS/criterion/before/fib/recursive 15/new/sample.json"
    after="$PEERS/criterion/after/fib/recursive 15/new/sample.json"
    run "$VERDICT" compare "$before" "$after"
    [ "$status" -eq 0 ]
    [[ "$output" == *"== fib/recursive 15 · time (lower is better) =="* ]]
    "$VERDICT" compare --json - "$before" "$after" 2>/dev/null > "$DATA/o.json"
    jq -e '[.summaries[] | .n] == [20, 20]' "$DATA/o.json"
    # the per-iteration times: criterion's own median estimate (ns) is the median of them
    median=$(jq '.median.point_estimate' "${before%sample.json}estimates.json")
    jq -e --argjson m "$median" '(.summaries[0].median * 1e9 - $m) | fabs < 1e-6 * $m' "$DATA/o.json"
    # without benchmark.json, the path names it: the directory above new/
    cp "$before" "$DATA/sample.json"
    mkdir -p "$DATA/criterion/fib/x/new" && cp "$before" "$DATA/criterion/fib/x/new/sample.json"
    "$VERDICT" compare --json - "$DATA/criterion/fib/x/new/sample.json" "$DATA/criterion/fib/x/new/sample.json" \
        2>/dev/null > "$DATA/p.json"
    jq -e '.comparisons[0].point == "fib/x"' "$DATA/p.json"
}

@test "criterion: a copy of target/criterion against another, every benchmark a point" {
    "$VERDICT" compare --json - "$PEERS/criterion/before" "$PEERS/criterion/after" 2>/dev/null > "$DATA/o.json"
    jq -e '[.comparisons[] | .point] == ["fib/iterative 15", "fib/recursive 15"]' "$DATA/o.json"
    jq -e '[.summaries[] | .variant] == ["before", "after", "before", "after"]' "$DATA/o.json"
    jq -e '[.summaries[] | .n] == [20, 20, 20, 20] and (.overall | length) == 1' "$DATA/o.json"
    mkdir "$DATA/empty"
    run "$VERDICT" compare "$DATA/empty" "$PEERS/criterion/before"
    [ "$status" -eq 2 ]
    [[ "$output" == *"$DATA/empty: a directory without */new/sample.json"* ]]
    run "$VERDICT" compare --format go "$PEERS/criterion/before" "$PEERS/criterion/after"
    [ "$status" -eq 2 ]
    [[ "$output" == *"a directory, read as criterion's target/criterion only (not --format go)"* ]]
}

@test "criterion 0.2's [[iters], [times]] (criterion.rs's book); estimates.json refused naming sample.json" {
    book="$PEERS/criterion/Fibonacci/Recursive/new"
    "$VERDICT" compare --format criterion --json - "$book/sample.json" "$book/sample.json" \
        2>/dev/null > "$DATA/b.json"
    jq -e '[.summaries[] | .n] == [100, 100] and .comparisons[0].point == "Fibonacci/Recursive"' "$DATA/b.json"
    jq -e '.comparisons[0].verdict == "equivalent"' "$DATA/b.json"
    run "$VERDICT" compare "$book/estimates.json" "$book/sample.json"
    [ "$status" -eq 2 ]
    [[ "$output" == *"estimates.json: criterion's estimates.json holds summaries (mean, median, slope), not samples: give the sample.json beside it"* ]]
}

@test "criterion and JMH: broken files are refused naming the file and the field" {
    head -c 60 "$PEERS/criterion/before/fib/recursive 15/new/sample.json" > "$DATA/cut.json"
    run "$VERDICT" compare "$DATA/cut.json" "$DATA/cut.json"
    [ "$status" -eq 2 ]
    [[ "$output" == *"$DATA/cut.json:1:"*"not valid JSON"* ]]
    jq 'del(.times)' "$PEERS/criterion/before/fib/recursive 15/new/sample.json" > "$DATA/s.json"
    run "$VERDICT" compare --format criterion "$DATA/s.json" "$DATA/s.json"
    [ "$status" -eq 2 ]
    [[ "$output" == *"$DATA/s.json: times: missing, where an array was expected"* ]]
    jq 'del(.[1].primaryMetric.rawData)' "$PEERS/jmh/before.json" > "$DATA/j.json"
    run "$VERDICT" compare "$DATA/j.json" "$DATA/j.json"
    [ "$status" -eq 2 ]
    [[ "$output" == *"$DATA/j.json: [1].primaryMetric.rawData: missing, where an array was expected"* ]]
    head -c 700 "$PEERS/jmh/before.json" > "$DATA/cut.json"
    run "$VERDICT" compare --format jmh "$DATA/cut.json" "$DATA/cut.json"
    [ "$status" -eq 2 ]
    [[ "$output" == *"$DATA/cut.json:"*"not valid JSON"* ]]
}

@test "JMH -rf json: benchmarks with their params are points, rawData of every fork the samples" {
    "$VERDICT" compare --json - "$PEERS/jmh/before.json" "$PEERS/jmh/after.json" 2>/dev/null > "$DATA/o.json"
    jq -e '[.comparisons[] | .point] == ["org.example.Codec.decode {size=1024}", "org.example.Codec.decode {size=65536}", "org.example.Codec.encode"]' "$DATA/o.json"
    jq -e '[.summaries[] | .n] | all(. == 10)' "$DATA/o.json"
    jq -e '[.comparisons[] | .verdict] == ["better", "better", "better"]' "$DATA/o.json"
    # a secondary metric only one benchmark has: the others are named, not refused
    run "$VERDICT" compare --metric '·gc.alloc.rate.norm' "$PEERS/jmh/before.json" "$PEERS/jmh/after.json"
    [ "$status" -eq 0 ]
    [[ "$output" == *"equivalent"* ]]
    [[ "$output" == *"before.json: benchmark org.example.Codec.encode has no ·gc.alloc.rate.norm: not compared"* ]]
}

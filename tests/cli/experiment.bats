#!/usr/bin/env bats
# Command-line tests of `verdict run` and `verdict report`: the issue's spin example,
# SIGKILL and resume, reproducible reports, and clear errors for bad experiment files.

setup() {
    VERDICT=${VERDICT:?set VERDICT to the verdict binary}
    SPIN=${SPIN:?set SPIN to the spin example}
    DATA=$(mktemp -d)
    cat > "$DATA/spin.yaml" <<YAML
name: spin-demo
seed: 7
repetitions: 8
parameters:
  n: [200000, 300000, 400000]
variants:
  A: { command: ["$SPIN", "{n}"] }
  B: { command: "$SPIN {n}", env: { X: "1" } }
metrics: [wall]
YAML
}

teardown() {
    rm -rf "$DATA"
}

samples() {
    sqlite3 "$1" "select count(*) || ' ' || count(distinct point || '/' || variant || '/' || block) from sample"
}

@test "the spin example runs 2 variants x 3 points x 8 blocks = 48 samples" {
    run "$VERDICT" run "$DATA/spin.yaml" --store "$DATA/s.db" --json "$DATA/run.json"
    [ "$status" -eq 0 ]
    [ "$(samples "$DATA/s.db")" = "48 48" ]
    jq -e '(.points | length) == 3 and (.comparisons | length) == 3' "$DATA/run.json"
    jq -e '.points[0].params.n == "200000"' "$DATA/run.json"
    jq -e '(.overall | length) == 1 and .overall[0].points == 3' "$DATA/run.json"
    jq -e '.environment | has("cpu_model") and has("kernel") and has("verdict")' "$DATA/run.json"
    [[ "$output" == *"n=300000"* && "$output" == *"overall"* ]]
}

@test "killed with SIGKILL at random moments and run again: exactly 48 samples, none twice" {
    for attempt in 1 2 3; do
        rm -f "$DATA"/k.db*
        "$VERDICT" run "$DATA/spin.yaml" --store "$DATA/k.db" > /dev/null 2>&1 &
        pid=$!
        sleep "0.$((RANDOM % 9 + 1))"
        kill -KILL "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
        run "$VERDICT" run "$DATA/spin.yaml" --store "$DATA/k.db" --json "$DATA/k.json"
        [ "$status" -eq 0 ]
        [ "$(samples "$DATA/k.db")" = "48 48" ]
        jq -e '(.samples | length) == 48' "$DATA/k.json"
    done
}

@test "verdict report reproduces the run's own JSON comparisons exactly" {
    "$VERDICT" run "$DATA/spin.yaml" --store "$DATA/r.db" --json "$DATA/run.json" >/dev/null 2>&1
    run "$VERDICT" report "$DATA/r.db" --json "$DATA/report.json" --csv "$DATA/r.csv" --markdown "$DATA/r.md"
    [ "$status" -eq 0 ]
    diff <(jq -S '.comparisons, .overall, .summaries' "$DATA/run.json") \
         <(jq -S '.comparisons, .overall, .summaries' "$DATA/report.json")
    [ "$(wc -l < "$DATA/r.csv")" -eq 49 ]
    grep -q "n=400000" "$DATA/r.md"
    # re-analysed at another confidence, the same samples give other intervals
    "$VERDICT" report "$DATA/r.db" --confidence 0.8 --json "$DATA/r80.json" >/dev/null 2>&1
    jq -e '.experiment.confidence == 0.8' "$DATA/r80.json"
}

@test "a misspelt top-level key is reported as FILE:LINE:COLUMN naming the key, exit 2" {
    sed 's/^repetitions:/repetition:/' "$DATA/spin.yaml" > "$DATA/bad.yaml"
    run "$VERDICT" run "$DATA/bad.yaml" --store "$DATA/b.db"
    [ "$status" -eq 2 ]
    [[ "$output" == *"$DATA/bad.yaml:3:1:"*"repetition"* ]]
    [ ! -e "$DATA/b.db" ]
}

@test "invalid YAML and an unknown placeholder are reported with their place, exit 2" {
    printf 'name: x\nvariants: [unclosed\n' > "$DATA/broken.yaml"
    run "$VERDICT" run "$DATA/broken.yaml"
    [ "$status" -eq 2 ]
    [[ "$output" == *"$DATA/broken.yaml:"* ]]
    sed 's/{n}"\]/{m}"]/' "$DATA/spin.yaml" > "$DATA/placeholder.yaml"
    run "$VERDICT" run "$DATA/placeholder.yaml" --store "$DATA/p.db"
    [ "$status" -eq 2 ]
    [[ "$output" == *"$DATA/placeholder.yaml:7:"*"{m}"* ]]
}

@test "a changed plan is refused and the stored samples stay" {
    "$VERDICT" run "$DATA/spin.yaml" --store "$DATA/c.db" >/dev/null 2>&1
    sed 's/repetitions: 8/repetitions: 9/' "$DATA/spin.yaml" > "$DATA/changed.yaml"
    run "$VERDICT" run "$DATA/changed.yaml" --store "$DATA/c.db"
    [ "$status" -eq 2 ]
    [[ "$output" == *"different plan"* ]]
    [ "$(samples "$DATA/c.db")" = "48 48" ]
    # a comment does not change the plan: the run resumes (nothing to do) and reports
    { echo "# a note"; cat "$DATA/spin.yaml"; } > "$DATA/commented.yaml"
    run "$VERDICT" run "$DATA/commented.yaml" --store "$DATA/c.db"
    [ "$status" -eq 0 ]
    [ "$(samples "$DATA/c.db")" = "48 48" ]
}

@test "a failing build stops before any sample with the log's tail, exit 3" {
    cat > "$DATA/build.yaml" <<YAML
name: build-fails
seed: 1
repetitions: 3
variants:
  A: { command: ["$SPIN", "1000"] }
  B: { command: ["$SPIN", "1000"], build: "echo compiling; echo 'error: no such flag -O9' >&2; exit 1" }
YAML
    run "$VERDICT" run "$DATA/build.yaml" --store "$DATA/f.db"
    [ "$status" -eq 3 ]
    [[ "$output" == *"build of variant B failed"*"no such flag -O9"* ]]
    [ "$(sqlite3 "$DATA/f.db" 'select count(*) from sample')" -eq 0 ]
}

@test "a store written by a newer verdict is refused" {
    "$VERDICT" run "$DATA/spin.yaml" --store "$DATA/n.db" >/dev/null 2>&1
    sqlite3 "$DATA/n.db" "pragma user_version = 999"
    run "$VERDICT" report "$DATA/n.db"
    [ "$status" -ne 0 ]
    [[ "$output" == *"newer"* ]]
}

@test "run --help and report --help" {
    run "$VERDICT" run --help
    [ "$status" -eq 0 ]
    [[ "$output" == *"--store"* ]]
    run "$VERDICT" report --help
    [ "$status" -eq 0 ]
    run "$VERDICT" report "$DATA/none.db"
    [ "$status" -eq 2 ]
}

@test "70 variants x 3 repetitions: 210 samples and 69 real comparisons" {
    {
        echo "name: seventy"
        echo "seed: 3"
        echo "repetitions: 3"
        echo "warmup: 0"
        echo "variants:"
        for i in $(seq 1 70); do echo "  V$i: { command: [\"$SPIN\", \"$((1000 + i))\"] }"; done
        echo "metrics: [wall]"
    } > "$DATA/seventy.yaml"
    run "$VERDICT" run "$DATA/seventy.yaml" --store "$DATA/70.db" --json "$DATA/70.json"
    [ "$status" -eq 0 ]
    [ "$(samples "$DATA/70.db")" = "210 210" ]
    jq -e '(.comparisons | length) == 69' "$DATA/70.json"
    jq -e '[.warnings[] | select(.code == "comparison-failed")] | length == 0' "$DATA/70.json"
}

#!/usr/bin/env bats
# Command-line tests of `verdict calibrate`: tiny A/A self-tests (a given command, the built-in
# spin loop at a small size), the JSON keys, the store's record, Ctrl-C, and bad options.
# Asserts only what holds on a noisy machine: counts, bounds and keys, never a rate.

setup() {
    VERDICT=${VERDICT:?set VERDICT to the verdict binary}
    DATA=$(mktemp -d)
    export VERDICT_STATE="$DATA/state"   # the last calibration kept there, not in $HOME
}

teardown() {
    rm -rf "$DATA"
}

# Every fact of a calibration document that noise cannot change.
check_document() {
    local doc=$1 experiments=$2
    [ "$(jq '.experiments' "$doc")" -eq "$experiments" ]
    jq -e --argjson n "$experiments" \
        '.false_positives >= 0 and .false_positives <= $n and .rate == .false_positives / $n
         and .rate_ci[0] <= .rate and .rate <= .rate_ci[1] and .rate_ci[0] >= 0
         and .rate_ci[1] <= 1' "$doc"
    jq -e '.noise | (.cv | type == "number" and . >= 0) and
                    (.slow_share | type == "number" and . >= 0 and . <= 1) and
                    (.lag1 | type == "number" and . >= -1 and . <= 1) and
                    (.order_effect.ci | length == 2) and has("slow_factor")' "$doc"
    jq -e --argjson n "$experiments" '[.methods[] | .name] == ["wilcoxon", "welch",
        "bootstrap", "quantile"] and all(.methods[]; .compared == $n and
        .false_positives >= 0 and .false_positives <= $n and has("median_half_width"))' "$doc"
    jq -e '(.machine | has("cpu_model") and has("kernel")) and .schema == "verdict-calibration/1"' "$doc"
}

@test "--help describes the command and its options" {
    run "$VERDICT" calibrate --help
    [ "$status" -eq 0 ]
    [[ "$output" == *"usage: verdict calibrate"* ]]
    for option in --experiments --runs --seed --method --command --rounds --json --store; do
        [[ "$output" == *"$option"* ]] || { echo "missing $option"; false; }
    done
}

@test "a tiny calibration of a given command: the document's keys and bounds" {
    run "$VERDICT" calibrate --experiments 3 --runs 4 --seed 11 --json "$DATA/c.json" -- true
    [ "$status" -eq 0 ]
    [[ "$output" == *"3 A/A experiments of 4 blocks of true"* ]]
    [[ "$output" == *"false positives"* ]]
    check_document "$DATA/c.json" 3
    [ "$(jq -r '.command' "$DATA/c.json")" = "true" ]
    [ "$(jq '.runs' "$DATA/c.json")" -eq 4 ]
}

@test "the built-in workload at a small size, the rate of --method quantile, JSON to stdout" {
    run --separate-stderr "$VERDICT" calibrate --experiments 2 --runs 3 --rounds 100000 \
        --method quantile --json -
    [ "$status" -eq 0 ]
    echo "$output" > "$DATA/c.json"
    check_document "$DATA/c.json" 2
    [ "$(jq -r '.method' "$DATA/c.json")" = "quantile" ]
    [ "$(jq '.rounds' "$DATA/c.json")" -eq 100000 ]
    jq -e '.false_positives == (.methods[] | select(.name == "quantile") | .false_positives)' \
        "$DATA/c.json"
    [[ "$(jq -r '.command' "$DATA/c.json")" == *"calibrate --spin 100000" ]]
    run "$VERDICT" calibrate --spin 1000
    [ "$status" -eq 0 ]
    [[ "$output" == "spin: 1000 rounds, checksum "* ]]
}

@test "--store keeps the experiments and records the calibration among the machine's facts" {
    run "$VERDICT" calibrate --experiments 2 --runs 3 --seed 5 --store "$DATA/s.db" \
        --machine box -- true
    [ "$status" -eq 0 ]
    [[ "$output" == *"recorded as machine box's calibration"* ]]
    run "$VERDICT" report "$DATA/s.db" --machines --json "$DATA/m.json"
    [ "$status" -eq 0 ]
    jq -r '.machines[] | select(.name == "box") | .facts.calibration' "$DATA/m.json" > "$DATA/c.json"
    [ "$(jq '.experiments' "$DATA/c.json")" -eq 2 ]
    # recording the machine again (verdict env --store) keeps its calibration
    run "$VERDICT" env --seconds 0 --store "$DATA/s.db" --machine box
    [ "$status" -eq 0 ]
    run "$VERDICT" report "$DATA/s.db" --machines --json "$DATA/m.json"
    jq -e '.machines[] | select(.name == "box") | .facts.calibration | fromjson | .experiments == 2' \
        "$DATA/m.json"
}

@test "Ctrl-C keeps the experiments completed and reports them, exit 130" {
    "$VERDICT" calibrate --experiments 100000 --runs 3 --store "$DATA/s.db" \
        --json "$DATA/c.json" -- true > "$DATA/out" 2> "$DATA/err" &
    local pid=$!
    # stopped once two experiments' samples (6 each) are stored, however slow the machine
    for _ in $(seq 600); do
        [ "$(sqlite3 "$DATA/s.db" 'SELECT count(*) FROM sample' 2>/dev/null || echo 0)" -ge 12 ] &&
            break
        sleep 0.05
    done
    kill -INT "$pid"
    local status=0
    wait "$pid" || status=$?
    [ "$status" -eq 130 ]
    grep -q "interrupted after [0-9]* of 100000 experiments: the report covers them" "$DATA/err"
    local done
    done=$(jq '.experiments' "$DATA/c.json")
    [ "$done" -ge 1 ] && [ "$done" -lt 100000 ]
    jq -e '.interrupted' "$DATA/c.json"
    check_document "$DATA/c.json" "$done"
}

@test "bad options exit 2 naming the value" {
    run "$VERDICT" calibrate --experiments 0
    [ "$status" -eq 2 ]
    [[ "$output" == *"--experiments '0'"* ]]
    run "$VERDICT" calibrate --runs 1
    [ "$status" -eq 2 ]
    [[ "$output" == *"--runs 1"* ]]
    run "$VERDICT" calibrate --method median
    [ "$status" -eq 2 ]
    [[ "$output" == *"'median'"* ]]
    run "$VERDICT" calibrate --rounds 1000 -- true
    [ "$status" -eq 2 ]
    [[ "$output" == *"--rounds"* ]]
    run "$VERDICT" calibrate stray
    [ "$status" -eq 2 ]
    [[ "$output" == *"'stray'"* ]]
}

@test "a failing command exits 3 with its message" {
    run "$VERDICT" calibrate --experiments 2 --runs 2 -- false
    [ "$status" -eq 3 ]
    [[ "$output" == *"exited with status 1"* ]]
}

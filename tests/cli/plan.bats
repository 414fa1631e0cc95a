#!/usr/bin/env bats
# verdict plan (issue 27): from the runs a store holds, or a pilot it runs itself, the
# variance components, the costs and an allocation, as text and JSON. Only what holds on a
# busy machine is asserted: keys, finite positive numbers, floors, refusals; no timings.

setup() {
    VERDICT=${VERDICT:?set VERDICT to the verdict binary}
    DATA=$(mktemp -d)
    cat > "$DATA/tt.yaml" <<EOF
name: tt
seed: 3
repetitions: 6
variants:
  A: { command: ["true"] }
  B: { command: ["true"] }
EOF
}

teardown() {
    rm -rf "$DATA"
}

@test "from stored runs: the components, the costs, an allocation and the file's lines" {
    "$VERDICT" run "$DATA/tt.yaml" >/dev/null 2>&1
    run "$VERDICT" plan "$DATA/tt.yaml" --detect 5% --json "$DATA/plan.json"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *"allocation: "*" blocks per point"* ]]
    [[ "$output" == *"repetitions: "* ]]
    j="$DATA/plan.json"
    jq -e '.schema == "verdict-plan/1" and .experiment == "tt" and .pilot == false' "$j"
    jq -e '.target.kind == "detect" and .target.change == 0.05 and .target.power == 0.8' "$j"
    # one comparison at the file's 95%, a fifth of alpha kept for --more: alpha 0.04
    jq -e '.target.comparisons == 1 and (.target.alpha - 0.04 | fabs) < 1e-12' "$j"
    jq -e '.comparisons | length == 1' "$j"
    jq -e '.comparisons[0] | .blocks == 6 and .layouts == 1 and .sd_pair > 0 and .sd_run > 0
           and .sd_layout == null and .candidate == "B" and .baseline == "A"' "$j"
    jq -e '.costs.run_seconds > 0 and .costs.relink_seconds == null' "$j"
    # a signed-rank test needs 2/2^n <= 0.04, n >= 6, whatever the noise
    jq -e '.allocation.layouts == 1 and .allocation.blocks >= 6 and .allocation.se > 0' "$j"
    jq -e '.expected_seconds > 0 and .points == 1 and .variants == 2' "$j"
    jq -e '.fleet == []' "$j"
    jq -e '.lines == ["repetitions: \(.allocation.blocks)"]' "$j"
    # a half-width target is planned too; twice the half-width never needs more blocks
    run "$VERDICT" plan "$DATA/tt.yaml" --half-width 2% --json "$DATA/h2.json"
    [ "$status" -eq 0 ]
    run "$VERDICT" plan "$DATA/tt.yaml" --half-width 4% --json "$DATA/h4.json"
    [ "$status" -eq 0 ]
    jq -e '.target.kind == "half_width" and .target.power == null' "$DATA/h2.json"
    [ "$(jq .allocation.blocks "$DATA/h4.json")" -le "$(jq .allocation.blocks "$DATA/h2.json")" ]
}

@test "nothing stored: refused with what to run, or a pilot into a store of its own" {
    run "$VERDICT" plan "$DATA/tt.yaml" --detect 5%
    [ "$status" -eq 2 ]
    [[ "$output" == *"verdict run"*"--pilot N"* ]]
    [ ! -e "$DATA/tt.db" ]
    run "$VERDICT" plan "$DATA/tt.yaml" --detect 5% --pilot 3 --json -
    [ "$status" -eq 0 ]
    [ -e "$DATA/tt.pilot.db" ] && [ ! -e "$DATA/tt.db" ]
    [ "$(sqlite3 "$DATA/tt.pilot.db" 'SELECT count(*) FROM sample WHERE block >= 0')" -eq 6 ]
    # the JSON on stdout, the text on stderr: stdout alone is one document
    run sh -c '"$0" plan "$1" --detect 5% --pilot 3 --json - 2>/dev/null | jq -e ".pilot == true and .comparisons[0].blocks == 3"' "$VERDICT" "$DATA/tt.yaml"
    [ "$status" -eq 0 ]
}

@test "bad input exits 2 naming the value" {
    run "$VERDICT" plan "$DATA/tt.yaml" --detect 0
    [ "$status" -eq 2 ]
    [[ "$output" == *"--detect '0'"* ]]
    run "$VERDICT" plan "$DATA/tt.yaml" --half-width -1%
    [ "$status" -eq 2 ]
    [[ "$output" == *"--half-width '-1%'"* ]]
    run "$VERDICT" plan "$DATA/tt.yaml" --detect 2% --power 100%
    [ "$status" -eq 2 ]
    [[ "$output" == *"--power '100%'"* ]]
    run "$VERDICT" plan "$DATA/tt.yaml" --detect 2% --power 0.3
    [ "$status" -eq 2 ]
    run "$VERDICT" plan "$DATA/tt.yaml"
    [ "$status" -eq 2 ]
    [[ "$output" == *"--detect X or --half-width Y"* ]]
    printf 'name: one\nrepetitions: 3\nvariants:\n  solo: { command: ["true"] }\n' > "$DATA/one.yaml"
    run "$VERDICT" plan "$DATA/one.yaml" --detect 2% --pilot 3
    [ "$status" -eq 2 ]
    [[ "$output" == *"one variant (solo)"* ]]
    [ ! -e "$DATA/one.pilot.db" ]
    # an export that cannot be written is said before any pilot runs
    run "$VERDICT" plan "$DATA/tt.yaml" --detect 2% --pilot 3 --json "$DATA/no/such/dir/p.json"
    [ "$status" -eq 2 ]
    [[ "$output" == *"no/such/dir"* ]]
    [ ! -e "$DATA/tt.pilot.db" ]
    run "$VERDICT" plan --help
    [ "$status" -eq 0 ]
    [[ "$output" == *"--half-width"* ]]
}

@test "layout twins: σ_layout estimated, layouts allocated, the relink's cost assumed or given" {
    command -v ld.lld >/dev/null || skip "lld is not installed"
    cp -r "$BATS_TEST_DIRNAME/../../examples/layout/prog" "$DATA/"
    export VERDICT_CACHE="$DATA/cache"
    cat > "$DATA/lay.yaml" <<EOF
name: lay
seed: 5
layouts: 3
repetitions: 4
metrics: [cpu]
variants:
  A: {source: prog, build: make, command: ["{tree}/prog", "300"]}
  B: {source: prog, build: make, command: ["{tree}/prog", "300"]}
EOF
    "$VERDICT" run "$DATA/lay.yaml" >/dev/null 2>&1
    run "$VERDICT" plan "$DATA/lay.yaml" --detect 5% --json "$DATA/lay.json"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *"layouts: "* ]]
    j="$DATA/lay.json"
    jq -e '.comparisons[0] | .layouts == 3 and .sd_layout >= 0 and .sd_pair >= 0' "$j"
    jq -e '.costs.relink_seconds == 10 and .costs.relink_assumed == true' "$j"
    # a rank-sum test over K layouts a side needs 2/C(2K, K) <= 0.04: K >= 4
    jq -e '.allocation.layouts >= 4 and .allocation.blocks >= 2' "$j"
    jq -e '.lines == ["repetitions: \(.allocation.blocks)", "layouts: \(.allocation.layouts)"]' "$j"
    run "$VERDICT" plan "$DATA/lay.yaml" --detect 5% --relink 2s --json "$DATA/lay2.json"
    [ "$status" -eq 0 ]
    jq -e '.costs.relink_seconds == 2 and .costs.relink_assumed == false' "$DATA/lay2.json"
}

#!/usr/bin/env bats
# The plan before it runs (issue 27): `verdict run --dry-run --json` writes each look's
# information, alpha spent and boundary; a plan that can never decide is warned about, with
# the blocks that could; the looks and the spending from the file and the command line; an
# inconclusive comparison says the smallest change it could have detected. No timings.

setup() {
    VERDICT=${VERDICT:?set VERDICT to the verdict binary}
    SPIN=${SPIN:?set SPIN to the spin example}
    DATA=$(mktemp -d)
}

teardown() {
    rm -rf "$DATA"
}

# write_plan BUDGET-LINE [VARIANTS]: an experiment of spins (A and B, or A, B and C).
write_plan() {
    {
        printf 'name: plan\nseed: 5\n%s\nvariants:\n' "$1"
        for v in ${2:-A B}; do
            printf '  %s: { command: ["%s", "20000"] }\n' "$v" "$SPIN"
        done
    } > "$DATA/plan.yaml"
}

# z of look K of the plan's JSON within 0.002 of WANT.
z_near() {
    jq -e --argjson k "$1" --argjson want "$2" \
        '(.looks[$k].z - $want) | fabs <= 0.002' "$DATA/plan.json" >/dev/null
}

@test "dry-run JSON: 5 equal looks at alpha 0.05 have the published O'Brien-Fleming boundaries" {
    write_plan "adaptive: {looks: [10, 20, 30, 40, 50], spending: obrien-fleming}"
    run "$VERDICT" run "$DATA/plan.yaml" --dry-run --json "$DATA/plan.json"
    [ "$status" -eq 0 ]
    [ "$(jq -r '.schema + " " + .spending' "$DATA/plan.json")" = "verdict-dry-run/1 obrien-fleming" ]
    [ "$(jq -c '[.looks[].blocks]' "$DATA/plan.json")" = "[10,20,30,40,50]" ]
    jq -e '[.looks[].information] == [0.2, 0.4, 0.6, 0.8, 1]' "$DATA/plan.json"
    z_near 0 4.877; z_near 1 3.357; z_near 2 2.680; z_near 3 2.290; z_near 4 2.031
    # cumulative alpha grows to the whole 0.05 at the last look
    jq -e '.looks[4].alpha_spent - 0.05 | fabs < 1e-9' "$DATA/plan.json"
    jq -e '[.looks[] | .alpha_spent] | . == sort' "$DATA/plan.json"
    # the first look cannot decide with 10 blocks (2/2^10 > 1.1e-6): said, not hidden
    [ "$(jq '.looks[0].can_decide' "$DATA/plan.json")" = "false" ]
    [[ "$output" == *"10 blocks: information 0.200"*"cannot decide"* ]]
    # nothing ran: no store
    [ ! -e "$DATA/plan.db" ]
}

@test "dry-run JSON on stdout: Pocock's boundaries, the text plan moved to stderr" {
    write_plan "adaptive: {looks: [10, 20, 30, 40, 50], spending: pocock}"
    run --separate-stderr "$VERDICT" run "$DATA/plan.yaml" --dry-run --json -
    [ "$status" -eq 0 ]
    echo "$output" > "$DATA/plan.json"
    z_near 0 2.438; z_near 1 2.427; z_near 2 2.410; z_near 3 2.397; z_near 4 2.386
    [[ "$stderr" == *"looks (spending: pocock)"* ]]
}

@test "the command line's --looks and --spending are the plan's (stored and reported)" {
    run "$VERDICT" --looks 6,9 --spending equal -w 0 --json "$DATA/out.json" \
        "$SPIN 20000" "$SPIN 20000"
    [ "$status" -eq 0 ]
    [[ "$output" == *"of 2 planned per point, spending alpha by equal"* ]]
    run "$VERDICT" --spending linear "$SPIN 1" "$SPIN 1"
    [ "$status" -eq 2 ]
    [[ "$output" == *"--spending: spending 'linear' is not one of obrien-fleming, pocock, equal"* ]]
    run "$VERDICT" --looks 9,6 "$SPIN 1" "$SPIN 1"
    [ "$status" -eq 2 ]
    [[ "$output" == *"--looks '9,6'"*"increasing"* ]]
    # looks are an adaptive plan's: with a fixed count they would be ignored, so refused
    run "$VERDICT" --looks 6,9 -r 5 "$SPIN 1" "$SPIN 1"
    [ "$status" -eq 2 ]
    [[ "$output" == *"--looks plans adaptive looks, and --runs 5 a fixed count: give one"* ]]
}

@test "a plan that can never decide is warned about, naming the blocks that could" {
    write_plan "repetitions: 4" "A B C"
    run --separate-stderr "$VERDICT" run "$DATA/plan.yaml" --dry-run --json "$DATA/plan.json"
    [ "$status" -eq 0 ]
    # 2/2^4 = 0.125 against 0.04 / 2 comparisons: 7 blocks (2/2^7 = 0.016) could
    [[ "$stderr" == *"can never decide: with 4 blocks the smallest p-value of wilcoxon-signed-rank is 0.125, above the 0.02"*"2 comparisons"*"7 blocks or more could"* ]]
    [ "$(jq '.can_decide' "$DATA/plan.json")" = "false" ]
    [ "$(jq '.blocks_needed' "$DATA/plan.json")" -eq 7 ]
    # and again when it is run, before anything is measured
    run --separate-stderr "$VERDICT" run "$DATA/plan.yaml"
    [ "$status" -eq 0 ]
    [[ "$stderr" == "verdict run: warning: "*"can never decide"*"7 blocks or more could"* ]]
    # 7 blocks are enough: no warning
    write_plan "repetitions: 7" "A B C"
    run --separate-stderr "$VERDICT" run "$DATA/plan.yaml" --dry-run
    [ "$status" -eq 0 ]
    [[ "$stderr" != *"can never decide"* ]]
}

@test "an inconclusive comparison says the smallest change it could have detected" {
    write_plan "repetitions: 6"
    run "$VERDICT" run "$DATA/plan.yaml" --json "$DATA/out.json" --margin 0.0001
    [ "$status" -eq 0 ]
    # an A/A of 6 blocks at a margin of 0.01%: inconclusive whatever the noise (it would
    # have to be called equivalent within 0.01% or different, beyond alpha)
    verdict=$(jq -r '.comparisons[0].verdict' "$DATA/out.json")
    if [ "$verdict" = "inconclusive" ]; then
        jq -e '.comparisons[0].minimum_detectable_effect > 0' "$DATA/out.json"
        [[ "$(jq -r '.comparisons[0].summary' "$DATA/out.json")" == *"could have detected a change of "*"% or more; about "* ]]
        [[ "$output" == *"could have detected a change of "* ]]
    else
        [ "$(jq '.comparisons[0].minimum_detectable_effect' "$DATA/out.json")" = "null" ]
    fi
}

@test "counts are planned with the t test they are analysed with: 4 blocks of 3 variants can decide" {
    write_plan "repetitions: 4" "A B C"
    run "$VERDICT" run "$DATA/plan.yaml" --dry-run --json "$DATA/time.json"
    [[ "$output" == *"can never decide"* ]]
    printf 'counters: valgrind\nmetrics: [instructions]\n' >> "$DATA/plan.yaml"
    run "$VERDICT" run "$DATA/plan.yaml" --dry-run --json "$DATA/plan.json"
    [ "$status" -eq 0 ]
    [[ "$output" != *"can never decide"* ]]
    [ "$(jq -r '.method + " " + (.can_decide | tostring)' "$DATA/plan.json")" = "paired-t true" ]
    # a method asked for is the one planned, floor and all
    run "$VERDICT" run "$DATA/plan.yaml" --dry-run --method wilcoxon
    [[ "$output" == *"can never decide"* ]]
}

#!/usr/bin/env bats
# Experiments people can live with: `verdict run --more N` extends a stored experiment at a
# level that keeps the error rate, --dry-run estimates the duration, an interrupted run says
# how to resume, and the regressions found on main about them. Mechanics only: no timings.

setup() {
    VERDICT=${VERDICT:?set VERDICT to the verdict binary}
    SPIN=${SPIN:?set SPIN to the spin example}
    DATA=$(mktemp -d)
    write_experiment 5 ""
}

teardown() {
    rm -rf "$DATA"
}

# write_experiment REPETITIONS EXTRA-LINE: an A/A experiment of two equal spins.
write_experiment() {
    cat > "$DATA/aa.yaml" <<EOF
name: aa
seed: 11
repetitions: $1
$2
variants:
  A: { command: ["$SPIN", "200000"] }
  B: { command: ["$SPIN", "200000"] }
EOF
}

samples_of() {
    samples_of_in aa "$1"
}

# samples_of_in STORE VARIANT: the measured samples of a variant in $DATA/STORE.db.
samples_of_in() {
    sqlite3 "$DATA/$1.db" "SELECT count(*) FROM sample WHERE variant = '$2' AND block >= 0"
}

# ---- regressions found on main ----

@test "main: an inconclusive experiment can be extended (raising repetitions was refused)" {
    run "$VERDICT" run "$DATA/aa.yaml"
    [ "$status" -eq 0 ]
    [ "$(samples_of A)" -eq 5 ]
    run "$VERDICT" run "$DATA/aa.yaml" --more 5 --json "$DATA/aa.json"
    [ "$status" -eq 0 ]
    [[ "$output" == *"extending aa from 5 to 10 blocks per point: look 2"* ]]
    [[ "$output" == *"look 2: extended from 5 to 10 blocks"* ]]
    [ "$(samples_of A)" -eq 10 ]
    [ "$(samples_of B)" -eq 10 ]
    [ "$(sqlite3 "$DATA/aa.db" 'SELECT blocks FROM extension')" = "10" ]
    # the extension's level: 1 - 0.2 * 0.05 * (5/5 - 5/10) = 99.5%
    jq -e '.experiment.extensions == 1 and .experiment.blocks_per_point == 10' "$DATA/aa.json"
    jq -e '[.comparisons[] | .confidence] | all(. > 0.99499 and . < 0.99501)' "$DATA/aa.json"
    # the report from the store alone says the same
    run "$VERDICT" report "$DATA/aa.db"
    [ "$status" -eq 0 ]
    [[ "$output" == *"(99.5% CI, look 2: extended from 5 to 10 blocks)"* ]]
}

@test "main: raising repetitions in the file is refused and names --more" {
    "$VERDICT" run "$DATA/aa.yaml" >/dev/null 2>&1
    write_experiment 8 ""
    run "$VERDICT" run "$DATA/aa.yaml"
    [ "$status" -eq 2 ]
    [[ "$output" == *"different plan"*"verdict run --more N"* ]]
}

# ---- the looks' levels ----

@test "a fixed experiment's first look keeps a fifth of alpha for --more, and says so" {
    write_experiment 8 ""
    run "$VERDICT" run "$DATA/aa.yaml" --json "$DATA/aa.json"
    [ "$status" -eq 0 ]
    [[ "$output" == *"(96% CI, keeping 1% of the 5% for --more)"* ]]
    jq -e '.experiment.reserve_for_more == 0.2 and .experiment.extensions == 0' "$DATA/aa.json"
    jq -e '[.comparisons[] | .confidence] | all(. > 0.95999 and . < 0.96001)' "$DATA/aa.json"
}

@test "reserve_for_more: 0 reports at the full level and refuses --more" {
    write_experiment 5 "reserve_for_more: 0"
    run "$VERDICT" run "$DATA/aa.yaml" --json "$DATA/aa.json"
    [ "$status" -eq 0 ]
    [[ "$output" != *"for --more"* ]]
    jq -e '[.comparisons[] | .confidence] | all(. > 0.94999 and . < 0.95001)' "$DATA/aa.json"
    run "$VERDICT" run "$DATA/aa.yaml" --more 5
    [ "$status" -eq 2 ]
    [[ "$output" == *"kept no alpha for extensions (reserve_for_more: 0)"* ]]
    [ "$(samples_of A)" -eq 5 ]
}

@test "successive extensions each spend their share: 5, then 10, then 20 blocks" {
    "$VERDICT" run "$DATA/aa.yaml" >/dev/null 2>&1
    "$VERDICT" run "$DATA/aa.yaml" --more 5 >/dev/null 2>&1
    run "$VERDICT" run "$DATA/aa.yaml" --more 10 --json "$DATA/aa.json"
    [ "$status" -eq 0 ]
    [[ "$output" == *"look 3: extended from 10 to 20 blocks"* ]]
    # 1 - 0.01 * (5/10 - 5/20) = 99.75%
    jq -e '[.comparisons[] | .confidence] | all(. > 0.99749 and . < 0.99751)' "$DATA/aa.json"
    [ "$(samples_of B)" -eq 20 ]
    # a plain rerun resumes the extended plan: nothing more to do, nothing lost
    run "$VERDICT" run "$DATA/aa.yaml"
    [ "$status" -eq 0 ]
    [ "$(samples_of B)" -eq 20 ]
    [[ "$output" == *"look 3: extended from 10 to 20 blocks"* ]]
}

@test "--more is refused when there is nothing to extend, for adaptive plans keeping no alpha, and for 0" {
    run "$VERDICT" run "$DATA/aa.yaml" --more 5
    [ "$status" -eq 2 ]
    [[ "$output" == *"has nothing stored yet"*"run it first"* ]]
    [ "$(sqlite3 "$DATA/aa.db" 'SELECT count(*) FROM extension')" -eq 0 ]
    cat > "$DATA/ad.yaml" <<EOF
name: ad
adaptive: {min_blocks: 5, max_blocks: 6}
variants:
  A: { command: ["$SPIN", "1000"] }
  B: { command: ["$SPIN", "1000"] }
EOF
    "$VERDICT" run "$DATA/ad.yaml" >/dev/null 2>&1
    run "$VERDICT" run "$DATA/ad.yaml" --more 5
    [ "$status" -eq 2 ]
    [[ "$output" == *"kept no alpha for extensions (reserve_for_more: 0, as an adaptive plan does unless told)"*"'reserve_for_more: 0.2'"* ]]
    [ "$(sqlite3 "$DATA/ad.db" 'SELECT count(*) FROM extension')" -eq 0 ]
    run "$VERDICT" run "$DATA/aa.yaml" --more 0
    [ "$status" -eq 2 ]
    [[ "$output" == *"--more '0'"* ]]
    printf 'name: ad\nadaptive: {min_blocks: 5, max_blocks: 6}\nreserve_for_more: 95%%\nvariants:\n  A: {command: [true]}\n' > "$DATA/bad.yaml"
    run "$VERDICT" run "$DATA/bad.yaml" --dry-run
    [ "$status" -eq 2 ]
    [[ "$output" == *"bad.yaml:3:"*"'reserve_for_more'"* ]]
}

@test "an adaptive plan keeping a reserve is extended: the new looks continue the series, at levels of one recursion" {
    cat > "$DATA/ad.yaml" <<EOF
name: ad
seed: 3
adaptive: {min_blocks: 3, max_blocks: 4}
reserve_for_more: 0.2
variants:
  A: { command: ["$SPIN", "1000"] }
  B: { command: ["$SPIN", "1000"] }
EOF
    run "$VERDICT" run "$DATA/ad.yaml" --dry-run --json "$DATA/plan.json"
    [ "$status" -eq 0 ]
    [ "$(jq -c '[.looks[].blocks]' "$DATA/plan.json")" = "[3,4]" ]
    jq -e '.looks[1].alpha_spent - 0.04 | fabs < 1e-9' "$DATA/plan.json"
    cp "$DATA/plan.json" "$DATA/planned.json"
    # 4 blocks of two variants cannot decide at its level (2/2^4 > 0.04): the point runs out
    run "$VERDICT" run "$DATA/ad.yaml" --json "$DATA/ad.json"
    [ "$status" -eq 0 ]
    [ "$(samples_of_in ad A)" -eq 4 ]
    run "$VERDICT" run "$DATA/ad.yaml" --more 12 --json "$DATA/ad.json"
    [ "$status" -eq 0 ]
    [[ "$output" == *"extending ad from 4 to 16 blocks per point"* ]]
    [ "$(sqlite3 "$DATA/ad.db" 'SELECT blocks FROM extension')" = "16" ]
    jq -e '.experiment.extensions == 1 and .experiment.blocks_per_point == 16' "$DATA/ad.json"
    # the dry run of the extended plan: the extension's looks continue the growth from 4;
    # the looks taken keep their boundaries; the new ones spend the reserve up to
    # 0.04 + 0.01 * (1 - 4/16) = 0.0475
    run "$VERDICT" run "$DATA/ad.yaml" --dry-run --json "$DATA/plan.json"
    [ "$status" -eq 0 ]
    [ "$(jq -c '[.looks[].blocks]' "$DATA/plan.json")" = "[3,4,6,9,14,16]" ]
    jq -e --slurpfile p "$DATA/planned.json" '.looks[0:2] == $p[0].looks[0:2]' "$DATA/plan.json"
    jq -e '.looks[5].alpha_spent - 0.0475 | fabs < 1e-9' "$DATA/plan.json"
    # the point stopped at one of the extension's looks, and was reported at that look's level
    n=$(samples_of_in ad A)
    [[ " 6 9 14 16 " == *" $n "* ]]
    jq -e --argjson n "$n" --slurpfile r "$DATA/ad.json" \
        '(.looks[] | select(.blocks == $n) | 1 - .nominal_alpha) as $level
         | $r[0].comparisons | all(.confidence - $level | fabs < 1e-9)' "$DATA/plan.json"
}

# ---- the plan before it runs ----

@test "--dry-run estimates the duration from the stored runs, or says it cannot yet" {
    run "$VERDICT" run "$DATA/aa.yaml" --dry-run
    [ "$status" -eq 0 ]
    [[ "$output" == *"duration: unknown until runs are measured"* ]]
    [ ! -e "$DATA/aa.db" ]                       # a dry run creates no store
    write_experiment 5 "timeout: 2s"
    run "$VERDICT" run "$DATA/aa.yaml" --dry-run
    [[ "$output" == *"at most 24.0s with every run at its timeout"* ]]   # (10 runs + 2 warmups) x 2 s
    "$VERDICT" run "$DATA/aa.yaml" >/dev/null 2>&1
    "$VERDICT" run "$DATA/aa.yaml" --more 5 >/dev/null 2>&1 </dev/null
    run "$VERDICT" run "$DATA/aa.yaml" --dry-run
    [ "$status" -eq 0 ]
    [[ "$output" == *"extended (--more) to 10 blocks per point: 20 runs in all"* ]]
    [[ "$output" == *"for 0 runs to go and 0 warmups"*"over the 20 stored"* ]]
}

# ---- interrupted runs ----

@test "main: an interrupted run says so and how to resume; the unreached point is not run" {
    cat > "$DATA/sw.yaml" <<EOF
name: sw
repetitions: 3
parameters:
  n: [2, 3, 4]
variants:
  A: { command: "sleep 0.{n}" }
  B: { command: "sleep 0.{n}" }
EOF
    "$VERDICT" run "$DATA/sw.yaml" > "$DATA/out" 2> "$DATA/err" &
    pid=$!
    for _ in $(seq 100); do
        [ "$(sqlite3 "$DATA/sw.db" 'SELECT count(*) FROM sample' 2>/dev/null || echo 0)" -ge 3 ] && break
        sleep 0.1
    done
    kill -INT "$pid"
    wait "$pid" || rc=$?
    [ "${rc:-0}" -eq 130 ]
    grep -q "interrupted: [0-9]* samples are stored in $DATA/sw.db; run the same command again to resume" "$DATA/err"
    grep -q "not run (no samples)" "$DATA/out"
    ! grep -q "n 0, median 0" "$DATA/out"
    # and the command line's memory store says nothing is kept
    "$VERDICT" -r 30 -w 0 'sleep 0.1' 'sleep 0.1' > "$DATA/out2" 2> "$DATA/err2" &
    pid=$!
    sleep 1.5
    kill -INT "$pid"
    wait "$pid" || rc2=$?
    [ "${rc2:-0}" -eq 130 ]
    grep -q "nothing was kept (give --store FILE to be able to resume)" "$DATA/err2"
    # the stored one resumes to the end
    run "$VERDICT" run "$DATA/sw.yaml"
    [ "$status" -eq 0 ]
    [ "$(sqlite3 "$DATA/sw.db" 'SELECT count(*) FROM sample WHERE block >= 0')" -eq 18 ]
}

#!/usr/bin/env bats
# Command-line tests of `verdict env`: the facts table, the check lines, the JSON
# document, --help and bad options. Never assumes the machine is quiet.

setup() {
    VERDICT=${VERDICT:?set VERDICT to the verdict binary}
    DATA=$(mktemp -d)
    export VERDICT_STATE="$DATA/state"   # never the user's own last calibration
}

teardown() {
    rm -rf "$DATA"
}

@test "the last calibration of this machine: none, then verdict calibrate's, in text and JSON" {
    run --separate-stderr "$VERDICT" env --seconds 0 --json -
    [ "$status" -eq 0 ]
    [ "$(echo "$output" | jq '.calibration')" = "null" ]
    [[ "$stderr" == *"calibration: none kept for this machine (verdict calibrate measures one)"* ]]
    run "$VERDICT" calibrate --experiments 3 --runs 4 --seed 11 --json "$DATA/c.json" -- true
    [ "$status" -eq 0 ]
    [[ "$output" == *"kept as this machine's last calibration in $DATA/state/calibration.json"* ]]
    run --separate-stderr "$VERDICT" env --seconds 0 --json -
    [ "$status" -eq 0 ]
    echo "$output" > "$DATA/env.json"
    # the calibration's own document, as --json wrote it (less the machine's facts)
    jq -e --slurpfile c "$DATA/c.json" '.calibration | del(.host) == ($c[0] | del(.machine))' \
        "$DATA/env.json"
    jq -e '.calibration | (.rate_ci | length == 2) and (.noise.cv | type == "number") and
                          (.noise | has("slow_share")) and has("fastest") and (.date | test("Z$"))' \
        "$DATA/env.json"
    [[ "$stderr" == *"calibration (verdict calibrate, $(jq -r .date "$DATA/c.json")): "*" of 3 A/A experiments called different with wilcoxon: "*"(95% interval "*"; CV "*"slow runs "*"decides fastest here: "* ]]
    # another host's file (a shared home) is not this machine's
    jq '.host = "elsewhere"' "$DATA/state/calibration.json" > "$DATA/other" &&
        mv "$DATA/other" "$DATA/state/calibration.json"
    run "$VERDICT" env --seconds 0
    [[ "$output" == *"calibration: none kept for this machine"* ]]
}

@test "--help describes the command and exits 0" {
    run "$VERDICT" env --help
    [ "$status" -eq 0 ]
    [[ "$output" == *"usage: verdict env"* ]]
    [[ "$output" == *"--seconds"* ]]
    [[ "$output" == *"--json"* ]]
}

@test "prints the facts, then one line per check, exit 0" {
    run "$VERDICT" env --seconds 0.1
    [ "$status" -eq 0 ]
    for key in cpu_model cpu_flags cpus_online cpus_physical smt kernel os governor turbo \
               aslr virtualization memory_total load1 cc gcc hostname verdict; do
        echo "$output" | grep -Eq "^$key +[^ ]" || { echo "missing fact $key"; false; }
    done
    for code in governor turbo smt aslr load steal other-load vm timer clocksource; do
        echo "$output" | grep -Eq "^(pass|warn|info)  $code +[^ ]" || { echo "missing check $code"; false; }
    done
    [ "$(echo "$output" | grep -Ec '^(pass|warn|info)  ')" -eq 10 ]
}

@test "--seconds 0 skips the measurement of steal" {
    run "$VERDICT" env --seconds 0
    [ "$status" -eq 0 ]
    echo "$output" | grep -Eq '^info  steal +not measured'
}

@test "--json - writes a verdict-env/1 document on stdout, the table on stderr" {
    command -v jq >/dev/null || skip "jq is not installed"
    "$VERDICT" env --seconds 0.1 --json - > "$DATA/env.json" 2> "$DATA/table.txt"
    jq -e '.schema == "verdict-env/1"' "$DATA/env.json"
    jq -e '.facts | has("cpu_model") and has("governor") and has("kernel") and has("verdict")' "$DATA/env.json"
    jq -e '.facts | to_entries | all(.value | type == "string" and length > 0)' "$DATA/env.json"
    jq -e '.checks | length == 10' "$DATA/env.json"
    jq -e '.checks | all(.status == "pass" or .status == "warn" or .status == "info")' "$DATA/env.json"
    jq -e '[.checks[].code] == ["governor","turbo","smt","aslr","load","steal","other-load","vm","timer","clocksource"]' "$DATA/env.json"
    grep -q '^cpu_model ' "$DATA/table.txt"
}

@test "--json FILE writes the file and still prints the table" {
    command -v jq >/dev/null || skip "jq is not installed"
    run "$VERDICT" env --seconds 0 --json "$DATA/out.json"
    [ "$status" -eq 0 ]
    [[ "$output" == *"cpu_model"* ]]
    jq -e '.facts.cpus_online | tonumber >= 1' "$DATA/out.json"
}

@test "an unwritable --json path is an error naming it, exit 2" {
    # a path the user gave that cannot be written is a usage error, as for every export
    run "$VERDICT" env --seconds 0 --json "$DATA/no/such/dir/out.json"
    [ "$status" -eq 2 ]
    [[ "$output" == *"$DATA/no/such/dir/out.json: cannot open"* ]]
}

@test "an unknown option is refused, exit 2" {
    run "$VERDICT" env --frobnicate
    [ "$status" -eq 2 ]
    [[ "$output" == *"--frobnicate"* ]]
}

@test "a bad --seconds value is named, exit 2" {
    run "$VERDICT" env --seconds -1
    [ "$status" -eq 2 ]
    [[ "$output" == *"--seconds '-1'"* ]]
    run "$VERDICT" env --seconds abc
    [ "$status" -eq 2 ]
    run "$VERDICT" env --seconds
    [ "$status" -eq 2 ]
}

@test "a stray argument is refused, exit 2" {
    run "$VERDICT" env extra
    [ "$status" -eq 2 ]
    [[ "$output" == *"unexpected argument 'extra'"* ]]
}

# Would catch: a counter of the table left out, a refusal without its reason, the JSON and
# the table disagreeing. Which counters a machine has differs (a VM has no PMU): only the
# shape is asserted, and that each answer is given.
@test "lists every counter: whether this machine can count it, and why not" {
    run "$VERDICT" env --seconds 0
    [ "$status" -eq 0 ]
    for name in instructions:u cycles:u branches:u branch-misses:u cache-references:u \
                cache-misses:u L1-dcache-load-misses:u task-clock:uk page-faults:uk \
                context-switches:uk cpu-migrations:uk; do
        echo "$output" | grep -Eq "^  $name +(yes$|no  [^ ])" || { echo "missing $name"; false; }
    done
    echo "$output" | grep -Eq '^valgrind: (/|not installed \(apt-get install valgrind\))'
}

@test "--json lists the counters as the table does" {
    command -v jq >/dev/null || skip "jq is not installed"
    "$VERDICT" env --seconds 0 --json "$DATA/env.json" > "$DATA/table.txt"
    jq -e '.counters | length == 11' "$DATA/env.json"
    jq -e '.counters | all((.countable == true and .reason == null) or
                           (.countable == false and (.reason | length) > 0))' "$DATA/env.json"
    jq -r '.counters[] | "\(.name) \(if .countable then "yes" else "no" end)"' "$DATA/env.json" \
        > "$DATA/json.txt"
    grep -E '^  [a-zA-Z1-]+:u?k? +(yes|no)' "$DATA/table.txt" | awk '{print $1, $2}' \
        > "$DATA/text.txt"
    diff "$DATA/json.txt" "$DATA/text.txt"
}

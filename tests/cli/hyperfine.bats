#!/usr/bin/env bats
# hyperfine's options on `verdict COMMAND COMMAND...`, with hyperfine's meaning, and the
# regressions found on main (each named). Only robust properties are asserted: these VMs
# are noisy, so an effect that must be found is 2x, and counts are of helper lines.

setup() {
    VERDICT=${VERDICT:?set VERDICT to the verdict binary}
    SPIN=${SPIN:?set SPIN to the spin example}
    DATA=$(mktemp -d)
}

teardown() {
    rm -rf "$DATA"
}

# ---- regressions found on main ----

@test "main: -S bash is the shell, not a baseline command (three variants were reported)" {
    command -v bash >/dev/null || skip "bash is not installed"
    run "$VERDICT" -r 5 -w 0 -S bash --json "$DATA/s.json" "$SPIN 1000000" "$SPIN 2000000"
    [ "$status" -eq 0 ]
    [[ "$output" == *"5 blocks of 2 commands"* ]]
    jq -e '(.variants | length) == 2 and .variants[0].command[0] == "bash" and .variants[0].command[1] == "-c"' "$DATA/s.json"
}

@test "main: --prepare runs through a shell (it exited 0 and wrote nothing)" {
    DATA="$DATA" run "$VERDICT" -r 3 -w 1 --prepare 'echo prep >> "$DATA/log"' "$SPIN 1000" "$SPIN 2000"
    [ "$status" -eq 0 ]
    [ "$(grep -c '^prep$' "$DATA/log")" -eq 8 ]   # (1 warm-up + 3 blocks) x 2 commands
}

@test "main: a second --prepare is the second command's, not a replacement of the first" {
    DATA="$DATA" run "$VERDICT" -r 3 -w 0 -p 'echo a >> "$DATA/a.log"' -p 'echo b >> "$DATA/b.log"' \
        "$SPIN 1000" "$SPIN 2000"
    [ "$status" -eq 0 ]
    [ "$(wc -l < "$DATA/a.log")" -eq 3 ]
    [ "$(wc -l < "$DATA/b.log")" -eq 3 ]
    run "$VERDICT" -r 3 -p true -p true "$SPIN 1" "$SPIN 2" "$SPIN 3"
    [ "$status" -eq 2 ]
    [[ "$output" == *"2 --prepare commands for 3 commands"* ]]
}

@test "main: -n is --command-name; -r, -m, -M, -N, -i, -V are known" {
    run "$VERDICT" -r 3 -w 0 -n base -n cand --json "$DATA/n.json" "$SPIN 1000" "$SPIN 2000"
    [ "$status" -eq 0 ]
    [[ "$output" == *"base"* && "$output" == *"cand"* ]]
    jq -e '[.variants[].name] == ["base", "cand"]' "$DATA/n.json"
    run "$VERDICT" -n 5 "$SPIN 1000" "$SPIN 2000"
    [ "$status" -eq 2 ]
    [[ "$output" == *"-r N (--runs N)"* ]]
    run "$VERDICT" -m 2 -M 3 -w 0 -N -i "$SPIN 1000" "$SPIN 1000"
    [ "$status" -eq 0 ]
    [[ "$output" =~ [23]" blocks of 2 commands" ]]
    run "$VERDICT" -V
    [ "$status" -eq 0 ]
    [[ "$output" == "verdict "* ]]
}

@test "main: --ignore-failure says which command failed and how often" {
    run "$VERDICT" -r 5 -w 0 --ignore-failure true false
    [ "$status" -eq 0 ]
    [[ "$output" == *"runs excluded from the analysis"* ]]
    [[ "$output" == *"false: 5 of 5 runs excluded (5 failed: non-zero exit)"* ]]
}

@test "main: timed-out runs are never analysed, and the JSON flags them" {
    run "$VERDICT" -r 4 -w 0 -i --timeout 100ms --json "$DATA/t.json" "$SPIN 1000" "sleep 1"
    [ "$status" -eq 0 ]
    [[ "$output" == *"sleep 1: 4 of 4 runs excluded (4 timed out)"* ]]
    [[ "$output" != *"%  worse"* && "$output" != *"worse:"* ]]
    jq -e '[.samples[] | select(.variant == "sleep 1") | .timed_out] | length == 4 and all' "$DATA/t.json"
    jq -e '[.samples[] | select(.variant != "sleep 1") | .timed_out] | any | not' "$DATA/t.json"
    # nothing of sleep 1 is a sample: no comparison, no summary of it
    jq -e '[.comparisons[] | select(.candidate == "sleep 1" and .estimate != null)] | length == 0' "$DATA/t.json"
    jq -e '[.summaries[] | select(.variant == "sleep 1")] | length == 0' "$DATA/t.json"
}

@test "main: --higher-is-better no longer applies to wall" {
    run "$VERDICT" -r 2 -w 0 --higher-is-better true true
    [ "$status" -eq 2 ]
    [[ "$output" == *":higher"* ]]
    run "$VERDICT" -r 4 -w 0 --metric wall --metric 'ops=/ops ([0-9.]+)/' --higher-is-better \
        "sh -c 'echo ops 100'" "sh -c 'echo ops 200'"
    [ "$status" -eq 0 ]
    [[ "$output" == *"wall (lower is better)"* ]]
    [[ "$output" == *"ops (higher is better)"* ]]
}

# ---- hyperfine's options ----

@test "--metric NAME=/REGEX/:higher and :lower give each metric its direction" {
    run "$VERDICT" -r 6 -w 0 --metric 'ops=/ops ([0-9.]+)/:higher' --metric 'lat=/lat ([0-9.]+)/:lower' \
        "sh -c 'echo ops 100; echo lat 10'" "sh -c 'echo ops 200; echo lat 20'"
    [ "$status" -eq 0 ]
    [[ "$output" == *"ops (higher is better)"* && "$output" == *"lat (lower is better)"* ]]
    [[ "$output" == *"better:"*"100.0% higher"* ]]
    [[ "$output" == *"worse:"* ]]
}

@test "-C runs after every run; -s and -c once per point" {
    run "$VERDICT" -r 3 -w 1 -C "echo c >> $DATA/conclude.log" -s "echo s >> $DATA/setup.log" \
        -c "echo x >> $DATA/cleanup.log" "$SPIN 1000" "$SPIN 2000"
    [ "$status" -eq 0 ]
    [ "$(wc -l < "$DATA/conclude.log")" -eq 8 ]
    [ "$(wc -l < "$DATA/setup.log")" -eq 1 ]
    [ "$(wc -l < "$DATA/cleanup.log")" -eq 1 ]
    run "$VERDICT" -r 2 -s true -s true "$SPIN 1" "$SPIN 2"
    [ "$status" -eq 2 ]
    [[ "$output" == *"--setup is given twice"* ]]
}

@test "a failing --conclude stops the run, naming the command" {
    run "$VERDICT" -r 3 -w 0 -C 'echo gone >&2; exit 4' "$SPIN 1000" "$SPIN 2000"
    [ "$status" -eq 3 ]
    [[ "$output" == *"the conclude command exited with status 4"*"gone"* ]]
}

@test "-N: the helpers are split into words too, as in hyperfine's --shell=none" {
    run "$VERDICT" -r 2 -w 0 -N -p "echo n >> $DATA/n.log" "$SPIN 1000" "$SPIN 2000"
    [ "$status" -eq 0 ]
    [ ! -e "$DATA/n.log" ]   # echo printed '>>' and the path; no shell redirected it
    run "$VERDICT" -r 2 -w 0 -N -p "touch $DATA/touched" "$SPIN 1000" "$SPIN 2000"
    [ "$status" -eq 0 ]
    [ -e "$DATA/touched" ]
}

@test "-S SHELL runs the commands and the helpers through it; --shell's old use is refused" {
    command -v bash >/dev/null || skip "bash is not installed"
    run "$VERDICT" -r 2 -w 0 -S bash -p "echo \$BASH_VERSION >> $DATA/v.log" \
        --metric 'b=/^b([0-9]+)$/' 'echo b${#BASH_VERSION}' 'echo b${#BASH_VERSION}'
    [ "$status" -eq 0 ]
    [ -s "$DATA/v.log" ]
    ! grep -q '^$' "$DATA/v.log"
    run "$VERDICT" -r 2 --shell "echo a" "echo b" "echo c"
    [ "$status" -eq 2 ]
    [[ "$output" == *"--shell takes a value now"* ]]
    run "$VERDICT" --shell -r 2 "echo a" "echo b"
    [ "$status" -eq 2 ]
    run "$VERDICT" -r 2 -S no-such-shell-verdict "echo a" "echo b"
    [ "$status" -eq 2 ]
    [[ "$output" == *"no-such-shell-verdict"*"not found"* ]]
}

@test "-L n 1,2: a point per value, a comparison per point and the overall effect" {
    run "$VERDICT" -r 4 -w 0 -L n 1,2 --json "$DATA/l.json" "$SPIN {n}00000" "$SPIN {n}000000"
    [ "$status" -eq 0 ]
    [[ "$output" == *"over 2 points"* ]]
    [[ "$output" == *"overall, across the points"* ]]
    jq -e '[.points[].id] == ["n=1", "n=2"]' "$DATA/l.json"
    jq -e '(.comparisons | length) == 2 and (.overall | length) == 1' "$DATA/l.json"
    # braces that name no parameter stay literal
    run "$VERDICT" -r 2 -w 0 -S sh -L n 1,2 --json "$DATA/b.json" 'echo {x}{n} >/dev/null' 'true {n}'
    [ "$status" -eq 0 ]
    jq -e '.variants[0].command == ["echo {x}{n} >/dev/null"]' "$DATA/b.json"
}

@test "-P VAR MIN MAX and -D STEP sweep a range; setup runs at every point" {
    run "$VERDICT" -r 2 -w 0 -P n 1 3 -s "echo s >> $DATA/s.log" --json "$DATA/p.json" \
        "$SPIN {n}000" "$SPIN {n}0000"
    [ "$status" -eq 0 ]
    jq -e '[.points[].id] | sort == ["n=1", "n=2", "n=3"]' "$DATA/p.json"
    [ "$(wc -l < "$DATA/s.log")" -eq 3 ]
    run "$VERDICT" -r 2 -w 0 -P d 0.1 0.3 -D 0.1 --json "$DATA/d.json" "sleep {d}0" "sleep {d}1"
    [ "$status" -eq 0 ]
    jq -e '[.points[].id] | sort == ["d=0.1", "d=0.2", "d=0.3"]' "$DATA/d.json"
    run "$VERDICT" -r 2 -P d 0.1 0.3 "sleep {d}" "sleep {d}"
    [ "$status" -eq 2 ]
    [[ "$output" == *"--parameter-step-size"* ]]
}

@test "--input FILE is every run's stdin (default /dev/null)" {
    printf 'v42\n' > "$DATA/in.txt"
    run "$VERDICT" -r 2 -w 0 --input "$DATA/in.txt" --metric 'v=/^v([0-9]+)$/' --json "$DATA/i.json" cat cat
    [ "$status" -eq 0 ]
    jq -e '[.samples[].metrics.v] | unique == [42]' "$DATA/i.json"
    run "$VERDICT" -r 2 -w 0 --input "$DATA/missing" cat cat
    [ "$status" -eq 2 ]
    [[ "$output" == *"--input"* ]]
}

@test "--output FILE gets the commands' stdout; pipe and null run; --show-output shows it" {
    run "$VERDICT" -r 2 -w 0 -n a -n b --output "$DATA/out.txt" "echo out-marker" "echo out-marker"
    [ "$status" -eq 0 ]
    [ "$(cat "$DATA/out.txt")" = "out-marker" ]   # rewritten at every run, as in hyperfine
    [[ "$output" != *"out-marker"* ]]
    for where in pipe null; do
        run "$VERDICT" -r 2 -w 0 -n a -n b --output "$where" "echo hidden-marker" "echo hidden-marker"
        [ "$status" -eq 0 ]
        [[ "$output" != *"hidden-marker"* ]]
    done
    run "$VERDICT" -r 2 -w 0 -n a -n b --show-output "echo shown-marker" "sh -c 'echo err-marker >&2'"
    [ "$status" -eq 0 ]
    [[ "$output" == *"shown-marker"* && "$output" == *"err-marker"* ]]
    # a metric still reads what is shown
    run "$VERDICT" -r 2 -w 0 -n a -n b --output inherit --metric 'x=/^x([0-9]+)$/' "echo x1" "echo x2"
    [ "$status" -eq 0 ]
    [[ "$output" == *"x1"* && "$output" == *"x (lower is better)"* ]]
}

@test "--export-json, --export-csv, --export-markdown are --json, --csv, --markdown" {
    run "$VERDICT" -r 3 -w 0 --export-json "$DATA/e.json" --export-csv "$DATA/e.csv" \
        --export-markdown "$DATA/e.md" "$SPIN 1000" "$SPIN 2000"
    [ "$status" -eq 0 ]
    jq -e '.schema == "verdict/1"' "$DATA/e.json"
    [ "$(wc -l < "$DATA/e.csv")" -eq 7 ]
    grep -q '| point | metric | baseline | candidate |' "$DATA/e.md"
}

@test "a tripled effect is found with a shell, names and a per-command prepare" {
    run "$VERDICT" --max-time 60s -S sh -n fast -n slow -p true -p true --json "$DATA/x.json" \
        "$SPIN 3000000" "$SPIN 9000000"
    [ "$status" -eq 0 ]
    jq -e '.comparisons[0].candidate == "slow" and .comparisons[0].verdict == "worse"' "$DATA/x.json"
}

@test "the same command line with --store resumes; prepare and conclude are in the plan" {
    args=(-r 3 -w 0 --seed 4 -p 'true' -p ':' -C true --input /dev/null --store "$DATA/r.db")
    "$VERDICT" "${args[@]}" "$SPIN 1000" "$SPIN 2000" >/dev/null 2>&1
    run "$VERDICT" "${args[@]}" "$SPIN 1000" "$SPIN 2000"
    [ "$status" -eq 0 ]
    [[ "$output" == *"6 samples resumed"* ]]
    run "$VERDICT" -r 3 -w 0 --seed 4 -p 'true' -p 'true' -C true --input /dev/null \
        --store "$DATA/r.db" "$SPIN 1000" "$SPIN 2000"
    [ "$status" -ne 0 ]
    run "$VERDICT" report "$DATA/r.db"
    [ "$status" -eq 0 ]
}

@test "prepare, conclude, input and output are keys of a command variant in a file" {
    printf 'in-marker\n' > "$DATA/in.txt"
    cat > "$DATA/e.yaml" <<YAML
name: keys
seed: 1
repetitions: 2
warmup: 0
variants:
  A: { command: "cat", prepare: "echo a >> $DATA/a.log", conclude: ["touch", "$DATA/c"],
       input: "$DATA/in.txt", output: "$DATA/out.txt" }
  B: { command: "true" }
metrics: [wall]
YAML
    run "$VERDICT" run "$DATA/e.yaml" --store "$DATA/e.db"
    [ "$status" -eq 0 ]
    [ "$(wc -l < "$DATA/a.log")" -eq 2 ]
    [ -e "$DATA/c" ]
    [ "$(cat "$DATA/out.txt")" = "in-marker" ]
}

@test "a mistyped subcommand is an error with the closest name; a program of that name runs" {
    run "$VERDICT" comapre a b
    [ "$status" -eq 2 ]
    [[ "$output" == *"did you mean compare?"* ]]
    mkdir "$DATA/bin"
    printf '#!/bin/sh\nexit 0\n' > "$DATA/bin/rn"
    chmod +x "$DATA/bin/rn"
    PATH="$DATA/bin:$PATH" run "$VERDICT" -r 2 -w 0 rn rn
    [ "$status" -eq 0 ]
    [[ "$output" == *"2 blocks of 2 commands"* ]]
}

@test "--help groups the options by purpose and names hyperfine's" {
    run "$VERDICT" --help
    [ "$status" -eq 0 ]
    for want in "runs:" "commands around the runs" "how commands run:" "parameters" "measuring:" \
        "--runs" "--min-runs" "--max-runs" "--command-name" "--conclude" "--parameter-scan" \
        "--parameter-list" "--show-output" "--export-json" "--version" "-N "; do
        [[ "$output" == *"$want"* ]] || { echo "missing: $want"; false; }
    done
}

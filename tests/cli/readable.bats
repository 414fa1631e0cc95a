#!/usr/bin/env bats
# Readable numbers in the terminal report (issue 16, item 4): adaptive time units and
# --time-unit, hyperfine's headline per command, "×N" for big ratios, colour only on a
# terminal (--style, NO_COLOR), --sort. Timings are never asserted: only units, formats,
# order of effects far apart (1x against 9000x the work) and exact extracted values.

setup() {
    VERDICT=${VERDICT:?set VERDICT to the verdict binary}
    SPIN=${SPIN:?set SPIN to the spin example}
    DATA=$(mktemp -d)
}

teardown() {
    rm -rf "$DATA"
}

ESC=$'\e['

# Runs verdict under a pseudo-terminal (util-linux script), so that stdout is a TTY.
on_terminal() {
    command -v script >/dev/null || skip "script (util-linux) is not installed"
    local line
    printf -v line '%q ' "$@"
    run script -qec "$line" /dev/null
}

@test "a fast command's times are in µs or ms, never raw seconds like 0.000834" {
    run "$VERDICT" -r 5 -w 0 "$SPIN 1000" "$SPIN 2000"
    [ "$status" -eq 0 ]
    row=$(grep -E '^ x  ' <<< "$output")
    [[ "$row" =~ [0-9]\ (µs|ms)\  ]]
    [[ "$output" =~ "Time (mean ± σ):"\ +[0-9.]+\ (µs|ms)\ ±\ +[0-9.]+\ (µs|ms) ]]
    # the plot's axis too, and no time with six digits and no unit
    [[ "$output" =~ \ [0-9.]+\ (µs|ms)\ +[0-9.]+\ (µs|ms) ]]
    # (a number with its unit, "± 0.08833 ms" under load, and p-values, "p = 0.00084",
    # are struck out first; what is left may not be a bare fraction of a second)
    bare=$(sed -E -e 's/[0-9.]+ (ns|µs|ms|s)([^a-z]|$)/\2/g' -e 's/p = [0-9.e-]+//g' <<< "$output" |
           grep -E '(^| )0\.0[0-9]{4}' || true)
    echo "bare seconds: $bare"
    [ -z "$bare" ]
}

@test "--time-unit ms forces ms, --time-unit microsecond µs (hyperfine's long name)" {
    run "$VERDICT" -r 4 -w 0 --time-unit ms "$SPIN 1000" "$SPIN 9000000"
    [ "$status" -eq 0 ]
    [[ "$output" =~ "Time (mean ± σ):"\ +[0-9.]+\ ms\ ±\ +[0-9.]+\ ms ]]
    [[ "$(grep -E '^ [x+]  ' <<< "$output" | grep -c ' ms ')" -eq 2 ]]
    [[ "$output" != *"µs"* ]]
    run "$VERDICT" -r 4 -w 0 --time-unit microsecond "$SPIN 1000" "$SPIN 9000000"
    [ "$status" -eq 0 ]
    [[ "$(grep -E '^ [x+]  ' <<< "$output" | grep -c ' µs ')" -eq 2 ]]
    [[ "$output" != *" ms "* ]]
}

@test "a bad --time-unit is refused naming it and the allowed units, exit 2" {
    run "$VERDICT" -r 3 --time-unit hours "$SPIN 1000" "$SPIN 2000"
    [ "$status" -eq 2 ]
    [[ "$output" == *"--time-unit 'hours'"* ]]
    [[ "$output" == *"ns, us"*"ms or s"* && "$output" == *"millisecond"* ]]
    [[ "$output" != *"blocks of"* ]]
    run "$VERDICT" -r 3 --style fancy "$SPIN 1000" "$SPIN 2000"
    [ "$status" -eq 2 ]
    [[ "$output" == *"--style 'fancy'"*"nocolor"* ]]
    run "$VERDICT" -r 3 --sort name "$SPIN 1000" "$SPIN 2000"
    [ "$status" -eq 2 ]
    [[ "$output" == *"--sort 'name'"*"mean-time"* ]]
}

@test "hyperfine's headline: mean ± σ with User and System, median, min … max, runs" {
    run "$VERDICT" -r 6 -w 0 -n fast -n slow "$SPIN 1000" "$SPIN 3000000"
    [ "$status" -eq 0 ]
    [[ "$output" == *"Benchmark 1: fast"* && "$output" == *"Benchmark 2: slow"* ]]
    [[ "$output" =~ "Time (mean ± σ):"\ +[0-9.]+\ [µm]?s\ ±\ +[0-9.]+\ [µm]?s\ +"[User: "[0-9.]+\ [µm]?s", System: "[0-9.]+\ [µm]?s"]" ]]
    [[ "$output" =~ "Time (median):"\ +[0-9.]+\ [µm]?s ]]
    [[ "$output" =~ "Range (min … max):"\ +[0-9.]+\ [µm]?s\ …\ +[0-9.]+\ [µm]?s\ +"6 runs" ]]
    [ "$(grep -c 'Time (mean ± σ)' <<< "$output")" -eq 2 ]
    # the per-series table is still there
    [[ "$output" == *"== wall (lower is better) =="* && "$output" =~ variant\ +n\ +median\ +CV ]]
}

@test "a ratio beyond 2 is also written ×N, below 0.5 ×0.33 (exact extracted values)" {
    run "$VERDICT" -r 6 -w 0 --metric 'ops=/ops ([0-9.]+)/' "sh -c 'echo ops 100'" "sh -c 'echo ops 300'"
    [ "$status" -eq 0 ]
    [[ "$output" == *"+200.0% (×3)"* ]]
    # an extracted count is not a time: higher, not slower
    [[ "$output" == *"is 200.0% higher than sh -c 'echo ops 100' (×3)"* ]]
    run "$VERDICT" -r 6 -w 0 --metric 'ops=/ops ([0-9.]+)/' "sh -c 'echo ops 300'" "sh -c 'echo ops 100'"
    [ "$status" -eq 0 ]
    [[ "$output" == *"-66.7% (×0.333)"* ]]
    run "$VERDICT" -r 6 -w 0 --metric 'ops=/ops ([0-9.]+)/' "sh -c 'echo ops 100'" "sh -c 'echo ops 150'"
    [ "$status" -eq 0 ]
    [[ "$output" == *"+50.0% "* && "$output" != *"×"* ]]
    # non-time metrics keep plain numbers
    [[ "$(grep -E '^ x  ' <<< "$output")" =~ \ 100\ +[0-9.]+% ]]
}

@test "three times the work in CPU time shows ×N" {
    run "$VERDICT" -r 10 -w 1 --metric cpu "$SPIN 3000000" "$SPIN 9000000"
    [ "$status" -eq 0 ]
    [[ "$output" == *"== cpu (lower is better) =="* ]]
    [[ "$output" =~ \ \+\ vs\ x:\ \+[0-9.]+%\ \(×[2-4]\.?[0-9]*\) ]]
}

# -r 8 where a verdict is asserted: the signed-rank test cannot reach 95% with fewer than 6.
@test "no ANSI escape when piped; --style full colours anyway, NO_COLOR does not" {
    run "$VERDICT" -r 4 -w 0 "$SPIN 1000" "$SPIN 9000000"
    [ "$status" -eq 0 ]
    [[ "$output" != *"$ESC"* ]]
    run "$VERDICT" -r 8 -w 0 --style full "$SPIN 1000" "$SPIN 9000000"
    [ "$status" -eq 0 ]
    [[ "$output" == *"${ESC}1m== wall (lower is better) ==${ESC}0m"* ]]
    [[ "$output" == *"${ESC}1mBenchmark 1:${ESC}0m"* ]]
    [[ "$output" == *"${ESC}31mworse${ESC}0m: "* ]]
    NO_COLOR=1 run "$VERDICT" -r 4 -w 0 --style auto "$SPIN 1000" "$SPIN 9000000"
    [[ "$output" != *"$ESC"* ]]
}

@test "on a terminal: colour by default, none with NO_COLOR=1 --style auto or --style basic" {
    on_terminal "$VERDICT" -r 8 -w 0 "$SPIN 1000" "$SPIN 9000000"
    [ "$status" -eq 0 ]
    [[ "$output" == *"${ESC}1m== wall"* && "$output" == *"${ESC}31mworse"* ]]
    NO_COLOR=1 on_terminal "$VERDICT" -r 4 -w 0 --style auto "$SPIN 1000" "$SPIN 9000000"
    [ "$status" -eq 0 ]
    [[ "$output" == *"Benchmark 1:"* && "$output" != *"${ESC}1m"* && "$output" != *"${ESC}3"* ]]
    on_terminal "$VERDICT" -r 4 -w 0 --style basic "$SPIN 1000" "$SPIN 9000000"
    [ "$status" -eq 0 ]
    [[ "$output" == *"Benchmark 1:"* && "$output" != *"${ESC}1m"* && "$output" != *"${ESC}3"* ]]
    NO_COLOR=1 on_terminal "$VERDICT" -r 4 -w 0 --style color "$SPIN 1000" "$SPIN 9000000"
    [[ "$output" == *"${ESC}1m== wall"* ]]
}

@test "--sort mean-time lists the fastest first; command (and auto) keeps the given order" {
    run "$VERDICT" -r 8 -w 0 --sort mean-time -n slow -n fast "$SPIN 9000000" "$SPIN 1000"
    [ "$status" -eq 0 ]
    first=$(grep -m1 '^Benchmark' <<< "$output")
    [ "$first" = "Benchmark 2: fast" ]
    row=$(grep -m1 -E '^ [x+]  ' <<< "$output")
    [[ "$row" == " +  fast "* ]]
    # the comparison keeps the baseline first
    [[ "$output" == *" + vs x: "* && "$output" == *"fast is "*"% faster than slow"* ]]
    for sort in command auto; do
        run "$VERDICT" -r 3 -w 0 --sort "$sort" -n slow -n fast "$SPIN 9000000" "$SPIN 1000"
        [ "$status" -eq 0 ]
        [ "$(grep -m1 '^Benchmark' <<< "$output")" = "Benchmark 1: slow" ]
        [[ "$(grep -m1 -E '^ [x+]  ' <<< "$output")" == " x  slow "* ]]
    done
}

@test "verdict compare: peers' times in units, --time-unit and --style there too; bare numbers plain" {
    printf '{"results": [{"command": "a", "times": [%s]}, {"command": "b", "times": [%s]}]}' \
        "0.00110, 0.00112, 0.00108, 0.00111, 0.00109, 0.00113" \
        "0.00330, 0.00336, 0.00324, 0.00333, 0.00327, 0.00339" > "$DATA/h.json"
    run "$VERDICT" compare "$DATA/h.json"
    [ "$status" -eq 0 ]
    [[ "$(grep -E '^ x  ' <<< "$output")" =~ \ 1\.105\ ms\  ]]
    [[ "$output" == *"(×3)"* ]]
    run "$VERDICT" compare --time-unit us --style full "$DATA/h.json"
    [ "$status" -eq 0 ]
    [[ "$(grep -E '^ x  ' <<< "$output")" =~ \ 1105\ µs\  ]]
    [[ "$output" == *"${ESC}31mworse${ESC}0m"* ]]
    run "$VERDICT" compare --time-unit weeks "$DATA/h.json"
    [ "$status" -eq 2 ]
    [[ "$output" == *"'weeks'"* ]]
    printf '%s\n' 0.00110 0.00112 0.00108 0.00111 > "$DATA/a.txt"
    printf '%s\n' 0.00120 0.00122 0.00118 0.00121 > "$DATA/b.txt"
    run "$VERDICT" compare "$DATA/a.txt" "$DATA/b.txt"
    [ "$status" -eq 0 ]
    [[ "$(grep -E '^ x  ' <<< "$output")" =~ \ 0\.001105\  ]]
}

@test "verdict report takes --time-unit, --style and --sort" {
    "$VERDICT" -r 3 -w 0 --store "$DATA/s.db" "$SPIN 1000" "$SPIN 9000000" > /dev/null 2>&1
    run "$VERDICT" report --time-unit s --style full --sort mean-time "$DATA/s.db"
    [ "$status" -eq 0 ]
    [[ "$(grep -E '^ x  ' <<< "$output")" =~ [0-9]\ s\  ]]
    [[ "$output" == *"${ESC}1m== wall"* ]]
    run "$VERDICT" report --time-unit fortnight "$DATA/s.db"
    [ "$status" -eq 2 ]
    [[ "$output" == *"'fortnight'"* ]]
}

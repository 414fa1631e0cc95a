#!/usr/bin/env bats
# Command-line tests of `verdict compare`: exit codes, messages naming file, line and
# value, the words of the verdicts, and the JSON document.

setup() {
    VERDICT=${VERDICT:?set VERDICT to the verdict binary}
    DATA=$(mktemp -d)
    EXAMPLES=${EXAMPLES:-$BATS_TEST_DIRNAME/../../examples}
}

teardown() {
    rm -rf "$DATA"
}

# seq-like list of positive numbers around a centre: values a b (centre, step)
values() {
    awk -v c="$1" -v s="$2" -v n="${3:-20}" 'BEGIN { for (i = 0; i < n; i++) printf "%.6f\n", c * (1 + s * ((i * 7919) % 13 - 6) / 6) }'
}

@test "--help describes the command and exits 0" {
    run "$VERDICT" compare --help
    [ "$status" -eq 0 ]
    [[ "$output" == *"usage: verdict compare"* ]]
    [[ "$output" == *"--paired"* ]]
}

@test "a missing file is named, exit 2" {
    values 100 0.01 > "$DATA/a"
    run "$VERDICT" compare "$DATA/a" "$DATA/missing.txt"
    [ "$status" -eq 2 ]
    [[ "$output" == *"$DATA/missing.txt: cannot open"* ]]
}

@test "an empty file is refused, exit 2" {
    values 100 0.01 > "$DATA/a"
    : > "$DATA/empty"
    run "$VERDICT" compare "$DATA/a" "$DATA/empty"
    [ "$status" -eq 2 ]
    [[ "$output" == *"$DATA/empty: no samples"* ]]
}

@test "a non-numeric line names file, line and text, exit 2" {
    printf '1.5\n# note\n2.5\nabc\n' > "$DATA/b"
    values 100 0.01 > "$DATA/a"
    run "$VERDICT" compare "$DATA/a" "$DATA/b"
    [ "$status" -eq 2 ]
    [[ "$output" == *"$DATA/b:4: not a number: \"abc\""* ]]
}

@test "a value <= 0 is refused with the reason, exit 2" {
    printf '1.5\n0\n' > "$DATA/b"
    values 100 0.01 > "$DATA/a"
    run "$VERDICT" compare "$DATA/a" "$DATA/b"
    [ "$status" -eq 2 ]
    [[ "$output" == *"$DATA/b:2: value 0 is not positive"*"ratios"* ]]
}

@test "a single value is refused, exit 2" {
    printf '1.5\n' > "$DATA/b"
    values 100 0.01 > "$DATA/a"
    run "$VERDICT" compare "$DATA/a" "$DATA/b"
    [ "$status" -eq 2 ]
    [[ "$output" == *"only 1 value"* ]]
}

@test "--paired with unequal lengths is refused, exit 2" {
    values 100 0.01 10 > "$DATA/a"
    values 100 0.01 9 > "$DATA/b"
    run "$VERDICT" compare --paired "$DATA/a" "$DATA/b"
    [ "$status" -eq 2 ]
    [[ "$output" == *"same number of values"*"has 10"*"has 9"* ]]
}

@test "an impossible confidence is refused, exit 2" {
    values 100 0.01 > "$DATA/a"
    values 100 0.01 > "$DATA/b"
    for c in 1.5 0 100% abc 1; do
        run "$VERDICT" compare --confidence "$c" "$DATA/a" "$DATA/b"
        [ "$status" -eq 2 ]
        [[ "$output" == *"--confidence '$c'"* ]]
    done
}

@test "one file only, or an unknown option, is a usage error" {
    values 100 0.01 > "$DATA/a"
    run "$VERDICT" compare "$DATA/a"
    [ "$status" -eq 2 ]
    run "$VERDICT" compare --bogus "$DATA/a" "$DATA/a"
    [ "$status" -eq 2 ]
    [[ "$output" == *"--bogus"* ]]
}

@test "three runs per side: inconclusive, and says how many runs would decide" {
    run "$VERDICT" compare -C 4 --higher-is-better \
        "$EXAMPLES/strict-aliasing/no-strict-aliasing.4.txt" "$EXAMPLES/strict-aliasing/strict-aliasing.4.txt"
    [ "$status" -eq 0 ]
    [[ "$output" == *"inconclusive"* ]]
    [[ "$output" == *"more run"*"per side needed"* ]]
    [[ "$output" != *"better:"* ]]
    [[ "$output" != *"worse:"* ]]
}

@test "a clear 10% slowdown is called worse; --fail-if worse exits 4" {
    values 100 0.01 > "$DATA/a"
    values 110 0.01 > "$DATA/b"
    run "$VERDICT" compare "$DATA/a" "$DATA/b"
    [ "$status" -eq 0 ]
    # numbers of a file have no unit: higher, not slower (a time is said so by its metric)
    [[ "$output" == *"worse: b is 10.0% higher than a"* ]]
    run "$VERDICT" compare --fail-if worse "$DATA/a" "$DATA/b"
    [ "$status" -eq 4 ]
    run "$VERDICT" compare --fail-if worse --higher-is-better "$DATA/a" "$DATA/b"
    [ "$status" -eq 0 ]
    [[ "$output" == *"better: b is 10.0% higher than a"* ]]
}

@test "identical samples are equivalent within the margin" {
    values 100 0.001 > "$DATA/a"
    values 100 0.001 > "$DATA/b"
    run "$VERDICT" compare --paired "$DATA/a" "$DATA/b"
    [ "$status" -eq 0 ]
    [[ "$output" == *"cannot compare"* || "$output" == *"equivalent"* ]]
    values 100.05 0.002 > "$DATA/c"
    run "$VERDICT" compare "$DATA/a" "$DATA/c"
    [ "$status" -eq 0 ]
    [[ "$output" == *"equivalent: no difference larger than ±1%"* ]]
}

@test "--json - writes the verdict/1 document to stdout, the report to stderr" {
    values 100 0.01 > "$DATA/a"
    values 110 0.01 > "$DATA/b"
    "$VERDICT" compare --json - "$DATA/a" "$DATA/b" > "$DATA/out.json" 2> "$DATA/err.txt"
    jq -e '.schema == "verdict/1"' "$DATA/out.json"
    jq -e '.comparisons[0].verdict == "worse" and .comparisons[0].estimate > 1.09' "$DATA/out.json"
    jq -e '.comparisons[0].ci | length == 2' "$DATA/out.json"
    jq -e '(.samples | length) == 40 and (.summaries | length) == 2' "$DATA/out.json"
    jq -e '.tool.name == "verdict" and .experiment.confidence == 0.95' "$DATA/out.json"
    grep -q "worse" "$DATA/err.txt"
}

@test "comments, blank lines and -C columns are read like ministat" {
    printf '# run 1\nx 100 a\n\nx 101 a\n# run 3\nx 99 a\nx 100.5 a\n' > "$DATA/a"
    printf 'x 120 a\nx 121 a\nx 119 a\nx 120.5 a\n' > "$DATA/b"
    run "$VERDICT" compare -C 2 "$DATA/a" "$DATA/b"
    [ "$status" -eq 0 ]
    [[ "$output" == *"     4 "* ]]
    run "$VERDICT" compare -C 5 "$DATA/a" "$DATA/b"
    [ "$status" -eq 2 ]
    [[ "$output" == *"$DATA/a:2: no column 5"* ]]
}

@test "several candidates are adjusted for multiple comparisons" {
    values 100 0.01 > "$DATA/a"
    values 110 0.01 > "$DATA/b"
    values 90 0.01 > "$DATA/c"
    run "$VERDICT" compare --json "$DATA/o.json" "$DATA/a" "$DATA/b" "$DATA/c"
    [ "$status" -eq 0 ]
    [[ "$output" == *"2 comparisons, Holm-adjusted"* ]]
    jq -e '.comparisons | length == 2' "$DATA/o.json"
    jq -e '.comparisons[0].confidence > 0.97' "$DATA/o.json"
    jq -e '.comparisons[1].verdict == "better"' "$DATA/o.json"
}

@test "the bootstrap claims nothing from three runs per side" {
    run "$VERDICT" compare --method bootstrap -C 4 --higher-is-better \
        "$EXAMPLES/strict-aliasing/no-strict-aliasing.8.txt" "$EXAMPLES/strict-aliasing/strict-aliasing.8.txt"
    [ "$status" -eq 0 ]
    [[ "$output" == *"inconclusive: 3 runs per side cannot reach 95% confidence"* ]]
    [[ "$output" == *"about 7 more runs per side needed"* ]]
}

@test "--html, --csv and --markdown write their files; options may follow the files" {
    values 100 0.01 > "$DATA/a"
    values 110 0.01 > "$DATA/b"
    run "$VERDICT" compare "$DATA/a" "$DATA/b" --html "$DATA/c.html" --csv "$DATA/c.csv" \
        --markdown "$DATA/c.md"
    [ "$status" -eq 0 ]
    [[ "$output" == *"worse: b is 10.0% higher than a"* ]]
    xmllint --noout "$DATA/c.html"
    grep -q "<h2>Verdicts</h2>" "$DATA/c.html"
    grep -q "worse" "$DATA/c.html"
    [ "$(grep -c ',default,a,' "$DATA/c.csv")" -eq 20 ]
    [ "$(grep -c ',default,b,' "$DATA/c.csv")" -eq 20 ]
    grep -q "| default | value | a | b | +10" "$DATA/c.md"
    # the same sentence in every report (report/phrases.c)
    grep -q "| worse: b is 10.0% higher than a |$" "$DATA/c.md"
    grep -q "<strong>worse</strong>: b is 10.0% higher than a<" "$DATA/c.html"
    run "$VERDICT" compare "$DATA/a" "$DATA/b" --html "$DATA/missing/c.html"
    [ "$status" -ne 0 ]
    [[ "$output" == *"$DATA/missing/c.html"* ]]
}

# ---- ties, zeros and rounded values (issue 11) --------------------------------------

@test "an interval end resting exactly on 1 follows the test: inconclusive at p = 0.23" {
    printf '%s\n' 1 1.1 1 1.1 1 1.2 1.2 1.2 1.1 1 1.1 1 1 1.1 1.1 > "$DATA/a"
    printf '%s\n' 1.2 1 1.2 1.1 1.2 1 1.1 1.2 > "$DATA/b"
    output=$("$VERDICT" compare --json - "$DATA/a" "$DATA/b" 2>/dev/null)
    [ "$(jq -r '.comparisons[0].verdict' <<< "$output")" = inconclusive ]
    [ "$(jq -r '.comparisons[0].resolution_limited' <<< "$output")" = true ]
    [ "$(jq '[.warnings[] | select(.code == "discrete")] | length' <<< "$output")" -eq 1 ]
}

@test "a tied end that the test rejects is open and printed as (: worse at p = 0.014" {
    printf '%s\n' 4.9 4.9 5.1 4.9 5.1 4.8 4.7 4.8 4.8 5.2 5.1 5 5 4.9 5.2 > "$DATA/a"
    printf '%s\n' 5.1 5.3 5.1 5.2 5 5.1 4.9 5.1 5.4 5.2 > "$DATA/b"
    output=$("$VERDICT" compare --json - "$DATA/a" "$DATA/b" 2>/dev/null)
    [ "$(jq -r '.comparisons[0].verdict' <<< "$output")" = worse ]
    [ "$(jq -c '.comparisons[0].ci_open' <<< "$output")" = '[true,false]' ]
    [ "$(jq '.comparisons[0].ci[0]' <<< "$output")" = 1 ]
    run "$VERDICT" compare "$DATA/a" "$DATA/b"
    [[ "$output" == *"(+0.00%, +8.4%]"* ]]
}

@test "discrete values are not called equivalent: 1 and 2 alternating" {
    for i in $(seq 10); do printf '1\n2\n'; done > "$DATA/a"
    for i in $(seq 10); do printf '2\n1\n'; done > "$DATA/b"
    run "$VERDICT" compare "$DATA/a" "$DATA/b"
    [ "$status" -eq 0 ]
    [[ "$output" == *"inconclusive: the values are rounded (to 1 significant digit)"* ]]
    [[ "$output" != *"equivalent"* ]]
}

@test "two constant samples that differ are compared, not refused" {
    for i in $(seq 10); do echo 2; done > "$DATA/a"
    for i in $(seq 10); do echo 2.1; done > "$DATA/b"
    output=$("$VERDICT" compare --json - "$DATA/a" "$DATA/b" 2>/dev/null)
    [ "$(jq -r '.comparisons[0].verdict' <<< "$output")" = worse ]
    [ "$(jq '.comparisons[0].estimate' <<< "$output")" = 1.05 ]
}

@test "paired zeros are kept in estimate and interval, and reported" {
    for i in $(seq 26); do echo 1; done > "$DATA/a"
    { for i in $(seq 20); do echo 1; done; for i in $(seq 6); do echo 1.1; done; } > "$DATA/b"
    output=$("$VERDICT" compare --paired --json - "$DATA/a" "$DATA/b" 2>/dev/null)
    [ "$(jq -r '.comparisons[0].verdict' <<< "$output")" = worse ]
    [ "$(jq '.comparisons[0].zeros_set_aside' <<< "$output")" -eq 20 ]
    [ "$(jq -r '[.warnings[].code] | index("zeros") != null' <<< "$output")" = true ]
    # the estimate lies in its interval's closure
    jq -e '.comparisons[0] | .ci[0] <= .estimate and .estimate <= .ci[1]' <<< "$output"
}

@test "two against two cannot reach 95% with ties either" {
    printf '1\n1\n' > "$DATA/a"
    printf '2\n3\n' > "$DATA/b"
    output=$("$VERDICT" compare --json - "$DATA/a" "$DATA/b" 2>/dev/null)
    [ "$(jq -r '.comparisons[0].verdict' <<< "$output")" = inconclusive ]
    jq -e '.comparisons[0].achieved_confidence < 0.95' <<< "$output"
    # 4 + 4 is the smallest size that can decide
    [ "$(jq '.comparisons[0].needed_blocks' <<< "$output")" -ge 2 ]
}

@test "bootstrap seeds 0, 4357 and 2^32 + 1 give different resamples" {
    values 100 0.05 30 > "$DATA/a"
    values 103 0.05 30 | awk 'NR % 3 == 0 { $1 = $1 * 1.01 } { print }' > "$DATA/b"
    for seed in 0 4357 4294967297; do
        "$VERDICT" compare --method bootstrap --seed $seed --json - "$DATA/a" "$DATA/b" 2>/dev/null |
            jq -c '.comparisons[0].ci' > "$DATA/ci.$seed"
    done
    ! cmp -s "$DATA/ci.0" "$DATA/ci.4357"
    ! cmp -s "$DATA/ci.0" "$DATA/ci.4294967297"
    ! cmp -s "$DATA/ci.4357" "$DATA/ci.4294967297"
}

@test "--method quantile names the method, the quantile and a shift function of 9 deciles" {
    values 100 0.05 30 > "$DATA/a"
    values 104 0.05 30 | awk 'NR % 3 == 0 { $1 = $1 * 1.2 } { print }' > "$DATA/b"
    output=$("$VERDICT" compare --method quantile --json - "$DATA/a" "$DATA/b" 2>/dev/null)
    jq -e '.experiment.method == "quantile" and .experiment.quantile == 0.1' <<< "$output"
    jq -e '.experiment.method_note | test("10th percentile")' <<< "$output"
    c=$(jq -c '.comparisons[0]' <<< "$output")
    jq -e '.method == "quantile-hd-permutation" and .paired == false and .quantile == 0.1' <<< "$c"
    jq -e '.shift_function | length == 9' <<< "$c"
    jq -e '[.shift_function[].q] == [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]' <<< "$c"
    jq -e '[.shift_function[].baseline] | . == sort' <<< "$c"
    jq -e '.ci[0] <= .estimate and .estimate <= .ci[1]' <<< "$c"
    # paired, another quantile: the swap test
    output=$("$VERDICT" compare --paired --quantile 25% --json - "$DATA/a" "$DATA/b" 2>/dev/null)
    jq -e '.comparisons[0].method == "quantile-hd-swap" and .comparisons[0].quantile == 0.25' <<< "$output"
    # the sentence of what it compares, in the terminal report
    run "$VERDICT" compare --method quantile "$DATA/a" "$DATA/b"
    [ "$status" -eq 0 ]
    [[ "$output" == *"Compares the 10th percentile of each variant"* ]]
}

@test "--quantile refuses values outside (0, 1) and another --method, naming them" {
    values 100 0.05 > "$DATA/a"
    values 101 0.05 > "$DATA/b"
    for bad in 0 1 1.5 -0.1 abc 100%; do
        run "$VERDICT" compare --quantile "$bad" "$DATA/a" "$DATA/b"
        [ "$status" -eq 2 ]
        [[ "$output" == *"--quantile '$bad'"* ]]
    done
    run "$VERDICT" compare --quantile 0.2 --method welch "$DATA/a" "$DATA/b"
    [ "$status" -eq 2 ]
    [[ "$output" == *"--method welch compares no quantile"* ]]
    run "$VERDICT" compare --method median "$DATA/a" "$DATA/b"
    [ "$status" -eq 2 ]
    [[ "$output" == *"expected wilcoxon, welch, bootstrap or quantile"* ]]
}

@test "skewed runs suggest the quantile method; it is never switched on" {
    values 100 0.01 30 | awk 'NR % 3 == 0 { $1 = $1 * 1.3 } { print }' > "$DATA/a"
    values 101 0.01 30 | awk 'NR % 3 == 1 { $1 = $1 * 1.3 } { print }' > "$DATA/b"
    output=$("$VERDICT" compare --json - "$DATA/a" "$DATA/b" 2>/dev/null)
    jq -e '[.warnings[].code] | index("try-quantile") != null' <<< "$output"
    jq -e '.experiment.method == "wilcoxon" and (.comparisons[0] | has("shift_function") | not)' <<< "$output"
    output=$("$VERDICT" compare --method quantile --json - "$DATA/a" "$DATA/b" 2>/dev/null)
    jq -e '[.warnings[].code] | index("try-quantile") == null' <<< "$output"
}

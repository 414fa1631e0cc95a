#!/usr/bin/env bats
# Exports (issue 16, item 7): machine facts in every JSON and HTML of a run, the adjusted p
# beside adjusted intervals, Markdown with the overall effect, destinations checked before
# anything runs, and '-' as standard output for every export. Timings are never asserted.

setup() {
    VERDICT=${VERDICT:?set VERDICT to the verdict binary}
    SPIN=${SPIN:?set SPIN to the spin example}
    DATA=$(mktemp -d)
    printf '1.00\n1.10\n1.05\n0.98\n1.02\n' > "$DATA/a"
    printf '1.20\n1.31\n1.25\n1.18\n1.22\n' > "$DATA/b"
    # every run of this experiment's commands appends a line to $DATA/ran
    cat > "$DATA/log.yaml" <<YAML
name: exports-log
seed: 3
repetitions: 3
variants:
  A: { command: ["sh", "-c", "echo A >> '$DATA/ran'"] }
  B: { command: ["sh", "-c", "echo B >> '$DATA/ran'"] }
metrics: [wall]
YAML
}

teardown() {
    rm -rf "$DATA"
}

# A stored experiment for `verdict report`.
stored() {
    "$VERDICT" run "$DATA/log.yaml" --store "$DATA/s.db" > /dev/null 2>&1
    rm -f "$DATA/ran"
}

# ---- machine facts ----

@test "main: a command-line A/B's JSON has the machine facts (it had \"environment\": {})" {
    run "$VERDICT" -r 5 -w 0 --json "$DATA/ab.json" --html "$DATA/ab.html" "$SPIN 1000" "$SPIN 2000"
    [ "$status" -eq 0 ]
    jq -e '.environment.cpu_model | type == "string" and length > 0' "$DATA/ab.json"
    jq -e '.environment | has("kernel") and has("verdict")' "$DATA/ab.json"
    cpu=$(jq -r '.environment.cpu_model' "$DATA/ab.json")
    grep -qF "$cpu" "$DATA/ab.html"
}

@test "main: a command-line A/B's HTML does not say the samples were measured elsewhere" {
    run "$VERDICT" -r 5 -w 0 --html "$DATA/ab.html" "$SPIN 1000" "$SPIN 2000"
    [ "$status" -eq 0 ]
    grep -q "<h2>Environment</h2>" "$DATA/ab.html"
    grep -q "cpu_model" "$DATA/ab.html"
    ! grep -q "measured elsewhere" "$DATA/ab.html"
}

@test "verdict compare's HTML still says its samples were measured elsewhere, and has no facts" {
    run "$VERDICT" compare --html "$DATA/c.html" --json "$DATA/c.json" "$DATA/a" "$DATA/b"
    [ "$status" -eq 0 ]
    grep -q "measured elsewhere" "$DATA/c.html"
    jq -e '.environment == {}' "$DATA/c.json"
}

# ---- the Markdown ----

@test "main: the Markdown p beside an adjusted interval is the adjusted p (it was the raw one)" {
    run "$VERDICT" -r 6 -w 0 --json "$DATA/m.json" --markdown "$DATA/m.md" \
        "$SPIN 3000000" "$SPIN 6000000" "$SPIN 3000000"
    [ "$status" -eq 0 ]
    grep -q "2 comparisons, Holm-adjusted (intervals at 97.5%, p adjusted)" "$DATA/m.md"
    grep -q "| p (adjusted) |" "$DATA/m.md"
    python3 - "$DATA/m.json" "$DATA/m.md" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
rows = [line for line in open(sys.argv[2]) if line.startswith("| ") and "default" in line
        and " at " in line]  # the comparison rows: their interval says its level
comparisons = doc["comparisons"]
assert len(rows) == len(comparisons) == 2, (rows, comparisons)
for row, c in zip(rows, comparisons):
    p = row.split(" | ")[6].strip()
    assert p == "%.2g" % c["p_adjusted"], (p, c["p_adjusted"], c["p_value"])
# Holm doubles the smaller p: the test can tell the adjusted p from the raw one
assert any("%.2g" % c["p_adjusted"] != "%.2g" % c["p_value"] for c in comparisons), comparisons
PY
}

@test "main: the Markdown of a -L sweep has the overall effect (the table was missing)" {
    run "$VERDICT" -r 5 -w 0 -L n 1000,2000 --json "$DATA/l.json" --markdown "$DATA/l.md" \
        "$SPIN {n}" "$SPIN {n}"
    [ "$status" -eq 0 ]
    jq -e '(.overall | length) == 1 and .overall[0].points == 2' "$DATA/l.json"
    grep -q "^Overall, across the points (geometric mean of the ratios):" "$DATA/l.md"
    grep -q "^| candidate | baseline | metric | points | change | interval | verdict |" "$DATA/l.md"
    python3 - "$DATA/l.json" "$DATA/l.md" <<'PY'
import json, sys
overall = json.load(open(sys.argv[1]))["overall"][0]
rows = [line for line in open(sys.argv[2]) if line.startswith("| ") and "| wall | 2 |" in line]
assert len(rows) == 1, rows
cells = [cell.strip() for cell in rows[0].strip().strip("|").split(" | ")]
percent = (overall["estimate"] - 1) * 100  # the report's one format (report/phrases.c)
expected = ("%+.2f%%" if abs(percent) < 0.1 else "%+.1f%%") % percent
expected = "+0.00%" if expected == "-0.00%" else expected  # no "-0.00%"
assert cells[4].split(" (")[0] == expected, (cells, overall)
assert cells[6] == overall["verdict"] or cells[6].startswith(overall["verdict"]), (cells, overall)
PY
}

@test "main: Markdown warnings are list items naming their point (they ended in ' |')" {
    run "$VERDICT" -r 5 -w 0 -L n 1000,2000 --markdown "$DATA/w.md" "$SPIN {n}" "$SPIN {n}"
    [ "$status" -eq 0 ]
    grep -q '^Warnings:$' "$DATA/w.md"
    grep -q '^- `' "$DATA/w.md"
    ! grep '^- `' "$DATA/w.md" | grep -q ' |$'
    # runs of about a millisecond: too-short at each point, named
    grep -q '^- `too-short` at n=1000: ' "$DATA/w.md"
    grep -q '^- `too-short` at n=2000: ' "$DATA/w.md"
}

# ---- destinations checked before the first run ----

@test "main: --json /nonexistent/dir/x.json fails before any run (it ran everything, then exited 1)" {
    DATA="$DATA" run "$VERDICT" -r 3 -w 0 --prepare 'echo ran >> "$DATA/ran"' \
        --json /nonexistent/dir/x.json "$SPIN 1000" "$SPIN 2000"
    [ "$status" -eq 2 ]
    [[ "$output" == *"--json /nonexistent/dir/x.json: cannot write: /nonexistent/dir: No such file or directory"* ]]
    [ ! -e "$DATA/ran" ]
}

@test "every export's destination of a command-line run is checked before it runs" {
    for option in --json --csv --markdown --html --svg; do
        DATA="$DATA" run "$VERDICT" -r 3 -w 0 --prepare 'echo ran >> "$DATA/ran"' \
            "$option" "$DATA/missing/out" "$SPIN 1000" "$SPIN 2000"
        [ "$status" -eq 2 ]
        [[ "$output" == "verdict: $option $DATA/missing/out: cannot write: $DATA/missing: No such file or directory" ]]
        [ ! -e "$DATA/ran" ]
    done
    run "$VERDICT" -r 3 -w 0 --svg "$DATA/a" "$SPIN 1000" "$SPIN 2000"
    [ "$status" -eq 2 ]
    [[ "$output" == *"--svg $DATA/a: cannot write: not a directory"* ]]
}

@test "an existing export is left as it was when another destination is refused" {
    echo keep > "$DATA/old.json"
    run "$VERDICT" -r 3 -w 0 --json "$DATA/old.json" --csv "$DATA/missing/x.csv" "$SPIN 1000" "$SPIN 2000"
    [ "$status" -eq 2 ]
    [ "$(cat "$DATA/old.json")" = keep ]
    [ -z "$(ls "$DATA" | grep tmp)" ]
}

@test "verdict run checks its exports before it builds, opens the store or runs" {
    run "$VERDICT" run "$DATA/log.yaml" --store "$DATA/r.db" --markdown "$DATA/missing/r.md"
    [ "$status" -eq 2 ]
    [[ "$output" == *"--markdown $DATA/missing/r.md: cannot write: $DATA/missing: No such file or directory"* ]]
    [ ! -e "$DATA/ran" ]
    [ ! -e "$DATA/r.db" ]
}

@test "verdict report, verdict compare and verdict kernel check their exports first too" {
    stored
    run "$VERDICT" report "$DATA/s.db" --html "$DATA/missing/r.html"
    [ "$status" -eq 2 ]
    [[ "$output" == *"verdict report: --html $DATA/missing/r.html: cannot write: $DATA/missing"* ]]
    run "$VERDICT" compare --csv "$DATA/missing/c.csv" "$DATA/a" "$DATA/b"
    [ "$status" -eq 2 ]
    [[ "$output" == *"verdict compare: --csv $DATA/missing/c.csv: cannot write: $DATA/missing"* ]]
    run "$VERDICT" kernel -r 5 --sample-time 1ms --json "$DATA/missing/k.json" \
        "${CRC32C_KERNELS:?}" sb8 runtime
    [ "$status" -eq 2 ]
    [[ "$output" == *"verdict kernel: --json $DATA/missing/k.json: cannot write: $DATA/missing"* ]]
    [[ "$output" != *"blocks of"* ]]
}

# ---- '-' is standard output ----

@test "main: --markdown - gives stdout the Markdown alone; the text report goes to stderr" {
    "$VERDICT" -r 5 -w 0 --markdown - "$SPIN 1000" "$SPIN 2000" > "$DATA/out" 2> "$DATA/err"
    [ "$(head -n 1 "$DATA/out")" = "## verdict" ]
    ! grep -q "blocks of 2 commands" "$DATA/out"
    ! grep -q "== wall" "$DATA/out"
    grep -q "^| point | metric | baseline | candidate |" "$DATA/out"
    grep -q "5 blocks of 2 commands" "$DATA/err"
    ! grep -q "^| point" "$DATA/err"
}

@test "--csv, --json and --html - each give stdout their document alone" {
    "$VERDICT" -r 5 -w 0 --csv - "$SPIN 1000" "$SPIN 2000" > "$DATA/out" 2> "$DATA/err"
    [ "$(wc -l < "$DATA/out")" -eq 11 ]   # a header and 2 x 5 samples
    grep -q "5 blocks of 2 commands" "$DATA/err"
    "$VERDICT" -r 5 -w 0 --json - "$SPIN 1000" "$SPIN 2000" > "$DATA/out" 2> "$DATA/err"
    jq -e '.schema == "verdict/1"' "$DATA/out"
    grep -q "5 blocks of 2 commands" "$DATA/err"
    "$VERDICT" -r 5 -w 0 --html - "$SPIN 1000" "$SPIN 2000" > "$DATA/out" 2> "$DATA/err"
    [[ "$(head -c 15 "$DATA/out")" == "<!DOCTYPE html>" ]]
    ! grep -q "blocks of 2 commands" "$DATA/out"
    grep -q "5 blocks of 2 commands" "$DATA/err"
}

@test "'-' is stdout for verdict run, report, compare and kernel alike" {
    "$VERDICT" run "$DATA/log.yaml" --store "$DATA/s.db" --markdown - > "$DATA/out" 2> "$DATA/err"
    [ "$(head -n 1 "$DATA/out")" = "## exports-log" ]
    grep -q "3 blocks of 2 variants" "$DATA/err"
    ! grep -q "blocks of" "$DATA/out"
    "$VERDICT" report "$DATA/s.db" --csv - > "$DATA/out" 2> "$DATA/err"
    [ "$(wc -l < "$DATA/out")" -eq 7 ]   # a header and 2 x 3 samples
    grep -q "== wall" "$DATA/err"
    "$VERDICT" compare --markdown - "$DATA/a" "$DATA/b" > "$DATA/out" 2> "$DATA/err"
    [ "$(head -n 1 "$DATA/out")" = "## compare" ]
    grep -q "vs" "$DATA/err"
    ! grep -q " vs " "$DATA/out"
    "$VERDICT" kernel -r 5 --sample-time 1ms --json - "${CRC32C_KERNELS:?}" sb8 runtime \
        > "$DATA/out" 2> "$DATA/err"
    jq -e '.schema == "verdict/1" and (.environment | has("cpu_model"))' "$DATA/out"
    grep -q "5 blocks of 2 kernels" "$DATA/err"
}

@test "two exports to - are refused naming both options, before anything runs" {
    DATA="$DATA" run "$VERDICT" -r 3 -w 0 --prepare 'echo ran >> "$DATA/ran"' \
        --json - --csv - "$SPIN 1000" "$SPIN 2000"
    [ "$status" -eq 2 ]
    [[ "$output" == *"--json - and --csv -: only one export can go to standard output"* ]]
    [ ! -e "$DATA/ran" ]
    run "$VERDICT" run "$DATA/log.yaml" --store "$DATA/r.db" --markdown - --html -
    [ "$status" -eq 2 ]
    [[ "$output" == *"--markdown - and --html -"* ]]
    [ ! -e "$DATA/ran" ]
    run "$VERDICT" compare --json - --markdown - "$DATA/a" "$DATA/b"
    [ "$status" -eq 2 ]
    [[ "$output" == *"--json - and --markdown -"* ]]
    run "$VERDICT" -r 3 -w 0 --svg - "$SPIN 1000" "$SPIN 2000"
    [ "$status" -eq 2 ]
    [[ "$output" == *"--svg -: --svg writes a directory"* ]]
}

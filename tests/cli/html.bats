#!/usr/bin/env bats
# The HTML report and the SVG charts (issue 7): well-formed, self-contained, every
# untrusted string escaped, and opened in a real browser (headless chromium) when present.

# One experiment for the whole file: the tests only read its store and reports.
setup_file() {
    : "${VERDICT:?set VERDICT to the verdict binary}" "${SPIN:?set SPIN to the spin example}"
    export DATA=$BATS_FILE_TMPDIR
    cat > "$DATA/sweep.yaml" <<YAML
name: html-demo
seed: 11
repetitions: 6
parameters:
  rounds: [100000, 200000, 400000, 800000]
variants:
  A: { command: ["$SPIN", "{rounds}"] }
  "<script>alert(1)</script>": { command: ["$SPIN", "{rounds}"] }
metrics: [wall]
YAML
    "$VERDICT" run "$DATA/sweep.yaml" --store "$DATA/s.db" --html "$DATA/run.html" \
        > "$DATA/run.out" 2>&1
}

setup() {
    RENDER=${RENDER:-$BATS_TEST_DIRNAME/../report/render_in_chromium.sh}
}

@test "verdict run --html writes a well-formed report with the sweep and change charts" {
    [ -s "$DATA/run.html" ]
    xmllint --noout "$DATA/run.html"
    grep -q "<h2>Verdicts</h2>" "$DATA/run.html"
    grep -q "wall against rounds" "$DATA/run.html"
    grep -q "change in wall against rounds" "$DATA/run.html"
    grep -q "every run in measurement order" "$DATA/run.html"
    grep -q "distributions" "$DATA/run.html"
    grep -q "wall (seconds)" "$DATA/run.html"
    grep -q "<h2>Environment</h2>" "$DATA/run.html"
    grep -q "cpu_model" "$DATA/run.html"
}

@test "the terminal report draws the change per point against the margin" {
    grep -q "== change per point: " "$DATA/run.out"
    grep -qE "rounds=800000 +[ :|*\[-]*\*" "$DATA/run.out"
}

@test "verdict report --html --svg: every SVG and the HTML parse as XML; DIR is created" {
    run "$VERDICT" report "$DATA/s.db" --html "$DATA/r.html" --svg "$DATA/charts"
    [ "$status" -eq 0 ]
    xmllint --noout "$DATA/r.html"
    count=0
    for svg in "$DATA"/charts/*.svg; do
        xmllint --noout "$svg"
        count=$((count + 1))
    done
    # a sweep and a change chart, then runs and distributions for 4 points
    [ "$count" -eq 10 ]
    [ -e "$DATA/charts/01-sweep-wall.svg" ]
    [ -e "$DATA/charts/03-runs-rounds-100000-wall.svg" ]
    ! ls "$DATA/charts" | grep -q '[^A-Za-z0-9._-]'
}

@test "a variant named <script>alert(1)</script> appears only escaped" {
    "$VERDICT" report "$DATA/s.db" --html "$DATA/r.html" --svg "$DATA/charts" >/dev/null 2>&1
    ! grep -qF "<script>alert" "$DATA/r.html"
    grep -qF "&lt;script&gt;alert(1)&lt;/script&gt;" "$DATA/r.html"
    ! grep -qF "<script>alert" "$DATA"/charts/*.svg
    grep -qF "&lt;script&gt;alert(1)&lt;/script&gt;" "$DATA/charts/01-sweep-wall.svg"
}

@test "the HTML is self-contained: no network references, external scripts, styles or fonts" {
    ! grep -qiE "https?://" "$DATA/run.html"
    ! grep -qiE "<script[^>]+src" "$DATA/run.html"
    ! grep -qiE "<link|@import|@font-face|url\(" "$DATA/run.html"
    ! grep -qiE "<(img|iframe|object|embed)[ >]" "$DATA/run.html"
    [ "$(grep -c "<script" "$DATA/run.html")" -eq 1 ]
}

@test "the default runner writes --html too" {
    run "$VERDICT" --runs 5 --warmup 0 --html "$DATA/bench.html" "$SPIN 100000" "$SPIN 110000"
    [ "$status" -eq 0 ]
    xmllint --noout "$DATA/bench.html"
    grep -q "<h2>Verdicts</h2>" "$DATA/bench.html"
}

@test "an unwritable --html or --svg is an error naming the path" {
    # checked before the report is made: a usage error (exit 2), no longer 1 after it
    run "$VERDICT" report "$DATA/s.db" --html "$DATA/missing/dir/r.html"
    [ "$status" -eq 2 ]
    [[ "$output" == *"$DATA/missing/dir/r.html"* ]]
    touch "$DATA/plain-file"
    run "$VERDICT" report "$DATA/s.db" --svg "$DATA/plain-file"
    [ "$status" -eq 2 ]
    [[ "$output" == *"not a directory"* ]]
}

@test "tested in a real browser: chromium loads the report without script errors" {
    if ! command -v chromium > /dev/null; then
        skip "chromium is not installed (apt-get install chromium)"
    fi
    run "$RENDER" "$DATA/run.html" "$DATA/run.png"
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$(head -c 8 "$DATA/run.png" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ]
    [ "$(stat -c %s "$DATA/run.png")" -gt 20000 ]
}

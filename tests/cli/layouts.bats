#!/usr/bin/env bats
# Layout twins (issue 19) on real processes: examples/layout's program, built once per
# variant and linked in several function orders; a no-op change is not called, a change of
# 25% more work is, and every layout is its own binary, recorded with its SHA-256.

setup() {
    VERDICT=${VERDICT:?set VERDICT to the verdict binary}
    EXAMPLE=$(cd "$BATS_TEST_DIRNAME/../../examples/layout" && pwd)
    DATA=$(mktemp -d)
    cp -r "$EXAMPLE/prog" "$EXAMPLE/noop.patch" "$DATA/"
    sed 's/#define ROUNDS 40/#define ROUNDS 50/' "$EXAMPLE/prog/prog.c" > "$DATA/more.c"
    (cd "$DATA" && diff -u prog/prog.c more.c | sed '1s|.*|--- a/prog.c|; 2s|.*|+++ b/prog.c|' \
        > more-work.patch) || true
    export VERDICT_CACHE="$DATA/cache"
}

teardown() {
    rm -rf "$DATA"
}

experiment() { # NAME LAYOUTS, then the variants' lines
    local name=$1 layouts=$2
    shift 2
    {
        echo "name: $name"
        echo "seed: 5"
        echo "layouts: $layouts"
        echo "repetitions: ${REPS:-10}"
        echo "confidence: 0.995"
        echo "metrics: [cpu]"
        echo "variants:"
        for line in "$@"; do echo "  $line"; done
    } > "$DATA/$name.yaml"
}

variant() { # NAME [PATCH]
    local patches=""
    [ -n "${2:-}" ] && patches=", patches: [$2]"
    echo "$1: {source: prog$patches, build: make, command: [\"{tree}/prog\", \"3000\"]}"
}

@test "a no-op change across 6 layouts is not called better or worse; every layout is a binary of its own" {
    experiment noop 6 "$(variant base)" "$(variant noop noop.patch)"
    run "$VERDICT" run "$DATA/noop.yaml" --store "$DATA/noop.db" --json "$DATA/noop.json" \
        --html "$DATA/noop.html"
    echo "$output"
    [ "$status" -eq 0 ]
    # the HTML shows each variant's 6 layouts as a strip beside the interval
    strip=$(grep -o '<svg class="layouts"[^>]*>.*</svg> <small>6+6 layouts' "$DATA/noop.html")
    [ "$(echo "$strip" | grep -o '<circle' | wc -l)" -eq 12 ]
    verdict=$(jq -r '.comparisons[0].verdict' "$DATA/noop.json")
    [ "$verdict" != better ] && [ "$verdict" != worse ]
    [ "$(jq -r '.comparisons[0].layouts' "$DATA/noop.json")" = 6 ]
    jq -e '.comparisons[0].layout_spread >= 0 and (.comparisons[0].binary_estimate > 0)' "$DATA/noop.json"
    # 12 builds listed, 12 different binaries, the same in the store's facts
    [ "$(jq '.builds | length' "$DATA/noop.json")" = 12 ]
    [ "$(jq -r '.builds[].sha256' "$DATA/noop.json" | sort -u | wc -l)" = 12 ]
    [ "$(jq -r '[.builds[] | select(.variant == "noop") | .layout] | sort | join(",")' "$DATA/noop.json")" = "0,1,2,3,4,5" ]
    # every (variant, layout) unit ran once in every block
    [ "$(sqlite3 "$DATA/noop.db" "select count(*) || ' ' || count(distinct variant || layout || '/' || block) from sample where block >= 0")" = "120 120" ]
    [[ "$output" == *"across 6 and 6 layouts"* ]]
}

@test "25% more work across 6 layouts is called worse; a rerun links nothing again" {
    REPS=8 experiment more 6 "$(variant base)" "$(variant more more-work.patch)"
    run "$VERDICT" run "$DATA/more.yaml" --store "$DATA/more.db" --json "$DATA/more.json"
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$(jq -r '.comparisons[0].verdict' "$DATA/more.json")" = worse ]
    jq -e '.comparisons[0].estimate > 1.1' "$DATA/more.json"
    run "$VERDICT" build "$DATA/more.yaml"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" != *"relinking"* ]]
    [[ "$output" == *"layout "*" cached"* ]]
}

@test "two builds compared without layouts and close together get the layout-untested warning" {
    REPS=10 experiment close 1 "$(variant base)" "$(variant noop noop.patch)"
    run "$VERDICT" run "$DATA/close.yaml" --json "$DATA/close.json"
    echo "$output"
    [ "$status" -eq 0 ]
    # the no-op moves one function's worth of code: far less than 5%, so the warning is due
    jq -e '(.comparisons[0].estimate - 1) | fabs < 0.05' "$DATA/close.json"
    jq -e '[.warnings[].code] | index("layout-untested") != null' "$DATA/close.json"
    [[ "$output" == *"add 'layouts: 6'"* ]]
    [ "$(jq -r '.comparisons[0].layouts' "$DATA/close.json")" = 1 ]
}

@test "layouts without a source, or for only some variants, are refused before anything runs" {
    experiment bad 2 "a: {command: [/bin/true], layouts: 3}"
    run "$VERDICT" run "$DATA/bad.yaml"
    [ "$status" -eq 2 ]
    [[ "$output" == *"has 'layouts' but no 'source'"* ]]
    experiment mixed 3 "$(variant base)" "b: {command: [/bin/true]}"
    run "$VERDICT" run "$DATA/mixed.yaml"
    [ "$status" -eq 2 ]
    [[ "$output" == *"every variant needs layout twins"* ]]
}

#!/usr/bin/env bats
# The differential flame graph (issue 28) in a page opened by headless Chromium: the frames
# the browser built from the SVG, their colours, tooltips and one-variant marks, a picture.

setup_file() {
    : "${FLAME_PAGE:?set FLAME_PAGE to the flame_page test program}"
    export DATA=$BATS_FILE_TMPDIR
    "$FLAME_PAGE" "$DATA/flame.html"
}

setup() {
    RENDER=${RENDER:-$BATS_TEST_DIRNAME/render_in_chromium.sh}
}

# The frame's rect as the browser serialised it, up to the start of its tooltip.
frame() {
    grep -o "<rect class=\"flame-frame[^>]*><title>$1" "$DATA/dom.html"
}

@test "the page with the flame graph section is well-formed and escapes the names" {
    xmllint --noout "$DATA/flame.html"
    grep -q "<h2>Differential flame graph: wall: B against A</h2>" "$DATA/flame.html"
    ! grep -qF "<esc" "$DATA/flame.html"
}

@test "in Chromium: a rect with its tooltip per frame, coloured by the change, one-variant stacks marked" {
    if ! command -v chromium > /dev/null; then
        skip "chromium is not installed (apt-get install chromium)"
    fi
    run "$RENDER" "$DATA/flame.html" "$DATA/flame.png" "$DATA/dom.html"
    echo "$output"
    [ "$status" -eq 0 ]
    # all, main, run, three callees of run and three of main: nine frames, each titled
    [ "$(grep -o '<rect class="flame-frame' "$DATA/dom.html" | wc -l)" -eq 9 ]
    [ "$(grep -o '<rect class="flame-frame[^>]*><title>' "$DATA/dom.html" | wc -l)" -eq 9 ]
    # slow_part (40% slower) red, steady_part (interval holds 0) grey, fast_part blue
    frame slow_part | grep -q 'flame-slower'
    frame steady_part | grep -q 'flame-within'
    frame fast_part | grep -q 'flame-faster'
    frame slow_part | grep -qE 'width="200(\.0+)?"'
    frame steady_part | grep -qE 'width="400(\.0+)?"'
    # the stack only the candidate ran is hatched, the one only the baseline ran dashed
    frame new_only | grep -q 'flame-candidate-only'
    frame old_only | grep -q 'flame-baseline-only'
    grep -q '<path class="flame-hatch"' "$DATA/dom.html"
    grep -q 'interval \[+30.00 ms, +50.00 ms\]' "$DATA/dom.html"
    ! grep -qF "<esc" "$DATA/dom.html"
    [ "$(head -c 8 "$DATA/flame.png" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ]
    [ "$(stat -c %s "$DATA/flame.png")" -gt 10000 ]
}

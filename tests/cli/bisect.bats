#!/usr/bin/env bats
# verdict bisect (issue 29) on repositories the test makes (tests/cli/bisect_repo.bash): the
# commit that added 10% work named for two seeds, no regression said as such, a bisection
# killed during a build and during a step resumed without building or measuring again, a
# commit that does not build skipped and named, and the ranges and trees it refuses.

load bisect_repo

setup() {
    VERDICT=${VERDICT:?set VERDICT to the verdict binary}
    command -v valgrind > /dev/null || skip "valgrind is not installed"
    DATA=$(mktemp -d)
    CACHE="$DATA/cache"
}

teardown() {
    rm -rf "$DATA"
}

commit_of() { # REPO N: the id of "commit N"
    git -C "$1" log --format=%H --grep="^commit $2\\b" -1
}

samples_in() { # STORE
    sqlite3 -cmd ".timeout 5000" "$1" "select count(*) from sample" 2>/dev/null || echo 0
}

# Would catch: a wrong half kept, a midpoint decided against one end only by guessing, more
# steps than halving needs, the effect taken against the wrong commit or inverted.
@test "bisect names commit 19 of 32 in at most 7 steps, for two seeds" {
    make_bisect_repository "$DATA/repo" 32 19
    local seed
    for seed in 1 2; do
        write_bisect_experiment "$DATA/e$seed.yaml" "$DATA/repo" "$seed"
        "$VERDICT" bisect "$DATA/e$seed.yaml" --good good --bad bad --cache "$CACHE" \
            --json "$DATA/b$seed.json" > "$DATA/out$seed" 2> "$DATA/err$seed" &
        eval "pid$seed=$!"
    done
    wait "$pid1"
    wait "$pid2"
    local slow
    slow=$(commit_of "$DATA/repo" 19)
    for seed in 1 2; do
        cat "$DATA/out$seed"
        jq -e --arg c "$slow" '.outcome == "found" and .first_bad == $c' "$DATA/b$seed.json"
        jq -e '(.steps | length) + 1 <= 7 and .planned_comparisons == 6' "$DATA/b$seed.json"
        # the effect of 19 against 18: worse by the 10% of the loop (less the start-up)
        jq -e '.effect.verdict == "worse" and .effect.ratio > 1.05 and .effect.ratio < 1.11' \
            "$DATA/b$seed.json"
        jq -e --arg p "$(commit_of "$DATA/repo" 18)" '.after == $p' "$DATA/b$seed.json"
        grep -q "first bad commit: $slow commit 19: 10% more work" "$DATA/out$seed"
        grep -q "each at 99.17% so that the bisection keeps 95%" "$DATA/out$seed"
    done
}

@test "no regression in the range: said, and no midpoint measured" {
    make_bisect_repository "$DATA/repo" 4 0
    write_bisect_experiment "$DATA/e.yaml" "$DATA/repo" 3
    run "$VERDICT" bisect "$DATA/e.yaml" --good good --bad bad --cache "$CACHE" \
        --json "$DATA/b.json"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *"no regression in the range: bad is the same as good within the margin"* ]]
    [[ "$output" != *"first bad commit"* ]]
    jq -e '.outcome == "no-change" and .first_bad == null and (.steps | length) == 0' \
        "$DATA/b.json"
    jq -e '.ends.verdict == "equivalent"' "$DATA/b.json"
}

# Would catch: a step measured again (more samples than its blocks), a complete build made
# again, an interrupted build trusted, another answer after the resume.
@test "killed during a build and during a step, the rerun gives the answer without building or measuring again" {
    make_bisect_repository "$DATA/repo" 4 3
    # a build that takes a second, so that the kill can find one running
    write_bisect_experiment "$DATA/e.yaml" "$DATA/repo" 5 "sleep 1 && cc -O1 -o work work.c"
    local store="$DATA/e.db" i
    # 1: killed while the first midpoint builds (the ends are built and compared)
    "$VERDICT" bisect "$DATA/e.yaml" --good good --bad bad --cache "$CACHE" 2> "$DATA/err1" &
    local pid=$!
    for i in $(seq 600); do
        [ "$(ls "$CACHE"/builds/*/complete 2> /dev/null | wc -l)" -ge 2 ] &&
            [ "$(ls -d "$CACHE"/builds/*/ | wc -l)" -ge 3 ] && break
        sleep 0.1
    done
    kill -9 "$pid"
    wait "$pid" || true
    [ "$(ls "$CACHE"/builds/*/complete | wc -l)" -eq 2 ]
    # 2: killed once the second midpoint's step has samples stored
    "$VERDICT" bisect "$DATA/e.yaml" --good good --bad bad --cache "$CACHE" > "$DATA/out2" \
        2> "$DATA/err2" &
    pid=$!
    for i in $(seq 900); do
        [ "$(samples_in "$store")" -gt 6 ] && break
        sleep 0.1
    done
    kill -9 "$pid"
    wait "$pid" || true
    local before
    before=$(samples_in "$store")
    [ "$before" -gt 6 ]
    ls -l --time-style=full-iso "$CACHE"/builds/*/complete > "$DATA/builds-before"
    # 3: the rerun
    run "$VERDICT" bisect "$DATA/e.yaml" --good good --bad bad --cache "$CACHE" \
        --json "$DATA/b.json"
    echo "$output"
    [ "$status" -eq 0 ]
    jq -e --arg c "$(commit_of "$DATA/repo" 3)" '.first_bad == $c' "$DATA/b.json"
    # every complete build found, not made again; at most the step's third commit is new
    ls -l --time-style=full-iso "$CACHE"/builds/*/complete | grep -F -f "$DATA/builds-before" |
        wc -l | grep -qx "$(wc -l < "$DATA/builds-before")"
    jq -e '.cost.builds_made <= 1' "$DATA/b.json"
    # what was stored is not measured again: exactly the samples of the blocks analysed
    local expected
    expected=$(jq '.ends_blocks * 2 + ([.steps[].blocks] | add) * 3' "$DATA/b.json")
    [ "$(samples_in "$store")" -eq "$expected" ]
    # the ends read back whole; the step the kill found resumed from its stored samples, or,
    # when the kill came between two steps (a loaded machine can finish a step between two
    # polls), every stored step read back whole: either way nothing measured twice (above)
    [[ "$output" == *"ends, 3 blocks (stored)"* ]]
    [[ "$output" == *"resuming work: bisect "*" samples stored)"* ||
       "$output" == *"step 1: "*" blocks (stored)"* ]]
}

@test "a commit that does not build is skipped and named" {
    make_bisect_repository "$DATA/repo" 8 6 4
    write_bisect_experiment "$DATA/e.yaml" "$DATA/repo" 7
    run "$VERDICT" bisect "$DATA/e.yaml" --good good --bad bad --cache "$CACHE" \
        --json "$DATA/b.json"
    echo "$output"
    [ "$status" -eq 0 ]
    local broken
    broken=$(commit_of "$DATA/repo" 4)
    [[ "$output" == *"skipped ${broken:0:12} (4 of 8): it does not build"* ]]
    [[ "$output" == *"skipped (does not build): $broken commit 4"* ]]
    jq -e --arg c "$(commit_of "$DATA/repo" 6)" '.first_bad == $c' "$DATA/b.json"
    jq -e --arg b "$broken" '.skipped == [$b]' "$DATA/b.json"
    jq -e --arg b "$broken" '[.steps[].commit] | index($b) == null' "$DATA/b.json"
    # --max-steps 1, read back from the store: the range left after the first midpoint
    run "$VERDICT" bisect "$DATA/e.yaml" --good good --bad bad --cache "$CACHE" --max-steps 1 \
        --json "$DATA/m.json"
    echo "$output"
    [ "$status" -eq 0 ]
    local after
    after=$(commit_of "$DATA/repo" 5)
    [[ "$output" == *"unknown: the steps allowed are used; the first bad commit is after ${after:0:12} and at or before"*"(3 commits)"* ]]
    jq -e --arg a "$after" '.outcome == "out-of-steps" and .first_bad == null and .after == $a' \
        "$DATA/m.json"
    jq -e '.cost.blocks_run == 0 and (.steps | length) == 1' "$DATA/m.json"
}

@test "refused: good not an ancestor of bad, a dirty work tree, an experiment without one git variant" {
    make_bisect_repository "$DATA/repo" 2 0
    write_bisect_experiment "$DATA/e.yaml" "$DATA/repo" 1
    bisect_git "$DATA/repo" checkout -q -b side good
    echo side > "$DATA/repo/SIDE"
    bisect_git "$DATA/repo" add SIDE
    bisect_git "$DATA/repo" commit -q -m "a side branch"
    run "$VERDICT" bisect "$DATA/e.yaml" --good side --bad bad --cache "$CACHE"
    [ "$status" -eq 2 ]
    [[ "$output" == *"--good side ("*") is not an ancestor of --bad bad ("* ]]
    run "$VERDICT" bisect "$DATA/e.yaml" --good bad --bad good --cache "$CACHE"
    [ "$status" -eq 2 ]
    [[ "$output" == *"is not an ancestor"* ]]
    echo "// edited" >> "$DATA/repo/work.c"
    run "$VERDICT" bisect "$DATA/e.yaml" --good good --bad bad --cache "$CACHE"
    [ "$status" -eq 2 ]
    [[ "$output" == *"the work tree has changes not committed"*"--allow-dirty"* ]]
    # asked: the check is passed (and the next one says the range is empty)
    run "$VERDICT" bisect "$DATA/e.yaml" --good bad --bad bad --allow-dirty --cache "$CACHE"
    [ "$status" -eq 2 ]
    [[ "$output" == *"are the same commit"*"nothing to bisect"* ]]
    run "$VERDICT" bisect "$DATA/e.yaml" --good nosuchref --bad bad --allow-dirty --cache "$CACHE"
    [ "$status" -eq 2 ]
    [[ "$output" == *"nosuchref is no commit of the repository"* ]]
    printf 'variants: {a: "true"}\n' > "$DATA/none.yaml"
    run "$VERDICT" bisect "$DATA/none.yaml" --good good --bad bad --cache "$CACHE"
    [ "$status" -eq 2 ]
    [[ "$output" == *"exactly one variant with source: {git: REPOSITORY, ref: REF}; it has 0"* ]]
    [ ! -d "$CACHE/builds" ]
    run "$VERDICT" bisect "$DATA/e.yaml" --bad bad
    [ "$status" -eq 2 ]
    [[ "$output" == *"needs --good REF and --bad REF"* ]]
    run "$VERDICT" bisect --help
    [ "$status" -eq 0 ]
    [[ "$output" == *"usage: verdict bisect EXPERIMENT.yaml --good REF --bad REF"* ]]
}

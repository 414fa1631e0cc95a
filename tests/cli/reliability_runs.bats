#!/usr/bin/env bats
# Issue 18 through `verdict run` and the default runner: one verdict per store (item 7's
# lock) and commands that die with a SIGKILLed verdict (item 6). Both failed before: two
# runs measured at once, and the command lived on under pid 1.

setup() {
    VERDICT=${VERDICT:?set VERDICT to the verdict binary}
    DATA=$(mktemp -d)
    # sleep adds up its arguments: the tiny last one marks this test's commands in the
    # process list, and the command is the sleep itself (no shell in between).
    MARK="0.000$$$RANDOM"
    cat > "$DATA/slow.yaml" <<YAML
name: slow
seed: 3
repetitions: 50
variants:
  A: { command: ["sleep", "0.2", "$MARK"] }
  B: { command: ["sleep", "0.2", "$MARK"] }
metrics: [wall]
YAML
}

teardown() {
    [ -n "${first:-}" ] && kill -KILL "$first" 2>/dev/null
    for pid in $(pgrep -f -- "$MARK"); do kill -KILL "$pid" 2>/dev/null || true; done
    rm -rf "$DATA"
}

# Waits (up to 60 s: a bound, not a timing) until the store has a sample.
wait_for_samples() {
    for _ in $(seq 600); do
        [ "$(sqlite3 "$1" 'select count(*) from sample' 2>/dev/null || echo 0)" -gt 0 ] && return 0
        sleep 0.1
    done
    return 1
}

@test "a second verdict run on the same store is refused, naming the first" {
    "$VERDICT" run "$DATA/slow.yaml" --store "$DATA/s.db" > /dev/null 2>&1 &
    first=$!
    wait_for_samples "$DATA/s.db"
    run "$VERDICT" run "$DATA/slow.yaml" --store "$DATA/s.db"
    [ "$status" -ne 0 ]
    [[ "$output" == *"$DATA/s.db: another verdict is running on this store (pid $first)"* ]]
    # The refused run measured nothing: every sample is the first run's.
    [ "$(sqlite3 "$DATA/s.db" 'select count(distinct run_id) from sample')" -eq 1 ]
    kill -KILL "$first"
    wait "$first" || true
    # Its lock died with it: the next run resumes and measures.
    "$VERDICT" run "$DATA/slow.yaml" --store "$DATA/s.db" > "$DATA/second.out" 2>&1 &
    first=$!
    for _ in $(seq 600); do
        [ "$(sqlite3 "$DATA/s.db" 'select count(distinct run_id) from sample')" -eq 2 ] && break
        sleep 0.1
    done
    [ "$(sqlite3 "$DATA/s.db" 'select count(distinct run_id) from sample')" -eq 2 ]
    ! grep -q "another verdict is running" "$DATA/second.out"
}

# A command left behind is a failure, whatever the machine's speed: 30 s bound.
commands_left() {
    for _ in $(seq 300); do
        pgrep -f -- "$MARK" > /dev/null || return 1
        sleep 0.1
    done
    return 0
}

@test "SIGKILL of verdict kills the running command with it" {
    "$VERDICT" --runs 20 -w 0 "sleep 300 $MARK" "sleep 300 $MARK" > /dev/null 2>&1 &
    verdict=$!
    for _ in $(seq 600); do pgrep -f -- "$MARK" > /dev/null && break; sleep 0.1; done
    pgrep -f -- "$MARK" > /dev/null
    kill -KILL "$verdict"
    wait "$verdict" || true
    ! commands_left
}

@test "SIGKILL of verdict run kills the running command with it" {
    sed -i 's/"0.2"/"300"/' "$DATA/slow.yaml"
    "$VERDICT" run "$DATA/slow.yaml" --store "$DATA/k.db" > /dev/null 2>&1 &
    verdict=$!
    for _ in $(seq 600); do pgrep -f -- "$MARK" > /dev/null && break; sleep 0.1; done
    pgrep -f -- "$MARK" > /dev/null
    kill -KILL "$verdict"
    wait "$verdict" || true
    ! commands_left
}

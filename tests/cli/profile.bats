#!/usr/bin/env bats
# Command-line tests of profiles (docs/profiles.md): a function made 40% slower is ranked
# first with an interval above zero while the unchanged one's interval holds zero; profiled
# runs change no timed sample; perf missing or an event the machine lacks is refused before
# anything runs; a binary without symbols is profiled by address and said so. cpu-clock
# counts CPU time, which other load on the machine does not add to: the assertions hold on
# a busy machine.

setup() {
    VERDICT=${VERDICT:?set VERDICT to the verdict binary}
    TWO_PARTS=${TWO_PARTS:?set TWO_PARTS to the two_parts example}
    if ! { command -v perf > /dev/null && perf --version > /dev/null 2>&1; }; then
        # CI installs linux-perf (scripts/setup.sh --tests): there a missing perf is a failure
        [ -n "${VERDICT_CI:-}" ] && { echo "no perf in CI" >&2; return 1; }
        skip "perf is not installed"
    fi
    command -v jq > /dev/null || skip "jq is not installed"
    DATA=$(mktemp -d)
    cd "$DATA"
}

teardown() {
    rm -rf "$DATA"
}

# Whether perf may sample here (a container's seccomp profile or perf_event_paranoid may
# forbid it: verdict refuses then, which the refusal tests below check by other means).
needs_sampling() {
    perf record -q -e cpu-clock -o "$DATA/probe.data" -- true > /dev/null 2>&1 && return 0
    [ -n "${VERDICT_CI:-}" ] && { echo "perf cannot sample on the CI machine" >&2; return 1; }
    skip "perf cannot sample on this machine"
}

# Would catch: shares not paired by block, a wrong sign, the ranking by share instead of by
# change, samples of one variant given to the other; profiled runs stored as samples, taking
# sequence numbers or changing the order of the timed runs (the same seed without --profile
# must give the same timed plan). slow_part's change (+20% of the baseline's time) is many
# times its interval's width; steady_part's holds zero at the family's 95%.
@test "--profile: slow_part first, its interval above zero; steady_part's holds zero" {
    needs_sampling
    run "$VERDICT" --profile -r 4 --seed 7 --store profiled.db --json out.json -n A -n B \
        "$TWO_PARTS 40000000 100" "$TWO_PARTS 40000000 140"
    [ "$status" -eq 0 ]
    [[ "$output" == *"profile (cpu-clock): of that, slow_part +"* ]]
    [ "$(jq -r '.comparisons[0].profile[0].symbol' out.json)" = slow_part ]
    jq -e '.comparisons[0].profile[0].ci[0] > 0' out.json
    jq -e '.comparisons[0].profile[] | select(.symbol == "steady_part") |
           .ci[0] < 0 and .ci[1] > 0' out.json
    [ "$(jq -r '.comparisons[0].profile_blocks' out.json)" -eq 4 ]
    # the document, profile included, is what docs/verdict.schema.json says
    python3 -c 'import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])),
                    cls=jsonschema.Draft202012Validator)' "$SCHEMA" out.json
    # the flame graph's stacks: slow_part's grows, in seconds per run
    jq -e '[.comparisons[0].profile_stacks[] | select(.stack | endswith("slow_part"))] |
           .[0].candidate_seconds > .[0].baseline_seconds' out.json
    # the timed runs: the plan of the same seed without profiles, no profile among them
    run "$VERDICT" -r 4 --seed 7 --store plain.db -n A -n B \
        "$TWO_PARTS 40000000 100" "$TWO_PARTS 40000000 140"
    [ "$status" -eq 0 ]
    order="SELECT group_concat(variant || '/' || block || '/' || seq, ' ') FROM
           (SELECT * FROM sample ORDER BY seq)"
    [ "$(sqlite3 plain.db "$order")" = "$(sqlite3 profiled.db "$order")" ]
    [ "$(sqlite3 profiled.db 'SELECT count(*) FROM sample WHERE block >= 0')" -eq 8 ]
    [ "$(sqlite3 profiled.db 'SELECT count(*) FROM profile')" -eq 8 ]
    [ "$(sqlite3 plain.db 'SELECT count(*) FROM profile')" -eq 0 ]
    # the report reads the profiles back, and the HTML report draws the flame graph
    run "$VERDICT" report profiled.db --html out.html
    [ "$status" -eq 0 ]
    [[ "$output" == *"profile (cpu-clock): of that, slow_part +"* ]]
    grep -q '<section class="flame">' out.html
    grep -q '<title>slow_part' out.html
    grep -q '<title>steady_part' out.html
}

# Would catch: the check moved after the first run (the marker would exist), another exit
# status, a message without the way out.
@test "no perf: refused before anything runs, with the apt-get line" {
    run env PATH=/nonexistent "$VERDICT" --profile -r 2 -N --prepare "/usr/bin/touch marker" \
        "$TWO_PARTS 1000 100" "$TWO_PARTS 1000 140"
    [ "$status" -eq 2 ]
    [[ "$output" == *"apt-get install linux-perf"* ]]
    [ ! -e marker ]
    run "$VERDICT" --profile-event context-switches -r 2 "$TWO_PARTS 1000 100" \
        "$TWO_PARTS 1000 140"
    [ "$status" -eq 2 ]
    [[ "$output" == *"profiles sample cpu-clock"* ]]
}

# Would catch: cycles sampled (or a run made) on a machine whose PMU is hidden.
@test "--profile-event cycles: refused before anything runs without a PMU" {
    "$VERDICT" env --seconds 0 --json env.json > /dev/null
    if jq -e '.counters[] | select(.name == "cycles:u") | .countable' env.json > /dev/null; then
        skip "this machine has a PMU"
    fi
    run "$VERDICT" --profile-event cycles -r 2 -N --prepare "/usr/bin/touch marker" \
        "$TWO_PARTS 1000 100" "$TWO_PARTS 1000 140"
    [ "$status" -eq 2 ]
    [[ "$output" == *"no hardware performance counters"* ]]
    [ ! -e marker ]
}

# Would catch: unresolved frames dropped, or shown without saying why.
@test "a binary without symbols: addresses shown, and said so" {
    command -v strip > /dev/null || skip "strip is not installed"
    needs_sampling
    cp "$TWO_PARTS" stripped
    strip stripped
    run "$VERDICT" --profile -r 2 -w 0 --json out.json -n A -n B "./stripped 10000000 100" \
        "./stripped 10000000 140"
    [ "$status" -eq 0 ]
    [[ "$output" == *"addresses shown: a binary without symbols"* ]]
    jq -e '[.comparisons[0].profile[] | select(.dso == "stripped") |
            .symbol | startswith("0x")] | all and length > 0' out.json
}

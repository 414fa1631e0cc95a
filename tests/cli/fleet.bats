#!/usr/bin/env bats
# A fleet on a real PostgreSQL store (VERDICT_TEST_PG, started by .ci/run): workers in
# separate processes (and network namespaces where allowed), killed and restarted; every
# sample kept exactly once; per-machine and pooled verdicts; the machines' survey.

load fleet

setup() {
    fleet_setup
}

teardown() {
    fleet_teardown
}

# B does 25% more work than A (spin: rounds of dependent arithmetic, about 0.3 s of CPU for
# A). Three workers share two vCPUs here, so the metric is cpu (user + sys), which the time
# slicing between them disturbs far less than wall time; the runs are long enough that a
# poll catches a worker mid-run. 12 blocks: with 8, one run stretched by the hypervisor
# (15% steal in a CI run) decided a machine's interval at 98.67% alone.
ROUNDS=100000000

survey_file() {
    cat > "$DATA/survey.yaml" <<EOF
name: survey
machines: survey
repetitions: 12
warmup: 0
seed: 5
variants:
  A: {command: ["$SPIN", "$ROUNDS"]}
  B: {command: ["$SPIN", "$((ROUNDS * 5 / 4))"]}
metrics: [cpu]
EOF
}

share_file() {
    cat > "$DATA/share.yaml" <<EOF
name: share
machines: share
repetitions: 20
warmup: 0
seed: 9
variants:
  A: {command: [sleep, "0.12"]}
  B: {command: [sleep, "0.12"]}
EOF
}

@test "survey: three workers, one SIGKILLed mid-run and restarted: 3 x the plan, none twice, 3 verdicts and a pooled one" {
    survey_file
    fleet_network 3
    ${WORKER_PREFIX[1]} "$VERDICT" run "$DATA/survey.yaml" --store "${WORKER_STORE[1]}" \
        --machine m1 > "$DATA/m1.log" 2>&1 &
    local m1=$!
    wait_for "SELECT count(*) FROM experiment"
    ${WORKER_PREFIX[2]} "$VERDICT" worker --trust-any-experiment --store "${WORKER_STORE[2]}" --machine m2 \
        > "$DATA/m2.log" 2>&1 &
    local m2=$!
    ${WORKER_PREFIX[3]} "$VERDICT" worker --trust-any-experiment --store "${WORKER_STORE[3]}" --machine m3 \
        > "$DATA/m3.log" 2>&1 &
    local m3=$!
    # SIGKILL m2 once some of its samples are committed, while it measures more
    wait_for "SELECT count(*) FROM sample WHERE machine = 'm2' HAVING count(*) >= 4" 120
    kill -9 "$m2"
    wait "$m2" || true
    local before
    before=$(sql "SELECT count(*) FROM sample WHERE machine = 'm2'")
    echo "# m2 killed after $before samples" >&3
    # samples are committed in batches that end with a block: whole blocks only, and what
    # was measured since the last commit is measured again by the restarted worker
    [ $((before % 2)) -eq 0 ]
    [ "$before" -lt 24 ]
    run ${WORKER_PREFIX[2]} "$VERDICT" worker --trust-any-experiment --store "${WORKER_STORE[2]}" --machine m2
    [ "$status" -eq 0 ]
    [[ "$output" == *"survey (machines: survey)"*"nothing left for this machine"* ]]
    wait "$m1"
    wait "$m3"
    [ "$(sql "SELECT count(*) FROM sample WHERE block >= 0")" -eq 72 ]
    for m in m1 m2 m3; do
        [ "$(sql "SELECT count(*) FROM sample WHERE machine = '$m'")" -eq 24 ]
    done
    [ "$(sql "SELECT count(*) FROM (SELECT 1 FROM sample GROUP BY point, variant, layout, machine, block HAVING count(*) > 1) twice")" -eq 0 ]
    run "$VERDICT" report "$STORE"
    echo "$output"
    [ "$status" -eq 0 ]
    for m in m1 m2 m3; do
        [[ "$output" == *"cpu · machine $m (lower is better)"* ]]
    done
    [[ "$output" == *"across machines"*"B vs A, cpu: +"*"over 3 machines"* ]]
    [[ "$output" == *"on a machine not in this fleet, expect +"* ]]
    run "$VERDICT" report "$STORE" --json "$DATA/fleet.json"
    [ "$status" -eq 0 ]
    [ "$(jq '[.samples[] | select(.machine != null)] | length' "$DATA/fleet.json")" -eq 72 ]
    # What noise may not deny. Three workers share two vCPUs, so one stretched run can leave
    # a machine undecided on its own (a CI run saw CV 19% on m1's A): each machine's verdict
    # is worse or inconclusive, never better (a sign error, or a machine's samples mixed
    # with another's, would say better); the pooled one is found over the three machines
    # with its prediction interval, never better, its estimate above 1; and the words say
    # what the machines' own verdicts say (the count of worse ones is the JSON's).
    [ "$(jq '[.comparisons[] | select(.machine != null)] | length' "$DATA/fleet.json")" -eq 3 ]
    jq -e '[.comparisons[] | select(.machine != null) | .verdict] | all(. == "worse" or . == "inconclusive")' "$DATA/fleet.json"
    [ "$(jq -r '.comparisons[] | select(.machine == null) | "\(.machines) \(.machines_better) \(.prediction_interval | length)"' "$DATA/fleet.json")" = "3 0 2" ]
    jq -e '.comparisons[] | select(.machine == null) | (.verdict == "worse" or .verdict == "inconclusive") and .estimate > 1' "$DATA/fleet.json"
    local worse
    worse=$(jq '[.comparisons[] | select(.machine != null and .verdict == "worse")] | length' "$DATA/fleet.json")
    [ "$(jq '.comparisons[] | select(.machine == null) | .machines_worse' "$DATA/fleet.json")" -eq "$worse" ]
    [ "$(grep -c '^   worse:' <<< "$output")" -eq "$worse" ]
    echo "# worse on $worse of 3 machines on their own" >&3
    case $worse in
    3) [[ "$output" == *"worse on every machine on its own"* ]] ;;
    0) [[ "$output" != *"on its own"* && "$output" != *"on their own"* ]] ;;
    *) [[ "$output" == *"worse on $worse of 3 machines ("*"), the others undecided on their own"* ]] ;;
    esac
}

@test "share: two workers, one SIGKILLed holding a block: every block taken exactly once, by one machine" {
    share_file
    fleet_network 2
    ${WORKER_PREFIX[1]} "$VERDICT" run "$DATA/share.yaml" --store "${WORKER_STORE[1]}" \
        --machine w1 --lease 2s > "$DATA/w1.log" 2>&1 &
    local w1=$!
    wait_for "SELECT count(*) FROM block"
    ${WORKER_PREFIX[2]} "$VERDICT" worker --trust-any-experiment --store "${WORKER_STORE[2]}" --machine w2 --lease 2s \
        > "$DATA/w2.log" 2>&1 &
    local w2=$!
    # killed while it holds a block, after it finished one of its own. It is stopped first
    # and the block it holds read while it cannot move: a sleep before the kill (to land
    # between its two runs) lost the race on a busy machine, where w2 had finished the
    # block and not yet claimed the next one. Stopped between two blocks, it goes on.
    local held="" try
    for try in $(seq 1 20); do
        wait_for "SELECT count(*) FROM block WHERE state = 'claimed' AND machine = 'w2' AND
                  (SELECT count(*) FROM block WHERE state = 'done' AND machine = 'w2') > 0" 60
        kill -STOP "$w2"
        held=$(sql "SELECT block FROM block WHERE state = 'claimed' AND machine = 'w2'")
        [ -n "$held" ] && break
        kill -CONT "$w2"
    done
    kill -9 "$w2"
    wait "$w2" || true
    [ -n "$held" ]
    echo "# w2 killed holding block $held (try $try)" >&3
    wait "$w1"
    run "$VERDICT" worker --trust-any-experiment --store "$STORE" --machine w2 --lease 2s
    [ "$status" -eq 0 ]
    [ "$(sql "SELECT count(*) FROM block WHERE state = 'done'")" -eq 20 ]
    [ "$(sql "SELECT count(*) FROM sample WHERE block >= 0")" -eq 40 ]
    # each block's two samples from one machine, committed together
    [ "$(sql "SELECT count(*) FROM (SELECT point, block FROM sample GROUP BY point, block HAVING count(*) = 2 AND count(DISTINCT machine) = 1) whole")" -eq 20 ]
    # the block held by the killed worker was retaken, and is the finisher's alone
    [ "$(sql "SELECT attempts FROM block WHERE block = $held")" -ge 2 ]
    [ "$(sql "SELECT count(DISTINCT machine) FROM sample WHERE block = $held")" -eq 1 ]
    [ "$(sql "SELECT count(DISTINCT machine) FROM sample")" -eq 2 ]
}

@test "share: a worker stopped with Ctrl-C gives its block back at once, and nothing of it is kept" {
    share_file
    "$VERDICT" run "$DATA/share.yaml" --store "$STORE" --machine w1 --lease 60s \
        > "$DATA/w1.log" 2>&1 &
    local w1=$!
    wait_for "SELECT count(*) FROM block WHERE state = 'done'" 60
    kill -INT "$w1"
    local rc=0
    wait "$w1" || rc=$?
    [ "$rc" -eq 130 ]
    [ "$(sql "SELECT count(*) FROM block WHERE state = 'claimed'")" -eq 0 ]
    local done
    done=$(sql "SELECT count(*) FROM block WHERE state = 'done'")
    [ "$(sql "SELECT count(*) FROM sample WHERE block >= 0")" -eq $((done * 2)) ]
    # with a 60 s lease, only a given-back block lets another worker finish at once
    run timeout 60 "$VERDICT" worker --trust-any-experiment --store "$STORE" --machine w2
    [ "$status" -eq 0 ]
    [ "$(sql "SELECT count(*) FROM block WHERE state = 'done'")" -eq 20 ]
}

@test "survey: a machine whose runs all fail is reported, not pooled; the HTML has a forest plot" {
    cat > "$DATA/failing.yaml" <<EOF
name: failing
machines: survey
repetitions: 6
warmup: 0
on_failure: record
variants:
  A: {command: [sh, -c, 'test -z "\$BROKEN_HERE" && sleep 0.04']}
  B: {command: [sh, -c, 'test -z "\$BROKEN_HERE" && sleep 0.05']}
EOF
    run "$VERDICT" run "$DATA/failing.yaml" --store "$STORE" --machine good-1
    [ "$status" -eq 0 ]
    run "$VERDICT" worker --trust-any-experiment --store "$STORE" --machine good-2
    [ "$status" -eq 0 ]
    run env BROKEN_HERE=1 "$VERDICT" worker --trust-any-experiment --store "$STORE" --machine broken
    [ "$status" -eq 0 ]
    run "$VERDICT" report "$STORE" --json "$DATA/f.json" --html "$DATA/f.html" \
        --markdown "$DATA/f.md" --csv "$DATA/f.csv" --svg "$DATA/svg"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *"[machine-failed] machine broken: all its 12 runs failed; it is reported, not pooled"* ]]
    [[ "$output" == *"B vs A, wall: +"*"over 2 machines"* ]]
    [ "$(jq -r '.comparisons[] | select(.machine == null) | .machines' "$DATA/f.json")" -eq 2 ]
    [ "$(jq '[.samples[] | select(.machine == "broken" and .exit != 0)] | length' "$DATA/f.json")" -eq 12 ]
    grep -q '^| default · good-1 | wall | A | B |' "$DATA/f.md"
    grep -q '^Across machines' "$DATA/f.md"
    grep -q '^| default | wall | A | B | 2 | +' "$DATA/f.md"
    [ "$(head -1 "$DATA/f.csv" | cut -d, -f4)" = machine ]
    [ "$(grep -c ',broken,' "$DATA/f.csv")" -eq 12 ]
    grep -q '<th>machine</th>' "$DATA/f.html"
    grep -q 'class="forest-diamond"' "$DATA"/svg/01-forest-default-wall.svg
    xmllint --noout "$DATA"/svg/01-forest-default-wall.svg
    grep -q 'class="forest-diamond"' "$DATA/f.html"
    [ "$(grep -o 'class="forest-row' "$DATA/f.html" | wc -l)" -eq 3 ]
    grep -q 'no successful runs' "$DATA/f.html"
    # the page with its forest plot loads in a real browser, offline
    run "$BATS_TEST_DIRNAME/../report/render_in_chromium.sh" "$DATA/f.html" "$DATA/f.png"
    [ "$status" -eq 0 ]
    cp "$DATA/f.png" "${FLEET_SCREENSHOT:-/dev/null}" 2>/dev/null || true
}

@test "machines that disagree are named in words: better on one, worse on another" {
    cat > "$DATA/split.yaml" <<'EOF'
name: split
machines: survey
repetitions: 8
warmup: 0
variants:
  A: {shell: true, command: 'sleep 0.1'}
  B: {shell: true, command: 'if [ -n "$SLOWER_HERE" ]; then sleep 0.15; else sleep 0.05; fi'}
EOF
    run "$VERDICT" run "$DATA/split.yaml" --store "$STORE" --machine quick
    [ "$status" -eq 0 ]
    run env SLOWER_HERE=1 "$VERDICT" worker --trust-any-experiment --store "$STORE" --machine sluggish
    [ "$status" -eq 0 ]
    run "$VERDICT" report "$STORE" --json "$DATA/split.json"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *"machines disagree: better on quick, worse on sluggish"* ]]
    [ "$(jq -r '.comparisons[] | select(.machine == null) | "\(.machines_better) \(.machines_worse) \(.verdict)"' "$DATA/split.json")" = "1 1 inconclusive" ]
}

@test "a fleet's experiment refuses a worker of another verdict build, naming both" {
    share_file
    run "$VERDICT" run "$DATA/share.yaml" --store "$STORE" --machine w1
    [ "$status" -eq 0 ]
    cp "$VERDICT" "$DATA/verdict-other"
    printf 'another build' >> "$DATA/verdict-other"
    run "$DATA/verdict-other" worker --trust-any-experiment --store "$STORE" --machine w2
    [ "$status" -eq 2 ]
    [[ "$output" == *"experiment share was registered by verdict"*"(build "*"this is verdict"*"every machine of a fleet must run the same verdict"* ]]
}

@test "verdict env --store records a machine without running anything; report --machines tabulates it" {
    run "$VERDICT" env --seconds 0 --store "$STORE" --machine box-1
    [ "$status" -eq 0 ]
    [[ "$output" == *"recorded machine box-1"* ]]
    run "$VERDICT" env --seconds 0 --store "$STORE" --machine box-2
    [ "$status" -eq 0 ]
    run "$VERDICT" report "$STORE" --machines
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *box-1* && "$output" == *box-2* ]]
    [[ "$output" == *"crc32c: "*"on 2 machines"* ]]
    run "$VERDICT" report "$STORE" --machines --json "$DATA/machines.json"
    [ "$status" -eq 0 ]
    [ "$(jq '.machines | length' "$DATA/machines.json")" -eq 2 ]
    [ "$(jq -r '.machines[0].facts.crc32c' "$DATA/machines.json")" != null ]
    # a name another machine holds (other identity facts) is refused, naming both
    sql "UPDATE machine_fact SET value = 'elsewhere' WHERE machine = 'box-1' AND key = 'hostname';
         UPDATE machine_fact SET value = '0123456789abcdef' WHERE machine = 'box-1' AND key = 'machine_id'"
    run "$VERDICT" env --seconds 0 --store "$STORE" --machine box-1
    [ "$status" -eq 2 ]
    [[ "$output" == *"machine box-1 is already in the store as another machine"*"hostname elsewhere"*"give this one --machine NAME"* ]]
    run "$VERDICT" env --seconds 0 --store "$STORE" --machine 'bad name'
    [ "$status" -eq 2 ]
    [[ "$output" == *"--machine 'bad name'"* ]]
}

@test "report --list and --experiment choose among the store's experiments" {
    share_file
    survey_file
    sed -i 's/^repetitions: 20/repetitions: 3/' "$DATA/share.yaml"
    sed -i 's/^repetitions: 12/repetitions: 3/' "$DATA/survey.yaml"
    run "$VERDICT" run "$DATA/share.yaml" --store "$STORE" --machine w1
    [ "$status" -eq 0 ]
    run "$VERDICT" run "$DATA/survey.yaml" --store "$STORE" --machine w1
    [ "$status" -eq 0 ]
    run "$VERDICT" report "$STORE" --list
    [ "$status" -eq 0 ]
    [[ "${lines[0]}" == share* && "${lines[1]}" == survey* ]]
    run "$VERDICT" report "$STORE" --experiment share --json "$DATA/share.json"
    [ "$status" -eq 0 ]
    [ "$(jq -r '.experiment.name' "$DATA/share.json")" = share ]
    run "$VERDICT" report "$STORE" --experiment nope
    [ "$status" -eq 2 ]
    [[ "$output" == *'no experiment "nope"'*share*survey* ]]
}

@test "machines: share refuses adaptive looks, naming the key" {
    cat > "$DATA/bad.yaml" <<EOF
machines: share
variants:
  A: {command: ["true"]}
  B: {command: ["true"]}
EOF
    run "$VERDICT" run "$DATA/bad.yaml" --store "$STORE"
    [ "$status" -eq 2 ]
    [[ "$output" == *"bad.yaml:1:"*"'machines: share' needs a fixed 'repetitions'"* ]]
    share_file
    run "$VERDICT" run "$DATA/share.yaml" --dry-run
    [ "$status" -eq 0 ]
    [[ "$output" == *"20 blocks of 2 runs (machines: share: split among machines)"* ]]
}

@test "the fleet examples run: survey on two machines, then report" {
    run "$VERDICT" run "$EXAMPLES/fleet/survey.yaml" --dry-run
    [ "$status" -eq 0 ]
    [[ "$output" == *"(machines: survey: on every machine)"* ]]
    run "$VERDICT" run "$EXAMPLES/fleet/share.yaml" --dry-run
    [ "$status" -eq 0 ]
    sed 's/^repetitions: 10/repetitions: 6/' "$EXAMPLES/fleet/survey.yaml" > "$DATA/survey.yaml"
    run "$VERDICT" run "$DATA/survey.yaml" --store "$STORE" --machine one
    [ "$status" -eq 0 ]
    run "$VERDICT" worker --trust-any-experiment --store "$STORE" --machine two --dir "$DATA"
    [ "$status" -eq 0 ]
    run "$VERDICT" report "$STORE" --json "$DATA/awk.json"
    [ "$status" -eq 0 ]
    # 25% more loop rounds: pooled over the two machines, never called better
    [[ "$output" == *"B vs A, wall: "*"over 2 machines"* ]]
    jq -e '.comparisons[] | select(.machine == null) | .machines == 2 and .verdict != "better"' "$DATA/awk.json"
}

@test "builds by content: each machine builds the source itself, under the same content key" {
    mkdir -p "$DATA/repo"
    printf 'int main(void) { volatile long x = 0; for (long i = 0; i < ROUNDS; i++) x += i; return 0; }\n' > "$DATA/repo/work.c"
    printf 'work: work.c\n\tcc -O1 -DROUNDS=$(ROUNDS) -o work work.c\n' > "$DATA/repo/Makefile"
    git -C "$DATA/repo" init -q
    git -C "$DATA/repo" add .
    git -C "$DATA/repo" -c user.name=v -c user.email=v@example.org commit -qm one
    cat > "$DATA/built.yaml" <<EOF
name: built
machines: survey
repetitions: 5
warmup: 0
variants:
  small: {source: {git: repo, ref: HEAD}, build: "make ROUNDS=2000000", command: ["{tree}/work"]}
  large: {source: {git: repo, ref: HEAD}, build: "make ROUNDS=2500000", command: ["{tree}/work"]}
metrics: [cpu]
EOF
    run "$VERDICT" run "$DATA/built.yaml" --store "$STORE" --machine one --cache "$DATA/cache-one"
    [ "$status" -eq 0 ]
    # another machine: its own cache, the experiment's files found under --dir
    cd "$BATS_TEST_TMPDIR"
    run "$VERDICT" worker --trust-any-experiment --store "$STORE" --machine two --cache "$DATA/cache-two" --dir "$DATA"
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$(sql "SELECT count(*) FROM sample WHERE block >= 0")" -eq 20 ]
    # each machine made both builds in its own cache, and ran the same content keys
    [ "$(ls "$DATA/cache-one" | wc -l)" -ge 1 ]
    [ "$(ls "$DATA/cache-two" | wc -l)" -ge 1 ]
    # builds lines: variant, layout, key, sha256, binary (the binary is in each one's cache)
    sql "SELECT value FROM run_fact WHERE key = 'builds'" > "$DATA/builds"
    [ "$(grep -c . "$DATA/builds")" -eq 4 ]
    [ "$(grep . "$DATA/builds" | cut -f1,3 | sort -u | wc -l)" -eq 2 ]
    [ "$(grep -c "$DATA/cache-two" "$DATA/builds")" -eq 2 ]
    run "$VERDICT" report "$STORE" --dir "$DATA" --json "$DATA/built.json"
    echo "$output"
    [ "$status" -eq 0 ]
    # a few ms of work each, 5 blocks: pooled over both machines, 25% more never better
    [[ "$output" == *"large vs small, cpu: "*"over 2 machines"* ]]
    jq -e '.comparisons[] | select(.machine == null) | .machines == 2 and .verdict != "better"' "$DATA/built.json"
}

@test "a worker runs the variants' in-place build lines too, in its --dir, logging there" {
    cat > "$DATA/inplace.yaml" <<'EOF'
name: inplace
machines: survey
repetitions: 3
warmup: 0
variants:
  A: {build: "echo A >> built.txt", command: [test, -f, built.txt]}
  B: {build: "echo B >> built.txt", command: [test, -f, built.txt]}
EOF
    run "$VERDICT" run "$DATA/inplace.yaml" --store "$STORE" --machine one
    [ "$status" -eq 0 ]
    mkdir "$DATA/two"
    run "$VERDICT" worker --trust-any-experiment --store "$STORE" --machine two --dir "$DATA/two"
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$(sort "$DATA/two/built.txt" | tr -d '\n')" = AB ]
    ls "$DATA/two"/inplace.build-* >/dev/null
    [ "$(sql "SELECT count(*) FROM sample WHERE machine = 'two' AND exit_code = 0")" -eq 6 ]
}

@test "the store's server gone: a worker retries, then says so clearly" {
    run env VERDICT_STORE_RETRY_SECONDS=1 "$VERDICT" worker --trust-any-experiment --store "postgresql://root:secret@127.0.0.1:1/none?verdict_schema=$SCHEMA"
    [ "$status" -eq 1 ]
    [[ "$output" == *"127.0.0.1:1"* ]]
    [[ "$output" != *secret* ]]
}

# The server user's programs (psql, createdb) start in the current directory: run from a
# clone the postgres user cannot enter, the script that starts the test server printed
# "could not change directory to ...: Permission denied" for each (it now runs from /).
@test "scripts/start-test-postgres.sh says nothing on stderr from a directory the server user cannot enter" {
    [ "$(id -u)" -eq 0 ] && [ -d /etc/postgresql/15/main ] && id postgres >/dev/null 2>&1 ||
        skip "needs root and Debian's cluster 15/main"
    local closed="$DATA/closed"
    mkdir -m 700 "$closed"
    ! runuser -u postgres -- test -x "$closed"
    (cd "$closed" && sh "$BATS_TEST_DIRNAME/../../scripts/start-test-postgres.sh" \
        > "$DATA/uri" 2> "$DATA/stderr")
    cat "$DATA/stderr"
    [ ! -s "$DATA/stderr" ]
    [ "$(cat "$DATA/uri")" = "postgresql:///verdict_test?host=/var/run/postgresql" ]
}

#!/usr/bin/env bats
# Real PostgreSQL servers through `verdict run` (target: postgres): the issue's example
# shape with a B that is surely slower is never called better and is found worse;
# identical variants are neither better nor worse; Ctrl-C leaves no server behind; pin
# policies hold for the live processes; warm runs happen. Skipped without PostgreSQL 15.

# A cache of templates for this run of the file alone: servers_of below must see only
# this run's servers, whatever else runs verdict on the machine (another suite, a user).
setup_file() {
    export PG_TEST_CACHE=${PG_CACHE:-/var/tmp/verdict-pg-tests-$$-$(date +%s%N)}
}

teardown_file() {
    [ -z "${PG_CACHE:-}" ] && rm -rf "$PG_TEST_CACHE"
    true
}

setup() {
    VERDICT=${VERDICT:?set VERDICT to the verdict binary}
    BINDIR=${PG_BINDIR:-/usr/lib/postgresql/15/bin}
    [ -x "$BINDIR/postgres" ] || skip "no PostgreSQL at $BINDIR"
    DATA=$(mktemp -d)
    CACHE=$PG_TEST_CACHE
}

# After a skip in setup there is no DATA, and a teardown that fails fails the skipped test.
teardown() {
    if [ -n "${DATA:-}" ]; then rm -rf "$DATA"; fi
}

experiment() { # name, B's settings line
    cat > "$DATA/$1.yaml" <<YAML
name: $1
seed: 5
repetitions: ${REPS:-6}
target: postgres
postgres:
  scale: 10
  settings: { shared_buffers: 256MB, fsync: "off" }
  cache_dir: $CACHE
parameters:
  clients: [2, 4]
variants:
  A: { bindir: $BINDIR }
  B: { bindir: $BINDIR$2 }
workload:
  pgbench: ["-S", "-M", "prepared", "-c", "{clients}", "-j", "{clients}", "-T", "${SECONDS_PER_RUN:-3}"]
metrics: [tps]
YAML
}

servers_of() {
    pgrep -f "postgres -D $CACHE/instances" || true
}

# The issue's example makes B's shared_buffers 128kB. On this project's VMs, with the
# 160 MB of scale 10 in the OS cache, that B is *faster* for -S: +86-118% with cold
# servers, +9-22% with warm_runs: 1 (docs/postgres.md, "Cold and warm servers"). So the
# test handicaps B with something whose direction is not in doubt: every statement
# logged with its resource usage.
@test "a server that logs every statement is slower at both client counts, never called better, found worse" {
    REPS=8 experiment small ', settings: { log_min_duration_statement: 0, log_statement_stats: "on" }'
    run "$VERDICT" run "$DATA/small.yaml" --store "$DATA/small.db" --json "$DATA/small.json"
    echo "$output"
    [ "$status" -eq 0 ]
    jq -e '(.comparisons | length) == 2' "$DATA/small.json"
    echo "# $(jq -r '[.comparisons[] | "\(.verdict) \(.estimate)"] | join(", ")' "$DATA/small.json")" >&3
    # What noise may not deny: 8 blocks on a busy machine can leave one client count
    # undecided, so neither is called better (a metric read the wrong way round would say
    # so), both estimates are below 1 and one at least is called worse (B's settings not
    # applied would make them about 1).
    jq -e '[.comparisons[].verdict] | all(. == "worse" or . == "inconclusive") and any(. == "worse")' "$DATA/small.json"
    jq -e '[.comparisons[].estimate] | all(. < 1)' "$DATA/small.json"
    jq -e '.comparisons[0].metric == "tps" and .comparisons[0].better == "higher"' "$DATA/small.json"
    jq -e '.environment["pg.B.settings"] | contains("log_statement_stats=on")' "$DATA/small.json"
    [ -z "$(servers_of)" ]
}

# At 95% an A/A family of two comparisons is called different up to 5% of the time by
# design, which made this test fail about once in twenty runs. At 99% (99.5% per
# comparison after Holm) that is at most 1%; 10 blocks are needed to reach that level,
# so the test can still fail when identical servers are told apart.
@test "identical variants are called neither better nor worse" {
    REPS=10 experiment same ""
    run "$VERDICT" run "$DATA/same.yaml" --store "$DATA/same.db" --json "$DATA/same.json" \
        --confidence 0.99
    [ "$status" -eq 0 ]
    jq -e '[.comparisons[].achieved_confidence] | all(. >= 0.99)' "$DATA/same.json"
    jq -e '[.comparisons[].verdict | select(. == "better" or . == "worse")] | length == 0' "$DATA/same.json"
}

@test "SIGINT during a run leaves no server behind; the samples are kept" {
    REPS=50 SECONDS_PER_RUN=2 experiment interrupted ""
    "$VERDICT" run "$DATA/interrupted.yaml" --store "$DATA/int.db" > "$DATA/int.out" 2>&1 &
    pid=$!
    # Interrupt once a sample is stored (templates, copies and warm-up runs take a while,
    # longer under sanitizers): by then servers have been started and stopped, and one
    # may be running.
    for _ in $(seq 1 600); do
        [ "$(sqlite3 "$DATA/int.db" 'select count(*) from sample' 2>/dev/null || echo 0)" -ge 1 ] && break
        sleep 0.2
    done
    sleep "0.$((RANDOM % 9 + 1))"
    kill -INT "$pid"
    wait "$pid" || status=$?
    [ "${status:-0}" -eq 130 ]
    sleep 1
    [ -z "$(servers_of)" ]
    [ "$(sqlite3 "$DATA/int.db" 'select count(*) from sample')" -ge 1 ]
}

# The recorded placement is checked against the processes themselves: a custom script
# makes pgbench write, from inside each transaction, the CPUs its processes and the
# server backend serving it may run on (/proc/PID/status, read by a shell pgbench starts;
# the shell inherits pgbench's affinity).
@test "pin policies place the live client and server and are recorded" {
    [ "$(nproc)" -ge 2 ] || skip "split needs two CPUs"
    # pgbench substitutes :variables only as whole \shell arguments, hence the script.
    cat > "$DATA/affinity.sh" <<'SH'
echo "$(grep Cpus_allowed_list /proc/$$/status | cut -f2) $(grep Cpus_allowed_list /proc/$1/status | cut -f2)" >> "$AFFINITY_LOG"
SH
    cat > "$DATA/affinity.sql" <<SQL
SELECT pg_backend_pid() AS backend \\gset
\\shell sh $DATA/affinity.sh :backend
SQL
    for policy in none same split; do
        REPS=2 experiment "pin-$policy" ""
        sed -i -e "s/^  cache_dir:/  pin: $policy\n  cache_dir:/" \
            -e "s|^  pgbench: .*|  pgbench: [\"-n\", \"-f\", \"$DATA/affinity.sql\", \"-c\", \"1\", \"-t\", \"3\"]|" \
            "$DATA/pin-$policy.yaml"
        export AFFINITY_LOG="$DATA/affinity-$policy.log"
        run "$VERDICT" run "$DATA/pin-$policy.yaml" --store "$DATA/pin-$policy.db" --json "$DATA/pin-$policy.json"
        echo "$output"
        [ "$status" -eq 0 ]
        jq -e --arg p "$policy" '.environment["pg.pin"] == $p' "$DATA/pin-$policy.json"
        client=$(jq -r '.environment["pg.client_cpus"]' "$DATA/pin-$policy.json")
        server=$(jq -r '.environment["pg.server_cpus"]' "$DATA/pin-$policy.json")
        # 2 points x 2 variants x (2 runs + 1 warm-up) x 3 transactions, one line each
        [ "$(wc -l < "$AFFINITY_LOG")" -eq 36 ]
        live=$(sort -u "$AFFINITY_LOG")
        echo "policy $policy: recorded client $client server $server; live (client server): $live"
        [ "$(echo "$live" | wc -l)" -eq 1 ]
        if [ "$policy" = none ]; then
            [ "$client" = any ] && [ "$server" = any ]
            [ "$live" = "$(grep Cpus_allowed_list /proc/self/status | cut -f2) $(grep Cpus_allowed_list /proc/self/status | cut -f2)" ]
        else
            [ "$live" = "$client $server" ]
            if [ "$policy" = same ]; then [ "$client" = "$server" ]; else [ "$client" != "$server" ]; fi
        fi
    done
}

# warm_runs: the workload runs unmeasured on every newly started server before its
# measured run. Counted from inside: each transaction of the custom script adds a line.
@test "warm_runs run the workload unmeasured on each fresh server first" {
    cat > "$DATA/count.sql" <<SQL
SELECT 1;
\\shell sh -c "echo x >> $DATA/transactions.log"
SQL
    REPS=2 experiment warm ""
    sed -i -e "s/^  cache_dir:/  warm_runs: 2\n  cache_dir:/" -e "s/^repetitions:/warmup: 0\nrepetitions:/" \
        -e "s|^  pgbench: .*|  pgbench: [\"-n\", \"-f\", \"$DATA/count.sql\", \"-c\", \"1\", \"-t\", \"3\"]|" \
        -e "s/^metrics: .*/metrics: [tps, p50]/" "$DATA/warm.yaml"
    run "$VERDICT" run "$DATA/warm.yaml" --store "$DATA/warm.db" --json "$DATA/warm.json"
    echo "$output"
    [ "$status" -eq 0 ]
    # 2 points x 2 variants x 2 runs, each on a fresh server: (2 warm + 1 measured) x 3
    [ "$(wc -l < "$DATA/transactions.log")" -eq 72 ]
    [ "$(sqlite3 "$DATA/warm.db" "select count(*) from sample")" -eq 8 ]
    # warm runs write no --log: every measured run still has its own latency percentiles
    jq -e '[.summaries[] | select(.metric == "p50") | .n] == [2, 2, 2, 2]' "$DATA/warm.json"
    [ -z "$(servers_of)" ]
}

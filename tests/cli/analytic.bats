#!/usr/bin/env bats
# The analytic workload (examples/postgres/analytic) on the installed PostgreSQL 15: its
# SQL data generator and seven queries work at a tiny scale and an A/A of them is not
# called better or worse; a query or an init script that fails, and workload files that
# cannot work, are refused with a message naming the file, with nothing measured.

setup_file() {
    export PG_TEST_CACHE=${PG_CACHE:-/var/tmp/verdict-pg-analytic-$$-$(date +%s%N)}
}

teardown_file() {
    [ -z "${PG_CACHE:-}" ] && rm -rf "$PG_TEST_CACHE"
    true
}

setup() {
    VERDICT=${VERDICT:?set VERDICT to the verdict binary}
    EXAMPLES=${EXAMPLES:?set EXAMPLES to the examples directory}
    BINDIR=${PG_BINDIR:-/usr/lib/postgresql/15/bin}
    # CI installs PostgreSQL 15 (scripts/setup.sh --tests): there its absence is a failure.
    if [ ! -x "$BINDIR/postgres" ]; then
        [ -n "${VERDICT_CI:-}" ] && { echo "no PostgreSQL at $BINDIR in CI" >&2; return 1; }
        skip "no PostgreSQL at $BINDIR"
    fi
    DATA=$(mktemp -d)
    CACHE=$PG_TEST_CACHE
    cp -r "$EXAMPLES/postgres/analytic" "$DATA/analytic"
}

# After a skip in setup there is no DATA, and a teardown that fails fails the skipped test.
teardown() {
    if [ -n "${DATA:-}" ]; then rm -rf "$DATA"; fi
}

# The example's A/A file, with this run's private template cache.
aa_file() {
    sed "s|^postgres:|postgres:\n  cache_dir: $CACHE|" "$DATA/analytic/aa.yaml" > "$DATA/analytic/$1"
}

# A table of :rows keys (init SQL, rows given by init_variables) and a pgbench script of
# lookups in its first $1 keys.
kv_workload() {
    printf 'CREATE TABLE kv (k int PRIMARY KEY, v text);\nINSERT INTO kv SELECT i, md5(i::text) FROM generate_series(1, :rows) AS i;\nANALYZE kv;\n' \
        > "$DATA/kv.sql"
    printf '\\set k random(1, %s)\nSELECT v FROM kv WHERE k = :k;\n' "$1" > "$DATA/lookup.sql"
}

# Runs $DATA/$1.yaml: exit 0, and each of its 4 runs succeeded with tps above $2.
four_runs_above() {
    run "$VERDICT" run "$DATA/$1.yaml" --store "$DATA/$1.db" --json "$DATA/$1.json"
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$(jq --argjson min "$2" '[.samples[] | select(.exit == 0 and .metrics.tps > $min)] | length' \
          "$DATA/$1.json")" -eq 4 ]
}

@test "the analytic workload's A/A at a tiny scale: every query measured, none called better or worse" {
    aa_file aa-test.yaml
    # As in postgres.bats: at 95% an A/A family is called different up to 5% of the time by
    # design, and two servers of one build can differ a little for the whole run (a clean
    # CI run saw B 6-14% faster on every query, two of eight called at adjusted p 0.039).
    # At 99% that is at most 1%; 12 blocks still reach 99.9% per comparison.
    run "$VERDICT" run "$DATA/analytic/aa-test.yaml" --store "$DATA/aa.db" --json "$DATA/aa.json" \
        --confidence 0.99
    echo "$output"
    [ "$status" -eq 0 ]
    # each query and the geometric mean, 12 paired blocks each
    [ "$(jq -r '[.comparisons[].metric] | join(",")' "$DATA/aa.json")" = \
      "q1,q3,q5,q6,q10,q12,q14,geomean" ]
    [ "$(jq '[.comparisons[] | select(.n == [12, 12])] | length' "$DATA/aa.json")" -eq 8 ]
    [ "$(jq '[.comparisons[] | select(.verdict == "better" or .verdict == "worse")] | length' \
          "$DATA/aa.json")" -eq 0 ]
    # the latencies are the queries' own: positive, and each below the run's wall time
    [ "$(jq '[.samples[] | select(.metrics.q1 > 0 and .metrics.q1 < .metrics.wall * 1000 and
                                  .metrics.geomean > 0)] | length' "$DATA/aa.json")" -eq 24 ]
    # the init SQL is the data: no pgbench tables
    [ "$(jq -r '.environment["pg.scale"]' "$DATA/aa.json")" = 0 ]
}

@test "a query that fails is named with the server's message, and nothing is measured" {
    aa_file broken.yaml
    printf 'SELECT l_no_such_column FROM lineitem;\n' > "$DATA/analytic/q_broken.sql"
    sed -i 's/queries: \[q1.sql,/queries: [q1.sql, q_broken.sql,/' "$DATA/analytic/broken.yaml"
    run "$VERDICT" run "$DATA/analytic/broken.yaml" --store "$DATA/broken.db"
    echo "$output"
    [ "$status" -ne 0 ]
    [[ "$output" == *"query q_broken ($DATA/analytic/q_broken.sql) failed"* ]]
    [[ "$output" == *'column "l_no_such_column" does not exist'* ]]
    [ "$(sqlite3 "$DATA/broken.db" 'SELECT count(*) FROM sample WHERE exit_code = 0')" -eq 0 ]
}

@test "an init script that fails names itself and psql's line, before any server is measured" {
    aa_file badinit.yaml
    printf 'CREATE TABLE t (a int);\nINSERT INTO t VALUES (1/0);\n' > "$DATA/analytic/bad.sql"
    sed -i 's/init: generate.sql/init: bad.sql/' "$DATA/analytic/badinit.yaml"
    run "$VERDICT" run "$DATA/analytic/badinit.yaml" --store "$DATA/badinit.db"
    echo "$output"
    [ "$status" -ne 0 ]
    [[ "$output" == *"init SQL $DATA/analytic/bad.sql"* ]]
    [[ "$output" == *"<stdin>:2: ERROR:  division by zero"* ]]
    [ "$(sqlite3 "$DATA/badinit.db" 'SELECT count(*) FROM sample' 2>/dev/null || echo 0)" -eq 0 ]
}

@test "workload files that cannot work are refused at their line" {
    aa_file bad.yaml
    f=$DATA/analytic/bad.yaml
    cp "$f" "$DATA/analytic/both.yaml"
    printf '  pgbench: ["-S"]\n' >> "$DATA/analytic/both.yaml"
    run "$VERDICT" run "$DATA/analytic/both.yaml"
    [ "$status" -eq 2 ]
    [[ "$output" == *"give 'pgbench' or 'queries', not both"* ]]

    sed 's/queries: \[q1.sql,/queries: [q1.sql, "no such.sql",/' "$f" > "$DATA/analytic/missing.yaml"
    run "$VERDICT" run "$DATA/analytic/missing.yaml"
    [ "$status" -eq 2 ]
    [[ "$output" == *"missing.yaml:"*"no such.sql"* ]]

    printf 'SELECT 1;\n' > "$DATA/analytic/1bad-name.sql"
    sed 's/queries: \[q1.sql,/queries: [q1.sql, 1bad-name.sql,/' "$f" > "$DATA/analytic/name.yaml"
    run "$VERDICT" run "$DATA/analytic/name.yaml"
    [ "$status" -eq 2 ]
    [[ "$output" == *"name.yaml:"*"its name (without .sql) is the query's metric"* ]]

    printf -- '-- nothing\n;\n' > "$DATA/analytic/empty.sql"
    sed 's/queries: \[q1.sql,/queries: [q1.sql, empty.sql,/' "$f" > "$DATA/analytic/empty.yaml"
    run "$VERDICT" run "$DATA/analytic/empty.yaml"
    [ "$status" -eq 2 ]
    [[ "$output" == *"empty.sql"* ]]

    cp "$f" "$DATA/analytic/tps.yaml"
    printf 'metrics: [tps]\n' >> "$DATA/analytic/tps.yaml"
    run "$VERDICT" run "$DATA/analytic/tps.yaml"
    [ "$status" -eq 2 ]
    [[ "$output" == *"metric 'tps': with workload 'queries'"* ]]

    sed 's/init: generate.sql/init: nowhere.sql/' "$f" > "$DATA/analytic/noinit.yaml"
    run "$VERDICT" run "$DATA/analytic/noinit.yaml"
    [ "$status" -eq 2 ]
    [[ "$output" == *"noinit.yaml:"*"nowhere.sql"* ]]
}

@test "init data with a pgbench script of one's own: pgbench -f runs against the loaded table" {
    kv_workload 5000
    cat > "$DATA/own.yaml" <<YAML
name: own-script
seed: 3
repetitions: 2
target: postgres
postgres:
  init: kv.sql
  init_variables: { rows: 5000 }
  settings: { fsync: "off" }
  cache_dir: $CACHE
variants:
  A: { bindir: $BINDIR }
  B: { bindir: $BINDIR }
workload:
  pgbench: ["-n", "-f", "lookup.sql", "-T", "1"]
metrics: [tps]
YAML
    # every run found its rows: no failed transaction, hundreds per second at least
    four_runs_above own 100
}

@test "a query past the run's timeout is cancelled and the run fails, naming the query" {
    aa_file slow.yaml
    printf 'SELECT pg_sleep(30);\n' > "$DATA/analytic/q_slow.sql"
    sed -i 's/queries: \[q1.sql,.*$/queries: [q_slow.sql]/; s/^repetitions: 12/repetitions: 2\ntimeout: 1s/; s/^  warm_runs: 1//' \
        "$DATA/analytic/slow.yaml"
    start=$(date +%s)
    run "$VERDICT" run "$DATA/analytic/slow.yaml" --store "$DATA/slow.db"
    echo "$output"
    [ "$status" -eq 3 ]
    [[ "$output" == *"query q_slow ($DATA/analytic/q_slow.sql) was cancelled"* ]]
    [ $(( $(date +%s) - start )) -lt 25 ]
}

@test "Ctrl-C during a query cancels it: exit 130 at once, no server left behind" {
    aa_file sigint.yaml
    printf 'SELECT pg_sleep(60);\n' > "$DATA/analytic/q_long.sql"
    sed -i 's/queries: \[q1.sql,.*$/queries: [q_long.sql]/; s/^  warm_runs: 1//' \
        "$DATA/analytic/sigint.yaml"
    "$VERDICT" run "$DATA/analytic/sigint.yaml" --store "$DATA/sigint.db" > "$DATA/out" 2>&1 &
    pid=$!
    # wait until the query runs on a server of this run's cache
    for _ in $(seq 1 120); do
        pgrep -f "postgres -D $CACHE/instances" >/dev/null && break
        sleep 0.5
    done
    sleep 3
    kill -INT "$pid"
    start=$(date +%s)
    wait "$pid" && rc=0 || rc=$?
    cat "$DATA/out"
    [ "$rc" -eq 130 ]
    [ $(( $(date +%s) - start )) -lt 15 ]
    ! pgrep -f "postgres -D $CACHE/instances"
}

@test "a workload line takes several words from one parameter; a refused word is caught at load" {
    kv_workload 1000
    cat > "$DATA/line.yaml" <<YAML
name: line
seed: 4
repetitions: 1
target: postgres
postgres: { init: kv.sql, init_variables: { rows: 1000 }, settings: { fsync: "off" },
            cache_dir: $CACHE }
parameters:
  mode: ["-n -f lookup.sql", "-n -M prepared -f lookup.sql -c 2 -j 2"]
variants:
  A: { bindir: $BINDIR }
  B: { bindir: $BINDIR }
workload:
  pgbench: "{mode} -T 1"
metrics: [tps]
YAML
    four_runs_above line 0

    sed 's/"-n -M prepared -f lookup.sql -c 2 -j 2"/"-n -f lookup.sql -h elsewhere"/' \
        "$DATA/line.yaml" > "$DATA/refused.yaml"
    run "$VERDICT" run "$DATA/refused.yaml" --store "$DATA/refused.db"
    echo "$output"
    [ "$status" -eq 2 ]
    [[ "$output" == *"refused.yaml:"*"pgbench word 4 '-h': connection options"* ]]
}

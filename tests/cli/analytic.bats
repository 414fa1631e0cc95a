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

teardown() {
    [ -n "${DATA:-}" ] && rm -rf "$DATA"
}

# The example's A/A file, with this run's private template cache.
aa_file() {
    sed "s|^postgres:|postgres:\n  cache_dir: $CACHE|" "$DATA/analytic/aa.yaml" > "$DATA/analytic/$1"
}

@test "the analytic workload's A/A at a tiny scale: every query measured, none called better or worse" {
    aa_file aa-test.yaml
    run "$VERDICT" run "$DATA/analytic/aa-test.yaml" --store "$DATA/aa.db" --json "$DATA/aa.json"
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
    printf 'CREATE TABLE kv (k int PRIMARY KEY, v text);\nINSERT INTO kv SELECT i, md5(i::text) FROM generate_series(1, :rows) AS i;\nANALYZE kv;\n' \
        > "$DATA/kv.sql"
    printf '\\set k random(1, 5000)\nSELECT v FROM kv WHERE k = :k;\n' > "$DATA/lookup.sql"
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
    run "$VERDICT" run "$DATA/own.yaml" --store "$DATA/own.db" --json "$DATA/own.json"
    echo "$output"
    [ "$status" -eq 0 ]
    # every run found its rows: no failed transaction, thousands per second
    [ "$(jq '[.samples[] | select(.exit == 0 and .metrics.tps > 100)] | length' "$DATA/own.json")" -eq 4 ]
}

#!/usr/bin/env bats
# Issue 31, item 4, too slow for CI (each machine makes its templates: 51 s on the 2-vCPU VM
# under load 20): a worker as a dedicated non-root user runs a signed PostgreSQL experiment,
# its servers its own. Run by hand, as root, with the test server up:
#   VERDICT=build/verdict SPIN=build/examples/spin bats bench/fleet/nonroot_pg_worker.bats

load ../../tests/cli/fleet
load ../../tests/cli/fleet_trust_helpers

@test "a worker needs no root: a dedicated user runs a signed PostgreSQL experiment, its servers its own" {
    [ "$(id -u)" -eq 0 ] || skip "making the worker's user needs root"
    BINDIR=${PG_BINDIR:-/usr/lib/postgresql/15/bin}
    [ -x "$BINDIR/postgres" ] || skip "no PostgreSQL at $BINDIR"
    worker_user
    # a server without pgbench's tables (no scale: each template is one initdb), files that
    # both machines read where the experiment names them
    echo "CREATE TABLE t (x integer);" > "$WORKER_HOME/init.sql"
    echo "SELECT 1;" > "$WORKER_HOME/query.sql"
    chmod 644 "$WORKER_HOME"/*.sql
    cat > "$DATA/pg.yaml" <<EOF
name: pg-fleet
machines: survey
repetitions: 1
warmup: 0
target: postgres
postgres:
  init: $WORKER_HOME/init.sql
  settings: { fsync: "off" }
variants:
  A: { bindir: $BINDIR }
  B: { bindir: $BINDIR }
workload:
  pgbench: ["-n", "-t", "20", "-f", "$WORKER_HOME/query.sql"]
metrics: [tps]
EOF
    run "$VERDICT" run "$DATA/pg.yaml" --store "$STORE" --machine owner --sign "$DATA/owner"
    [ "$status" -eq 0 ]
    run_user_worker
    [ "$status" -eq 0 ]
    [[ "$output" == *"pg-fleet (machines: survey): 2 samples taken here"* ]]
    [ "$(samples_of pg-fleet "$WORKER_USER")" -eq 2 ]
    # its servers were its own: in its own cache, owned by it, and none left running
    [ "$(stat -c %U "$WORKER_HOME/.cache/verdict-pg")" = "$WORKER_USER" ]
    [ -z "$(find "$WORKER_HOME/.cache/verdict-pg" ! -user "$WORKER_USER" -print -quit)" ]
    [ -z "$(pgrep -u "$WORKER_USER" postgres)" ]
}

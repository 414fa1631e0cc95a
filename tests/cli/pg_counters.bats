#!/usr/bin/env bats
# Counters of a real PostgreSQL server during the measured workload (target: postgres,
# metrics such as instructions/tx): perf's software events of the backends, pgbench's own
# work left out, a machine without a PMU refused before anything runs, and the server under
# valgrind giving the same instructions per transaction run after run. Skipped without
# PostgreSQL 15 (and the valgrind test without valgrind).

setup_file() {
    export PG_TEST_CACHE=${PG_CACHE:-/var/tmp/verdict-pg-counters-$$-$(date +%s%N)}
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
    chmod 755 "$DATA" # the server user reads the pgbench scripts' directory when verdict is root
    CACHE=$PG_TEST_CACHE
}

teardown() {
    if [ -n "${DATA:-}" ]; then rm -rf "$DATA"; fi
}

# name, counters line ("" or "counters: valgrind"), workload list, metrics list
experiment() {
    cat > "$DATA/$1.yaml" <<YAML
name: $1
seed: 7
repetitions: ${REPS:-2}
$2
target: postgres
postgres:
  scale: 1
  fresh: point
  settings: { autovacuum: "off" }
  cache_dir: $CACHE
${PARAMETERS:-}
variants:
  A: { bindir: $BINDIR }
  B: { bindir: $BINDIR }
workload:
  pgbench: $3
metrics: $4
YAML
}

@test "perf: the server's task-clock, page faults and context switches per transaction are positive and stored" {
    experiment soft "" '["-S", "-c", "1", "-t", "300"]' '[task-clock/tx, page-faults/tx, context-switches/tx, tps]'
    run "$VERDICT" run "$DATA/soft.yaml" --store "$DATA/soft.db" --json "$DATA/out.json"
    echo "$output"
    [ "$status" -eq 0 ]
    for m in task-clock/tx page-faults/tx context-switches/tx; do
        n=$(sqlite3 "$DATA/soft.db" "select count(*) from sample_metric where name = '$m' and value > 0")
        echo "# $m: $n positive samples, e.g. $(sqlite3 "$DATA/soft.db" "select value from sample_metric where name = '$m' limit 1")" >&3
        [ "$n" -eq 4 ]
    done
    # a backend works for 300 select-only transactions: at least some microseconds each
    # (task-clock counts nanoseconds), and not seconds
    [ "$(sqlite3 "$DATA/soft.db" "select count(*) from sample_metric where name = 'task-clock/tx' and value between 1000 and 1e9")" -eq 4 ]
}

@test "perf: ten times the transactions take more of the server's CPU time" {
    PARAMETERS='parameters: { tx: [100, 1000] }' \
        experiment scale "" '["-S", "-c", "1", "-t", "{tx}"]' '[task-clock]'
    run "$VERDICT" run "$DATA/scale.yaml" --store "$DATA/scale.db"
    echo "$output"
    [ "$status" -eq 0 ]
    # CPU time is steadier than wall time on a busy machine; 10x the transactions of a
    # backend whose start-up costs about 100 of them must take well over twice the time
    sqlite3 "$DATA/scale.db" "select s.point, avg(m.value) from sample_metric m join sample s on s.id = m.sample_id where m.name = 'task-clock' group by s.point order by avg(m.value)" |
        awk -F'|' '{ print "# " $1 ": task-clock " $2 " ns" > "/dev/fd/3"; point[NR] = $1; v[NR] = $2 }
            END { exit !(NR == 2 && point[1] ~ /tx=100$/ && v[2] > 2 * v[1]) }'
}

# Would catch: pgbench counted with the server (its task-clock would reach pgbench's CPU
# time), pgbench's own counts (pgbench.*) missing, summed into the server's, taken from
# another process than pgbench, or not divided by its transactions.
@test "perf: pgbench's own work is not counted with the server's, and is when asked (pgbench.*), apart" {
    # 100 expressions a transaction, all evaluated by pgbench itself
    for i in $(seq 1 100); do echo "\\set a$i random(1, 1000000) * random(1, 1000) + $i"; done > "$DATA/client.sql"
    chmod 644 "$DATA/client.sql"
    experiment client "" "[\"-n\", \"-f\", \"$DATA/client.sql\", \"-c\", \"1\", \"-t\", \"20000\"]" '[task-clock, cpu, pgbench.task-clock, pgbench.task-clock/tx]'
    run "$VERDICT" run "$DATA/client.yaml" --dry-run --store "$DATA/client.db"
    [ "$status" -eq 0 ]
    [[ "$output" == *"counters: perf's of pgbench itself"* ]]
    run "$VERDICT" run "$DATA/client.yaml" --store "$DATA/client.db"
    echo "$output"
    [ "$status" -eq 0 ]
    # pgbench's CPU seconds against the server's task-clock nanoseconds, run by run: the
    # server only accepts the connection, pgbench evaluates two million expressions; and
    # pgbench's own task-clock is its CPU time from wait4 (within 10%, and 5 ms), its count
    # per transaction the run's over 20000
    sqlite3 "$DATA/client.db" "select c.value, t.value, p.value, x.value from sample_metric c join sample_metric t on t.sample_id = c.sample_id join sample_metric p on p.sample_id = c.sample_id join sample_metric x on x.sample_id = c.sample_id where c.name = 'cpu' and t.name = 'task-clock' and p.name = 'pgbench.task-clock' and x.name = 'pgbench.task-clock/tx'" | tee /dev/stderr |
        awk -F'|' '{ print "# pgbench " $1 " s (its task-clock " $3 / 1e9 " s), server " $2 / 1e9 " s" > "/dev/fd/3"
            d = $3 / 1e9 - $1; if (d < 0) d = -d
            if (!($2 / 1e9 < $1 / 2) || d > 0.1 * $1 + 0.005 || ($4 * 20000 - $3) ^ 2 > 1) bad = 1; n++ }
            END { exit bad || n != 4 }'
}

# Would catch: --dry-run calling a plan fine that the run refuses, a run that starts a
# template before it finds valgrind missing, a message without the way to install it.
@test "valgrind: missing, it gets the apt-get line from --dry-run and the run, before anything runs" {
    experiment novg "counters: valgrind" '["-S", "-c", "1", "-t", "10"]' '[instructions/tx]'
    mkdir "$DATA/empty"
    PATH="$DATA/empty" run "$VERDICT" run "$DATA/novg.yaml" --dry-run --store "$DATA/novg.db"
    echo "$output"
    [ "$status" -eq 2 ]
    [[ "$output" == *"counters: valgrind: valgrind is not installed: apt-get install valgrind"* ]]
    PATH="$DATA/empty" run "$VERDICT" run "$DATA/novg.yaml" --store "$DATA/novg.db"
    echo "$output"
    [ "$status" -eq 2 ]
    [[ "$output" == *"valgrind is not installed: apt-get install valgrind"* ]]
    [[ "$output" != *"preparing the template"* ]]
}

@test "pgbench's own counts are refused where there is no pgbench or no perf: queries, valgrind" {
    refused qc "" '["-S", "-t", "5"]' '[pgbench.instructions/query]' "unknown metric 'pgbench.instructions/query'"
    refused vgc "counters: valgrind" '["-S", "-t", "5"]' '[instructions/tx, pgbench.instructions/tx]' "'counters: valgrind' counts the server only"
}

@test "perf: a queries workload is counted per query (the run's total over its number of queries)" {
    echo "select count(*) from pgbench_accounts;" > "$DATA/one.sql"
    echo "select count(*) from pgbench_accounts a, generate_series(1, 2) g;" > "$DATA/two.sql"
    chmod 644 "$DATA"/*.sql
    cat > "$DATA/q.yaml" <<YAML
name: q
seed: 7
repetitions: 2
target: postgres
postgres: { scale: 1, fresh: point, settings: { autovacuum: "off" }, cache_dir: $CACHE }
variants:
  A: { bindir: $BINDIR }
  B: { bindir: $BINDIR }
workload:
  queries: [$DATA/one.sql]
metrics: [task-clock/query, task-clock]
YAML
    run "$VERDICT" run "$DATA/q.yaml" --store "$DATA/q.db"
    echo "$output"
    [ "$status" -eq 0 ]
    # one query a run: the count per query is the run's total
    sqlite3 "$DATA/q.db" "select q.value, t.value from sample_metric q join sample_metric t on t.sample_id = q.sample_id where q.name = 'task-clock/query' and t.name = 'task-clock'" |
        awk -F'|' '{ print "# task-clock/query " $1 " ns" > "/dev/fd/3"; if (!($1 > 0 && $1 == $2)) bad = 1; n++ } END { exit bad || n != 4 }'
    sed -i "s|queries: \[.*\]|queries: [$DATA/one.sql, $DATA/two.sql]|" "$DATA/q.yaml"
    run "$VERDICT" run "$DATA/q.yaml" --store "$DATA/q2.db"
    echo "$output"
    [ "$status" -eq 0 ]
    # two queries a run: the total divided by two
    sqlite3 "$DATA/q2.db" "select q.value, t.value from sample_metric q join sample_metric t on t.sample_id = q.sample_id where q.name = 'task-clock/query' and t.name = 'task-clock'" |
        awk -F'|' '{ if (!($1 > 0 && ($1 * 2 - $2) ^ 2 < 4)) bad = 1; n++ } END { exit bad || n != 4 }'
}

@test "perf: a hardware counter on a machine without a PMU stops before anything runs, naming counters: valgrind" {
    experiment hard "" '["-S", "-c", "1", "-t", "10"]' '[instructions/tx]'
    run "$VERDICT" run "$DATA/hard.yaml" --store "$DATA/hard.db"
    echo "$output"
    if [ "$status" -eq 0 ]; then skip "this machine counts instructions (it has a PMU)"; fi
    [ "$status" -eq 2 ]
    [[ "$output" == *"counters: valgrind"* ]]
    [[ "$output" != *"preparing the template"* ]]
    # pgbench's own: perf's only, said so
    experiment hardc "" '["-S", "-c", "1", "-t", "10"]' '[pgbench.instructions/tx]'
    run "$VERDICT" run "$DATA/hardc.yaml" --store "$DATA/hardc.db"
    echo "$output"
    [ "$status" -eq 2 ]
    [[ "$output" == *"metric pgbench.instructions/tx: cannot count 'instructions:u'"*"pgbench's own counts are perf's only"* ]]
    [[ "$output" != *"preparing the template"* ]]
}

# name, counters line, workload, metrics, words the refusal must hold: the file is refused
# (exit 2) before anything runs
refused() {
    experiment "$1" "$2" "$3" "$4"
    if [ "$1" = av ]; then sed -i 's/autovacuum: "off"/work_mem: 4MB/' "$DATA/av.yaml"; fi
    run "$VERDICT" run "$DATA/$1.yaml" --dry-run --store "$DATA/x.db"
    echo "$output"
    [ "$status" -eq 2 ]
    [[ "$output" == *"$5"* ]]
}

@test "the file is checked: -T under valgrind, autovacuum, tps or a kernel count under valgrind, /query of pgbench, a typo, counters without a counter" {
    refused dur "counters: valgrind" '["-S", "-T", "5"]' '[instructions/tx]' "-t N instead of -T"
    refused av "counters: valgrind" '["-S", "-t", "5"]' '[instructions/tx]' "autovacuum"
    refused tps "counters: valgrind" '["-S", "-t", "5"]' '[instructions/tx, tps]' "metric 'tps' with 'counters: valgrind'"
    refused kernel "counters: valgrind" '["-S", "-t", "5"]' '[context-switches/tx]' "cachegrind counts: instructions"
    refused q "" '["-S", "-t", "5"]' '[instructions/query]' "a pgbench workload counts per transaction: instructions/tx"
    refused typo "" '["-S", "-t", "5"]' '[instructionz/tx]' "did you mean 'instructions/tx'?"
    refused none "counters: perf" '["-S", "-t", "5"]' '[tps]' "none is measured"
}

@test "valgrind: the plan says so; instructions per transaction of one binary agree within 2% (A/A), stored" {
    command -v valgrind >/dev/null || skip "valgrind is not installed"
    experiment vg "counters: valgrind" '["-S", "-c", "1", "-t", "20"]' '[instructions/tx, instructions]'
    run "$VERDICT" run "$DATA/vg.yaml" --dry-run --store "$DATA/vg.db"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *"under valgrind"*"slower"* ]]
    start=$(date +%s)
    run "$VERDICT" run "$DATA/vg.yaml" --store "$DATA/vg.db" --json "$DATA/out.json"
    echo "$output"
    [ "$status" -eq 0 ]
    sqlite3 "$DATA/vg.db" "select m.value, s.wall from sample_metric m join sample s on s.id = m.sample_id where m.name = 'instructions/tx'" |
        awk -F'|' -v took=$(( $(date +%s) - start )) '{ print "# instructions/tx " $1 ", pgbench " $2 " s" > "/dev/fd/3"; if (min == "" || $1 < min) min = $1; if ($1 > max) max = $1; n++ }
            END { print "# " n " runs in " took " s" > "/dev/fd/3"; exit !(n == 4 && min > 1000 && max / min < 1.02) }'
    # the total is the per-transaction count times pgbench's 20 transactions
    sqlite3 "$DATA/vg.db" "select t.value, p.value from sample_metric t join sample_metric p on p.sample_id = t.sample_id where t.name = 'instructions' and p.name = 'instructions/tx'" |
        awk -F'|' '{ if ($1 != $2 * 20 && ($1 - $2 * 20) ^ 2 > 1) bad = 1 } END { exit bad }'
}

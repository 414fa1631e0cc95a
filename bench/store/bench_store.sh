#!/bin/sh
# The store's cost per sample, side by side: a store in memory (the reference), a SQLite
# file, and a PostgreSQL server (the URI in VERDICT_TEST_PG, default the test server), in
# interleaved rounds, from the slope between a short and a long run of /bin/true twice.
#
#   bench/store/bench_store.sh [VERDICT]      ROUNDS=7 SHORT=25 LONG=300 by default
#
# per-sample = (T(LONG) - T(SHORT)) / (2 (LONG - SHORT)): each block commits two samples,
# each its own transaction. Medians over rounds are printed last: the cost per sample (a
# run of /bin/true and its commit), its ratio to the in-memory store's, and the difference.
set -eu
rounds=${ROUNDS:-7}
short=${SHORT:-25}
long=${LONG:-300}
verdict=${1:-build/verdict}
server=${VERDICT_TEST_PG:-postgresql:///verdict_test?host=/var/run/postgresql}
[ -x "$verdict" ] || { echo "bench_store: $verdict is not an executable" >&2; exit 2; }
psql -qAtX "$server" -c "SELECT 1" >/dev/null ||
    { echo "bench_store: no PostgreSQL server at $server" >&2; exit 2; }
work=$(mktemp -d)
schema="bench_store_$$"
# every invocation gets a schema of its own (a new store): dropped at the end
drop_schemas() {
    for s in $(psql -qAtX "$server" -c "SELECT nspname FROM pg_namespace WHERE nspname LIKE '${schema}_%'"); do
        psql -qAtX "$server" -c "DROP SCHEMA $s CASCADE" >/dev/null 2>&1
    done
}
trap 'rm -rf "$work"; drop_schemas' EXIT
now_us() { echo $(( $(date +%s%N) / 1000 )); }
case "$server" in *\?*) pg="$server&verdict_schema=$schema" ;; *) pg="$server?verdict_schema=$schema" ;; esac

# One invocation of n blocks into a fresh store (a new experiment each time: nothing resumed).
once() { # store, n, round
    "$verdict" -r "$2" --warmup 0 --seed "$3$2" --store "$1" /bin/true /bin/true >/dev/null 2>&1
}

measure() { # name, store maker
    name=$1
    s1=$($2 short); s2=$($2 long)
    t0=$(now_us); once "$s1" "$short" "$round"; t1=$(now_us)
    once "$s2" "$long" "$round"; t2=$(now_us)
    echo "$t0 $t1 $t2" | awk -v s="$short" -v l="$long" '{
        printf "%.1f\n", (($3 - $2) - ($2 - $1)) / (2 * (l - s)) }' >> "$work/$name"
}

memory() { echo ":memory:"; }
sqlite() { echo "$work/$round-$1.db"; }
postgres() { echo "${pg}_${round}_$1"; }

round=1
while [ "$round" -le "$rounds" ]; do
    for tool in memory sqlite postgres; do
        measure "$tool" "$tool"
    done
    round=$((round + 1))
done

median() { sort -n "$work/$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
reference=$(median memory)
printf "%-10s %14s %10s %16s\n" store "µs per sample" "× memory" "µs over memory"
for tool in memory sqlite postgres; do
    m=$(median "$tool")
    echo "$tool $m $reference" | awk '{ printf "%-10s %14.1f %10.2f %16.1f\n", $1, $2, $2 / $3, $2 - $3 }'
done

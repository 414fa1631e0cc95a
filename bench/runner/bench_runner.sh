#!/bin/sh
# The runner's own cost per run, side by side with hyperfine -N, interleaved: each round
# times `verdict -n R /bin/true /bin/true` (2R runs) and `hyperfine -N --runs 2R /bin/true`.
# Prints the per-run cost of each (elapsed / runs) and what each measured for /bin/true.
set -eu
verdict=${1:-build/verdict}
rounds=${ROUNDS:-5}
runs=${RUNS:-500}
command -v hyperfine >/dev/null || { echo "bench_runner: hyperfine is not installed (apt-get install hyperfine)" >&2; exit 2; }
command -v jq >/dev/null || { echo "bench_runner: jq is not installed" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
now() { date +%s.%N; }
printf "%-6s %14s %14s %16s %16s\n" round verdict/run hyperfine/run verdict-median hyperfine-median
i=1
while [ "$i" -le "$rounds" ]; do
    t0=$(now)
    "$verdict" -n "$runs" -w 0 --seed "$i" --json "$work/v.json" /bin/true /bin/true >/dev/null 2>&1
    t1=$(now)
    hyperfine -N -w 0 --runs $((runs * 2)) --export-json "$work/h.json" /bin/true >/dev/null 2>&1
    t2=$(now)
    v_med=$(jq '.summaries[0].median' "$work/v.json")
    h_med=$(jq '.results[0].median' "$work/h.json")
    printf "%-6s %12.1fus %12.1fus %14.1fus %14.1fus\n" "$i" \
        "$(echo "($t1 - $t0) / ($runs * 2) * 1000000" | bc -l)" \
        "$(echo "($t2 - $t1) / ($runs * 2) * 1000000" | bc -l)" \
        "$(echo "$v_med * 1000000" | bc -l)" "$(echo "$h_med * 1000000" | bc -l)"
    i=$((i + 1))
done

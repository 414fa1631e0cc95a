#!/bin/sh
# Issue 26's acceptance for exact counts: spin under cachegrind (--counters valgrind
# --metric instructions), 5 blocks, margin 0.1%: A/A must be equivalent and 0.5% more loop
# iterations worse, with the estimate near +0.5%, in every seed. Counts, not times: it may
# run beside other work. Usage: bench/decide/counts_seeds.sh BUILD_DIR [SEEDS] [ROUNDS]
set -eu
build=$(cd "${1:?build directory}" && pwd)
seeds=${2:-10}
rounds=${3:-2000000}
more=$((rounds + rounds / 200))
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
spin=$build/examples/spin
line() { # JSON -> verdict estimate interval
    python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["comparisons"][0]; print(c["verdict"], "%+.3f%%" % (100*(c["estimate"]-1)), "[%+.3f%%, %+.3f%%]" % tuple(100*(x-1) for x in c["ci"]), c["method"])' "$1"
}
s=1
while [ "$s" -le "$seeds" ]; do
    for pair in aa change; do
        b=$rounds; [ "$pair" = change ] && b=$more
        t0=$(date +%s)
        "$build/verdict" --counters valgrind --metric instructions -r 5 --margin 0.1% --seed "$s" \
            --json "$work/$pair-$s.json" "$spin $rounds" "$spin $b" >/dev/null 2>"$work/err" ||
            { echo "$pair seed $s: failed: $(tail -2 "$work/err")"; continue; }
        echo "$pair seed $s: $(line "$work/$pair-$s.json") $(( $(date +%s) - t0 )) s"
    done
    s=$((s + 1))
done

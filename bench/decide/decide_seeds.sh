#!/bin/sh
# How often verdict decides a known small change, and how often it calls A/A different, on
# this machine: `spin N` against `spin N*1.01` over seeds, and A/A over seeds, per method.
# Usage: bench/decide/decide_seeds.sh BUILD_DIR METHOD SEEDS AA_SEEDS [VERDICT OPTIONS...]
# Prints one line per experiment (seed, verdict, ratio, interval, blocks, seconds) and the
# totals; never run as a test (it measures time, alone on the machine).
set -eu
build=$(cd "${1:?build directory}" && pwd)
method=${2:?method}
seeds=${3:-8}
aa_seeds=${4:-40}
shift 4 || shift $#
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
spin=$build/examples/spin
summarise() { # JSON file -> "verdict ratio low high blocks"
    python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c = d["comparisons"][0]
print(c["verdict"], "%.4f" % c["estimate"], "[%.4f, %.4f]" % tuple(c["ci"]),
      "%d blocks" % c["n"][0])
PY
}
one() { # label seed args...
    label=$1; seed=$2; shift 2
    start=$(date +%s)
    "$build/verdict" --seed "$seed" --method "$method" --json "$work/$label-$seed.json" \
        "$@" >/dev/null 2>"$work/err" || true
    end=$(date +%s)
    if [ -s "$work/$label-$seed.json" ]; then
        echo "$label seed $seed: $(summarise "$work/$label-$seed.json") $((end - start)) s"
    else
        echo "$label seed $seed: failed: $(tail -2 "$work/err")"
    fi
}
s=1
while [ "$s" -le "$seeds" ]; do
    one change "$s" "$@" "$spin 150000000" "$spin 151500000"
    s=$((s + 1))
done | tee "$work/change.txt"
s=1
while [ "$s" -le "$aa_seeds" ]; do
    one aa "$s" -r 20 "$@" "$spin 150000000" "$spin 150000000"
    s=$((s + 1))
done | tee "$work/aa.txt"
echo "method $method: 1% more work called worse in $(grep -c ' worse ' "$work/change.txt" || true) of $seeds;" \
     "A/A called different in $(grep -cE ' (worse|better) ' "$work/aa.txt" || true) of $aa_seeds"

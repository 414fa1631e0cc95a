#!/bin/sh
# How often is a no-op change called better or worse? For each of SEEDS experiment seeds
# (default 20), the no-op against the program across 6 fresh layouts (the seed picks them):
# the layout-aware verdict, and what one build of each (layout 0 against layout 0) would
# have said. Prints one line per seed, then the counts. From this directory:
#   sh seeds.sh [SEEDS]
set -eu
verdict=${VERDICT:-verdict}
seeds=${1:-20}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r prog noop.patch "$work/"
i=1 binary_called=0 layouts_called=0
while [ "$i" -le "$seeds" ]; do
    sed -e "s/^seed: .*/seed: $i/" -e "s/^repetitions: .*/repetitions: 10/" \
        -e '/ten-percent:/d' layouts.yaml > "$work/seed.yaml"
    "$verdict" run "$work/seed.yaml" --store "$work/seed$i.db" --json "$work/seed.json" >/dev/null 2>"$work/log" ||
        { cat "$work/log" >&2; exit 1; }
    line=$(jq -r '.comparisons[0] | "\(.verdict) \(.binary.verdict) \(.binary_estimate) \(.layout_spread)"' \
        "$work/seed.json")
    set -- $line
    printf "seed %2d: across layouts %-12s one build each %-12s (%+.1f%%), layout spread %.1f%%\n" \
        "$i" "$1" "$2" "$(echo "($3 - 1) * 100" | bc -l)" "$(echo "$4 * 100" | bc -l)"
    case $1 in better|worse) layouts_called=$((layouts_called + 1)) ;; esac
    case $2 in better|worse) binary_called=$((binary_called + 1)) ;; esac
    i=$((i + 1))
done
echo "no-op called better or worse: one build each $binary_called of $seeds; across 6 layouts $layouts_called of $seeds"

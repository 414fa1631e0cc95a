#!/bin/bash
# Issue 29's acceptance for verdict bisect over seeds: the test's repository (32 commits of
# a small C program, commit 19 adding 10% work; tests/cli/bisect_repo.bash), instructions
# counted by cachegrind, bisected once per seed into a store of its own (builds shared in
# one cache). Prints per seed the commit named, the steps and the effect, then the count
# that named commit 19 in at most 7 steps. Counts, not times: it may run beside other work.
# Usage: bench/bisect/bisect_seeds.sh BUILD_DIR [SEEDS]
set -eu
build=$(cd "${1:?build directory}" && pwd)
seeds=${2:-5}
here=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=../../tests/cli/bisect_repo.bash
. "$here/tests/cli/bisect_repo.bash"
make_bisect_repository "$work/repo" 32 19
slow=$(git -C "$work/repo" log --format=%H --grep='^commit 19\b' -1)
found=0
for ((s = 1; s <= seeds; s++)); do
    write_bisect_experiment "$work/e$s.yaml" "$work/repo" "$s"
    t0=$(date +%s)
    "$build/verdict" bisect "$work/e$s.yaml" --good good --bad bad --cache "$work/cache" \
        --json "$work/b$s.json" > /dev/null 2> "$work/err$s" ||
        { echo "seed $s: failed: $(tail -2 "$work/err$s")"; continue; }
    line=$(jq -r --arg c "$slow" '[(if .first_bad == $c then "commit 19" else (.first_bad // .outcome) end),
        ((.steps | length) + 1 | tostring) + " steps",
        ([.steps[].blocks] | add // 0 | tostring) + " midpoint blocks",
        "effect +" + (((.effect.ratio // 1) - 1) * 1000 | round / 10 | tostring) + "%"] | join(", ")' \
        "$work/b$s.json")
    echo "seed $s: $line, $(( $(date +%s) - t0 )) s"
    jq -e --arg c "$slow" '.first_bad == $c and (.steps | length) + 1 <= 7' "$work/b$s.json" \
        > /dev/null && found=$((found + 1))
done
echo "named commit 19 in at most 7 steps: $found of $seeds seeds"

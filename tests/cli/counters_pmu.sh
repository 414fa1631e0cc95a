#!/bin/sh
# Hardware counters as metrics, where the machine has them: instructions of spin grow with
# its rounds, ipc and branch-miss-rate are ratios of parts counted together. Elsewhere (a VM
# without a PMU) it is reported as skipped (exit 77) with verdict env's reason, never passed.
set -eu
VERDICT=${VERDICT:?set VERDICT to the verdict binary}
SPIN=${SPIN:?set SPIN to the spin example}
command -v jq > /dev/null || { echo "SKIP: jq is not installed"; exit 77; }
DATA=$(mktemp -d)
trap 'rm -rf "$DATA"' EXIT
"$VERDICT" env --seconds 0 --json "$DATA/env.json" > /dev/null
if ! jq -e '.counters[] | select(.name == "instructions:u") | .countable' "$DATA/env.json" \
        > /dev/null; then
    echo "SKIP: this machine cannot count instructions:u:" \
        "$(jq -r '.counters[] | select(.name == "instructions:u") | .reason' "$DATA/env.json")"
    exit 77
fi
"$VERDICT" --metric instructions --metric ipc --metric branch-miss-rate -r 3 --style none \
    --json "$DATA/out.json" -n one -n two "$SPIN 10000000" "$SPIN 20000000"
# twice the rounds, about twice the instructions (start-up is a few hundred thousand)
jq -e '.comparisons[] | select(.metric == "instructions") | .estimate > 1.9 and .estimate < 2.05' \
    "$DATA/out.json"
# every run has each value: no counter multiplexed on an idle PMU with three events
jq -e '[.samples[] | select(.block >= 0) | .metrics | .instructions, .ipc,
        .["branch-miss-rate"]] | all(. != null and . > 0)' "$DATA/out.json"
jq -e '[.samples[] | select(.block >= 0) | .metrics.ipc] | all(. < 10)' "$DATA/out.json"
jq -e '[.samples[] | select(.block >= 0) | .metrics["branch-miss-rate"]] | all(. < 1)' \
    "$DATA/out.json"
echo "ok: instructions, ipc and branch-miss-rate counted on this machine's PMU"

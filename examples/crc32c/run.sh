#!/bin/sh
# The CRC-32C seed with `verdict kernel`: verdicts between each pair of the four variants
# on 65-byte records, the 50 M-record case end to end, and the size sweep against ISA-L.
# usage: examples/crc32c/run.sh [BUILD_DIR] [quick]   (BUILD_DIR defaults to ./build)
set -eu
BUILD=${1:-build}
QUICK=${2:-}
VERDICT="$BUILD/verdict"
MODULE="$BUILD/examples/crc32c/libcrc32c_kernels.so"
OUT=${OUT:-$BUILD/crc32c-results}
BLOCKS=30
RECORD_BLOCKS=10
RECORDS=50000000
if [ "$QUICK" = quick ]; then
    BLOCKS=10
    RECORD_BLOCKS=3
    RECORDS=5000000
fi
[ -x "$VERDICT" ] || { echo "run.sh: no $VERDICT (build first: ninja -C $BUILD)" >&2; exit 2; }
[ -f "$MODULE" ] || { echo "run.sh: no $MODULE" >&2; exit 2; }
mkdir -p "$OUT"
"$VERDICT" kernel --list "$MODULE"

# Each pair runs interleaved on its own, so that each verdict has its own baseline:
# what the runtime check buys over slicing-by-8, what a compile-time choice buys over the
# runtime check, and what forced inlining buys over the compile-time choice.
pair() {
    echo
    echo "=== $2 vs $1 (65-byte records, $BLOCKS blocks of 10 ms samples) ==="
    "$VERDICT" kernel -r "$BLOCKS" --seed 2 --arg 65 --json "$OUT/$2-vs-$1.json" "$MODULE" "$1" "$2"
}
pair sb8 runtime
pair runtime compiletime
pair compiletime inline

# pg_waldump's case end to end: every sample is 50 M records (seconds = ns_per_call * 50 M).
echo
echo "=== $RECORDS records of 65 bytes per sample, $RECORD_BLOCKS blocks ==="
"$VERDICT" kernel -r "$RECORD_BLOCKS" --seed 3 --iterations "$RECORDS" \
    --json "$OUT/records.json" "$MODULE" sb8 runtime compiletime inline
jq -r --argjson n "$RECORDS" '.summaries[] | select(.metric == "ns_per_call") |
    "\(.variant): median \(.median * $n / 1e9 | . * 1000 | round / 1000) s for \($n) records"' \
    "$OUT/records.json" 2>/dev/null || true

# The size sweep: ISA-L is the baseline, the library's dispatched crc32c() the candidate.
if "$VERDICT" kernel --list "$MODULE" | grep -q '^isal '; then
    echo
    echo "=== crc32c() vs ISA-L across sizes ==="
    "$VERDICT" kernel -r "$BLOCKS" --seed 4 --json "$OUT/sweep.json" \
        --sweep size=64,256,1k,4k,16k,64k,256k,1M "$MODULE" isal runtime
    jq -r '.comparisons[] | select(.metric == "gbps") |
        "\(.point): crc32c()/ISA-L throughput \(.estimate * 1000 | round / 1000) [\(.ci[0] * 1000 | round / 1000), \(.ci[1] * 1000 | round / 1000)] \(.verdict)"' \
        "$OUT/sweep.json" 2>/dev/null || true
fi

#!/bin/sh
# The runner's own cost, side by side with hyperfine -N, interleaved in rounds: for each
# verdict binary given (default build/verdict) and for hyperfine, the start-up cost and the
# cost per run of /bin/true, from the slope between a short and a long invocation.
#
#   bench/runner/bench_runner.sh [VERDICT ...]      ROUNDS=9 SHORT=25 LONG=500 by default
#
# A verdict invocation of R runs per side runs /bin/true 2R times; hyperfine gets 2R runs.
# per-run = (T(LONG) - T(SHORT)) / (2 (LONG - SHORT)); start-up = T(SHORT) - 2 SHORT per-run.
# The medians over rounds are printed last, with each verdict's per-run cost over hyperfine's:
# the ratio of the medians, and the median (with min and max) of the ratios within a round,
# which a machine whose speed drifts between rounds disturbs less.
set -eu
rounds=${ROUNDS:-9}
short=${SHORT:-25}
long=${LONG:-500}
[ $# -gt 0 ] || set -- build/verdict
command -v hyperfine >/dev/null || { echo "bench_runner: hyperfine is not installed (apt-get install hyperfine)" >&2; exit 2; }
for v in "$@"; do [ -x "$v" ] || { echo "bench_runner: $v is not an executable" >&2; exit 2; }; done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
now_us() { echo $(( $(date +%s%N) / 1000 )); }

# One round of one tool: appends "per_run_us startup_us" to its file.
measure() { # name, then the command without its run count (the count is appended)
    name=$1; shift
    t0=$(now_us); "$@" "$short" >/dev/null 2>&1; t1=$(now_us)
    "$@" "$long" >/dev/null 2>&1; t2=$(now_us)
    echo "$t0 $t1 $t2" | awk -v s="$short" -v l="$long" '{
        per = (($3 - $2) - ($2 - $1)) / (2 * (l - s)); printf "%.1f %.0f\n", per, ($2 - $1) - 2 * s * per }' \
        >> "$work/$name"
}
verdict_cmd() { "$1" -w 0 --seed 1 -r "$2" /bin/true /bin/true; }
hyperfine_cmd() { hyperfine -N -w 0 --runs $(( $1 * 2 )) /bin/true; }

i=1
while [ "$i" -le "$rounds" ]; do
    k=0
    for v in "$@"; do k=$((k + 1)); measure "v$k" verdict_cmd "$v"; done
    measure hyperfine hyperfine_cmd
    i=$((i + 1))
done
median() { sort -n | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
hf=$(cut -d' ' -f1 "$work/hyperfine" | median)
printf "%-40s %12s %12s %10s %22s\n" tool per-run start-up "/hyperfine" "paired: median (range)"
k=0
for v in "$@"; do
    k=$((k + 1))
    per=$(cut -d' ' -f1 "$work/v$k" | median)
    up=$(cut -d' ' -f2 "$work/v$k" | median)
    paste -d' ' "$work/v$k" "$work/hyperfine" | awk '{ printf "%.4f\n", $1 / $3 }' > "$work/r$k"
    printf "%-40s %10.1fus %10.0fus %10.3f %8.3f (%.3f-%.3f)\n" "$v" "$per" "$up" \
        "$(echo "$per / $hf" | bc -l)" "$(median < "$work/r$k")" \
        "$(sort -n "$work/r$k" | head -1)" "$(sort -n "$work/r$k" | tail -1)"
done
printf "%-40s %10.1fus %10.0fus %10.3f\n" "hyperfine -N" "$hf" "$(cut -d' ' -f2 "$work/hyperfine" | median)" 1

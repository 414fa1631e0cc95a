#!/bin/sh
# The profiles' acceptance over seeds (docs/profiles.md): two_parts with slow_part made 40%
# slower, profiled for each seed; prints slow_part's and steady_part's change and interval
# and whether slow_part is ranked first above zero while steady_part's interval holds zero.
# usage: bench/profile/two_parts.sh build/verdict build/examples/two_parts [SEEDS] [BLOCKS]
set -eu
VERDICT=${1:?usage: two_parts.sh VERDICT TWO_PARTS [SEEDS] [BLOCKS]}
TWO_PARTS=${2:?usage: two_parts.sh VERDICT TWO_PARTS [SEEDS] [BLOCKS]}
SEEDS=${3:-5}
BLOCKS=${4:-10}
DATA=$(mktemp -d)
trap 'rm -rf "$DATA"' EXIT
held=0
for seed in $(seq 1 "$SEEDS"); do
    "$VERDICT" --profile -r "$BLOCKS" --seed "$seed" --style none --json "$DATA/$seed.json" \
        -n A -n B "$TWO_PARTS 60000000 100" "$TWO_PARTS 60000000 140" > /dev/null
    line=$(jq -r '.comparisons[0] as $c |
        ($c.profile[] | select(.symbol == "slow_part")) as $s |
        ($c.profile[] | select(.symbol == "steady_part")) as $t |
        def pct: . * 1000 | round / 10;
        "\($c.profile[0].symbol == "slow_part" and $s.ci[0] > 0 and $t.ci[0] < 0 and
            $t.ci[1] > 0)" + " slow_part \($s.change | pct)% [\($s.ci[0] | pct), " +
        "\($s.ci[1] | pct)] steady_part \($t.change | pct)% [\($t.ci[0] | pct), " +
        "\($t.ci[1] | pct)] at \($c.profile_confidence * 10000 | round / 100)%"' \
        "$DATA/$seed.json")
    echo "seed $seed: $line"
    case $line in true*) held=$((held + 1)) ;; esac
done
echo "acceptance held in $held of $SEEDS seeds ($BLOCKS blocks each)"

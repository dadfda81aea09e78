#!/bin/sh
# Measures how fast `runner sweep --dry-run` plans: a grid of POINTS points (batch size x seed,
# default 100,000, the documented maximum) on configs/tiny_synthetic.yaml, timed REPEATS times
# (default 3); prints each time and the points per second. Planning must stay linear: issue 24
# found 2 ms a point (211 s for 100,000).
#   scripts/sweep_planning_rate.sh [BUILD_DIR] [POINTS] [REPEATS]
set -eu
build=${1:-build}
points=${2:-100000}
repeats=${3:-3}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/runner-planning-rate.XXXXXX)
trap 'rm -rf "$work"' EXIT
seeds=$(( (points + 99) / 100 ))
{
  echo "name: planning_rate"
  echo "base: $root/configs/tiny_synthetic.yaml"
  echo "mode: benchmark"
  echo "sweep:"
  echo "  grid:"
  echo "    training.batch_size: [$(seq -s, 1 100)]"
  echo "    seed: [$(seq -s, 0 $((seeds - 1)))]"
} > "$work/sweep.yaml"
echo "planning $((seeds * 100)) points ($build/runner sweep --dry-run), $repeats times:"
for i in $(seq "$repeats"); do
  rm -rf "$work/out"
  start=$(date +%s.%N)
  "$root/$build/runner" sweep "$work/sweep.yaml" --dry-run --quiet --output "$work/out" >/dev/null
  end=$(date +%s.%N)
  echo "$start $end $((seeds * 100))" | awk '{ printf "  %.2f s, %.0f points/s\n", $2 - $1, $3 / ($2 - $1) }'
done

#!/usr/bin/env bash
# A run beside a CPU hog (issue 40): `stress-ng --cpu W` keeps W cores busy while the same run
# trains with the default threads (fitted to what the hog leaves), with training.threads=1 and
# with training.threads=2, the three alternating run by run so that a change in the machine's
# load hits each alike. Prints min / median / max of each setting's whole-run images/s (the
# report's throughput.whole_run_images_per_second, loader included) and the default's median
# over the 1-thread median: the issue's target is at least 1.0.
#   scripts/beside_a_hog.sh [-n RUNS] [-w HOG_WORKERS] CONFIG [-- more runner options]
# e.g. scripts/beside_a_hog.sh -n 3 configs/bench/resnet8_cifar_synthetic.yaml -- \
#        --set training.epochs=1 --set dataset.synthetic.train_count=6400
# $RUNNER names the binary (default build/runner). Needs stress-ng (Debian: stress-ng).
set -euo pipefail

usage() { sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
runs=3
workers=2
while getopts "n:w:h" option; do
  case $option in
    n) runs=$OPTARG ;;
    w) workers=$OPTARG ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || usage
config=$1
shift
[ "${1:-}" = "--" ] && shift
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "error: -n $runs is not a positive integer" >&2; usage; }
command -v stress-ng >/dev/null || { echo "error: stress-ng is not installed (apt-get install stress-ng)" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
runner=${RUNNER:-$root/build/runner}
python=$(command -v /usr/bin/python3 || command -v python3)
out=$(mktemp -d "${TMPDIR:-/tmp}/beside-a-hog.XXXXXX")

stress-ng --cpu "$workers" --timeout 0 >/dev/null 2>&1 &
hog=$!
trap 'kill $hog 2>/dev/null; wait $hog 2>/dev/null || true' EXIT
sleep 1  # the hog at full load before the first run

declare -A rates
for ((r = 1; r <= runs; ++r)); do
  for setting in default 1 2; do
    threads=()
    [ "$setting" = default ] || threads=(--set "training.threads=$setting")
    dir=$out/$setting-$r
    "$runner" run "$config" --quiet --output "$dir" "${threads[@]}" "$@" >"$dir.log" 2>&1 ||
      { echo "error: the run ($setting threads, run $r) failed:" >&2; cat "$dir.log" >&2; exit 1; }
    report=$(find "$dir" -name report.json | head -n 1)
    rate=$("$python" -c 'import json, sys; print(json.load(open(sys.argv[1]))["throughput"]["whole_run_images_per_second"])' "$report")
    rates[$setting]+="$rate "
    echo "run $r, threads $setting: $rate images/s (whole run)"
  done
done

"$python" - "${rates[default]}" "${rates[1]}" "${rates[2]}" "$workers" <<'EOF'
import statistics, sys
names = ["default (fitted)", "training.threads=1", "training.threads=2"]
values = [[float(v) for v in arg.split()] for arg in sys.argv[1:4]]
print(f"beside stress-ng --cpu {sys.argv[4]}: whole-run images/s, median (min-max)")
for name, v in zip(names, values):
    print(f"  {name}: {statistics.median(v):,.0f} ({min(v):,.0f}-{max(v):,.0f})")
print(f"default / 1 thread: {statistics.median(values[0]) / statistics.median(values[1]):.2f}x")
EOF

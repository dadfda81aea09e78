#!/usr/bin/env bash
# Run-to-run steadiness of training throughput against dataset.workers (issue 27): N identical
# runs per setting, the settings alternating run by run so that a change in the machine's load
# hits each alike, then min / median / max of the report's whole_run_images_per_second.
#   scripts/steadiness.sh [-n N] [-s "0 2 default"] [CONFIG] [-- more runner options]
# e.g. scripts/steadiness.sh -n 10      (configs/lenet_cifar.yaml, batch 4, 4 epochs, CPU)
#      scripts/steadiness.sh -n 5 -- --set dataset.train_limit=10000 --set training.epochs=1
# A setting is a dataset.workers value (0, 2, auto, ...) or `default` (the config's own).
# Without CIFAR-10 at $CIFAR10_ROOT (default data/cifar-10-batches-bin), random records in its
# binary format are written to ${TMPDIR:-/tmp}/runner-steadiness-cifar10 (speed does not depend
# on the pixels). $RUNNER names the binary (default build/runner). Run it on a quiet machine:
# other processes' load makes both settings slow and unsteady.
set -euo pipefail

usage() { sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
runs=10
settings="0 2 default"
while getopts "n:s:h" option; do
  case $option in
    n) runs=$OPTARG ;;
    s) settings=$OPTARG ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "error: -n $runs is not a positive integer" >&2; usage; }
root=$(cd "$(dirname "$0")/.." && pwd)
config=$root/configs/lenet_cifar.yaml
if [ $# -gt 0 ] && [[ $1 != -* ]]; then config=$1; shift; fi
[ "${1:-}" = "--" ] && shift
runner=${RUNNER:-$root/build/runner}

data=${CIFAR10_ROOT:-$root/data/cifar-10-batches-bin}
if [ ! -f "$data/data_batch_1.bin" ]; then
  data=${TMPDIR:-/tmp}/runner-steadiness-cifar10
  if [ ! -f "$data/test_batch.bin" ]; then
    echo "writing random CIFAR-10 records to $data" >&2
    mkdir -p "$data"
    python3 - "$data" <<'EOF'
import random, sys
rng = random.Random(0)
for name in [f"data_batch_{i}.bin" for i in range(1, 6)] + ["test_batch.bin"]:
    records = bytearray()
    for _ in range(10000):  # a label byte, then 3x32x32 pixel bytes
        records.append(rng.randrange(10))
        records += rng.randbytes(3072)
    with open(f"{sys.argv[1]}/{name}", "wb") as out:
        out.write(records)
EOF
  fi
fi

out=$(mktemp -d "${TMPDIR:-/tmp}/steadiness.XXXXXX")
trap 'rm -rf "$out"' EXIT
echo "$(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-unset}," \
  "GOMP_SPINCOUNT=${GOMP_SPINCOUNT:-unset}, OMP_NUM_THREADS=${OMP_NUM_THREADS:-unset}"
for run in $(seq 1 "$runs"); do
  for setting in $settings; do
    workers=()
    [ "$setting" = default ] || workers=(--set "dataset.workers=$setting")
    dir=$out/$setting-$run
    "$runner" "$config" --quiet --output "$dir" --set device=cpu --set "dataset.root=$data" \
      --set dataset.download=false --set checkpoint.path= --set training.batch_size=4 \
      --set training.epochs=4 "${workers[@]}" "$@" > "$dir.log" 2>&1 ||
      { echo "error: run $run ($setting) failed:" >&2; tail -n 5 "$dir.log" >&2; exit 1; }
    python3 - "$setting" "$run" "$dir"/*/*/report.json >> "$out/runs.tsv" <<'EOF'
import json, sys
report = json.load(open(sys.argv[3]))
throughput = report["throughput"]
print(sys.argv[1], sys.argv[2], round(throughput["whole_run_images_per_second"]),
      throughput.get("loader_workers", "?"), round(report["step_time"]["median_step_images_per_second"]),
      sep="\t")
EOF
    tail -n 1 "$out/runs.tsv" | awk -F'\t' '{printf "run %s, workers %s: %s images/s (loader workers %s; median step %s)\n", $2, $1, $3, $4, $5}'
  done
done
echo "load $(cut -d' ' -f1-3 /proc/loadavg) at the end"
python3 - "$out/runs.tsv" "$settings" <<'EOF'
import statistics, sys
rows = [line.split("\t") for line in open(sys.argv[1]).read().splitlines()]
print(f"{'workers':>8} {'runs':>4} {'min':>7} {'median':>7} {'max':>7}  loader workers  (whole-run images/s)")
for setting in sys.argv[2].split():
    speeds = [int(r[2]) for r in rows if r[0] == setting]
    used = sorted({r[3] for r in rows if r[0] == setting})
    print(f"{setting:>8} {len(speeds):>4} {min(speeds):>7} {statistics.median(speeds):>7.0f} "
          f"{max(speeds):>7}  {','.join(used)}")
EOF

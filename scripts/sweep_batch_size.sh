#!/usr/bin/env bash
# Throughput against batch size for any config, as a `runner sweep` over training.batch_size:
#   scripts/sweep_batch_size.sh CONFIG B1 B2 ... [-- more runner sweep options]
# e.g. scripts/sweep_batch_size.sh configs/lenet_cifar.yaml 4 8 16 32 64 128 256 512 1024
#      scripts/sweep_batch_size.sh configs/tiny_synthetic.yaml 8 16 32 -- --mode train --force
# Results: results/sweeps/<experiment name>-batch_size/ (summary.md, summary.csv, plots/).
# $RUNNER names the runner binary (default: build/runner, else `runner` on the PATH).
set -euo pipefail

usage() { sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
[ $# -ge 2 ] || usage
config=$1
shift
sizes=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  [[ $1 =~ ^[1-9][0-9]*$ ]] || { echo "error: batch size '$1' is not a positive integer" >&2; usage; }
  sizes+=("$1")
  shift
done
[ ${#sizes[@]} -ge 1 ] || usage
[ "${1:-}" = "--" ] && shift

root=$(cd "$(dirname "$0")/.." && pwd)
runner=${RUNNER:-}
if [ -z "$runner" ]; then
  if [ -x "$root/build/runner" ]; then runner=$root/build/runner; else runner=runner; fi
fi
name=$(sed -n 's/^name:[[:space:]]*\([A-Za-z0-9_.-]*\).*/\1/p' "$config" | head -n 1)
list=$(IFS=,; echo "${sizes[*]}")
exec "$runner" sweep "$config" --grid "training.batch_size=$list" --name "${name:-sweep}-batch_size" "$@"

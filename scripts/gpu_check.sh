#!/usr/bin/env bash
# The one command to run on a GPU machine: lists the devices, runs the GPU tests (cuDNN against
# oneDNN, the precisions, device selection), then trains LeNet on Fashion-MNIST on the GPU in
# every training.precision (fp32, tf32, bf16, fp16) and prints each run's test accuracy,
# training images/s and, for fp16, the loss scaling (final scale, skipped steps).
#
# Usage: scripts/gpu_check.sh [--root DIR] [--build DIR] [--data DIR] [--out DIR]
#                             [--precisions "fp32 tf32 ..."] [--no-tests] [-- --set PATH=VALUE ...]
#   --root DIR        a bundle folder (scripts/gpu_bundle.sh --tests), whose launchers are used,
#                     or a source tree (default: the folder above scripts/)
#   --build DIR       in a source tree, the build folder with runner and backend_tests
#                     (default: ROOT/build)
#   --data DIR        the Fashion-MNIST folder (default: ROOT/data/fashion-mnist, else the config's)
#   --out DIR         where the runs' reports go (default: gpu-check-results)
#   --precisions L    the precisions to train in (default: fp32 tf32 bf16 fp16)
#   --no-tests        skip backend_tests
#   -- ...            more runner options for every run (e.g. -- --set training.epochs=1)
# Exits 1 when a test or a run failed; the summary names it.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=""
data=""
out=gpu-check-results
precisions="fp32 tf32 bf16 fp16"
tests=1
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --root) root=$(cd "$2" && pwd); shift 2 ;;
    --build) build=$(cd "$2" && pwd); shift 2 ;;
    --data) data=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --precisions) precisions=$2; shift 2 ;;
    --no-tests) tests=0; shift ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    *) echo "gpu_check: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

build=${build:-$root/build}
# A bundle has launchers at its root; a source tree has its binaries in the build folder.
find_binary() {
  for candidate in "$root/$1" "$build/$1"; do
    if [ -x "$candidate" ] && [ -f "$candidate" ]; then echo "$candidate"; return; fi
  done
}
runner=$(find_binary runner)
backend_tests=$(find_binary backend_tests)
if [ -z "$runner" ]; then
  echo "gpu_check: no runner in $root or $build: build it, or give a bundle with --root" >&2
  exit 2
fi
config=$root/configs/lenet_fashion_mnist.yaml
if [ -z "$data" ] && [ -d "$root/data/fashion-mnist" ]; then data=$root/data/fashion-mnist; fi
data_set=()
if [ -n "$data" ]; then data_set=(--set "dataset.root=$data"); fi
mkdir -p "$out"
failed=()

echo "== devices"
"$runner" devices || failed+=("runner devices")

if [ "$tests" = 1 ]; then
  if [ -n "$backend_tests" ]; then
    echo "== GPU tests"
    "$backend_tests" --gtest_filter='*Parity*:Device*:Precision*:LossScale*:GpuPrecisions*' ||
      failed+=("backend_tests")
  else
    echo "== GPU tests: no backend_tests in $root (bundle with --tests)"
  fi
fi

for precision in $precisions; do
  echo "== LeNet on Fashion-MNIST, training.precision=$precision"
  "$runner" run "$config" --quiet --output "$out/$precision" --set device=cuda \
      --set "training.precision=$precision" "${data_set[@]}" "${extra[@]}" ||
    failed+=("run $precision")
done

echo "== summary"
python3 - "$out" $precisions << 'END_OF_SUMMARY'
import glob, json, os, sys
out, precisions = sys.argv[1], sys.argv[2:]
print(f"{'precision':<10} {'status':<10} {'test acc':>8} {'images/s':>10}  loss scaling")
for p in precisions:
    reports = sorted(glob.glob(os.path.join(out, p, "*", "*", "report.json")), key=os.path.getmtime)
    if not reports:
        print(f"{p:<10} {'no report':<10}")
        continue
    r = json.load(open(reports[-1]))
    acc = r.get("metrics", {}).get("test_accuracy")
    rate = r.get("throughput", {}).get("train_images_per_second")
    scaling = r.get("gpu", {}).get("loss_scaling")
    scaling_text = (f"final scale {scaling['final_scale']:g}, {scaling['skipped_steps']} skipped steps"
                    if scaling else "")
    acc_text = f"{acc:.4f}" if acc is not None else "-"
    rate_text = f"{rate:.0f}" if rate is not None else "-"
    print(f"{p:<10} {r.get('status', '?'):<10} {acc_text:>8} {rate_text:>10}  {scaling_text}")
END_OF_SUMMARY

if [ ${#failed[@]} -gt 0 ]; then
  echo "gpu_check: failed: ${failed[*]}" >&2
  exit 1
fi
echo "gpu_check: all passed"

#!/usr/bin/env bash
# The GPU check (issue 22), in two halves: `prepare` here, `run` on the lent GPU machine in one
# call (docs/gpu.md, "Running the GPU check").
#
#   scripts/gpu_check.sh prepare [--build DIR] [--bundle DIR] [--data DIR]
#     On a machine with the Debian packages and the CUDA toolkit (no GPU needed): builds runner,
#     librunner_cudnn.so and backend_tests with the GPU backend (-DRUNNER_CUDA=ON) in BUILD
#     (default build-cuda; JOBS=N builds N at a time, default all cores), packs them with the
#     libraries they need, Fashion-MNIST (--data, default /usr/share/datasets/fashion-mnist) and
#     the scripts into BUNDLE (default gpu-bundle, ignored by git) with scripts/gpu_bundle.sh
#     --compress, checks that it is under 40 MiB, and ends with the line `prepared: BUNDLE`.
#
#   scripts/gpu_check.sh run OUT_DIR [--bundle DIR | --build DIR] [--data DIR] [--work DIR] [--seconds N]
#                                    [--precisions "fp32 tf32 bf16 fp16"] [--epochs N]
#                                    [--resnet-epochs N] [--skip "STEP ..."]
#     On the GPU machine, from the repository root (or from a bundle: BUNDLE/scripts/...): with
#     the bundle's launchers (--bundle, default ./gpu-bundle where it exists) or a build folder's
#     binaries (--build, default build-cuda, else build), runs these steps, each with a time limit,
#     all of them within --seconds (default 540; a step with no time left is not run, a failure):
#       environment   nvidia-smi, Python and PyTorch versions
#       devices       runner devices (decides whether there is a usable GPU)
#       tests         backend_tests: every GPU case (parity, held set, precisions, devices) and
#                     the tests that read golden files
#       lenet-fp32    LeNet on Fashion-MNIST on cuda, saving a checkpoint
#       eval-cpu      that checkpoint evaluated on the CPU (runner eval)
#       eval-pytorch  that checkpoint evaluated in PyTorch (scripts/pytorch_peer.py evaluate)
#       resnet8       configs/resnet8_fashion_mnist.yaml for --resnet-epochs (default 3), while
#                     nvidia-smi samples utilisation (the NVML sample)
#       sweep         configs/sweeps/cpu_vs_gpu.yaml (throughput per device, GPU speedup)
#       bench         scripts/bench.sh --device cuda against this machine's PyTorch: LeNet at
#                     batch 16, 256 and 4096, strict FP32 and PyTorch's defaults (tf32)
#       architectures runner bench of the block-written ResNet-18, MobileNetV2 and ViT-tiny
#                     (configs/bench/, synthetic CIFAR-shaped images) on cuda, 30 steps each
#       recipe        configs/variants/lenet_fashion_mnist_full_recipe.yaml for one epoch on
#                     cuda: the host loader's augmentation feeding the GPU, mixup and cutmix in
#                     its load kernel and loss, and the weights EMA
#       lenet-PREC    LeNet in the other --precisions (default tf32 bf16 fp16)
#     --epochs sets LeNet's epochs (default: the config's 2); --skip leaves steps out. The steps
#     write into WORK (--work, default a new folder under $TMPDIR or /tmp): logs/STEP.log,
#     runs/ (reports, checkpoints), steps.tsv, tests.json, nvml.csv. OUT_DIR gets three files:
#     summary.json and summary.md (scripts/gpu_check_summary.py: the device, the test counts and
#     every figure) and details.tar.gz (WORK without checkpoints and plots).
#     Exit status: 0 every step passed; 1 a step failed or was not run (the summary says which);
#     2 bad arguments or no runner found; 3 no usable GPU: the GPU steps were skipped, with the
#     reason in the summary, and the steps that ran passed.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
fail_usage() { echo "gpu_check: $1 (see --help)" >&2; exit 2; }

# ---- prepare -----------------------------------------------------------------------------------

prepare() {
  local build=$root/build-cuda bundle=$root/gpu-bundle data=/usr/share/datasets/fashion-mnist
  while [ $# -gt 0 ]; do
    case "$1" in
      --build) build=$2; shift 2 ;;
      --bundle) bundle=$2; shift 2 ;;
      --data) data=$2; shift 2 ;;
      -h|--help) usage; exit 0 ;;
      *) fail_usage "unknown argument '$1'" ;;
    esac
  done
  if [ ! -f "$build/CMakeCache.txt" ]; then
    cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DRUNNER_CUDA=ON
  fi
  cmake --build "$build" -j "${JOBS:-$(nproc)}" --target runner backend_tests
  if [ ! -f "$build/librunner_cudnn.so" ]; then
    echo "gpu_check: $build has no librunner_cudnn.so: configure it with -DRUNNER_CUDA=ON" >&2
    exit 1
  fi
  "$root/scripts/gpu_bundle.sh" --build "$build" --out "$bundle" --tests --compress --data "$data"
  local bytes limit=$((40 * 1024 * 1024))
  bytes=$(du -sb "$bundle" | cut -f1)
  if [ "$bytes" -ge "$limit" ]; then
    echo "gpu_check: the bundle is $bytes bytes, over the 40 MiB it may take to the GPU machine" >&2
    exit 1
  fi
  echo "prepared: $bundle"
}

# ---- run ---------------------------------------------------------------------------------------

# step NAME BUDGET COMMAND...: runs COMMAND with at most BUDGET seconds (less where the run's
# deadline is nearer), its output into logs/NAME.log; records the outcome in steps.tsv.
# Returns COMMAND's status (124 or 137: out of time).
step() {
  local name=$1 budget=$2 left limit begin code=0 status
  shift 2
  left=$((deadline - $(date +%s) - 10))
  if [ "$left" -lt 5 ]; then
    record "$name" not_run 0 "" "out of time: the run's $seconds s were spent"
    return 1
  fi
  limit=$((budget < left ? budget : left))
  echo "== $name (at most ${limit} s)"
  begin=$(date +%s)
  timeout --kill-after=5 "$limit" "$@" > "$logs/$name.log" 2>&1 || code=$?
  case $code in
    0) status=passed ;;
    124|137) status=timed_out ;;
    *) status=failed ;;
  esac
  record "$name" "$status" $(($(date +%s) - begin)) "$code" \
    "$([ "$status" = timed_out ] && echo "stopped after $limit s")"
  if [ "$status" != passed ]; then
    echo "   $status (exit $code); the end of logs/$name.log:"
    tail -n 5 "$logs/$name.log" | sed 's/^/   | /'
  fi
  return "$code"
}

# record NAME STATUS SECONDS EXIT REASON: a line of steps.tsv (tabs and newlines in REASON
# become spaces).
record() {
  printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$(printf '%s' "$5" | tr '\t\n' '  ')" >> "$work/steps.tsv"
}

skip() {  # skip NAME REASON
  echo "== $1: skipped ($2)"
  record "$1" skipped 0 "" "$2"
}

wanted() { [[ " $skip_steps " != *" $1 "* ]]; }

# The report.json a run printed on its last `report: PATH` line.
report_of() { { sed -n 's/^report: //p' "$logs/$1.log" 2> /dev/null || true; } | tail -n 1; }

run() {
  [ $# -ge 1 ] || fail_usage "run needs an output folder"
  case "$1" in -h|--help) usage; exit 0 ;; -*) fail_usage "run needs an output folder first" ;; esac
  out=$1
  shift
  local bundle="" build="" data="" precisions="fp32 tf32 bf16 fp16" epochs="" resnet_epochs=3
  work=""
  seconds=540
  skip_steps=""
  while [ $# -gt 0 ]; do
    case "$1" in
      --bundle) bundle=$2; shift 2 ;;
      --build) build=$2; shift 2 ;;
      --data) data=$2; shift 2 ;;
      --work) work=$2; shift 2 ;;
      --seconds) seconds=$2; shift 2 ;;
      --precisions) precisions=$2; shift 2 ;;
      --epochs) epochs=$2; shift 2 ;;
      --resnet-epochs) resnet_epochs=$2; shift 2 ;;
      --skip) skip_steps=$2; shift 2 ;;
      -h|--help) usage; exit 0 ;;
      *) fail_usage "unknown argument '$1'" ;;
    esac
  done
  deadline=$(($(date +%s) + seconds))

  # The binaries: a bundle's launchers (a bundle has env.sh), else a build folder's.
  local dir
  if [ -n "$bundle" ]; then
    dir=$bundle
  elif [ -n "$build" ]; then
    dir=$build
  else
    for dir in "$root" "$root/gpu-bundle" "$root/build-cuda" "$root/build" ""; do
      if [ -n "$dir" ] && [ -x "$dir/runner" ] && [ -f "$dir/runner" ]; then break; fi
    done
  fi
  if [ -z "$dir" ] || [ ! -x "$dir/runner" ]; then
    echo "gpu_check: no runner in ${dir:-$root/gpu-bundle, $root/build-cuda or $root/build}:" \
         "run 'scripts/gpu_check.sh prepare' (or give --bundle or --build)" >&2
    exit 2
  fi
  dir=$(cd "$dir" && pwd)
  local runner=$dir/runner backend_tests=$dir/backend_tests

  # OUT_DIR gets three files (the device call brings back at most 8): the summaries and
  # details.tar.gz; the steps write into WORK.
  mkdir -p "$out"
  out=$(cd "$out" && pwd)
  if [ -z "$work" ]; then work=$(mktemp -d "${TMPDIR:-/tmp}/gpu-check.XXXXXX"); fi
  mkdir -p "$work"
  work=$(cd "$work" && pwd)
  logs=$work/logs
  rm -rf "$logs" "$work/runs" "$work/steps.tsv" "$work/tests.json" "$work/nvml.csv"
  rm -f "$out/summary.json" "$out/summary.md" "$out/details.tar.gz"
  mkdir -p "$logs" "$work/runs"
  printf 'step\tstatus\tseconds\texit\treason\n' > "$work/steps.tsv"
  echo "gpu_check: $runner, results in $out, steps' files in $work, at most $seconds s"

  # environment: what the GPU machine has, for the record (never fails the check).
  if wanted environment; then
    step environment 30 bash -c 'nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv || echo "nvidia-smi: not available"
      python3 -c "import sys, platform; print(\"python\", platform.python_version())" || true
      python3 -c "import torch; print(\"torch\", torch.__version__, \"cuda\", torch.version.cuda, \"available\", torch.cuda.is_available())" || echo "torch: not importable"
      uname -srm' || true
  fi

  # devices: the runner's view; with no usable GPU every GPU step is skipped with its reason.
  local no_gpu=""
  if step devices 90 "$runner" devices; then
    if ! grep -q '^cuda:[0-9]*: ' "$logs/devices.log"; then
      no_gpu=$(sed -n 's/^cuda: not available: //p' "$logs/devices.log" | head -n 1)
      no_gpu="no usable GPU: ${no_gpu:-runner devices lists none}"
    fi
  else
    no_gpu="runner devices failed (logs/devices.log)"
  fi

  # The data: the bundle's Fashion-MNIST (unpacked by the launcher above), else the config's.
  if [ -z "$data" ]; then
    for d in "$dir/payload/data/fashion-mnist" "$dir/data/fashion-mnist"; do
      if [ -d "$d" ]; then data=$d; break; fi
    done
  fi
  local data_set=()
  if [ -n "$data" ]; then data_set=(--set "dataset.root=$data"); fi
  local epochs_set=()
  if [ -n "$epochs" ]; then epochs_set=(--set "training.epochs=$epochs"); fi
  local lenet=$root/configs/lenet_fashion_mnist.yaml

  local gpu_steps=(tests)
  for p in $precisions; do gpu_steps+=("lenet-$p"); done
  gpu_steps+=(eval-cpu eval-pytorch resnet8 sweep bench architectures recipe)
  if [ -n "$no_gpu" ]; then
    for s in "${gpu_steps[@]}"; do wanted "$s" && skip "$s" "$no_gpu"; done
  else
    # backend_tests: the GPU cases (parity per layer and for ten LeNet steps, the held set,
    # determinism, checkpoints, profiling, the precisions, devices and memory, cuDNN's layer
    # kinds), the loss scaler's host side, and the tests that read golden files (the bundle
    # carries them: RUNNER_SOURCE_DIR).
    local filter='*Parity*:HeldSet*:Device*:GpuPrecision*:LossScale*:LayerSupport.*'
    filter+=':LabelSmoothing.*:OptimizerGolden.*:WeightedLoss.*'
    if wanted tests; then
      if [ -x "$backend_tests" ]; then
        step tests 150 "$backend_tests" --gtest_filter="$filter" \
          --gtest_output="json:$work/tests.json" || true
      else
        record tests failed 0 "" "no backend_tests in $dir"
      fi
    fi

    local first=${precisions%% *}
    if wanted "lenet-$first"; then
      step "lenet-$first" 120 "$runner" run "$lenet" --output "$work/runs/lenet-$first" \
        --set device=cuda --set "training.precision=$first" "${data_set[@]}" "${epochs_set[@]}" || true
    fi
    local report checkpoint
    report=$(report_of "lenet-$first")
    checkpoint=""
    if [ -n "$report" ] && [ -f "$report" ]; then
      checkpoint=$(python3 -c 'import json, sys; print((json.load(open(sys.argv[1])).get("checkpoint") or {}).get("path", ""))' "$report" || true)
      # The run's resolved config, for PyTorch (JSON is YAML).
      python3 -c 'import json, sys; print(json.dumps(json.load(open(sys.argv[1]))["config"]))' \
        "$report" > "$work/runs/lenet-resolved.json" || true
    fi
    if [ -z "$checkpoint" ] || [ ! -f "$checkpoint" ]; then
      wanted eval-cpu && skip eval-cpu "no checkpoint from lenet-$first"
      wanted eval-pytorch && skip eval-pytorch "no checkpoint from lenet-$first"
    else
      if wanted eval-cpu; then
        step eval-cpu 90 "$runner" eval "$lenet" --checkpoint "$checkpoint" \
          --output "$work/runs/eval-cpu" --set device=cpu "${data_set[@]}" || true
      fi
      if wanted eval-pytorch; then
        step eval-pytorch 90 python3 "$root/scripts/pytorch_peer.py" evaluate \
          "$work/runs/lenet-resolved.json" "$checkpoint" || true
      fi
    fi

    if wanted resnet8; then
      # The NVML sample: nvidia-smi every 200 ms while ResNet-8 trains (the runner samples NVML
      # itself too: its report's gpu.utilisation).
      local sampler=""
      if command -v nvidia-smi > /dev/null; then
        nvidia-smi --query-gpu=timestamp,utilization.gpu,memory.used,power.draw,clocks.sm \
          --format=csv,noheader,nounits -lms 200 > "$work/nvml.csv" 2> /dev/null &
        sampler=$!
      fi
      step resnet8 150 "$runner" run "$root/configs/resnet8_fashion_mnist.yaml" \
        --output "$work/runs/resnet8" --set device=cuda --set "training.epochs=$resnet_epochs" \
        "${data_set[@]}" || true
      if [ -n "$sampler" ]; then kill "$sampler" 2> /dev/null || true; wait "$sampler" 2> /dev/null || true; fi
    fi

    if wanted sweep; then
      step sweep 150 "$runner" sweep "$root/configs/sweeps/cpu_vs_gpu.yaml" \
        --output "$work/runs/sweep" || true
    fi

    if wanted bench; then
      step bench 200 "$root/scripts/bench.sh" --runner "$runner" --device cuda \
        --workloads lenet --batch-sizes 16 256 4096 --widths 1 --precisions fp32 tf32 \
        --repeats 2 --output "$work/runs/bench" || true
    fi

    if wanted architectures; then
      # The newer architectures, written with blocks: every kind they use on cuda, end to end.
      step architectures 150 bash -c 'runner=$1 out=$2; shift 2
        for config; do
          "$runner" bench "$config" --set device=cuda --steps 30 --warmup-steps 5 --quiet \
            --output "$out" || exit 1
        done' architectures "$runner" "$work/runs/architectures" \
        "$root/configs/bench/resnet18_cifar_synthetic.yaml" \
        "$root/configs/bench/mobilenetv2_cifar_synthetic.yaml" \
        "$root/configs/bench/vit_tiny_cifar_synthetic.yaml" || true
    fi

    if wanted recipe; then
      step recipe 60 "$runner" run "$root/configs/variants/lenet_fashion_mnist_full_recipe.yaml" \
        --output "$work/runs/recipe" --set device=cuda --set training.epochs=1 \
        --set 'training.ema={decay: 0.999, every: 8}' "${data_set[@]}" || true
    fi

    for p in ${precisions#"$first"}; do
      if wanted "lenet-$p"; then
        step "lenet-$p" 90 "$runner" run "$lenet" --output "$work/runs/lenet-$p" \
          --set device=cuda --set "training.precision=$p" "${data_set[@]}" "${epochs_set[@]}" || true
      fi
    done
  fi

  echo "== summary"
  local code=0
  python3 "$root/scripts/gpu_check_summary.py" "$work" "$out" || code=$?
  # Everything but checkpoints and plots: the logs, tests.json, nvml.csv and every report.
  tar -C "$work" --exclude='*.safetensors' --exclude='*.png' --exclude='*.svg' \
    -czf "$out/details.tar.gz" . || code=1
  echo "gpu_check: $out/summary.json, summary.md, details.tar.gz (of $work)"
  exit "$code"
}

case "${1:-}" in
  prepare) shift; prepare "$@" ;;
  run) shift; run "$@" ;;
  -h|--help) usage ;;
  "") usage >&2; exit 2 ;;
  --*) fail_usage "the check takes a command first: prepare, or run OUT_DIR (the old --out DIR is
  run's OUT_DIR, --root DIR is --bundle DIR, --no-tests is --skip tests)" ;;
  *) fail_usage "unknown command '$1': prepare or run" ;;
esac

#!/usr/bin/env bash
# The runner against its PyTorch peer on the same data and recipe, seed by seed: for each seed the
# runner trains CONFIG (with the --set overrides given) and scripts/pytorch_peer.py trains the
# same network from the same resolved config (same files, recipe, seed), 1 thread each, the two
# side by side. Writes OUT_DIR/NAME_seedN.report.json (the runner's reports),
# OUT_DIR/pytorch.jsonl (the peer's lines) and prints a Markdown table of test accuracies.
#
# Usage: scripts/accuracy_vs_pytorch.sh OUT_DIR CONFIG [--seeds "0 1 2"] [--set KEY=VALUE]...
# Needs a built runner (RUNNER, default build/runner) and /usr/bin/python3 with torch and yaml.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
runner=${RUNNER:-$here/../build/runner}
python=${PYTHON:-/usr/bin/python3}
out=$1
config=$2
shift 2
seeds="0 1 2"
overrides=()
while [ $# -gt 0 ]; do
  case $1 in
    --seeds) seeds=$2; shift 2 ;;
    --set) overrides+=(--set "$2"); shift 2 ;;
    *) echo "accuracy_vs_pytorch.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$out"
name=$(basename "$config" .yaml)
runs=$(mktemp -d)
trap 'rm -rf "$runs"' EXIT

for seed in $seeds; do
  settings=("${overrides[@]}" --set "seed=$seed" --set training.threads=1 --set device=cpu)
  # The peer reads the resolved config (overrides and defaults exactly as the runner trains).
  "$runner" describe "$config" "${settings[@]}" --json |
    "$python" -c 'import json, sys; print(json.dumps(json.load(sys.stdin)["config"]))' \
      > "$runs/config$seed.json"
  "$runner" run "$config" "${settings[@]}" --output "$runs/seed$seed" --quiet &
  runner_pid=$!
  RUNNER=$runner "$python" "$here/pytorch_peer.py" train "$runs/config$seed.json" --seed "$seed" \
    --threads 1 | tail -n 1 >> "$out/pytorch.jsonl"
  wait "$runner_pid"
  cp "$(find "$runs/seed$seed" -name report.json | head -n 1)" "$out/${name}_seed$seed.report.json"
done

"$python" - "$out" "$name" "$seeds" <<'EOF'
import json, os, statistics, sys
out, name, seeds = sys.argv[1], sys.argv[2], sys.argv[3].split()
reports = [json.load(open(os.path.join(out, f"{name}_seed{s}.report.json")))["metrics"]
           for s in seeds]
peer = [json.loads(line) for line in open(os.path.join(out, "pytorch.jsonl"))][-len(seeds):]
rows = [("runner", [r["test_accuracy"] for r in reports]),
        ("PyTorch (`pytorch_peer.py`)", [p["test_accuracy"] for p in peer])]
if all("test_ema_accuracy" in r for r in reports):  # training.ema: the average's too
    rows += [("runner, weights EMA", [r["test_ema_accuracy"] for r in reports]),
             ("PyTorch, weights EMA", [p["test_ema_accuracy"] for p in peer])]
print("| | " + " | ".join(f"seed {s}" for s in seeds) + " | mean |")
print("|---" * (len(seeds) + 2) + "|")
for label, values in rows:
    cells = " | ".join(f"{100 * v:.2f} %" for v in values)
    print(f"| {label} | {cells} | **{100 * statistics.mean(values):.2f} %** |")
EOF

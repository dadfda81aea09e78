#!/usr/bin/env bash
# How fast `runner runs` answers over many runs: writes N run folders (copies of one real report,
# each with its own lr, batch size, status and figures) under a temporary folder, then times the
# same query three times: the first reads every report and builds the index, the next two answer
# from it. Prints the three wall times.
#
# Usage: scripts/runs_query_rate.sh [N]   (default 10000; needs a built runner, /usr/bin/python3)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
runner=${RUNNER:-$here/../build/runner}
count=${1:-10000}
work=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT; echo "work: $work" >&2
"$runner" "$here/../configs/tiny_synthetic.yaml" --quiet --set training.threads=1 \
  --output "$work/real" > /dev/null
report=$(find "$work/real" -name report.json | head -n 1)
/usr/bin/python3 - "$report" "$work/results" "$count" <<'PY'
import json, os, random, sys
report, out, count = json.load(open(sys.argv[1])), sys.argv[2], int(sys.argv[3])
rng = random.Random(0)
for i in range(count):
    r = dict(report)
    r["config"] = json.loads(json.dumps(report["config"]))
    r["config"]["training"]["optimizer"]["lr"] = 10 ** rng.uniform(-4, -1)
    r["config"]["training"]["batch_size"] = rng.choice([16, 32, 64, 128])
    r["metrics"] = dict(report["metrics"], val_accuracy=rng.random(), test_accuracy=rng.random())
    r["status"] = rng.choice(["completed"] * 9 + ["diverged"])
    folder = os.path.join(out, f"sweep{i // 100}", f"point{i % 100}")
    os.makedirs(folder)
    with open(os.path.join(folder, "report.json"), "w") as f:
        json.dump(r, f)
PY
export XDG_CACHE_HOME=$work/cache
for attempt in first second third; do
  start=$(date +%s.%N)
  "$runner" runs "$work/results" --where 'training.optimizer.lr < 0.01 and status == completed' \
    --sort=-val_accuracy --limit 5 > /dev/null 2> "$work/counts"
  end=$(date +%s.%N)
  printf '%s query: %.2f s (%s)\n' "$attempt" "$(echo "$end - $start" | bc)" "$(tail -n 1 "$work/counts")"
done

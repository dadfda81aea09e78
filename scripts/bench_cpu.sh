#!/usr/bin/env bash
# `make bench`: the runner-vs-PyTorch benchmark suite on this machine's CPU (see scripts/bench_cpu.py).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! /usr/bin/python3 -c 'import torch' 2>/dev/null; then
  echo "PyTorch is missing for /usr/bin/python3: run 'make bench-deps' first" >&2
  exit 2
fi
exec /usr/bin/python3 scripts/bench_cpu.py "$@"

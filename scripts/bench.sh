#!/usr/bin/env bash
# `make bench` / `make bench-gpu`: the runner-vs-PyTorch benchmark suite (see scripts/bench.py),
# with the first Python that has PyTorch: $PYTHON, Debian's /usr/bin/python3 (python3-torch), or
# the python3 on PATH (the GPU machine's environment).
set -euo pipefail
cd "$(dirname "$0")/.."
for python in ${PYTHON:-} /usr/bin/python3 python3; do
  if "$python" -c 'import torch' 2>/dev/null; then
    exec "$python" scripts/bench.py --python "$python" "$@"
  fi
done
echo "PyTorch is missing (tried \$PYTHON, /usr/bin/python3, python3): run 'make bench-deps' first" >&2
exit 2

#!/usr/bin/env bash
# Writes the test times ctest measured in a build tree back to tests/ctest_costs.txt, the cost
# data a fresh tree starts from (longest tests first). Usage: scripts/update_test_costs.sh [BUILD]
# after a complete `ctest` run there (CI's plain build: `make test`).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
costs=$build/Testing/Temporary/CTestCostData.txt
[ -f "$costs" ] || { echo "update_test_costs.sh: no $costs (run ctest there first)" >&2; exit 1; }
# One line per test: its name (which may hold spaces), the runs and the mean time in seconds;
# ctest's list of failed tests after '---' is left out, and so are tests the tree no longer has
# (the tree's file keeps every name it ever timed).
current=$(mktemp)
trap 'rm -f "$current"' EXIT
(cd "$build" && ctest -N) | sed -n 's/^ *Test *#[0-9]*: //p' | sort -u > "$current"
sed -n '/^---$/q; p' "$costs" |
  awk 'NR == FNR { keep[$0] = 1; next } { name = $0; sub(/ [^ ]+ [^ ]+$/, "", name) } keep[name]' \
    "$current" - | sort > "$root/tests/ctest_costs.txt"
echo "tests/ctest_costs.txt: $(wc -l < "$root/tests/ctest_costs.txt") tests"

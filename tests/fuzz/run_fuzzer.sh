#!/usr/bin/env bash
# `make fuzz`: runs one fuzz target for a bounded time from its seed corpus and fails on any
# crash, sanitizer report, leak, timeout (10 s for one input) or out-of-memory (2 GiB); libFuzzer
# exits non-zero and leaves the input under WORK_DIR/artifacts.
# Usage: run_fuzzer.sh FUZZER SECONDS WORK_DIR. FUZZER is build-sanitize/NAME_fuzzer; its seeds are
# tests/fuzz/corpus-NAME and its dictionary tests/fuzz/NAME.dict. New inputs go to
# WORK_DIR/corpus (kept between runs); tests/fuzz/corpus-NAME holds the seeds only.
# FUZZ_RUNS=N stops after N inputs (SECONDS stays a cap). FUZZ_SEED=S (not 0) makes the run the
# same on every machine: it starts from the seeds alone (WORK_DIR/corpus emptied first) and
# mutates with random seed S, so a seeded run of N inputs that passes here passes in CI.
set -euo pipefail
fuzzer=$1
seconds=$2
work=$3
runs=${FUZZ_RUNS:--1}
seed=${FUZZ_SEED:-0}
here=$(cd "$(dirname "$0")" && pwd)
name=$(basename "$fuzzer" _fuzzer)
if [ "$seed" != 0 ]; then rm -rf "$work/corpus"; fi
mkdir -p "$work/corpus" "$work/artifacts"
echo "run_fuzzer.sh: $name for $seconds s at most, runs=$runs seed=$seed"
"$fuzzer" "$work/corpus" "$here/corpus-$name" -dict="$here/$name.dict" \
  -max_total_time="$seconds" -runs="$runs" -seed="$seed" -timeout=10 -rss_limit_mb=2048 \
  -max_len=65536 -artifact_prefix="$work/artifacts/" -print_final_stats=1

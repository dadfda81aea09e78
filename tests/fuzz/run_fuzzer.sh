#!/usr/bin/env bash
# `make fuzz`: runs config_fuzzer for a bounded time from the seed corpus and fails on any crash,
# sanitizer report, timeout (10 s for one input) or out-of-memory (2 GiB); libFuzzer exits
# non-zero and leaves the input under WORK_DIR/artifacts. Usage: run_fuzzer.sh FUZZER SECONDS WORK_DIR
# New inputs go to WORK_DIR/corpus (kept between runs); tests/fuzz/corpus holds the seeds only.
set -euo pipefail
fuzzer=$1
seconds=$2
work=$3
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work/corpus" "$work/artifacts"
"$fuzzer" "$work/corpus" "$here/corpus" -dict="$here/config.dict" -max_total_time="$seconds" \
  -timeout=10 -rss_limit_mb=2048 -max_len=65536 -artifact_prefix="$work/artifacts/" \
  -print_final_stats=1

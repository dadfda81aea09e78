#!/usr/bin/env bash
# `make check-sanitize`: the test suite and a short training run on the build made with
# -fsanitize=address,undefined (RUNNER_SANITIZE=ON). Usage: tests/sanitize/check.sh BUILD_DIR
#
# Every AddressSanitizer and LeakSanitizer report goes to a log file under BUILD_DIR/sanitizer-logs,
# also those of runner processes that a test starts and whose failure it expects: the check fails
# when any log exists, so no such finding hides behind a test that accepts a non-zero exit.
# UBSan (GCC's libubsan ignores log_path) prints to stderr and ends the process with exit 1.
set -euo pipefail
build=$(cd "$1" && pwd)
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
logs=$build/sanitizer-logs
rm -rf "$logs" "$build/sanitize-run"
mkdir -p "$logs"

export ASAN_OPTIONS="detect_leaks=1:check_initialization_order=1:strict_init_order=1:log_path=$logs/asan"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

status=0
# Left out, not loosened: timings mean nothing under the sanitizers; and a test that caps its
# address space (RLIMIT_AS) cannot run where ASan reserves terabytes of shadow address space.
# So are the long end-to-end tests of tests/sanitize/long_tests.txt (CI's time limit).
excluded_names="Bench.PerLayerTimesMakeUpTheProfileAndRoughlyTheStep
Precision.AnEmulatedBf16IsMeasuredSlowerAndRunAndBenchSaySo
BatchLoader.ThreadsThatCannotStartAreAUserErrorNotAnAbort
ComputeThreads.ThreadsThatCannotStartAreAUserErrorNamingTheField
ConfigLimits.RunningOutOfMemoryWhileResolvingBlamesTheConfig
ImageSet.RunningOutOfMemoryWhileDecodingNamesTheFileAndSkipsNothing
$(grep -v '^#' "$source_dir/tests/sanitize/long_tests.txt")"
# Each name literal (regex characters escaped: parameterised names hold "()" and quotes).
excluded="^($(echo "$excluded_names" | grep . | sed 's/[][\.*^$()+?{}|]/\\&/g' | paste -sd'|'))\$"
# A renamed test would silently run again (a timing under the sanitizers): every name must exist.
listed=$(cd "$build" && ctest -N | sed -n 's/^ *Test *#[0-9]*: //p')
while read -r name; do
  if [ -n "$name" ] && ! grep -qxF "$name" <<<"$listed"; then
    echo "check-sanitize: $name is left out, but no test has that name" >&2
    status=1
  fi
done <<<"$excluded_names"
(cd "$build" && ctest --output-on-failure -j "${JOBS:-$(nproc)}" -E "$excluded") || status=1

# A short training run end to end: data, training, checkpoint, report, then the checkpoint read back.
run=$build/sanitize-run
"$build/runner" run "$source_dir/configs/tiny_synthetic.yaml" --output "$run" --quiet \
  --set training.epochs=1 --set checkpoint.path=tiny.safetensors || status=1
checkpoint=$(find "$run" -name tiny.safetensors | head -n 1)
if [ -z "$checkpoint" ]; then
  echo "check-sanitize: the training run wrote no checkpoint" >&2
  status=1
else
  "$build/runner" eval "$source_dir/configs/tiny_synthetic.yaml" --checkpoint "$checkpoint" \
    --output "$run" --quiet || status=1
fi

if compgen -G "$logs/*" >/dev/null; then
  echo "check-sanitize: sanitizer findings:" >&2
  for log in "$logs"/*; do
    echo "== $log" >&2
    cat "$log" >&2
  done
  status=1
fi
[ "$status" = 0 ] && echo "check-sanitize: clean (tests and a training run under ASan and UBSan)"
exit "$status"

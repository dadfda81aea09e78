// Counting statuses into the sweep's last line and exit code.
#include "runner/sweep/sweep_tally.h"

#include <fmt/format.h>

#include <vector>

namespace runner {
namespace {

int total(const SweepTally& tally) {
  int n = 0;
  for (const auto& [status, count] : tally.counts) n += count;
  return n;
}

int count_of(const SweepTally& tally, RunStatus status) {
  auto it = tally.counts.find(status);
  return it == tally.counts.end() ? 0 : it->second;
}

}  // namespace

std::string tally_line(const std::string& sweep_name, const SweepTally& tally) {
  std::vector<std::string> parts, not_completed;
  for (const auto& [status, count] : tally.counts) {
    parts.push_back(fmt::format("{} {}", count, status_name(status)));
    if (!ended_as_planned(status))
      not_completed.push_back(fmt::format("{} {}", count, status_name(status)));
  }
  std::string line = fmt::format("sweep {}: {} ({} run now, {} skipped as done)", sweep_name,
                                 fmt::join(parts, ", "), tally.ran, tally.skipped);
  const int missed = total(tally) - count_of(tally, RunStatus::completed) -
                     count_of(tally, RunStatus::stopped_early);
  if (missed > 0) {
    line += fmt::format("; {} of {} points did not complete ({})", missed, total(tally),
                        fmt::join(not_completed, ", "));
  }
  if (tally.interrupted) return line + "; interrupted: run it again to resume";
  if (tally.stopped) return line + "; stopped at the first failure (--fail-fast)";
  return line;
}

int sweep_exit_code(const SweepTally& tally) {
  if (tally.interrupted) return 130;
  const int n = total(tally);
  if (tally.stopped) return 1;  // the points after it were not tried: "all invalid" is unknown
  if (n > 0 && count_of(tally, RunStatus::invalid) == n) return 2;
  if (count_of(tally, RunStatus::completed) + count_of(tally, RunStatus::stopped_early) == 0)
    return 1;
  return 0;
}

}  // namespace runner

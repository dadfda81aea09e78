// Remembering each error shown once, and where.
#include "runner/sweep/result_lines.h"

#include <fmt/format.h>

namespace runner {

SweepResultLines::SweepResultLines(const std::vector<PlannedPoint>& plan) : plan_(plan) {
  for (const PlannedPoint& p : plan) {
    for (const std::string& error : {p.error, p.device_problem}) {
      if (!error.empty()) shown_.emplace(error, "as in the plan's warnings above");
    }
  }
}

std::string SweepResultLines::line(std::size_t index, const PointRun& run) {
  const std::string head =
      fmt::format("[{}/{}] {}: ", index + 1, plan_.size(), plan_[index].point.id);
  const std::string error = run.report.error.value_or("");
  if (ended_as_planned(run.status) || error.empty()) return head + result_line(run);
  auto [it, first] = shown_.emplace(error, fmt::format("as point {}", index + 1));
  if (first) return head + result_line(run);
  return head + fmt::format("{}: the same error {}", status_name(run.status), it->second);
}

}  // namespace runner

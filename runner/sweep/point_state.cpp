// Reading a point's previous report to decide whether it runs again.
#include "runner/sweep/point_state.h"

#include <nlohmann/json.hpp>

#include "runner/report/read_report.h"
#include "runner/train/run_status.h"
#include "runner/util/bounded_json.h"

namespace runner {
namespace {

nlohmann::json read_report(const std::filesystem::path& path) {
  nlohmann::json report = read_json_leniently(path);
  return report.is_object() ? report : nlohmann::json();
}

}  // namespace

PointState point_state(const std::filesystem::path& report_path, const PlannedPoint& planned) {
  nlohmann::json report = read_report(report_path);
  if (report.is_null()) return PointState::missing;
  // Fields of another type are read as missing, never as a raw nlohmann::json type_error.
  const std::optional<RunStatus> status = parse_run_status(text_at(report, "/status"));
  if (!status || !ended_as_planned(*status)) {
    return PointState::unfinished;
  }
  std::string sha = text_at(report, "/sweep_point/point_sha256");
  if (!planned.valid || sha != planned.point_sha) return PointState::changed;
  return *status == RunStatus::stopped_early ? PointState::stopped_early : PointState::complete;
}

std::string describe_state(PointState state, const std::filesystem::path& report_path, bool force) {
  switch (state) {
    case PointState::missing:
      return "new";
    case PointState::complete:
      return force ? "rerun: --force" : "done: skipped";
    case PointState::stopped_early:
      return force ? "rerun: --force" : "done: stopped early at a rung (asha)";
    case PointState::unfinished: {
      std::string status = text_at(read_report(report_path), "/status");
      return "rerun: was " + (status.empty() ? "unreadable" : status);
    }
    case PointState::changed:
      return "rerun: config or settings changed";
  }
  return "";
}

}  // namespace runner

// Reading a point's previous report to decide whether it runs again.
#include "runner/sweep/point_state.h"

#include "runner/report/read_report.h"
#include "runner/train/run_status.h"

namespace runner {

PointState point_state(const std::filesystem::path& report_path, const PlannedPoint& planned) {
  const std::optional<RunRecord> report = read_record_leniently(report_path);
  if (!report) return PointState::missing;
  // Fields of another type are read as missing, never as a raw nlohmann::json type_error.
  if (!report->status || !ended_as_planned(*report->status)) return PointState::unfinished;
  const auto sha = field_of(report->sweep_point, &RecordSweepPoint::point_sha256);
  if (!planned.valid || sha != planned.point_sha) return PointState::changed;
  return *report->status == RunStatus::stopped_early ? PointState::stopped_early
                                                     : PointState::complete;
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
      const std::optional<RunRecord> report = read_record_leniently(report_path);
      const bool has_status = report && report->status;
      return "rerun: was " +
             (has_status ? status_name(*report->status) : std::string("unreadable"));
    }
    case PointState::changed:
      return "rerun: config or settings changed";
  }
  return "";
}

}  // namespace runner

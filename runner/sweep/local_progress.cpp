#include "runner/sweep/local_progress.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace runner {

const char* status_name(LocalPointStatus status) {
  switch (status) {
    case LocalPointStatus::completed:  // the run's own words for the two ends as planned
      return status_name(RunStatus::completed);
    case LocalPointStatus::stopped_early:
      return status_name(RunStatus::stopped_early);
    case LocalPointStatus::failed:
      return status_name(RunStatus::failed);
    case LocalPointStatus::running:
      return "running";
    case LocalPointStatus::waiting:
      return "waiting";
    case LocalPointStatus::not_run:
      return "not_run";
  }
  return "";
}

LocalJudgement judge_local_point(const LocalPointEvidence& e) {
  if (e.report.is(RunStatus::completed) && e.report_of_plan) {
    return {LocalPointStatus::completed, ""};
  }
  if (e.report.is(RunStatus::stopped_early) && e.report_of_plan) {
    return {LocalPointStatus::stopped_early, e.report_error};
  }
  if (e.report.is(RunStatus::running)) {  // a live report: the run trains, or was killed
    if (e.sweep_running) return {LocalPointStatus::running, e.progress};
    return {LocalPointStatus::not_run,
            "was killed while running" + (e.progress.empty() ? "" : " (at " + e.progress + ")")};
  }
  const bool failed =
      e.report.exists() && !e.report.ended_as_planned() && !e.report.is(RunStatus::interrupted);
  if (failed) {
    return {LocalPointStatus::failed,
            e.report.text() + (e.report_error.empty() ? "" : ": " + e.report_error)};
  }
  const std::string detail = e.report.is(RunStatus::interrupted) ? "was interrupted"
                             : e.report.ended_as_planned()       ? "report of another plan"
                                                                 : "";
  if (!e.sweep_running) return {LocalPointStatus::not_run, detail};
  // A report that is there was written before this sweep reached the point again.
  if (e.folder_exists && !e.report.exists()) return {LocalPointStatus::running, ""};
  return {LocalPointStatus::waiting, detail};
}

std::optional<double> time_left(std::vector<double> completed_seconds, int left, int at_once) {
  if (completed_seconds.empty()) return std::nullopt;
  std::sort(completed_seconds.begin(), completed_seconds.end());
  const std::size_t n = completed_seconds.size();
  const double median = n % 2 ? completed_seconds[n / 2]
                              : (completed_seconds[n / 2 - 1] + completed_seconds[n / 2]) / 2;
  return median * left / std::max(at_once, 1);
}

std::string duration_text(double seconds) {
  const long total = std::lround(std::max(seconds, 0.0));
  if (total >= 3600) return fmt::format("{} h {:02} min", total / 3600, total % 3600 / 60);
  if (total >= 60) return fmt::format("{} min", (total + 30) / 60);
  return fmt::format("{} s", total);
}

std::string live_progress_text(const std::optional<RecordProgress>& progress) {
  if (!progress || !progress->epochs_done) return "";
  std::string text =
      fmt::format("epoch {} of {}", *progress->epochs_done, progress->epochs_planned.value_or(0));
  if (progress->seconds_left) text += ", about " + duration_text(*progress->seconds_left) + " left";
  return text;
}

}  // namespace runner

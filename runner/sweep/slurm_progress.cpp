// Judging a Slurm-run point from its report and its task's state.
#include "runner/sweep/slurm_progress.h"

#include <fmt/format.h>

#include "runner/sweep/slurm_states.h"

namespace runner {

const char* status_name(SlurmPointStatus status) {
  switch (status) {
    case SlurmPointStatus::not_submitted:
      return "not_submitted";
    case SlurmPointStatus::pending:
      return "pending";
    case SlurmPointStatus::running:
      return "running";
    case SlurmPointStatus::completed:  // the run's own words for the two ends as planned
      return status_name(RunStatus::completed);
    case SlurmPointStatus::stopped_early:
      return status_name(RunStatus::stopped_early);
    case SlurmPointStatus::failed:
      return status_name(RunStatus::failed);
  }
  return "";
}

PointJudgement judge_point(const PointEvidence& e) {
  if (e.report.is(RunStatus::completed) && e.report_of_plan) {
    return {SlurmPointStatus::completed, ""};
  }
  if (e.report.is(RunStatus::stopped_early) && e.report_of_plan) {
    return {SlurmPointStatus::stopped_early, e.report_error};
  }
  std::string report = !e.report.exists() ? "no report"
                       : !e.report.is(RunStatus::completed)
                           ? fmt::format("report: {}{}", e.report.text(),
                                         e.report_error.empty() ? "" : ": " + e.report_error)
                           : "report: of another plan";
  if (e.job_id.empty()) return {SlurmPointStatus::not_submitted, report};
  if (e.slurm_state) {
    TaskPhase phase = task_phase(*e.slurm_state);
    if (phase == TaskPhase::pending) return {SlurmPointStatus::pending, *e.slurm_state};
    if (phase == TaskPhase::running) {
      return {SlurmPointStatus::running,
              *e.slurm_state + (e.progress.empty() ? "" : "; " + e.progress)};
    }
    return {SlurmPointStatus::failed, fmt::format("Slurm: {}; {}", *e.slurm_state, report)};
  }
  return {SlurmPointStatus::failed, fmt::format("Slurm no longer knows the task; {}", report)};
}

}  // namespace runner

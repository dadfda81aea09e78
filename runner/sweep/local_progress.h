// Where each point of a sweep run on this machine (no Slurm record) stands, from its folder and
// report and whether the sweep is running now, and how long the rest should take.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "runner/report/run_record.h"
#include "runner/train/run_status.h"

namespace runner {

// completed: its report is complete and of the current plan; stopped_early: ASHA stopped it at a
// rung (done, as planned); failed: its report says it failed,
// diverged, ran out of memory or was invalid; running: the sweep runs now and the point's folder
// exists without a report; waiting: the sweep runs now and has not reached it; not_run: nothing
// runs it now (the next `runner sweep` does: not started, interrupted, or made from another plan).
enum class LocalPointStatus { completed, stopped_early, failed, running, waiting, not_run };

const char* status_name(LocalPointStatus status);

struct LocalPointEvidence {
  ReportedStatus report;        // what its report says (none when there is no report)
  std::string report_error;     // the report's error, if any
  bool report_of_plan = false;  // its point_sha256 is the plan's
  bool folder_exists = false;   // the point's folder is there
  bool sweep_running = false;   // a sweep holds the folder's lock now
  std::string progress;         // a live report's place: live_progress_text ("" else)
};

struct LocalJudgement {
  LocalPointStatus status;
  std::string detail;  // the report's status and error, for points not completed ("" else)
};

LocalJudgement judge_local_point(const LocalPointEvidence& evidence);

// Seconds until the points `left` are done: the completed points' median run time, times the
// points left, over the points that run at once (at least 1). None without a completed point.
std::optional<double> time_left(std::vector<double> completed_seconds, int left, int at_once);

// "3 h 05 min", "12 min", "40 s".
std::string duration_text(double seconds);

// A running run's place from its live report: "epoch 3 of 20, about 41 s left" ("" without
// progress).
std::string live_progress_text(const std::optional<RecordProgress>& progress);

}  // namespace runner

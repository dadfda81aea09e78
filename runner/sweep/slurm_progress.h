// Where each point of a sweep submitted to Slurm stands, from what its report says and what Slurm
// says of its array task.
#pragma once

#include <optional>
#include <string>

#include "runner/train/run_status.h"

namespace runner {

// not_submitted: in no recorded job and not completed (a later resubmission runs it);
// pending: its task waits in the queue; running: its task runs; completed: its report is complete
// (status completed, made from the plan as submitted); stopped_early: ASHA stopped it at a rung
// (done, as planned); failed: its task ended without that (the point failed, or the task was
// cancelled, hit its time limit, ran out of memory, lost its node).
enum class SlurmPointStatus { not_submitted, pending, running, completed, stopped_early, failed };

const char* status_name(SlurmPointStatus status);

struct PointEvidence {
  ReportedStatus report;                   // what its report says (none when there is none)
  std::string report_error;                // the report's error, if any
  std::string progress;                    // a live report's place (live_progress_text)
  bool report_of_plan = false;             // the report's point_sha256 is the submitted plan's
  std::string job_id;                      // the newest job that ran or runs the point; "" for none
  std::optional<std::string> slurm_state;  // its task's state; none when Slurm no longer knows it
};

struct PointJudgement {
  SlurmPointStatus status;
  std::string detail;  // why, for failed points and the Slurm state for others ("" when none)
};

PointJudgement judge_point(const PointEvidence& evidence);

}  // namespace runner

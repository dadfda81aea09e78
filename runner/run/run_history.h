// One history across resumes: `runner run CONFIG --resume CHECKPOINT` without --output goes on
// in the run folder that holds the checkpoint, and the reports it writes there (live and final)
// carry the earlier stretches' epochs and curves up to the checkpoint's epoch, each epoch once,
// and a `segments` list of every stretch: one run, one page, one curve, as Lightning's
// `ckpt_path` or W&B's `resume` continue a run.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "runner/report/run_record.h"

namespace runner {

class RunHistory {
 public:
  // The run folder holding `checkpoint`: the nearest folder above it (at most eight levels) with
  // a train report whose run wrote that file (its checkpoint block or checkpoint.path names it);
  // its history up to `epochs_done`. nullopt when the checkpoint is in no run folder (an
  // absolute checkpoint.path elsewhere): the resumed run then gets a new folder. A
  // report there that cannot be read is an error naming it (a new folder would hide the run).
  static std::optional<RunHistory> of_checkpoint(const std::filesystem::path& checkpoint,
                                                 int epochs_done);

  const std::filesystem::path& run_dir() const { return run_dir_; }

  // "" when the report held every epoch up to the checkpoint's; else which it lacks (a killed
  // run's live report is written at most once a second, so its last epochs may be missing).
  std::string missing_epochs() const;

  // `record` (this stretch's report: its epochs, curves, status and times) with the earlier
  // epochs and curve points in front, the first stretch's start as its start, and the segments
  // (this one last, ended as record.status says).
  void complete(RunRecord& record) const;

 private:
  std::filesystem::path run_dir_;
  int epochs_done_ = 0;                 // the checkpoint's: later epochs are trained again
  std::vector<RecordEpoch> epochs_;     // the earlier ones, up to epochs_done_
  std::vector<RecordLossPoint> train_;  // likewise, the curves' points
  std::vector<RecordEvalPoint> test_, validation_;
  std::vector<RecordSegment> segments_;  // the earlier stretches
  // The compute threads' story, for `reproduce` to replay: the earlier stretches' changes before
  // the resumed step, the count the run started with and the count in use at that step.
  std::vector<RecordThreadChange> thread_changes_;
  std::optional<int> first_threads_, threads_at_resume_;
  std::optional<std::int64_t> resume_step_;  // none: the report lacks the checkpoint's epoch
};

}  // namespace runner

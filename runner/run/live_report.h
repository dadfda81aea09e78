// The live report of a training run: after every epoch its report.json is rewritten (atomically,
// as every report) with status `running`, the epochs so far, their curves and the time left, and
// with report.html its page too, which then reloads itself; so `runner report RUN_DIR`, `runner
// runs`, a sweep's status and a browser follow a run while it trains. The final report replaces
// it. A write that fails is a warning (once), never the run's end; epochs shorter than a second
// are written at most once a second.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "runner/report/run_record.h"
#include "runner/run/run_history.h"
#include "runner/train/step_times.h"  // SteadyClock
#include "runner/train/trainer.h"
#include "runner/util/console.h"

namespace runner {

class LiveReport {
 public:
  // Draws the page from a record beside its report file (the run's PageWriter), or empty.
  using DrawPage = std::function<void(const RunRecord&, const std::filesystem::path&)>;

  // head: the report's fixed part (config, environment, data, model, times started).
  // history: a run resumed in its own folder, whose earlier stretches lead its record (or null).
  // threads: the steps' compute threads, whose changes so far the record carries (a killed
  // run's last record is then replayable), or null.
  LiveReport(RunRecord head, std::filesystem::path run_dir, int epochs_planned,
             SteadyClock::time_point started, DrawPage draw_page, const RunHistory* history,
             const StepThreads* threads, Console& console);

  // After an epoch (the trainer's progress hook): the record of the run so far, written.
  void update(const TrainingOutcome& so_far);

  // The record update() writes (for tests: what a reader will find).
  RunRecord record(const TrainingOutcome& so_far) const;

  // The run ended by an exception (`why`) before its final report: the last live record is
  // rewritten as failed with that error, so nothing keeps saying it runs. Never throws.
  void abandon(const std::string& why) noexcept;

 private:
  RunRecord head_;
  std::filesystem::path run_dir_;
  int epochs_planned_;
  SteadyClock::time_point started_;
  DrawPage draw_page_;
  const RunHistory* history_;
  const StepThreads* threads_;
  Console& console_;
  std::optional<RunRecord> last_;  // the last record written
  bool warned_ = false;
  std::optional<SteadyClock::time_point> last_written_;  // none before the first write
};

}  // namespace runner

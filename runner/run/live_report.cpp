// The live report: the run so far as a record with status running, written after every epoch.
#include "runner/run/live_report.h"

#include <fmt/format.h>

#include <algorithm>

#include "runner/report/curves.h"
#include "runner/report/environment.h"
#include "runner/report/report.h"

namespace runner {

LiveReport::LiveReport(RunRecord head, std::filesystem::path run_dir, int epochs_planned,
                       SteadyClock::time_point started, DrawPage draw_page,
                       const RunHistory* history, const StepThreads* threads, Console& console)
    : head_(std::move(head)),
      run_dir_(std::move(run_dir)),
      epochs_planned_(epochs_planned),
      started_(started),
      draw_page_(std::move(draw_page)),
      history_(history),
      threads_(threads),
      console_(console) {}

RunRecord LiveReport::record(const TrainingOutcome& so_far) const {
  RunRecord report = head_;
  report.status = RunStatus::running;
  report.epochs = epoch_records(so_far.epochs);
  report.curves = curves_record(so_far);
  report.finished_at = timestamp_now();  // when this record was written
  RecordProgress progress;
  const int done = so_far.epochs.empty() ? 0 : so_far.epochs.back().epoch;
  progress.epochs_done = done;
  progress.epochs_planned = epochs_planned_;
  const double elapsed = seconds_since(started_);
  progress.elapsed_seconds = elapsed;
  // The epochs this process ran (a resumed run's earlier ones are not in its time).
  const int ran = static_cast<int>(so_far.epochs.size());
  if (ran > 0) {
    double spent = so_far.evaluation_seconds + so_far.checkpoint_seconds;
    for (const EpochRecord& epoch : so_far.epochs) spent += epoch.seconds;
    const double per_epoch = spent / ran;
    progress.seconds_left = std::max(0, epochs_planned_ - done) * per_epoch;
  }
  report.progress = progress;
  if (threads_) report.cpu = cpu_record(so_far, *threads_);  // before the history merges changes
  if (history_) history_->complete(report);
  return report;
}

void LiveReport::update(const TrainingOutcome& so_far) {
  if (so_far.epochs.empty()) return;
  // Epochs of a few milliseconds would spend their time writing: at most one write a second.
  const auto now = SteadyClock::now();
  if (last_written_ && now - *last_written_ < std::chrono::seconds(1)) return;
  last_written_ = now;
  try {
    last_ = record(so_far);
    const std::filesystem::path file = write_report(run_dir_, *last_);
    if (draw_page_) draw_page_(*last_, file);
  } catch (const std::exception& e) {
    if (!warned_) {
      console_.warning(
          fmt::format("the live report was not written: {} (the run goes on; its "
                      "final report is written at the end)",
                      e.what()));
      warned_ = true;
    }
  }
}

void LiveReport::abandon(const std::string& why) noexcept {
  if (!last_) return;
  try {
    RunRecord report = std::move(*last_);
    last_.reset();
    report.status = RunStatus::failed;
    report.error = why;
    report.progress.reset();
    report.finished_at = timestamp_now();
    if (report.segments && !report.segments->empty()) {
      report.segments->back().ended = status_name(RunStatus::failed);
      report.segments->back().finished_at = report.finished_at;
    }
    const std::filesystem::path file = write_report(run_dir_, report);
    if (draw_page_) draw_page_(report, file);
  } catch (...) {
    // Already failing: the error that ended the run is the one to report.
  }
}

}  // namespace runner

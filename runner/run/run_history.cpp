// A resumed run's earlier stretches, read from the report in its folder and put in front of its
// own epochs and curves.
#include "runner/run/run_history.h"

#include <fmt/format.h>

#include <algorithm>

#include "runner/report/read_report.h"
#include "runner/train/epoch_checkpoints.h"

namespace runner {
namespace {

// The folders above a checkpoint that may be its run's: checkpoint.path is relative to the run
// folder, usually a file in it or a level or two down.
constexpr int kLevelsUp = 8;

// Keeps the entries of epochs up to `last`: the checkpoint's later ones are trained again.
template <class Point>
std::vector<Point> up_to_epoch(const std::optional<std::vector<Point>>& points, int last) {
  std::vector<Point> kept;
  if (!points) return kept;
  for (const Point& p : *points) {
    if (p.epoch && *p.epoch <= last) kept.push_back(p);
  }
  return kept;
}

template <class Point>
void put_in_front(const std::vector<Point>& earlier, std::optional<std::vector<Point>>& points) {
  if (earlier.empty()) return;
  std::vector<Point> all = earlier;
  if (points) all.insert(all.end(), points->begin(), points->end());
  points = std::move(all);
}

int last_epoch(const std::optional<std::vector<RecordEpoch>>& epochs, int otherwise) {
  if (!epochs || epochs->empty() || !epochs->back().epoch) return otherwise;
  return *epochs->back().epoch;
}

// The stretch a report describes (its own start, end and command).
RecordSegment segment_of(const RunRecord& report) {
  RecordSegment s;
  s.started_at = report.started_at;
  s.finished_at = report.finished_at;
  // A report left running is a process that ended without writing its final one.
  s.ended = report.status == RunStatus::running ? "killed"
            : report.status                     ? status_name(*report.status)
                                                : "?";
  const int first = field_of(report.resumed_from, &RecordResumedFrom::epochs_done).value_or(0);
  s.first_epoch = first;
  s.epochs_done = last_epoch(report.epochs, first);
  s.hostname = field_of(report.environment, &RecordEnvironment::hostname);
  s.config_sha256 = report.config_sha256;
  s.argv = report.argv;
  return s;
}

// The run's step where epoch `epoch` ended: its evaluation's point on a curve (every epoch is
// evaluated on the test or the validation set); 0 before the first; none when not recorded.
std::optional<std::int64_t> step_after_epoch(const RunRecord& report, int epoch) {
  if (epoch == 0) return 0;
  for (const auto& points : {field_of(report.curves, &RecordCurves::test),
                             field_of(report.curves, &RecordCurves::validation)}) {
    if (!points) continue;
    for (const RecordEvalPoint& p : *points) {
      if (p.epoch == epoch && p.step) return *p.step;
    }
  }
  return std::nullopt;
}

// Whether the report's run wrote `checkpoint`: its checkpoint block names it, or its config's
// checkpoint.path (relative to `folder`, or absolute) does, or that path's last-epoch file. A
// report.json that happens to sit in a folder above an unrelated checkpoint is not its run.
bool wrote_checkpoint(const RunRecord& report, const std::filesystem::path& folder,
                      const std::filesystem::path& checkpoint) {
  std::error_code error;
  const std::filesystem::path wanted = std::filesystem::weakly_canonical(checkpoint, error);
  auto same = [&](const std::filesystem::path& path) {
    std::error_code ignored;
    return !path.empty() && std::filesystem::weakly_canonical(path, ignored) == wanted;
  };
  if (report.checkpoint) {
    for (const auto& named : {report.checkpoint->path, report.checkpoint->last_path}) {
      if (named && same(*named)) return true;
    }
  }
  if (report.config && report.config->is_object()) {
    const nlohmann::json& block = report.config->value("checkpoint", nlohmann::json::object());
    if (block.is_object() && block.contains("path") && block["path"].is_string()) {
      const std::filesystem::path configured = block["path"].get<std::string>();
      if (configured.empty()) return false;
      const std::filesystem::path full =
          configured.is_absolute() ? configured : folder / configured;
      return same(full) || same(last_checkpoint_path(full));
    }
  }
  return false;
}

}  // namespace

std::optional<RunHistory> RunHistory::of_checkpoint(const std::filesystem::path& checkpoint,
                                                    int epochs_done) {
  std::error_code error;
  std::filesystem::path folder = std::filesystem::absolute(checkpoint, error).parent_path();
  if (error) return std::nullopt;
  for (int level = 0; level < kLevelsUp && !folder.empty(); ++level) {
    const std::filesystem::path report_file = folder / "report.json";
    if (std::filesystem::is_regular_file(report_file, error)) {
      RunRecord earlier = read_run_record(report_file);
      // A sweep's point stays as the sweep wrote it; an eval report has no run to go on with.
      if (earlier.mode != RunMode::train || earlier.sweep_point ||
          !wrote_checkpoint(earlier, folder, checkpoint)) {
        return std::nullopt;
      }
      RunHistory history;
      history.run_dir_ = folder;
      history.epochs_done_ = epochs_done;
      history.epochs_ = up_to_epoch(earlier.epochs, epochs_done);
      history.train_ = up_to_epoch(field_of(earlier.curves, &RecordCurves::train), epochs_done);
      history.test_ = up_to_epoch(field_of(earlier.curves, &RecordCurves::test), epochs_done);
      history.validation_ =
          up_to_epoch(field_of(earlier.curves, &RecordCurves::validation), epochs_done);
      history.resume_step_ = step_after_epoch(earlier, epochs_done);
      history.first_threads_ = field_of(earlier.environment, &RecordEnvironment::threads);
      history.threads_at_resume_ = history.first_threads_;
      if (auto changes = field_of(earlier.cpu, &RecordCpu::thread_changes);
          changes && history.resume_step_) {
        for (const RecordThreadChange& c : *changes) {
          if (c.step.value_or(0) >= *history.resume_step_) break;
          history.thread_changes_.push_back(c);
          history.threads_at_resume_ = c.threads;
        }
      }
      // Its own stretches if it was resumed before (the last rewritten as it ended), else itself.
      if (earlier.segments && !earlier.segments->empty()) {
        history.segments_ = *earlier.segments;
        const RecordSegment last = segment_of(earlier);
        history.segments_.back().finished_at = last.finished_at;
        history.segments_.back().ended = last.ended;
        history.segments_.back().epochs_done = last.epochs_done;
      } else {
        history.segments_ = {segment_of(earlier)};
      }
      return history;
    }
    if (folder == folder.root_path()) break;
    folder = folder.parent_path();
  }
  return std::nullopt;
}

std::string RunHistory::missing_epochs() const {
  const int recorded = epochs_.empty() || !epochs_.back().epoch ? 0 : *epochs_.back().epoch;
  if (recorded >= epochs_done_) return "";
  return fmt::format(
      "{}: its report holds epochs up to {} and the checkpoint epoch {} (a killed run's live "
      "report is rewritten at most once a second): epochs {} to {} stay out of the run's record",
      run_dir_.string(), recorded, epochs_done_, recorded + 1, epochs_done_);
}

void RunHistory::complete(RunRecord& record) const {
  if (!record.epochs) record.epochs.emplace();
  record.epochs->insert(record.epochs->begin(), epochs_.begin(), epochs_.end());
  if (!record.curves) record.curves.emplace();
  put_in_front(train_, record.curves->train);
  put_in_front(test_, record.curves->test);
  put_in_front(validation_, record.curves->validation);
  // The threads as a rerun from scratch must set them: the first stretch's count from step 0, its
  // changes, this stretch's count from the resumed step, then its own changes. An entry made here
  // has no measured free cores: it records its thread count there.
  // Where the resumed step is unknown (a killed run's report ended before the checkpoint's
  // epoch), this stretch's own changes stay as they are.
  if (record.cpu && resume_step_) {
    const std::int64_t resumed_at = *resume_step_;
    const std::optional<int> start = field_of(record.environment, &RecordEnvironment::threads);
    std::vector<RecordThreadChange> changes;
    if (first_threads_ && start && *first_threads_ != *start)
      changes.push_back({0, *first_threads_, static_cast<double>(*first_threads_), {}});
    changes.insert(changes.end(), thread_changes_.begin(), thread_changes_.end());
    std::vector<RecordThreadChange> own =
        record.cpu->thread_changes.value_or(std::vector<RecordThreadChange>{});
    // A stretch fitted to the machine records its first count at step 0 (when it compiled): it
    // took effect at the resumed step.
    for (RecordThreadChange& c : own) {
      if (c.step.value_or(0) < resumed_at) c.step = resumed_at;
    }
    const bool own_first = !own.empty() && own.front().step.value_or(-1) <= resumed_at;
    if (start && threads_at_resume_ != start && !own_first)
      changes.push_back({resumed_at, *start, static_cast<double>(*start), {}});
    changes.insert(changes.end(), own.begin(), own.end());
    record.cpu->thread_changes = std::move(changes);
  }
  std::vector<RecordSegment> segments = segments_;
  RecordSegment now = segment_of(record);
  now.first_epoch = epochs_done_;
  now.ended = record.status ? status_name(*record.status) : "?";  // "running" while it trains
  now.epochs_done = std::max(epochs_done_, last_epoch(record.epochs, epochs_done_));
  segments.push_back(std::move(now));
  if (!segments.front().started_at) segments.front().started_at = record.started_at;
  record.started_at = segments.front().started_at;
  record.segments = std::move(segments);
}

}  // namespace runner

// The kept model's figures, the reload check and the best-epoch block of the report.
#include "runner/run/kept_model.h"

#include <fmt/format.h>

#include "runner/report/report.h"
#include "runner/run/run_output.h"
#include "runner/train/checkpoint.h"
#include "runner/train/weight_average.h"

namespace runner {
namespace {

// The test and validation sets' figures of one model (count 0 for a set the run lacks).
struct Measured {
  Evaluation test, validation;
};

Measured measure(Program& program, const Session& session) {
  const int batch = session.experiment.training.eval_batch_size;
  Measured m;
  if (session.data.test.size() > 0) m.test = evaluate(program, session.data.test, batch);
  if (session.data.validation.size() > 0) {
    m.validation = evaluate(program, session.data.validation, batch);
  }
  return m;
}

// The set the reload check compares: the test set's figures, or without one the validation's.
const Evaluation& compared(const Measured& m) {
  return m.test.count > 0 ? m.test : m.validation;
}

// As the tutorial does: load the saved weights (the last epoch's file) into a fresh model and
// test again.
void check_reload(const Session& session, Console& console, const Measured& trained,
                  const std::filesystem::path& path, RecordCheckpoint& block) {
  auto reloaded = session.compile();
  load_checkpoint(path, *reloaded, CheckpointUse::weights);
  const Measured again = measure(*reloaded, session);
  const bool same = compared(again).correct == compared(trained).correct;
  const char* set = trained.test.count > 0 ? "test" : "validation";
  console.line(fmt::format("checkpoint: {} (reloaded: {} accuracy {:.2f} %, {})", path.string(),
                           set, 100 * compared(again).accuracy(),
                           same ? "same as before saving" : "DIFFERENT"));
  if (again.test.count > 0) block.reloaded_test_accuracy = again.test.accuracy();
  block.reload_matches = same;
}

// checkpoint.monitor: the best epoch's weights from their file, measured once. They reload
// as kept when the monitored figure is the one the epoch had.
Measured measure_best(const Session& session, Console& console, const EpochCheckpoints& checkpoints,
                      const TrainingOutcome& outcome, RecordCheckpoint& block) {
  const MonitorSpec by = *session.experiment.checkpoint.monitor;
  // A monitor of training.ema's average keeps the best epoch's average: the model is that file.
  const bool average = watches_average(by.monitor);
  const std::filesystem::path kept =
      average ? average_checkpoint_path(checkpoints.best_path()) : checkpoints.best_path();
  auto program = session.compile();
  load_checkpoint(kept, *program, CheckpointUse::weights);
  const Measured m = measure(*program, session);
  const double again = monitored_value(by.monitor, m.validation, &m.validation);
  const std::optional<double>& best = outcome.selection.best.best;
  const bool same = best && again == *best;
  block.reload_matches = same;
  if (m.test.count > 0) block.reloaded_test_accuracy = m.test.accuracy();
  console.line(
      fmt::format("checkpoint: {} keeps epoch {}, the best by {} ({:.4f}; reloaded: {}); "
                  "{} holds the last epoch",
                  kept.string(), checkpoints.best_epoch(), monitor_name(by.monitor), again,
                  same ? "the same" : "DIFFERENT", checkpoints.path().string()));
  return m;
}

// Whether the best epoch's file is there to be measured; says why not when it should be.
bool best_is_kept(const EpochCheckpoints* checkpoints, const std::optional<RecordCheckpoint>& block,
                  Console& console) {
  if (!checkpoints || checkpoints->best_path().empty()) return false;
  if (checkpoints->best_epoch() > 0 && block && !block->error) return true;
  console.warning(
      "the best epoch's weights were not kept (no finite validation figure, or the checkpoint "
      "could not be written): the metrics are the last epoch's");
  return false;
}

}  // namespace

void add_best_checkpoint(RecordCheckpoint& block, const EpochCheckpoints& checkpoints,
                         const MonitorSpec& by, const SelectionState& selection) {
  const bool kept = checkpoints.best_epoch() > 0;
  const std::optional<double>& value = selection.best.best;
  // The kept model: the best epoch's weights, or their average where that is what is watched
  // (predict and eval read `path`).
  block.path = watches_average(by.monitor)
                   ? average_checkpoint_path(checkpoints.best_path()).string()
                   : checkpoints.best_path().string();
  block.best_path = checkpoints.best_path().string();
  block.last_path = checkpoints.path().string();
  block.monitor = by.monitor;
  block.mode = by.mode;
  // Left out while no epoch was best (older reports wrote null).
  if (kept) block.best_epoch = checkpoints.best_epoch();
  if (kept && value) block.best_value = *value;
}

RecordMetrics measure_kept_model(const Session& session, Console& console,
                                 const TrainingOutcome& outcome,
                                 const EpochCheckpoints* checkpoints,
                                 std::optional<RecordCheckpoint>& block) {
  Measured m{outcome.final_evaluation, outcome.final_validation};
  if (best_is_kept(checkpoints, block, console)) {
    m = measure_best(session, console, *checkpoints, outcome, *block);
  } else if (checkpoints && block && !block->error) {
    check_reload(session, console, m, checkpoints->path(), *block);
  }
  const auto& class_names = session.data.train.class_names;
  RecordMetrics metrics;
  if (m.test.count > 0) {
    print_evaluation(console, m.test, class_names);
    metrics = metrics_record(m.test, class_names, session.experiment.metrics);
  }
  if (m.validation.count > 0) {
    print_validation(console, m.validation);
    add_validation_metrics(metrics, m.validation, class_names, session.experiment.metrics);
    if (outcome.selection.best.best_epoch > 0) {
      metrics.best_epoch = outcome.selection.best.best_epoch;
    }
  }
  if (!metrics.figures.empty()) {
    std::vector<std::string> figures;  // the report's keys, as monitors name them
    for (const auto& [key, value] : metrics.figures) {
      figures.push_back(fmt::format("{} {:.2f} %", key, 100 * value));
    }
    console.line(fmt::format("Metrics of the kept model: {}", fmt::join(figures, ", ")));
  }
  return metrics;
}

}  // namespace runner

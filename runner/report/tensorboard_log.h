// A run's training as TensorBoard sees it (logging.tensorboard): the config as text when it
// starts, then train/loss and train/lr at every log point, and val/loss, val/accuracy,
// test/loss, test/accuracy and throughput/images_per_second at each epoch's last step, written
// as the epochs end and flushed each time, so a running TensorBoard shows the progress.
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "runner/report/event_file.h"
#include "runner/report/hparams_plugin.h"
#include "runner/report/run_record.h"
#include "runner/train/trainer.h"

namespace runner {

class TensorBoardLog {
 public:
  TensorBoardLog(const FolderInside& dir, const nlohmann::json& resolved_config);
  // Writes what `so_far` holds beyond what was written, and flushes.
  void update(const TrainingOutcome& so_far);
  // The report's `tensorboard` block: the file, and why writing stopped if it did.
  RecordTensorboard record() const;

  // A sweep point, for the HParams dashboard: the experiment (the hyperparameters and the
  // metrics' figure names every point plans: test_accuracy, val_macro_f1, ..., whose scalars are
  // `final/<name>`; TensorBoard takes the first experiment it finds, so a point that fails still
  // lists them all) and its session's start with its swept values...
  void start_session(std::vector<HParam> hparams, const std::vector<std::string>& figure_names);
  // ...and its end: the kept model's figures (`metrics`) as scalars `final/<name>` at `step`, and
  // how the run ended.
  void end_session(RunStatus status, const std::map<std::string, double>& metrics,
                   std::int64_t step);

 private:
  EventFileWriter writer_;
  std::vector<HParam> hparams_;
  std::size_t points_written_ = 0, epochs_written_ = 0;
};

}  // namespace runner

// Checkpoints taken while training, so that an interrupted or failed run loses at most the
// epoch in progress: a copy of the program's state after each epoch, written every
// `every_epochs` epochs and whenever the run ends (completed, interrupted or diverged). With
// checkpoint.monitor, `path` keeps the best epoch's state and the last one goes beside it.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "backends/backend.h"
#include "runner/config/experiment.h"
#include "runner/train/model_selection.h"
#include "runner/train/safetensors.h"

namespace runner {

// Where the last epoch's state goes when `path` keeps the best one: model.safetensors ->
// model.last.safetensors (model -> model.last).
std::filesystem::path last_checkpoint_path(const std::filesystem::path& path);

// The metadata key of the selection state (early stopping, the best epoch, the best file's name).
inline constexpr const char* kSelectionMetadata = "selection";

class EpochCheckpoints {
 public:
  EpochCheckpoints(std::filesystem::path path, const Experiment& experiment,
                   std::string config_sha256);

  // After epoch `epochs_done`: keeps a copy of the program's state with the selection state,
  // writes it when due, and to best_path() when the epoch is the run's best (checkpoint.monitor).
  void epoch_done(const Program& program, int epochs_done, const SelectionState& selection,
                  bool new_best);
  // Writes the last completed epoch's state if it is not on disk yet.
  void flush();
  // A resumed run's best so far (the file its checkpoint's run kept), written to best_path().
  void adopt_best(const Checkpoint& best, int best_epoch);

  // The last epoch's file, to resume from: `path`, or beside it with checkpoint.monitor.
  const std::filesystem::path& path() const { return last_path_; }
  // checkpoint.monitor: `path`, the best epoch's file; "" without.
  const std::filesystem::path& best_path() const { return best_path_; }
  int saved_epochs() const { return saved_epochs_; }  // -1: nothing written
  int best_epoch() const { return best_epoch_; }      // in best_path(); 0: none written
  // Why the last write of either file failed ("" when none did); training goes on, the report
  // says it.
  std::string error() const { return last_error_.empty() ? best_error_ : last_error_; }

 private:
  // False, with `error` set, when the write failed.
  static bool write(const std::filesystem::path& path, const Checkpoint& checkpoint,
                    std::string& error);
  std::filesystem::path last_path_, best_path_;
  const Experiment& experiment_;
  std::string config_sha256_;
  Checkpoint latest_;
  int latest_epochs_ = -1;
  int saved_epochs_ = -1;
  int best_epoch_ = 0;
  std::string last_error_, best_error_;
};

// The best file a checkpoint's run kept beside it (its selection metadata names it), with the
// epoch it holds; nullopt when the checkpoint names none. A named file that is missing, or that
// holds another epoch, is a UserError naming both files.
struct KeptBest {
  Checkpoint checkpoint;
  int epoch = 0;
};
std::optional<KeptBest> kept_best_beside(const std::filesystem::path& checkpoint,
                                         const std::string& selection_metadata, int best_epoch);

}  // namespace runner

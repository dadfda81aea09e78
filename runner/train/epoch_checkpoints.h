// Checkpoints taken while training, so that an interrupted or failed run loses at most the
// epoch in progress: a copy of the program's state after each epoch, written every
// `every_epochs` epochs and whenever the run ends (completed, interrupted or diverged).
#pragma once

#include <filesystem>
#include <string>

#include "backends/backend.h"
#include "runner/config/experiment.h"
#include "runner/train/safetensors.h"

namespace runner {

class EpochCheckpoints {
 public:
  EpochCheckpoints(std::filesystem::path path, const Experiment& experiment,
                   std::string config_sha256);

  // After epoch `epochs_done`: keeps a copy of the program's state, and writes it when due.
  void epoch_done(const Program& program, int epochs_done);
  // Writes the last completed epoch's state if it is not on disk yet.
  void flush();

  const std::filesystem::path& path() const { return path_; }
  int saved_epochs() const { return saved_epochs_; }  // -1: nothing written
  // Why the last write failed ("" when none did); training goes on, the report says it.
  const std::string& error() const { return error_; }

 private:
  void write();
  std::filesystem::path path_;
  const Experiment& experiment_;
  std::string config_sha256_;
  Checkpoint latest_;
  int latest_epochs_ = -1;
  int saved_epochs_ = -1;
  std::string error_;
};

}  // namespace runner

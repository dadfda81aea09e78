// Per-epoch checkpoints: a host copy after each epoch, written atomically when due.
#include "runner/train/epoch_checkpoints.h"

#include "runner/train/checkpoint.h"

namespace runner {

EpochCheckpoints::EpochCheckpoints(std::filesystem::path path, const Experiment& experiment,
                                   std::string config_sha256)
    : path_(std::move(path)), experiment_(experiment), config_sha256_(std::move(config_sha256)) {}

void EpochCheckpoints::epoch_done(const Program& program, int epochs_done) {
  latest_ = make_checkpoint(program, experiment_, epochs_done, config_sha256_);
  latest_epochs_ = epochs_done;
  const int every = experiment_.checkpoint.every_epochs;
  if (every > 0 && epochs_done % every == 0) write();
}

void EpochCheckpoints::flush() {
  if (latest_epochs_ > saved_epochs_) write();
}

void EpochCheckpoints::write() {
  try {
    save_safetensors(path_, latest_);
    saved_epochs_ = latest_epochs_;
    error_.clear();
  } catch (const std::exception& e) {  // a full disk or a read-only folder: keep training
    error_ = e.what();
  }
}

}  // namespace runner

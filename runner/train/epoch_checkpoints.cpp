// Per-epoch checkpoints: a host copy after each epoch, written atomically when due; the best
// epoch's copy written when it is reached.
#include "runner/train/epoch_checkpoints.h"

#include <fmt/format.h>

#include "runner/train/checkpoint.h"
#include "runner/util/bounded_json.h"
#include "runner/util/errors.h"

namespace runner {

std::filesystem::path last_checkpoint_path(const std::filesystem::path& path) {
  return path.parent_path() / (path.stem().string() + ".last" + path.extension().string());
}

EpochCheckpoints::EpochCheckpoints(std::filesystem::path path, const Experiment& experiment,
                                   std::string config_sha256)
    : experiment_(experiment), config_sha256_(std::move(config_sha256)) {
  if (experiment.checkpoint.monitor) {
    last_path_ = last_checkpoint_path(path);
    best_path_ = std::move(path);
  } else {
    last_path_ = std::move(path);
  }
}

void EpochCheckpoints::epoch_done(const Program& program, int epochs_done,
                                  const SelectionState& selection, bool new_best) {
  latest_ = make_checkpoint(program, experiment_, epochs_done, config_sha256_);
  nlohmann::json state = selection_json(selection, experiment_);
  if (!best_path_.empty()) state["best_file"] = best_path_.filename().string();
  latest_.metadata[kSelectionMetadata] = state.dump();
  latest_epochs_ = epochs_done;
  if (new_best && !best_path_.empty() && write(best_path_, latest_, best_error_)) {
    best_epoch_ = epochs_done;
  }
  const int every = experiment_.checkpoint.every_epochs;
  if (every > 0 && epochs_done % every == 0) flush();
}

void EpochCheckpoints::flush() {
  if (latest_epochs_ <= saved_epochs_) return;
  if (write(last_path_, latest_, last_error_)) saved_epochs_ = latest_epochs_;
}

void EpochCheckpoints::adopt_best(const Checkpoint& best, int best_epoch) {
  if (best_path_.empty()) return;
  if (write(best_path_, best, best_error_)) best_epoch_ = best_epoch;
}

bool EpochCheckpoints::write(const std::filesystem::path& path, const Checkpoint& checkpoint,
                             std::string& error) {
  try {
    save_safetensors(path, checkpoint);
    error.clear();
    return true;
  } catch (const std::exception& e) {  // a full disk or a read-only folder: keep training
    error = e.what();
    return false;
  }
}

std::optional<KeptBest> kept_best_beside(const std::filesystem::path& checkpoint,
                                         const std::string& selection_metadata, int best_epoch) {
  if (selection_metadata.empty() || best_epoch <= 0) return std::nullopt;
  const nlohmann::json state = parse_bounded_json(selection_metadata, false);
  if (!state.is_object() || !state.contains("best_file")) return std::nullopt;
  if (!state["best_file"].is_string()) {
    throw UserError(
        fmt::format("{}: metadata selection.best_file: expected a file name", checkpoint.string()));
  }
  // A name only, beside the checkpoint: metadata never leads elsewhere.
  const std::filesystem::path name = state["best_file"].get<std::string>();
  const std::filesystem::path file = checkpoint.parent_path() / name.filename();
  if (!std::filesystem::exists(file)) {
    throw UserError(fmt::format(
        "{}: its run kept the best weights (epoch {}) in {}, which is missing; expected it "
        "beside the checkpoint (put it back, or resume without checkpoint.monitor)",
        checkpoint.string(), best_epoch, file.string()));
  }
  KeptBest kept{load_safetensors(file), best_epoch};
  const auto held = kept.checkpoint.metadata.find("epochs_done");
  if (held == kept.checkpoint.metadata.end() || held->second != std::to_string(best_epoch)) {
    throw UserError(fmt::format(
        "{}: holds epoch {}, but {} says its best epoch was {}; expected the file that run kept",
        file.string(), held == kept.checkpoint.metadata.end() ? "?" : held->second,
        checkpoint.string(), best_epoch));
  }
  return kept;
}

}  // namespace runner

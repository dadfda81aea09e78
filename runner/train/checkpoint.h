// Saving and loading a program's parameters and optimizer state as a safetensors checkpoint.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "backends/backend.h"
#include "runner/config/experiment.h"
#include "runner/train/safetensors.h"

namespace runner {

// Parameters under their PyTorch names ("conv1.weight"), optimizer state under
// "optimizer.<param>.<buffer>", and metadata (epochs done, seed, the resolved config and its
// hash). Written atomically: an existing checkpoint is replaced only by a complete one.
void save_checkpoint(const std::filesystem::path& path, const Program& program,
                     const Experiment& experiment, int epochs_done,
                     const std::string& config_sha256);
// The same checkpoint in memory (a host copy of the program's state), to be written later.
Checkpoint make_checkpoint(const Program& program, const Experiment& experiment, int epochs_done,
                           const std::string& config_sha256);

// What a checkpoint says of itself.
struct CheckpointInfo {
  std::filesystem::path path;
  std::string file_sha256;
  int epochs_done = 0;
  std::string config_sha256;  // of the config that saved it; "" in files that lack it
  nlohmann::json config;      // that config, resolved; null in files that lack it
  std::string selection;      // early stopping and the best epoch (JSON text); "" when absent
};

// resume: parameters and optimizer state, both exactly this program's. weights: parameters
// only (evaluation, the reload check); any optimizer state in the file is left unread.
enum class CheckpointUse { resume, weights };

// A checkpoint of another model (a tensor missing, of another shape, or one the model does not
// have) and metadata that is not what the runner writes are UserErrors naming the file and the
// tensor or field.
CheckpointInfo load_checkpoint(const std::filesystem::path& path, Program& program,
                               CheckpointUse use);

// Whether the checkpoint's parameters are `graph`'s, by name and shape, before a program is
// compiled for it: the UserErrors of load_checkpoint ("does not fit this model: tensor 'fc.weight'
// has shape (10, 256), the model expects (10, 64)"). A report edited to another model once went
// on to the backend's compiler and failed there, or ran out of memory.
void check_checkpoint_fits(const std::filesystem::path& path, const Graph& graph);

// The config fields where `saved` and `current` differ ("training.epochs: 2 -> 4"), at most
// `limit` of them, for the warning a resume from another config prints.
std::vector<std::string> config_differences(const nlohmann::json& saved,
                                            const nlohmann::json& current, std::size_t limit = 8);

}  // namespace runner

// Saving and loading a program's parameters and optimizer state as a safetensors checkpoint.
#pragma once

#include <filesystem>
#include <string>

#include "backends/backend.h"
#include "runner/config/experiment.h"

namespace runner {

// Parameters under their PyTorch names ("conv1.weight"), optimizer state under
// "optimizer.<param>.<buffer>", and metadata (epochs done, seed, config hash).
void save_checkpoint(const std::filesystem::path& path, const Program& program,
                     const Experiment& experiment, int epochs_done, const std::string& config_sha256);
// Loads parameters, and the optimizer state when the file has it; returns the epochs done.
// A checkpoint of another model is a UserError naming the file and the tensor.
int load_checkpoint(const std::filesystem::path& path, Program& program);

}  // namespace runner

// Checkpoints of a program, in safetensors.
#include "runner/train/checkpoint.h"

#include <fmt/format.h>

#include "runner/train/safetensors.h"
#include "runner/util/errors.h"

namespace runner {

inline constexpr const char* kOptimizerPrefix = "optimizer.";

void save_checkpoint(const std::filesystem::path& path, const Program& program,
                     const Experiment& experiment, int epochs_done, const std::string& config_sha256) {
  Checkpoint checkpoint;
  checkpoint.tensors = program.parameters();
  for (auto& t : program.optimizer_state()) {
    if (t.name.rfind(kOptimizerPrefix, 0) != 0) t.name = kOptimizerPrefix + t.name;
    checkpoint.tensors.push_back(std::move(t));
  }
  checkpoint.metadata = {{"format", "runner"},
                         {"name", experiment.name},
                         {"epochs_done", std::to_string(epochs_done)},
                         {"seed", std::to_string(experiment.seed)},
                         {"optimizer", experiment.training.optimizer.type},
                         {"config_sha256", config_sha256}};
  save_safetensors(path, checkpoint);
}

int load_checkpoint(const std::filesystem::path& path, Program& program) {
  Checkpoint checkpoint = load_safetensors(path);
  std::vector<HostTensor> params, state;
  for (auto& t : checkpoint.tensors) {
    if (t.name.rfind(kOptimizerPrefix, 0) == 0) {
      if (t.name != "optimizer.step") t.name = t.name.substr(std::string(kOptimizerPrefix).size());
      state.push_back(std::move(t));
    } else {
      params.push_back(std::move(t));
    }
  }
  try {
    program.load_parameters(params);
    if (!state.empty()) program.load_optimizer_state(state);
  } catch (const UserError& e) {
    throw UserError(fmt::format("{}: does not fit this model: {}", path.string(), e.what()));
  }
  auto it = checkpoint.metadata.find("epochs_done");
  return it == checkpoint.metadata.end() ? 0 : std::stoi(it->second);
}

}  // namespace runner

// Checkpoints of a program, in safetensors.
#include "runner/train/checkpoint.h"

#include <fmt/format.h>

#include <charconv>
#include <cstring>
#include <set>

#include "backends/common/checkpoint_tensors.h"
#include "runner/train/safetensors.h"
#include "runner/util/bounded_json.h"
#include "runner/util/errors.h"
#include "runner/util/json_paths.h"
#include "runner/util/long_text.h"

namespace runner {
namespace {

inline constexpr const char* kOptimizerPrefix = "optimizer.";
inline constexpr int kMaxEpochsDone = 1'000'000;  // the schema's training.epochs maximum

bool is_optimizer_tensor(const std::string& name) {
  return name.rfind(kOptimizerPrefix, 0) == 0;
}

std::set<std::string> names_of(const std::vector<HostTensor>& tensors) {
  std::set<std::string> names;
  for (const auto& t : tensors) names.insert(t.name);
  return names;
}

// Tensors of the file the program does not have: an error, not silently ignored.
void refuse_unknown(const std::filesystem::path& path, const std::vector<HostTensor>& given,
                    const std::set<std::string>& known, const char* what) {
  for (const auto& t : given) {
    if (known.count(t.name)) continue;
    std::vector<std::string> list(known.begin(), known.end());
    if (list.size() > 12) list.resize(12), list.push_back("...");
    throw UserError(
        fmt::format("{}: does not fit this model: tensor '{}' is not one of its {} "
                    "({})",
                    path.string(), t.name, what, fmt::join(list, ", ")));
  }
}

int read_epochs_done(const std::filesystem::path& path,
                     const std::map<std::string, std::string>& metadata) {
  auto it = metadata.find("epochs_done");
  if (it == metadata.end()) return 0;
  const std::string& text = it->second;
  int value = -1;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < 0 ||
      value > kMaxEpochsDone) {
    throw UserError(
        fmt::format("{}: metadata epochs_done: found '{}', expected a whole number "
                    "from 0 to {}",
                    path.string(), shortened(text, 24), kMaxEpochsDone));
  }
  return value;
}

nlohmann::json read_config(const std::filesystem::path& path,
                           const std::map<std::string, std::string>& metadata) {
  auto it = metadata.find("config");
  if (it == metadata.end()) return nullptr;
  nlohmann::json config = parse_bounded_json(it->second, false);
  if (config.is_discarded() || !config.is_object()) {
    throw UserError(fmt::format("{}: metadata config: not the JSON of a config", path.string()));
  }
  return config;
}

// Batch norm's num_batches_tracked, which PyTorch's state_dict holds beside the running
// statistics: the training steps taken (each ran one forward pass in training mode). Derived,
// not stored by the backends: written for PyTorch, and accepted (not loaded) when read back.
constexpr const char* kRunningMean = ".running_mean";
constexpr const char* kBatchesTracked = ".num_batches_tracked";

bool ends_with(const std::string& text, const std::string& end) {
  return text.size() >= end.size() && text.compare(text.size() - end.size(), end.size(), end) == 0;
}

// A layer's num_batches_tracked, beside its running mean among `parameters`: derived from the
// optimizer step (batches_tracked), never loaded.
bool is_batches_tracked(const std::string& name, const std::set<std::string>& parameters) {
  return ends_with(name, kBatchesTracked) &&
         parameters.count(name.substr(0, name.size() - std::strlen(kBatchesTracked)) +
                          kRunningMean);
}

std::vector<HostTensor> batches_tracked(const std::vector<HostTensor>& parameters,
                                        std::int64_t steps) {
  std::vector<HostTensor> counters;
  for (const auto& t : parameters) {
    if (!ends_with(t.name, kRunningMean)) continue;
    const std::string layer = t.name.substr(0, t.name.size() - std::string(kRunningMean).size());
    counters.push_back(int64_tensor(layer + kBatchesTracked, {}, {steps}));
  }
  return counters;
}

std::int64_t optimizer_steps(const std::vector<HostTensor>& state) {
  for (const auto& t : state) {
    if (t.name == "optimizer.step") {
      return t.dtype == TensorDtype::i64 ? t.integers.at(0)
                                         : static_cast<std::int64_t>(t.values.at(0));
    }
  }
  return 0;
}

}  // namespace

void save_checkpoint(const std::filesystem::path& path, const Program& program,
                     const Experiment& experiment, int epochs_done,
                     const std::string& config_sha256) {
  save_safetensors(path, make_checkpoint(program, experiment, epochs_done, config_sha256));
}

Checkpoint make_checkpoint(const Program& program, const Experiment& experiment, int epochs_done,
                           const std::string& config_sha256) {
  Checkpoint checkpoint;
  checkpoint.tensors = program.parameters();
  std::vector<HostTensor> state = program.optimizer_state();
  for (auto& t : batches_tracked(checkpoint.tensors, optimizer_steps(state))) {
    checkpoint.tensors.push_back(std::move(t));
  }
  for (auto& t : state) {
    if (!is_optimizer_tensor(t.name)) t.name = kOptimizerPrefix + t.name;
    checkpoint.tensors.push_back(std::move(t));
  }
  checkpoint.metadata = {
      {"format", "runner"},
      {"name", experiment.name},
      {"epochs_done", std::to_string(epochs_done)},
      {"seed", std::to_string(experiment.seed)},
      {"optimizer", std::string(optimizer_type_name(experiment.training.optimizer.type))},
      {"config_sha256", config_sha256},
      {"config",
       experiment.resolved.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)}};
  return checkpoint;
}

CheckpointInfo load_checkpoint(const std::filesystem::path& path, Program& program,
                               CheckpointUse use) {
  Checkpoint checkpoint = load_safetensors(path);
  CheckpointInfo info;
  info.path = path;
  info.file_sha256 = checkpoint.sha256;
  info.epochs_done = read_epochs_done(path, checkpoint.metadata);
  info.config = read_config(path, checkpoint.metadata);
  if (auto it = checkpoint.metadata.find("config_sha256"); it != checkpoint.metadata.end()) {
    info.config_sha256 = it->second;
  }
  if (auto it = checkpoint.metadata.find("selection"); it != checkpoint.metadata.end()) {
    info.selection = it->second;
  }

  std::vector<HostTensor> params, state;
  const std::set<std::string> program_parameters = names_of(program.parameters());
  for (auto& t : checkpoint.tensors) {
    if (is_batches_tracked(t.name, program_parameters)) continue;
    if (!is_optimizer_tensor(t.name)) {
      params.push_back(std::move(t));
    } else if (use == CheckpointUse::resume) {
      if (t.name != "optimizer.step") t.name = t.name.substr(std::string(kOptimizerPrefix).size());
      state.push_back(std::move(t));
    }
  }
  refuse_unknown(path, params, program_parameters, "parameters");
  if (!state.empty())
    refuse_unknown(path, state, names_of(program.optimizer_state()), "optimizer buffers");
  try {
    program.load_parameters(params);
    if (!state.empty()) program.load_optimizer_state(state);
  } catch (const UserError& e) {
    throw UserError(fmt::format("{}: does not fit this model: {}", path.string(), e.what()));
  }
  return info;
}

void check_checkpoint_fits(const std::filesystem::path& path, const Graph& graph) {
  const Checkpoint checkpoint = load_safetensors(path);
  std::set<std::string> names;
  for (const Node& node : graph.nodes) {
    for (const ParamSpec& spec : node.params) names.insert(spec.name);
  }
  std::vector<HostTensor> params;
  for (const HostTensor& t : checkpoint.tensors) {
    if (!is_optimizer_tensor(t.name) && !is_batches_tracked(t.name, names)) params.push_back(t);
  }
  refuse_unknown(path, params, names, "parameters");
  const TensorLookup index(params);
  try {
    for (const Node& node : graph.nodes) {
      for (const ParamSpec& spec : node.params)
        require_shape(require_f32(index.require(spec.name)), spec.dims);
    }
  } catch (const UserError& e) {
    throw UserError(fmt::format("{}: does not fit this model: {}", path.string(), e.what()));
  }
}

std::vector<std::string> config_differences(const nlohmann::json& saved,
                                            const nlohmann::json& current, std::size_t limit) {
  std::map<std::string, std::string> a = flatten_json(saved), b = flatten_json(current);
  std::set<std::string> paths;
  for (const auto& [path, v] : a) paths.insert(path);
  for (const auto& [path, v] : b) paths.insert(path);
  std::vector<std::string> out;
  for (const std::string& path : paths) {
    auto x = a.find(path), y = b.find(path);
    std::string before = x == a.end() ? "(absent)" : x->second;
    std::string after = y == b.end() ? "(absent)" : y->second;
    if (before == after) continue;
    if (out.size() == limit) {
      out.push_back("...");
      break;
    }
    out.push_back(fmt::format("{}: {} -> {}", path, before, after));
  }
  return out;
}

}  // namespace runner

// The resolved experiment: plain structs made from a validated config, free of any backend.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "runner/config/monitor_spec.h"
#include "runner/config/precision.h"
#include "runner/config/schedule_spec.h"
#include "runner/data/dataset_spec.h"
#include "runner/util/errors.h"

namespace runner {

// One layer as written in the config; `attributes` holds the kind-specific fields.
struct LayerSpec {
  std::string name;
  std::string type;
  std::vector<std::string> inputs;  // empty: the previous layer (or the data for the first)
  nlohmann::json attributes;        // e.g. {"out_channels": 6, "kernel": 5}
  SourceLocation where;             // file, path (model.layers[3]) and line, for errors
};

// How conv2d and linear weights start: PyTorch's default (uniform in +-1/sqrt(fan_in)) or
// N(0, 2/fan_out), torchvision's ResNets' choice. Biases always start as PyTorch's.
enum class WeightInit { pytorch_default, kaiming_normal };

// The config's names of the weight initialisations (model.init, a layer's init).
inline constexpr std::array<std::pair<WeightInit, std::string_view>, 2> kWeightInitNames = {
    {{WeightInit::pytorch_default, "default"}, {WeightInit::kaiming_normal, "kaiming_normal"}}};

inline std::string_view weight_init_name(WeightInit init) {
  for (const auto& [known, name] : kWeightInitNames) {
    if (known == init) return name;
  }
  return "?";
}

// The initialisation a config names; nullopt for a name that is none of them.
inline std::optional<WeightInit> weight_init_named(std::string_view name) {
  for (const auto& [init, known] : kWeightInitNames) {
    if (known == name) return init;
  }
  return std::nullopt;
}

struct ModelSpec {
  double width = 1.0;  // multiplies channels/features of every layer but the classifier
  WeightInit init = WeightInit::pytorch_default;  // for weights whose layer names no init
  std::vector<LayerSpec> layers;
};

enum class OptimizerType { sgd, adam, adamw };

// The config's names of the optimizer types, the only place they are spelled.
inline constexpr std::array<std::pair<OptimizerType, std::string_view>, 3> kOptimizerTypeNames = {
    {{OptimizerType::sgd, "sgd"}, {OptimizerType::adam, "adam"}, {OptimizerType::adamw, "adamw"}}};

inline std::string_view optimizer_type_name(OptimizerType type) {
  for (const auto& [known, name] : kOptimizerTypeNames) {
    if (known == type) return name;
  }
  return "?";
}

// The type a config names; nullopt for a name that is none of them.
inline std::optional<OptimizerType> optimizer_type_named(std::string_view name) {
  for (const auto& [type, known] : kOptimizerTypeNames) {
    if (known == name) return type;
  }
  return std::nullopt;
}

// PyTorch's default weight decay: 0.01 for torch.optim.AdamW, 0 for SGD and Adam.
inline double default_weight_decay(OptimizerType type) {
  return type == OptimizerType::adamw ? 0.01 : 0.0;
}

struct OptimizerSpec {
  OptimizerType type = OptimizerType::sgd;
  double lr = 0.001;
  double momentum = 0.0;
  double dampening = 0.0;
  // sgd, adam: L2 added to the gradient; adamw: decoupled (value *= 1 - lr * weight_decay
  // before the Adam step); default_weight_decay(type) unless given.
  double weight_decay = 0.0;
  // weight_decay_exclude: [bias, norm]: no decay for parameters named *.bias, or for those of
  // normalisation layers (ParamSpec::normalization).
  bool decay_exclude_bias = false, decay_exclude_norm = false;
  bool nesterov = false;
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8;  // adam, adamw

  bool adam_family() const { return type == OptimizerType::adam || type == OptimizerType::adamw; }
  // The per-parameter state buffers, as PyTorch's state_dict names them: what the backends
  // allocate and checkpoint, and what the memory estimate counts.
  std::vector<std::string> state_names() const {
    if (adam_family()) return {"exp_avg", "exp_avg_sq"};
    if (momentum != 0) return {"momentum_buffer"};
    return {};
  }
};

struct TrainingSpec {
  int epochs = 1;
  int batch_size = 4;
  int eval_batch_size = 1000;
  std::string loss = "cross_entropy";
  double label_smoothing = 0;  // PyTorch's CrossEntropyLoss(label_smoothing)
  OptimizerSpec optimizer;
  // > 0: the gradients scaled to this global L2 norm at most, as torch.nn.utils.clip_grad_norm_
  // (0: no clipping).
  double clip_grad_norm = 0;
  ScheduleSpec schedule;  // the learning rate per step; constant: the optimizer's lr throughout
  int log_every = 2000;   // mini-batches between loss lines
  int threads = 0;        // 0: OMP_NUM_THREADS, else the machine's cores
  Precision precision = Precision::fp32;
  // Run a precision the device only emulates (slowly) instead of refusing it.
  bool allow_emulation = false;
  EarlyStoppingSpec early_stopping;  // enabled: stop when the validation figure stalls
};

struct BackendSpec {
  bool deterministic = false;     // GPU: deterministic algorithms only
  bool cuda_graph = true;         // GPU: replay the training step as a CUDA graph
  bool dataset_on_device = true;  // GPU: hold the training set there when it fits
};

struct CheckpointSpec {
  std::string path;                       // empty: no checkpoint; relative: inside the run folder
  int every_epochs = 1;                   // also saved after every N-th epoch (0: only at the end)
  bool allow_outside_run_folder = false;  // an absolute path must be allowed explicitly
  // Set: `path` keeps the best epoch's weights by this validation figure, and the last epoch's
  // go beside it (last_checkpoint_path); unset: `path` is the last epoch's, as before.
  std::optional<MonitorSpec> monitor;
};

struct LoggingSpec {
  bool tensorboard = false;  // event files beside the report, as it trains
};

struct ReportSpec {
  bool html = false;  // report.html beside the report, when the run ends
};

struct Experiment {
  std::string name;
  std::string source_file;  // the config file it came from
  std::uint64_t seed = 0;
  std::string device = "auto";  // auto | cpu | cuda | cuda:N
  DatasetSpec dataset;
  ModelSpec model;
  TrainingSpec training;
  CheckpointSpec checkpoint;
  BackendSpec backend;
  LoggingSpec logging;
  ReportSpec report;
  nlohmann::json tags = nlohmann::json::object();  // `tags:`, labels the report carries
  nlohmann::json resolved;  // the full config after defaults and overrides, as run
};

}  // namespace runner

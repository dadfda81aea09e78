// The resolved experiment: plain structs made from a validated config, free of any backend.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "runner/config/schedule_spec.h"
#include "runner/util/errors.h"

namespace runner {

struct Normalization {
  std::vector<float> mean;  // one per channel
  std::vector<float> std;   // one per channel
};

struct SyntheticSpec {
  int channels = 3, height = 32, width = 32;
  int classes = 10;
  int train_count = 1024;
  int test_count = 256;
};

struct DatasetSpec {
  std::string name;  // cifar10 | fashion_mnist | mnist | synthetic
  std::string root;  // folder of the dataset files
  bool download = false;
  std::string url;  // cifar10 download source
  Normalization normalize;
  bool shuffle = true;
  int workers = 2;
  std::int64_t train_limit = 0;  // 0: all; else the first N records (subsets for benchmarks)
  std::int64_t test_limit = 0;
  SyntheticSpec synthetic;
};

// One layer as written in the config; `attributes` holds the kind-specific fields.
struct LayerSpec {
  std::string name;
  std::string type;
  std::vector<std::string> inputs;  // empty: the previous layer (or the data for the first)
  nlohmann::json attributes;        // e.g. {"out_channels": 6, "kernel": 5}
  SourceLocation where;             // file, path (model.layers[3]) and line, for errors
};

struct ModelSpec {
  double width = 1.0;  // multiplies channels/features of every layer but the classifier
  std::vector<LayerSpec> layers;
};

struct OptimizerSpec {
  std::string type = "sgd";  // sgd | adam
  double lr = 0.001;
  double momentum = 0.0;
  double dampening = 0.0;
  double weight_decay = 0.0;
  bool nesterov = false;
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8;  // adam

  // The per-parameter state buffers, as PyTorch's state_dict names them: what the backends
  // allocate and checkpoint, and what the memory estimate counts.
  std::vector<std::string> state_names() const {
    if (type == "adam") return {"exp_avg", "exp_avg_sq"};
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
  ScheduleSpec schedule;  // the learning rate per step; constant: the optimizer's lr throughout
  int log_every = 2000;   // mini-batches between loss lines
  int threads = 0;        // 0: OMP_NUM_THREADS, else the machine's cores
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
  nlohmann::json resolved;  // the full config after defaults and overrides, as run
};

}  // namespace runner

// The resolved experiment: plain structs made from a validated config, free of any backend.
// Its model and optimizer are headers of their own, which the graph and the backends include.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "runner/config/device.h"
#include "runner/config/model_spec.h"
#include "runner/config/monitor_spec.h"
#include "runner/config/optimizer_spec.h"
#include "runner/config/precision.h"
#include "runner/config/schedule_spec.h"
#include "runner/data/dataset_spec.h"
#include "runner/metrics/metric_kind.h"
#include "runner/util/errors.h"

namespace runner {

// training.loss beyond the plain cross-entropy: class weights (PyTorch's
// CrossEntropyLoss(weight=...)) and focal modulation.
struct LossSpec {
  std::vector<double> class_weights;  // one per class, as given; empty: none, or balanced
  bool balanced = false;  // class_weights: balanced, scikit-learn's n / (classes * count)
  double focal_gamma = 0;
  bool plain() const { return class_weights.empty() && !balanced && focal_gamma == 0; }
};

// training.ema: an exponential moving average of the weights (and of batch norm's running
// statistics), evaluated beside them after every epoch and kept as a checkpoint of its own, as
// torchvision's reference recipes (--model-ema) and timm's ModelEmaV2.
struct EmaSpec {
  bool enabled = false;
  double decay = 0.9998;  // average = decay x average + (1 - decay) x weights, per update
  int every = 1;          // training steps between updates
};

// training.mixup / training.cutmix / training.mix: timm's Mixup(mixup_alpha, cutmix_alpha, prob,
// switch_prob) in its 'batch' mode (runner/train/batch_mixing.h).
struct MixingSpec {
  double mixup_alpha = 0;    // > 0: mixup with lam ~ Beta(alpha, alpha)
  double cutmix_alpha = 0;   // > 0: cutmix with lam ~ Beta(alpha, alpha)
  double prob = 1;           // the share of batches mixed at all
  double switch_prob = 0.5;  // with both: the share of mixed batches cut instead of blended
  bool enabled() const { return mixup_alpha > 0 || cutmix_alpha > 0; }
};

struct TrainingSpec {
  int epochs = 1;
  int batch_size = 4;
  int eval_batch_size = 1000;
  std::string loss = "cross_entropy";
  LossSpec loss_options;
  double label_smoothing = 0;  // PyTorch's CrossEntropyLoss(label_smoothing)
  MixingSpec mixing;           // training.mixup, training.cutmix (off: neither given)
  OptimizerSpec optimizer;
  // > 0: the gradients scaled to this global L2 norm at most, as torch.nn.utils.clip_grad_norm_
  // (0: no clipping).
  double clip_grad_norm = 0;
  ScheduleSpec schedule;  // the learning rate per step; constant: the optimizer's lr throughout
  // Mini-batches between loss lines; 0: auto, about 20 lines per epoch (log_every_for).
  int log_every = 0;
  int threads = 0;  // 0: OMP_NUM_THREADS, else the machine's cores
  Precision precision = Precision::fp32;
  // `precision: fastest`: the run times a few steps in each precision the device runs natively
  // and trains in the fastest (precision holds the choice once made; fp32 until then).
  bool fastest_precision = false;
  // Run a precision the device only emulates (slowly) instead of refusing it.
  bool allow_emulation = false;
  // A mean loss above this stops the run as diverged, as a NaN does (Lightning's
  // divergence_threshold); none: 1,000 times a uniform guess's loss (divergence_threshold()).
  std::optional<double> divergence_threshold;
  EarlyStoppingSpec early_stopping;  // enabled: stop when the validation figure stalls
  EmaSpec ema;
};

// training.log_every as the loop uses it: the config's, or with auto about 20 loss lines per
// epoch of `steps_per_epoch` steps (at least one, at the epoch's last full step or before).
inline int log_every_for(const TrainingSpec& spec, std::int64_t steps_per_epoch) {
  if (spec.log_every > 0) return spec.log_every;
  return static_cast<int>(std::max<std::int64_t>(1, steps_per_epoch / 20));
}

struct BackendSpec {
  bool deterministic = false;     // GPU: deterministic algorithms only
  bool cuda_graph = true;         // GPU: replay the training step as a CUDA graph
  bool dataset_on_device = true;  // GPU: hold the training set there when it fits
  // CPU: the runner's own 16-channel Winograd kernels where they apply (their last bits differ
  // from oneDNN's); false: oneDNN for every layer.
  bool own_kernels = true;
  // CPU: oneDNN's Winograd F(4x4, 3x3) for wide 3x3 stride-1 convolutions in training (about
  // half the time; gradients within about 1e-3 of exact instead of 1e-6); false: direct only.
  bool winograd = true;
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
  Device device;  // auto | cpu | cuda | cuda:N
  DatasetSpec dataset;
  ModelSpec model;
  TrainingSpec training;
  CheckpointSpec checkpoint;
  BackendSpec backend;
  LoggingSpec logging;
  ReportSpec report;
  // `metrics:` the figures of each evaluated set beyond accuracy and loss, in the config's order.
  std::vector<MetricSpec> metrics;
  nlohmann::json tags = nlohmann::json::object();  // `tags:`, labels the report carries
  nlohmann::json resolved;  // the full config after defaults and overrides, as run
};

}  // namespace runner

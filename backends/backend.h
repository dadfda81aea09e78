// The backend interface: a Backend compiles a Graph once into a Program that then only executes.
// Memory lives in the backend; the host sees tensors only through explicit upload/download.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "backends/common/batch_mix.h"
#include "backends/common/weighted_cross_entropy.h"
#include "runner/config/device.h"
#include "runner/config/optimizer_spec.h"
#include "runner/config/precision.h"
#include "runner/data/augment_math.h"
#include "runner/data/dataset_spec.h"
#include "runner/graph/graph.h"

namespace runner {

// The element type of a host tensor: float32 (parameters, optimizer buffers) or int64 (counts,
// such as the optimizer's step).
enum class TensorDtype { f32, i64 };

// A tensor on the host in PyTorch's plain layout, e.g. a (O, I, kH, kW) conv weight. Its values
// are in `values` (f32) or `integers` (i64); the other vector stays empty.
struct HostTensor {
  HostTensor() = default;
  // A float32 tensor.
  HostTensor(std::string name, std::vector<std::int64_t> dims, std::vector<float> values)
      : name(std::move(name)), dims(std::move(dims)), values(std::move(values)) {}

  std::string name;
  std::vector<std::int64_t> dims;
  std::vector<float> values;
  TensorDtype dtype = TensorDtype::f32;
  std::vector<std::int64_t> integers;

  std::size_t element_count() const {
    return dtype == TensorDtype::f32 ? values.size() : integers.size();
  }
};

// An int64 tensor (TensorDtype::i64).
inline HostTensor int64_tensor(std::string name, std::vector<std::int64_t> dims,
                               std::vector<std::int64_t> integers) {
  HostTensor tensor(std::move(name), std::move(dims), {});
  tensor.dtype = TensorDtype::i64;
  tensor.integers = std::move(integers);
  return tensor;
}

struct CompileOptions {
  int train_batch = 4;  // the largest batch train_step takes
  int eval_batch = 1000;
  OptimizerSpec optimizer;
  double clip_grad_norm = 0;     // > 0: gradients scaled to this global L2 norm at most
  double label_smoothing = 0;    // of the training loss (training.label_smoothing)
  LossWeighting loss_weighting;  // its class weights and focal gamma (training.loss)
  Normalization normalize;       // applied to the uint8 images as the first op
  int threads = 1;
  Precision precision = Precision::fp32;  // training.precision, checked against the device
  // CPU: a larger training batch runs as chunks of at most this many images whose gradients
  // add up (the same step, with activations that stay in cache); 0: never split.
  int max_chunk = 128;
  std::uint64_t seed = 0;         // the run's seed: dropout masks (backends/common/dropout_math.h)
  bool deterministic = false;     // GPU: only algorithms that give bitwise repeatable results
  bool cuda_graph = true;         // GPU: capture the training step once and replay it
  bool dataset_on_device = true;  // GPU: hold the training set there when it fits
  bool own_kernels = true;        // CPU: the runner's own kernels where they apply
  bool winograd = true;           // CPU: oneDNN's Winograd for wide 3x3 convolutions in training
};

// One training batch: its images and labels in host memory, or only where they are in the
// training set the program holds (Program::hold_training_set).
struct TrainBatch {
  const std::uint8_t* images = nullptr;    // (count, C, H, W) bytes
  const std::int32_t* labels = nullptr;    // (count)
  const std::uint32_t* indices = nullptr;  // (count) rows of the held set, instead of both
  int count = 0;
  int epoch = 0;  // with indices: the epoch the held set's augmentation draws from
  // training.mixup / training.cutmix: how this batch's images and targets are mixed after
  // normalisation (the default mixes nothing). Chosen by the trainer for the step.
  batch_mix::BatchMix mix = {};
};

// A labelled image set in host memory: (count, C, H, W) bytes and (count) labels, and the
// augmentation a program that holds it applies as it gathers batches (augment_math.h).
struct HostImageSet {
  const std::uint8_t* images = nullptr;
  const std::int32_t* labels = nullptr;
  std::int64_t count = 0;
  augment_math::Plan augment = {};  // count 0: none
};

// The summed loss over samples since the last take_loss(); reading it is the host sync point.
// With clip_grad_norm, also the gradients' global L2 norms (before clipping) of those steps.
struct LossSum {
  double sum = 0;
  std::int64_t count = 0;
  double grad_norm_sum = 0;
  std::int64_t grad_norm_count = 0;  // steps; 0 without clip_grad_norm
  double mean() const { return count ? sum / static_cast<double>(count) : 0.0; }
  double grad_norm_mean() const {
    return grad_norm_count ? grad_norm_sum / static_cast<double>(grad_norm_count) : 0.0;
  }
  LossSum& operator+=(const LossSum& other) {
    sum += other.sum;
    count += other.count;
    grad_norm_sum += other.grad_norm_sum;
    grad_norm_count += other.grad_norm_count;
    return *this;
  }
};

// Time spent in one named step of a program (a layer's forward or backward, the loss, ...).
struct StepTiming {
  std::string label;
  double seconds = 0;
};

// How a compiled program runs on its device, for the report (empty on the CPU).
struct ProgramFacts {
  std::vector<std::string> algorithms;    // one per convolution pass: "conv1 forward: FFT"
  std::int64_t device_memory_bytes = -1;  // device memory the program holds; -1: not a GPU
  bool training_set_on_device = false;    // batches gathered on the device (hold_training_set)
  std::string cuda_graph_fallback = {};   // why steps ran eagerly after a failed capture ("": none)
  // fp16's dynamic loss scaling (GradScaler's rules): the scale when asked and the steps whose
  // update was skipped for an inf or nan gradient. loss_scale 0: no loss scaling (every other
  // precision, and the CPU).
  double loss_scale = 0;
  std::int64_t skipped_steps = 0;
};

class Program {
 public:
  virtual ~Program() = default;
  // Forward, softmax cross-entropy, backward and optimizer update on a batch of
  // 1 <= count <= train_batch images.
  virtual void train_step(const TrainBatch& batch) = 0;
  void train_step(const std::uint8_t* images, const std::int32_t* labels, int count) {
    train_step(TrainBatch{images, labels, nullptr, count});
  }
  virtual LossSum take_loss() = 0;
  // The learning rate of the training steps from the next one on (a schedule sets it before
  // each step); until then the optimizer's configured lr.
  virtual void set_learning_rate(double lr) = 0;
  // The momentum of the training steps from the next one on: SGD's momentum, or Adam's and
  // AdamW's beta1 (a one_cycle schedule with cycle_momentum sets it before each step); until
  // then the optimizer's configured one. Needs an optimizer with momentum (the config reader
  // refuses cycle_momentum otherwise).
  virtual void set_momentum(double momentum) = 0;
  // train_step, timed per step (each layer's forward and backward, the loss, the update), for
  // `runner bench`; each step waits for completion, so it is slower than train_step.
  virtual void profile_train_step(const TrainBatch& batch, std::vector<StepTiming>& timings) = 0;
  void profile_train_step(const std::uint8_t* images, const std::int32_t* labels, int count,
                          std::vector<StepTiming>& timings) {
    profile_train_step(TrainBatch{images, labels, nullptr, count}, timings);
  }

  // Copies `set` into the device's memory, so that batches given by indices are gathered there
  // and only the indices cross from the host each step. False, holding nothing, where the
  // program does not: the CPU (batches are in its memory already), a GPU program compiled
  // without dataset_on_device, or one with too little free memory. Asking again for the same
  // set returns the first answer.
  virtual bool hold_training_set(const HostImageSet& set) { return false; }
  // Computes the steps from the next one on with `threads` host threads (the CPU program
  // recompiles its nets for them, keeping parameters and optimizer state; a GPU program, whose
  // host threads only feed the device, keeps what it has). The sum of a step's parts depends
  // on the thread count, so its last bits do.
  virtual void set_threads(int threads) {}
  // Frees what only the steps need (activations, the layouts' copies of the weights), keeping
  // parameters and optimizer state: called when the run is done with this program and another
  // is compiled beside it (the reload check). A later step or prediction compiles them again.
  virtual void release_memory() {}
  // Forward inference on `count` <= eval_batch images; writes (count, classes) logits.
  virtual void predict(const std::uint8_t* images, int count, float* logits) = 0;

  // Parameters and optimizer state in plain layout, by name ("conv1.weight",
  // "conv1.weight.momentum_buffer", ...), for checkpoints.
  virtual std::vector<HostTensor> parameters() const = 0;
  virtual void load_parameters(const std::vector<HostTensor>& tensors) = 0;
  virtual std::vector<HostTensor> optimizer_state() const = 0;
  virtual void load_optimizer_state(const std::vector<HostTensor>& tensors) = 0;

  virtual ProgramFacts facts() const { return {}; }
};

// Mean and peak of what was sampled from a GPU (through NVML) while a run trained.
struct DeviceUtilization {
  bool available = false;  // false: nothing could be sampled, nothing recorded
  int samples = 0;
  double mean_gpu_percent = 0, peak_gpu_percent = 0;
  double peak_memory_used_bytes = 0;  // the whole device's, as nvidia-smi shows it
  double mean_sm_clock_mhz = 0;
  double mean_power_watts = 0, peak_power_watts = 0;
};

// Samples the device in the background from its creation until stop().
class UtilizationMonitor {
 public:
  virtual ~UtilizationMonitor() = default;
  virtual DeviceUtilization stop() = 0;
};

struct DeviceInfo {
  std::string backend;                         // "onednn" or "cudnn"
  std::string device;                          // "cpu" or "cuda:0"
  std::string name;                            // CPU model or GPU name
  std::int64_t memory_bytes = 0;               // the device's memory (the machine's, for the CPU)
  std::map<std::string, std::string> details;  // ISA, threads, library versions, memory, ...
  // The precisions this backend runs on this device (absent: not at all).
  std::map<Precision, PrecisionSupport> precisions = {{Precision::fp32, PrecisionSupport::native}};
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual DeviceInfo info() const = 0;
  virtual std::unique_ptr<Program> compile(const Graph& graph, const CompileOptions& options) = 0;
  // A sampler of the device's utilisation, or nullptr where there is none (the CPU: its use
  // is measured as process CPU time instead).
  virtual std::unique_ptr<UtilizationMonitor> monitor_utilization() const { return nullptr; }
};

// The backend for a config's `device`. `auto` falls back to the CPU and says why in `note`; an
// unusable explicit device is a UserError.
std::unique_ptr<Backend> make_backend(const Device& device, std::string* note);

// PyTorch's default initialisation (uniform in +-1/sqrt(fan_in)) from a seed, plain layout.
std::vector<HostTensor> initial_parameters(const Graph& graph, std::uint64_t seed);

}  // namespace runner

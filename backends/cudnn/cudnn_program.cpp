// The cuDNN program: compile once, then per step upload the batch and launch (or replay) the step.
#include "backends/cudnn/cudnn_program.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <limits>
#include <map>

#include "backends/common/checkpoint_tensors.h"
#include "backends/common/host_math.h"
#include "backends/common/label_check.h"
#include "backends/cudnn/cuda_check.h"
#include "backends/cudnn/precision_kernels.h"
#include "backends/cudnn/weighted_loss_kernel.h"
#include "runner/graph/layer_kind.h"
#include "runner/util/errors.h"

namespace runner::cudnn {
namespace {

constexpr std::size_t kCublasWorkspaceBytes = 32u << 20;  // cuBLAS's advice for Hopper

// A host array copied to new device memory (compile time only).
template <typename T>
T* to_device(DeviceMemory& memory, const std::vector<T>& values, const std::string& what) {
  T* device = memory.array<T>(values.size(), what);
  CUDA_CHECK(cudaMemcpy(device, values.data(), values.size() * sizeof(T), cudaMemcpyHostToDevice));
  return device;
}

}  // namespace

CudnnProgram::CudnnProgram(int device, const Graph& graph, const CompileOptions& options)
    : graph_(graph), options_(options), device_(device), params_(memory_, handles_.stream()) {
  const Libraries& libs = handles_.get();
  state_names_ = Optimizer(options.optimizer).state_names();
  // cuBLAS's default math mode is strict FP32 (as fp32 needs); tf32 lets its tensor cores round
  // the products' inputs to TF32. cuDNN's convolutions are told per descriptor (descriptors.h).
  if (options.precision == Precision::tf32) {
    CUBLAS_CHECK(cublasSetMathMode(libs.cublas, CUBLAS_TF32_TENSOR_OP_MATH));
  }

  // Constants: the normalisation (the host's own formula), ones for bias gradients.
  ByteNormalizer normalizer(options.normalize, graph_.input.c);
  normalizer_ = {to_device(memory_, normalizer.scale, "normalisation"),
                 to_device(memory_, normalizer.shift, "normalisation")};
  // A bias gradient sums a batch's rows: one per image, or one per token of a token sequence.
  int rows_per_image = 1;
  for (const Node& node : graph_.nodes) {
    if (node.output.tokens) rows_per_image = std::max(rows_per_image, node.output.h);
  }
  const std::size_t largest =
      static_cast<std::size_t>(std::max(options.train_batch, options.eval_batch)) * rows_per_image;
  const float* ones = to_device(memory_, std::vector<float>(largest, 1.f), "ones");
  void* cublas_workspace = memory_.allocate(kCublasWorkspaceBytes, "cuBLAS workspace");
  CUBLAS_CHECK(cublasSetWorkspace(libs.cublas, cublas_workspace, kCublasWorkspaceBytes));
  scalars_ = memory_.array<kernels::StepScalars>(1, "optimizer step");
  loss_sum_ = memory_.array<double>(1, "loss sum");
  if (!options.loss_weighting.class_weights.empty()) {
    class_weights_ = to_device(memory_, options.loss_weighting.class_weights, "class weights");
  }

  BuildContext ctx;
  ctx.libs = &libs;
  ctx.memory = &memory_;
  ctx.params = &params_;
  ctx.workspace = &workspace_;
  ctx.deterministic = options.deterministic;
  ctx.precision = options.precision;
  ctx.activations = activation_type(options.precision);
  ctx.ones = ones;
  ctx.seed = options.seed;
  ctx.step = &scalars_->step;  // a device address
  ctx.algorithms = &algorithms_;
  ctx.batch = options.train_batch;
  ctx.training = true;
  train_ = build_net(graph_, ctx);
  ctx.batch = options.eval_batch;
  ctx.training = false;
  eval_ = build_net(graph_, ctx);
  params_.allocate_state(static_cast<int>(state_names_.size()));
  if (workspace_.bytes > 0) workspace_.data = memory_.allocate(workspace_.bytes, "cuDNN workspace");

  loss_host_ = pinned_.array<double>(2, "loss");
  staged_scalars_ = std::make_unique<StagedScalars>(pinned_);
  const std::size_t logits = static_cast<std::size_t>(options.eval_batch) * graph_.classes;
  logits_host_ = pinned_.array<float>(logits, "logits");
  if (eval_->logits.type != DataType::f32) {
    eval_logits_ = memory_.array<float>(logits, "logits in FP32");
  }
  build_mirror_steps();
  build_train_steps(*train_, train_steps_);
  batch_statistics_ = uses_batch_statistics(graph_);
  short_context_ = ctx;
  CUDA_CHECK(cudaDeviceSynchronize());  // the zeroing and constant copies above are done
  learning_rate_ = std::nan("");        // unlike any lr: the copy is made
  set_learning_rate(options.optimizer.lr);
  copy_to_scalars(offsetof(kernels::StepScalars, momentum), options.optimizer.momentum);
  copy_to_scalars(offsetof(kernels::StepScalars, beta1), options.optimizer.beta1);
  if (loss_scaling()) {
    const auto initial = loss_scale_math::initial_state(loss_scale_math::Settings{});
    CUDA_CHECK(cudaMemcpy(&scalars_->loss, &initial, sizeof(initial), cudaMemcpyHostToDevice));
  }
}

bool CudnnProgram::loss_scaling() const {
  return options_.precision == Precision::fp16;
}

void CudnnProgram::build_mirror_steps() {
  for (const Parameter& p : params_.parameters()) {
    if (!p.mirror) continue;
    const float* value = p.value;
    void* mirror = p.mirror;
    const DataType type = p.mirror_type;
    const std::size_t n = p.elements;
    mirror_steps_.add("16-bit weights", [=](cudaStream_t stream) {
      kernels::convert(value, DataType::f32, mirror, type, n, stream);
    });
  }
}

CudnnProgram::~CudnnProgram() {
  // Nothing may still run when the memory goes; errors are ignored (destructors do not throw).
  cudaSetDevice(device_.device);
  cudaStreamSynchronize(copy_stream_.get());
  cudaStreamSynchronize(handles_.stream());
  cudaGetLastError();
}

std::unique_ptr<BatchSlot> CudnnProgram::make_slot(const Net& net, const HeldSet* held) {
  auto slot = std::make_unique<BatchSlot>(memory_, pinned_, net.batch,
                                          static_cast<std::size_t>(graph_.input.elements()), held);
  slot->load = load_steps(net, slot->source(), normalizer_,
                          held ? "gather and normalize input" : "normalize input");
  // The new buffers are zeroed on the legacy stream, which the program's streams do not wait for.
  CUDA_CHECK(cudaDeviceSynchronize());
  return slot;
}

BatchSlot& CudnnProgram::next_train_slot() {
  if (!train_slots_[0]) {
    // Both slots are made before either is kept: a failed allocation of the second (out of
    // memory) must not leave the first published and the second null for a retried step.
    const HeldSet* held = held_ ? &*held_ : nullptr;
    auto first = make_slot(*train_, held);
    auto second = make_slot(*train_, held);
    train_slots_[0] = std::move(first);
    train_slots_[1] = std::move(second);
  }
  BatchSlot& slot = *train_slots_[next_slot_];
  next_slot_ ^= 1;
  return slot;
}

BatchSlot& CudnnProgram::eval_slot() {
  if (!eval_slot_) eval_slot_ = make_slot(*eval_, nullptr);
  return *eval_slot_;
}

bool CudnnProgram::hold_training_set(const HostImageSet& set) {
  if (asked_to_hold_) {
    if (asked_to_hold_ != set.images || (held_ && held_->count != set.count)) {
      throw std::logic_error("a program holds one training set");
    }
    return held_.has_value();
  }
  if (train_slots_[0]) throw std::logic_error("hold_training_set after the first training step");
  asked_to_hold_ = set.images;
  if (!options_.dataset_on_device || set.count < 1) return false;
  check_labels(set.labels, set.count, graph_.classes, "training image {}");
  if (set.count > std::numeric_limits<std::int32_t>::max()) return false;  // rows are int32
  const std::size_t image_bytes = static_cast<std::size_t>(set.count) * graph_.input.elements();
  const std::size_t label_bytes = static_cast<std::size_t>(set.count) * sizeof(std::int32_t);
  select_device();
  std::size_t free = 0, total = 0;
  CUDA_CHECK(cudaMemGetInfo(&free, &total));
  // Held only when it takes at most half of what is free: the rest is the headroom of
  // evaluation, the libraries and whatever else shares the device.
  if (image_bytes + label_bytes > free / 2) return false;
  auto* images = memory_.array<std::uint8_t>(image_bytes, "training set images");
  auto* labels = memory_.array<std::int32_t>(set.count, "training set labels");
  CUDA_CHECK(cudaMemcpy(images, set.images, image_bytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(labels, set.labels, label_bytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaDeviceSynchronize());  // before the program's own streams read it
  held_ = HeldSet{images, labels, set.count, set.augment};
  return true;
}

void CudnnProgram::build_train_steps(const Net& net, StepList& steps) {
  steps.append(mirror_steps_);  // once per step, before the first layer reads a weight
  steps.append(net.forward);
  {
    const void* logits = net.logits.data;
    const std::int32_t* labels = net.labels;
    const int* count = net.labels + net.batch;
    const batch_mix::BatchMix* mix = net.mix;
    void* grad = net.logits_grad.data;
    const DataType type = net.logits.type;
    const float* loss_scale = loss_scaling() ? &scalars_->loss.scale : nullptr;
    double* loss_sum = loss_sum_;
    const int rows = net.batch, classes = graph_.classes;
    const double smoothing = options_.label_smoothing;
    if (options_.loss_weighting.active()) {
      const float* weights = class_weights_;
      const double gamma = options_.loss_weighting.focal_gamma;
      steps.add("loss", [=](cudaStream_t stream) {
        kernels::weighted_softmax_cross_entropy(logits, labels, count, rows, classes, smoothing,
                                                weights, gamma, grad, type, loss_scale, loss_sum,
                                                stream);
      });
    } else {
      steps.add("loss", [=](cudaStream_t stream) {
        kernels::softmax_cross_entropy(logits, labels, count, rows, classes, smoothing, mix, grad,
                                       type, loss_scale, loss_sum, stream);
      });
    }
  }
  steps.append(net.backward);
  if (loss_scaling()) add_non_finite_steps(steps);

  // The step number lives on the device, incremented by a kernel, so a replayed graph uses the
  // current one for Adam's bias correction and SGD's first-step rule; so does clipping's factor.
  const OptimizerSpec& spec = options_.optimizer;
  kernels::OptimizerConstants constants;
  constants.beta2 = spec.beta2;
  constants.one_minus_dampening = static_cast<float>(1 - spec.dampening);
  constants.loss_scaling = loss_scaling();
  kernels::StepScalars* scalars = scalars_;
  steps.add("optimizer update",
            [=](cudaStream_t stream) { kernels::begin_step(scalars, constants, stream); });
  if (options_.clip_grad_norm > 0) add_clip_steps(steps);
  for (const Parameter& p : params_.parameters()) {
    if (!p.spec.trainable) continue;  // buffers are updated by their layer's forward pass
    float* value = p.value;
    const float* grad = p.gradient;
    const std::size_t n = p.elements;
    if (spec.adam_family()) {
      const kernels::AdamSettings s = adam_settings(spec, p.spec);
      const double decoupled_decay =
          spec.type == OptimizerType::adamw ? weight_decay_of(spec, p.spec) : 0.0;
      float* m = p.state[0];
      float* v = p.state[1];
      steps.add("optimizer update", [=](cudaStream_t stream) {
        kernels::adam_update(value, grad, m, v, n, s, decoupled_decay, scalars, stream);
      });
    } else {
      const kernels::SgdSettings s = sgd_settings(spec, p.spec);
      float* buffer = p.state.empty() ? nullptr : p.state[0];
      steps.add("optimizer update", [=](cudaStream_t stream) {
        kernels::sgd_update(value, grad, buffer, n, s, scalars, stream);
      });
    }
  }
}

void CudnnProgram::add_non_finite_steps(StepList& steps) {
  int* found = &scalars_->found_inf;
  for (const Parameter& p : params_.parameters()) {
    if (!p.spec.trainable) continue;
    const float* grad = p.gradient;
    const std::size_t n = p.elements;
    steps.add("loss scaling",
              [=](cudaStream_t stream) { kernels::find_non_finite(grad, n, found, stream); });
  }
}

void CudnnProgram::add_clip_steps(StepList& steps) {
  int count = 0;
  for (const Parameter& p : params_.parameters()) count += p.spec.trainable ? 1 : 0;
  double* squares = memory_.array<double>(std::max(count, 1), "gradient norms");
  int k = 0;
  for (const Parameter& p : params_.parameters()) {
    if (!p.spec.trainable) continue;
    const float* grad = p.gradient;
    const std::size_t n = p.elements;
    double* out = squares + k++;
    steps.add("gradient clipping",
              [=](cudaStream_t stream) { kernels::sum_of_squares(grad, n, out, stream); });
  }
  const float max_norm = static_cast<float>(options_.clip_grad_norm);
  kernels::StepScalars* scalars = scalars_;
  steps.add("gradient clipping", [=](cudaStream_t stream) {
    kernels::clip_gradients(squares, count, max_norm, scalars, stream);
  });
}

void CudnnProgram::select_device() const {
  CUDA_CHECK(cudaSetDevice(device_.device));
}

void CudnnProgram::check_batch(const Net& net, const TrainBatch& batch) const {
  const int count = batch.count;
  if (count < 1 || count > net.batch) {
    throw std::logic_error(
        fmt::format("batch of {} for a program compiled for {}", count, net.batch));
  }
  if (net.training) {
    check_batch_mix(batch.mix, graph_.input.h, graph_.input.w, options_.loss_weighting.active());
  }
  if (batch.indices) {
    if (!held_) throw std::logic_error("a batch given by rows to a program holding no set");
    for (int i = 0; i < count; ++i) {
      if (batch.indices[i] >= held_->count) {
        throw std::logic_error(
            fmt::format("row {} of a held set of {}", batch.indices[i], held_->count));
      }
    }
    return;
  }
  if (held_ && net.training) {
    throw std::logic_error("a batch given as images to a program holding its training set");
  }
  if (!batch.images || (net.training && !batch.labels)) {
    throw std::logic_error(net.training ? "a training batch needs images and labels"
                                        : "a batch needs images");
  }
  if (!batch.labels) return;
  check_labels(batch.labels, count, graph_.classes, "image {} of a batch");
}

CudnnProgram::ShortNet& CudnnProgram::short_net(int count) {
  std::unique_ptr<ShortNet>& entry = short_nets_[count];
  if (entry) return *entry;
  auto made = std::make_unique<ShortNet>();
  BuildContext ctx = short_context_;
  ctx.batch = count;
  ctx.training = true;
  ctx.workspace = &made->workspace;  // its own: the captured graphs keep theirs
  made->net = build_net(graph_, ctx);
  if (made->workspace.bytes > 0) {
    made->workspace.data = memory_.allocate(made->workspace.bytes, "cuDNN workspace");
  }
  build_train_steps(*made->net, made->steps);
  made->slot = make_slot(*made->net, held_ ? &*held_ : nullptr);
  entry = std::move(made);
  return *entry;
}

void CudnnProgram::short_train_step(const TrainBatch& batch) {
  ShortNet& short_batch = short_net(batch.count);
  check_batch(*short_batch.net, batch);
  const cudaStream_t stream = handles_.stream();
  BatchSlot& slot = *short_batch.slot;
  slot.upload(batch, copy_stream_.get(), stream);
  slot.load.run(stream);
  short_batch.steps.run(stream);
  slot.release(stream);
  ++steps_run_;
  loss_count_ += batch.count;
  // The kernel adds this step's norm too: count it, or grad_norm_mean is (N+1)/N too high.
  if (options_.clip_grad_norm > 0) ++clipped_steps_;
}

void CudnnProgram::train_step(const TrainBatch& batch) {
  select_device();
  if (batch_statistics_ && batch.count >= 1 && batch.count < train_->batch) {
    short_train_step(batch);
    return;
  }
  check_batch(*train_, batch);
  const cudaStream_t stream = handles_.stream();
  BatchSlot& slot = next_train_slot();
  slot.upload(batch, copy_stream_.get(), stream);
  auto enqueue = [&] {
    slot.load.run(stream);
    train_steps_.run(stream);
  };
  // The first step runs eagerly: libraries load their kernels then, not while capturing. A
  // capture that fails (a library call that cannot be captured, instantiation out of memory)
  // leaves this program on eager steps, and its facts say why; nothing ran while capturing.
  bool replayed = false;
  if (options_.cuda_graph && steps_run_ > 0 && graph_fallback_.empty()) {
    try {
      if (!slot.graph.ready()) slot.graph.capture(stream, enqueue);
      slot.graph.launch(stream);
      replayed = true;
    } catch (const LibraryError& error) {
      graph_fallback_ = error.what();
    } catch (const OutOfMemoryError& error) {  // instantiating the graph: eager steps need less
      graph_fallback_ = std::string("out of device memory for the CUDA graph: ") + error.what();
    }
  }
  if (!replayed) enqueue();
  slot.release(stream);
  ++steps_run_;
  loss_count_ += batch.count;
  if (options_.clip_grad_norm > 0) ++clipped_steps_;
}

void CudnnProgram::profile_train_step(const TrainBatch& batch, std::vector<StepTiming>& timings) {
  select_device();
  if (batch_statistics_ && batch.count >= 1 && batch.count < train_->batch) {
    short_train_step(batch);  // untimed: benchmarks time full batches
    return;
  }
  check_batch(*train_, batch);
  const cudaStream_t stream = handles_.stream();
  BatchSlot& slot = next_train_slot();
  slot.upload(batch, copy_stream_.get(), stream, &timer_,
              slot.takes_rows() ? "upload batch rows" : "upload batch");
  timer_.run(slot.load, stream);
  timer_.run(train_steps_, stream);
  slot.release(stream);
  timer_.collect(stream, timings);
  ++steps_run_;
  loss_count_ += batch.count;
  if (options_.clip_grad_norm > 0) ++clipped_steps_;
}

LossSum CudnnProgram::take_loss() {
  select_device();
  const cudaStream_t stream = handles_.stream();
  CUDA_CHECK(
      cudaMemcpyAsync(loss_host_, loss_sum_, sizeof(double), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaMemsetAsync(loss_sum_, 0, sizeof(double), stream));
  auto* norm_sum = reinterpret_cast<double*>(reinterpret_cast<char*>(scalars_) +
                                             offsetof(kernels::StepScalars, grad_norm_sum));
  CUDA_CHECK(
      cudaMemcpyAsync(loss_host_ + 1, norm_sum, sizeof(double), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaMemsetAsync(norm_sum, 0, sizeof(double), stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));  // the one place a training loop waits for the GPU
  LossSum taken{loss_host_[0], loss_count_, loss_host_[1], clipped_steps_};
  loss_count_ = 0;
  clipped_steps_ = 0;
  return taken;
}

void CudnnProgram::predict(const std::uint8_t* images, int count, float* logits) {
  select_device();
  const TrainBatch batch{images, nullptr, nullptr, count};
  check_batch(*eval_, batch);
  const cudaStream_t stream = handles_.stream();
  BatchSlot& slot = eval_slot();
  slot.upload(batch, copy_stream_.get(), stream);
  slot.load.run(stream);
  mirror_steps_.run(stream);  // the weights may have changed since the last step converted them
  eval_->forward.run(stream);
  slot.release(stream);
  const std::size_t values = static_cast<std::size_t>(count) * graph_.classes;
  const void* computed = eval_->logits.data;
  if (eval_logits_) {  // 16-bit logits, widened for the host
    kernels::convert(computed, eval_->logits.type, eval_logits_, DataType::f32, values, stream);
    computed = eval_logits_;
  }
  const std::size_t bytes = values * sizeof(float);
  CUDA_CHECK(cudaMemcpyAsync(logits_host_, computed, bytes, cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  std::memcpy(logits, logits_host_, bytes);
}

std::vector<HostTensor> CudnnProgram::parameters() const {
  select_device();
  return download_parameters(params_);
}

void CudnnProgram::load_parameters(const std::vector<HostTensor>& tensors) {
  select_device();
  upload_parameters(params_, tensors);
}

std::vector<HostTensor> CudnnProgram::optimizer_state() const {
  select_device();
  return download_optimizer_state(params_, state_names_, device_scalars().step);
}

kernels::StepScalars CudnnProgram::device_scalars() const {
  kernels::StepScalars scalars{};
  const cudaStream_t stream = handles_.stream();
  CUDA_CHECK(cudaMemcpyAsync(&scalars, scalars_, sizeof(scalars), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  return scalars;
}

void CudnnProgram::load_optimizer_state(const std::vector<HostTensor>& tensors) {
  select_device();
  // The device's step count, which the next begin_step kernel increments.
  const long long device_step = upload_optimizer_state(params_, state_names_, tensors);
  const cudaStream_t stream = handles_.stream();
  auto* step_field = reinterpret_cast<long long*>(reinterpret_cast<char*>(scalars_) +
                                                  offsetof(kernels::StepScalars, step));
  CUDA_CHECK(cudaMemcpyAsync(step_field, &device_step, sizeof(device_step), cudaMemcpyHostToDevice,
                             stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
}

void CudnnProgram::set_learning_rate(double lr) {
  if (lr == learning_rate_) return;  // a constant lr costs no copy per step
  learning_rate_ = lr;
  copy_to_scalars(offsetof(kernels::StepScalars, lr), lr);
}

void CudnnProgram::set_momentum(double momentum) {
  copy_to_scalars(options_.optimizer.adam_family() ? offsetof(kernels::StepScalars, beta1)
                                                   : offsetof(kernels::StepScalars, momentum),
                  momentum);
}

void CudnnProgram::copy_to_scalars(std::size_t offset, double value) {
  select_device();
  auto* field = reinterpret_cast<double*>(reinterpret_cast<char*>(scalars_) + offset);
  staged_scalars_->copy(field, value, handles_.stream());
}

ProgramFacts CudnnProgram::facts() const {
  ProgramFacts facts{algorithms_, static_cast<std::int64_t>(memory_.total_bytes()),
                     held_.has_value(), graph_fallback_};
  if (loss_scaling()) {
    select_device();
    const kernels::StepScalars scalars = device_scalars();
    facts.loss_scale = scalars.loss.scale;
    facts.skipped_steps = scalars.loss.skipped_steps;
  }
  return facts;
}

}  // namespace runner::cudnn

// The cuDNN program: compile once, then per step copy the batch and launch (or replay) the step.
#include "backends/cudnn/cudnn_program.h"

#include <fmt/format.h>

#include <cstddef>
#include <cstring>
#include <map>

#include "backends/common/host_math.h"
#include "backends/common/tensor_lookup.h"
#include "backends/cudnn/cuda_check.h"
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

  // Constants: the normalisation (the host's own formula), ones for bias gradients.
  ByteNormalizer normalizer(options.normalize, graph_.input.c);
  DeviceNormalizer device_normalizer{to_device(memory_, normalizer.scale, "normalisation"),
                                     to_device(memory_, normalizer.shift, "normalisation")};
  const int largest = std::max(options.train_batch, options.eval_batch);
  const float* ones = to_device(memory_, std::vector<float>(largest, 1.f), "ones");
  void* cublas_workspace = memory_.allocate(kCublasWorkspaceBytes, "cuBLAS workspace");
  CUBLAS_CHECK(cublasSetWorkspace(libs.cublas, cublas_workspace, kCublasWorkspaceBytes));
  scalars_ = memory_.array<kernels::StepScalars>(1, "optimizer step");
  loss_sum_ = memory_.array<double>(1, "loss sum");

  BuildContext ctx;
  ctx.libs = &libs;
  ctx.memory = &memory_;
  ctx.params = &params_;
  ctx.workspace = &workspace_;
  ctx.deterministic = options.deterministic;
  ctx.ones = ones;
  ctx.algorithms = &algorithms_;
  ctx.batch = options.train_batch;
  ctx.training = true;
  train_ = build_net(graph_, ctx, device_normalizer);
  ctx.batch = options.eval_batch;
  ctx.training = false;
  eval_ = build_net(graph_, ctx, device_normalizer);
  params_.allocate_state(static_cast<int>(state_names_.size()));
  if (workspace_.bytes > 0) workspace_.data = memory_.allocate(workspace_.bytes, "cuDNN workspace");

  for (Staging& slot : train_staging_) slot = make_staging(options.train_batch, "training batch");
  eval_staging_ = make_staging(options.eval_batch, "evaluation batch");
  loss_host_ = pinned_.array<double>(1, "loss");
  logits_host_ =
      pinned_.array<float>(static_cast<std::size_t>(options.eval_batch) * graph_.classes, "logits");
  build_train_steps();
  CUDA_CHECK(cudaDeviceSynchronize());  // the zeroing and constant copies above are done
}

CudnnProgram::~CudnnProgram() {
  // Nothing may still run when the memory goes; errors are ignored (destructors do not throw).
  cudaSetDevice(device_.device);
  cudaStreamSynchronize(handles_.stream());
  cudaGetLastError();
}

CudnnProgram::Staging CudnnProgram::make_staging(int batch, const std::string& what) {
  Staging slot;
  slot.images = pinned_.array<std::uint8_t>(
      static_cast<std::size_t>(batch) * graph_.input.elements(), what + " images");
  slot.labels = pinned_.array<std::int32_t>(batch + 1, what + " labels");
  slot.copied = std::make_unique<CudaEvent>();
  return slot;
}

void CudnnProgram::build_train_steps() {
  const Net& net = *train_;
  train_steps_.append(net.forward);  // begins with the normalisation
  {
    const float* logits = net.logits.data;
    const std::int32_t* labels = net.labels;
    const int* count = net.labels + net.batch;
    float* grad = net.logits_grad.data;
    double* loss_sum = loss_sum_;
    const int rows = net.batch, classes = graph_.classes;
    train_steps_.add("loss", [=](cudaStream_t stream) {
      kernels::softmax_cross_entropy(logits, labels, count, rows, classes, grad, loss_sum, stream);
    });
  }
  train_steps_.append(net.backward);

  // The step number lives on the device, incremented by a kernel, so a replayed graph uses the
  // current one for Adam's bias correction and SGD's first-step rule.
  const OptimizerSpec& spec = options_.optimizer;
  kernels::OptimizerConstants constants;
  constants.lr = spec.lr;
  constants.beta1 = spec.beta1;
  constants.beta2 = spec.beta2;
  constants.momentum = static_cast<float>(spec.momentum);
  constants.one_minus_dampening = static_cast<float>(1 - spec.dampening);
  kernels::StepScalars* scalars = scalars_;
  train_steps_.add("optimizer update",
                   [=](cudaStream_t stream) { kernels::begin_step(scalars, constants, stream); });
  for (const Parameter& p : params_.parameters()) {
    float* value = p.value;
    const float* grad = p.gradient;
    const std::size_t n = p.elements;
    if (spec.type == "adam") {
      kernels::AdamSettings s{static_cast<float>(spec.weight_decay), static_cast<float>(spec.beta1),
                              static_cast<float>(spec.beta2), static_cast<float>(spec.eps)};
      float* m = p.state[0];
      float* v = p.state[1];
      train_steps_.add("optimizer update", [=](cudaStream_t stream) {
        kernels::adam_update(value, grad, m, v, n, s, scalars, stream);
      });
    } else {
      kernels::SgdSettings s{static_cast<float>(spec.lr), static_cast<float>(spec.weight_decay),
                             static_cast<float>(spec.momentum), spec.nesterov};
      float* buffer = p.state.empty() ? nullptr : p.state[0];
      train_steps_.add("optimizer update", [=](cudaStream_t stream) {
        kernels::sgd_update(value, grad, buffer, n, s, scalars, stream);
      });
    }
  }
}

void CudnnProgram::select_device() const {
  CUDA_CHECK(cudaSetDevice(device_.device));
}

void CudnnProgram::check_batch(const Net& net, const std::int32_t* labels, int count) const {
  if (count < 1 || count > net.batch) {
    throw std::logic_error(
        fmt::format("batch of {} for a program compiled for {}", count, net.batch));
  }
  if (!labels) return;
  for (int i = 0; i < count; ++i) {
    if (labels[i] < 0 || labels[i] >= graph_.classes) {
      throw UserError(fmt::format("label {} of image {} in a batch is outside 0..{}", labels[i], i,
                                  graph_.classes - 1));
    }
  }
}

void CudnnProgram::stage(const Net& net, Staging& slot, const std::uint8_t* images,
                         const std::int32_t* labels, int count) {
  const cudaStream_t stream = handles_.stream();
  // The previous copy out of this slot must be done before the slot is overwritten.
  CUDA_CHECK(cudaEventSynchronize(slot.copied->get()));
  const std::size_t image_bytes = static_cast<std::size_t>(count) * graph_.input.elements();
  std::memcpy(slot.images, images, image_bytes);
  if (labels)
    std::memcpy(slot.labels, labels, static_cast<std::size_t>(count) * sizeof(std::int32_t));
  slot.labels[net.batch] = count;  // read on the device by the normalisation and the loss
  CUDA_CHECK(cudaMemcpyAsync(net.images, slot.images, image_bytes, cudaMemcpyHostToDevice, stream));
  CUDA_CHECK(cudaMemcpyAsync(net.labels, slot.labels, (net.batch + 1) * sizeof(std::int32_t),
                             cudaMemcpyHostToDevice, stream));
  CUDA_CHECK(cudaEventRecord(slot.copied->get(), stream));
}

void CudnnProgram::train_step(const std::uint8_t* images, const std::int32_t* labels, int count) {
  select_device();
  check_batch(*train_, labels, count);
  const cudaStream_t stream = handles_.stream();
  stage(*train_, train_staging_[next_slot_], images, labels, count);
  next_slot_ ^= 1;
  // The first step runs eagerly: libraries load their kernels then, not while capturing.
  if (options_.cuda_graph && steps_run_ > 0) {
    if (!graph_exec_.ready()) graph_exec_.capture(stream, [&] { train_steps_.run(stream); });
    graph_exec_.launch(stream);
  } else {
    train_steps_.run(stream);
  }
  ++steps_run_;
  ++step_;
  loss_count_ += count;
}

void CudnnProgram::profile_train_step(const std::uint8_t* images, const std::int32_t* labels,
                                      int count, std::vector<StepTiming>& timings) {
  select_device();
  check_batch(*train_, labels, count);
  const cudaStream_t stream = handles_.stream();
  timer_.time(
      "upload batch",
      [&](cudaStream_t) { stage(*train_, train_staging_[next_slot_], images, labels, count); },
      stream);
  next_slot_ ^= 1;
  timer_.run(train_steps_, stream);
  timer_.collect(stream, timings);
  ++steps_run_;
  ++step_;
  loss_count_ += count;
}

LossSum CudnnProgram::take_loss() {
  select_device();
  const cudaStream_t stream = handles_.stream();
  CUDA_CHECK(
      cudaMemcpyAsync(loss_host_, loss_sum_, sizeof(double), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaMemsetAsync(loss_sum_, 0, sizeof(double), stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));  // the one place a training loop waits for the GPU
  LossSum taken{*loss_host_, loss_count_};
  loss_count_ = 0;
  return taken;
}

void CudnnProgram::predict(const std::uint8_t* images, int count, float* logits) {
  select_device();
  check_batch(*eval_, nullptr, count);
  const cudaStream_t stream = handles_.stream();
  stage(*eval_, eval_staging_, images, nullptr, count);
  eval_->forward.run(stream);
  const std::size_t bytes = static_cast<std::size_t>(count) * graph_.classes * sizeof(float);
  CUDA_CHECK(
      cudaMemcpyAsync(logits_host_, eval_->logits.data, bytes, cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  std::memcpy(logits, logits_host_, bytes);
}

std::vector<HostTensor> CudnnProgram::parameters() const {
  select_device();
  std::vector<HostTensor> tensors;
  for (const Parameter& p : params_.parameters()) {
    tensors.push_back(params_.download(p, p.value, p.spec.name));
  }
  return tensors;
}

void CudnnProgram::load_parameters(const std::vector<HostTensor>& tensors) {
  select_device();
  TensorLookup index(tensors);
  for (const Parameter& p : params_.parameters()) {
    params_.upload(p, p.value, index.require(p.spec.name));
  }
}

std::vector<HostTensor> CudnnProgram::optimizer_state() const {
  select_device();
  std::vector<HostTensor> tensors;
  for (const Parameter& p : params_.parameters()) {
    for (std::size_t k = 0; k < state_names_.size(); ++k) {
      tensors.push_back(params_.download(p, p.state[k], p.spec.name + "." + state_names_[k]));
    }
  }
  tensors.push_back({"optimizer.step", {1}, {static_cast<float>(step_)}});
  return tensors;
}

void CudnnProgram::load_optimizer_state(const std::vector<HostTensor>& tensors) {
  select_device();
  TensorLookup index(tensors);
  for (const Parameter& p : params_.parameters()) {
    for (std::size_t k = 0; k < state_names_.size(); ++k) {
      params_.upload(p, p.state[k], index.require(p.spec.name + "." + state_names_[k]));
    }
  }
  step_ = static_cast<std::int64_t>(index.require("optimizer.step").values.at(0));
  // The device's copy of the step, which the next begin_step kernel increments.
  const long long device_step = step_;
  const cudaStream_t stream = handles_.stream();
  auto* step_field = reinterpret_cast<long long*>(reinterpret_cast<char*>(scalars_) +
                                                  offsetof(kernels::StepScalars, step));
  CUDA_CHECK(cudaMemcpyAsync(step_field, &device_step, sizeof(device_step), cudaMemcpyHostToDevice,
                             stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
}

ProgramFacts CudnnProgram::facts() const {
  return {algorithms_, static_cast<std::int64_t>(memory_.total_bytes())};
}

}  // namespace runner::cudnn

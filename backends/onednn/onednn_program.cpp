// The oneDNN program: normalise, forward, loss, backward, update; inference for evaluation.
#include "backends/onednn/onednn_program.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <map>

#include "backends/common/label_check.h"
#include "backends/common/tensor_lookup.h"
#include "runner/util/errors.h"

namespace runner::onednn {

namespace {
float* data_of(const dnnl::memory& m) {
  return static_cast<float*>(m.get_data_handle());
}
}  // namespace

OnednnProgram::OnednnProgram(const Graph& graph, const CompileOptions& options)
    : graph_(graph),
      options_(options),
      engine_(dnnl::engine::kind::cpu, 0),
      stream_(engine_),
      params_(engine_),
      normalizer_(options.normalize, graph.input.c),
      optimizer_(options.optimizer) {
  const int chunk = options.max_chunk > 0 ? std::min(options.max_chunk, options.train_batch)
                                          : options.train_batch;
  train_net_ = build_net(graph_, engine_, chunk, true, params_);
  eval_net_ = build_net(graph_, engine_, options.eval_batch, false, params_);
  params_.allocate_state(static_cast<int>(optimizer_.state_names().size()));
  state_pointers_.resize(optimizer_.state_names().size());
  if (chunk < options.train_batch) {
    for (const Parameter& p : params_.parameters()) {
      summed_gradients_.emplace_back(p.gradient.get_desc().get_size() / sizeof(float));
    }
  }
}

void OnednnProgram::load_batch(const Net& net, const std::uint8_t* images, int count) {
  if (count < 1 || count > net.batch) {
    throw std::logic_error(
        fmt::format("batch of {} for a program compiled for {}", count, net.batch));
  }
  const int pixels = graph_.input.h * graph_.input.w;
  float* input = data_of(net.input);
  normalizer_.apply(images, count, pixels, input);
  // A short last batch: zero images whose loss gradient is zero, so they change nothing.
  std::size_t filled = static_cast<std::size_t>(count) * graph_.input.elements();
  std::fill(input + filled, input + static_cast<std::size_t>(net.batch) * graph_.input.elements(),
            0.f);
}

void OnednnProgram::compute_loss(const std::int32_t* labels, int count, int batch_count) {
  loss_.sum += softmax_cross_entropy(data_of(train_net_->logits), labels, count, train_net_->batch,
                                     graph_.classes, data_of(train_net_->logits_grad), batch_count,
                                     options_.label_smoothing);
  loss_.count += count;
}

void OnednnProgram::sum_gradients(bool first_chunk) {
  auto& parameters = params_.parameters();
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    const float* grad = data_of(parameters[i].gradient);
    std::vector<float>& sum = summed_gradients_[i];
    if (first_chunk) {
      std::copy(grad, grad + sum.size(), sum.begin());
    } else {
      for (std::size_t k = 0; k < sum.size(); ++k) sum[k] += grad[k];
    }
  }
}

void OnednnProgram::update_parameters() {
  optimizer_.begin_step();
  for (Parameter& p : params_.parameters()) {
    if (!p.spec.trainable) continue;  // buffers are updated by their layer's forward pass
    for (std::size_t k = 0; k < p.state.size(); ++k) state_pointers_[k] = data_of(p.state[k]);
    std::size_t i = static_cast<std::size_t>(&p - params_.parameters().data());
    const float* grad =
        summed_gradients_.empty() ? data_of(p.gradient) : summed_gradients_[i].data();
    optimizer_.update(data_of(p.value), grad, state_pointers_.data(),
                      p.value.get_desc().get_size() / sizeof(float));
  }
  eval_weights_stale_ = true;
}

template <typename RunList, typename RunHost>
void OnednnProgram::step(const TrainBatch& batch, RunList run_list, RunHost run_host) {
  const int chunk = train_net_->batch;
  const int count = batch.count;
  if (count < 1 || count > options_.train_batch) {
    throw std::logic_error(
        fmt::format("batch of {} for a program compiled for {}", count, options_.train_batch));
  }
  if (!batch.images || !batch.labels) {
    throw std::logic_error("a CPU program takes batches as images and labels, not indices");
  }
  const std::uint8_t* images = batch.images;
  const std::int32_t* labels = batch.labels;
  check_labels(labels, count, graph_.classes, "image {} of a batch");
  for (int start = 0; start < count; start += chunk) {
    const int n = std::min(chunk, count - start);
    const std::size_t offset = static_cast<std::size_t>(start) * graph_.input.elements();
    run_host("normalize input", [&] { load_batch(*train_net_, images + offset, n); });
    if (start == 0) run_list(train_net_->refresh);  // weights change only in the update
    run_list(train_net_->forward);
    run_host("loss", [&] { compute_loss(labels + start, n, count); });
    run_list(train_net_->backward);
    if (!summed_gradients_.empty()) run_host("gradient sum", [&] { sum_gradients(start == 0); });
  }
  run_host("optimizer update", [&] { update_parameters(); });
}

void OnednnProgram::train_step(const TrainBatch& batch) {
  step(
      batch, [&](const StepList& list) { list.run(stream_); },
      [](const char*, auto&& host_function) { host_function(); });
}

void OnednnProgram::profile_train_step(const TrainBatch& batch, std::vector<StepTiming>& timings) {
  step(
      batch, [&](const StepList& list) { list.run_timed(stream_, timings); },
      [&](const char* label, auto&& host_function) {
        StepList host;
        host.add(label, host_function);
        host.run_timed(stream_, timings);
      });
}

LossSum OnednnProgram::take_loss() {
  LossSum taken = loss_;
  loss_ = {};
  return taken;
}

void OnednnProgram::predict(const std::uint8_t* images, int count, float* logits) {
  load_batch(*eval_net_, images, count);
  if (eval_weights_stale_) {
    eval_net_->refresh.run(stream_);
    eval_weights_stale_ = false;
  }
  eval_net_->forward.run(stream_);
  std::memcpy(logits, data_of(eval_net_->logits),
              static_cast<std::size_t>(count) * graph_.classes * sizeof(float));
}

std::vector<HostTensor> OnednnProgram::parameters() const {
  std::vector<HostTensor> tensors;
  for (const Parameter& p : params_.parameters()) {
    tensors.push_back(params_.download(p, p.value, p.spec.name));
  }
  return tensors;
}

void OnednnProgram::load_parameters(const std::vector<HostTensor>& tensors) {
  TensorLookup index(tensors);
  for (const Parameter& p : params_.parameters()) {
    params_.upload(p, p.value, index.require(p.spec.name));
  }
  eval_weights_stale_ = true;
}

std::vector<HostTensor> OnednnProgram::optimizer_state() const {
  std::vector<HostTensor> tensors;
  const auto& names = optimizer_.state_names();
  for (const Parameter& p : params_.parameters()) {
    for (std::size_t k = 0; k < p.state.size(); ++k) {
      tensors.push_back(params_.download(p, p.state[k], p.spec.name + "." + names[k]));
    }
  }
  tensors.push_back({"optimizer.step", {1}, {static_cast<float>(optimizer_.step())}});
  return tensors;
}

void OnednnProgram::load_optimizer_state(const std::vector<HostTensor>& tensors) {
  TensorLookup index(tensors);
  const auto& names = optimizer_.state_names();
  for (const Parameter& p : params_.parameters()) {
    for (std::size_t k = 0; k < p.state.size(); ++k) {
      params_.upload(p, p.state[k], index.require(p.spec.name + "." + names[k]));
    }
  }
  optimizer_.set_step(static_cast<std::int64_t>(index.require("optimizer.step").values.at(0)));
}

}  // namespace runner::onednn

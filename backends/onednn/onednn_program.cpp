// The oneDNN program: normalise, forward, loss, backward, update; inference for evaluation.
#include "backends/onednn/onednn_program.h"

#include <algorithm>
#include <cstring>
#include <map>

#include <fmt/format.h>

#include "backends/common/tensor_lookup.h"
#include "runner/util/errors.h"

namespace runner::onednn {

namespace {
float* data_of(const dnnl::memory& m) { return static_cast<float*>(m.get_data_handle()); }
}  // namespace

OnednnProgram::OnednnProgram(const Graph& graph, const CompileOptions& options)
    : graph_(graph),
      options_(options),
      engine_(dnnl::engine::kind::cpu, 0),
      stream_(engine_),
      params_(engine_),
      normalizer_(options.normalize, graph.input.c),
      optimizer_(options.optimizer) {
  train_net_ = build_net(graph_, engine_, options.train_batch, true, params_);
  eval_net_ = build_net(graph_, engine_, options.eval_batch, false, params_);
  params_.allocate_state(static_cast<int>(optimizer_.state_names().size()));
  state_pointers_.resize(optimizer_.state_names().size());
}

void OnednnProgram::load_batch(const Net& net, const std::uint8_t* images, int count) {
  if (count < 1 || count > net.batch) {
    throw std::logic_error(fmt::format("batch of {} for a program compiled for {}", count, net.batch));
  }
  const int pixels = graph_.input.h * graph_.input.w;
  float* input = data_of(net.input);
  normalizer_.apply(images, count, pixels, input);
  // A short last batch: zero images whose loss gradient is zero, so they change nothing.
  std::size_t filled = static_cast<std::size_t>(count) * graph_.input.elements();
  std::fill(input + filled, input + static_cast<std::size_t>(net.batch) * graph_.input.elements(), 0.f);
}

void OnednnProgram::compute_loss(const std::int32_t* labels, int count) {
  loss_.sum += softmax_cross_entropy(data_of(train_net_->logits), labels, count,
                                     train_net_->batch, graph_.classes,
                                     data_of(train_net_->logits_grad));
  loss_.count += count;
}

void OnednnProgram::update_parameters() {
  optimizer_.begin_step();
  for (Parameter& p : params_.parameters()) {
    for (std::size_t k = 0; k < p.state.size(); ++k) state_pointers_[k] = data_of(p.state[k]);
    optimizer_.update(data_of(p.value), data_of(p.gradient), state_pointers_.data(),
                      p.value.get_desc().get_size() / sizeof(float));
  }
  eval_weights_stale_ = true;
}

void OnednnProgram::train_step(const std::uint8_t* images, const std::int32_t* labels, int count) {
  load_batch(*train_net_, images, count);
  train_net_->refresh.run(stream_);
  train_net_->forward.run(stream_);
  compute_loss(labels, count);
  train_net_->backward.run(stream_);
  update_parameters();
}

void OnednnProgram::profile_train_step(const std::uint8_t* images, const std::int32_t* labels,
                                       int count, std::vector<StepTiming>& timings) {
  StepList data, loss, update;
  data.add("normalize input", [&] { load_batch(*train_net_, images, count); });
  loss.add("loss", [&] { compute_loss(labels, count); });
  update.add("optimizer update", [&] { update_parameters(); });
  data.run_timed(stream_, timings);
  train_net_->refresh.run_timed(stream_, timings);
  train_net_->forward.run_timed(stream_, timings);
  loss.run_timed(stream_, timings);
  train_net_->backward.run_timed(stream_, timings);
  update.run_timed(stream_, timings);
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
    for (std::size_t k = 0; k < names.size(); ++k) {
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
    for (std::size_t k = 0; k < names.size(); ++k) {
      params_.upload(p, p.state[k], index.require(p.spec.name + "." + names[k]));
    }
  }
  optimizer_.set_step(static_cast<std::int64_t>(index.require("optimizer.step").values.at(0)));
}

}  // namespace runner::onednn

// The oneDNN program: normalise, forward, loss, backward, update; inference for evaluation.
#include "backends/onednn/onednn_program.h"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

#include "backends/common/checkpoint_tensors.h"
#include "backends/common/label_check.h"
#include "runner/graph/layer_kind.h"
#include "runner/util/errors.h"

namespace runner::onednn {

namespace {
// The floats of a parameter's buffers (value, gradient, state) in its master layout.
std::size_t buffer_floats(const Parameter& p) {
  return p.value.get_desc().get_size() / sizeof(float);
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
  batch_statistics_ = uses_batch_statistics(graph_);
  // Chunks change batch statistics: such graphs take their batches whole.
  chunk_ = options.max_chunk > 0 && !batch_statistics_
               ? std::min(options.max_chunk, options.train_batch)
               : options.train_batch;
  build_nets();
  params_.allocate_state(static_cast<int>(optimizer_.state_names().size()));
  state_pointers_.resize(optimizer_.state_names().size());
  if (chunk_ < options.train_batch) {
    for (const Parameter& p : params_.parameters()) {
      summed_gradients_.emplace_back(p.gradient.get_desc().get_size() / sizeof(float));
    }
  }
}

void OnednnProgram::build_nets() {
  // oneDNN's primitives fix their threads' share of the work when made: the count must be set
  // before, on the thread that runs the steps.
  omp_set_num_threads(std::max(1, options_.threads));
  train_net_ = build_net(graph_, engine_, chunk_, true, params_, net_settings(true));
  eval_net_ = build_net(graph_, engine_, options_.eval_batch, false, params_, net_settings(false));
}

void OnednnProgram::ensure_nets() {
  if (train_net_) return;
  build_nets();
  eval_weights_stale_ = true;
}

void OnednnProgram::set_threads(int threads) {
  threads = std::max(1, threads);
  if (threads == options_.threads) return;
  options_.threads = threads;
  release_memory();
  ensure_nets();
}

void OnednnProgram::release_memory() {
  // The nets hold only primitives, activations and their layouts' copies of the weights: the
  // parameters, their gradients and the optimizer state stay in params_.
  short_nets_.clear();
  train_net_.reset();
  eval_net_.reset();
  params_.drop_mirrors();
}

void OnednnProgram::load_batch(const Net& net, const std::uint8_t* images, const float* mixed,
                               int count) {
  if (count < 1 || count > net.batch) {
    throw std::logic_error(
        fmt::format("batch of {} for a program compiled for {}", count, net.batch));
  }
  const int pixels = graph_.input.h * graph_.input.w;
  float* input = data_of(net.input);
  std::size_t filled = static_cast<std::size_t>(count) * graph_.input.elements();
  if (mixed) {
    std::copy(mixed, mixed + filled, input);
  } else {
    normalizer_.apply(images, count, pixels, input);
  }
  // A short last batch: zero images whose loss gradient is zero, so they change nothing.
  std::fill(input + filled, input + static_cast<std::size_t>(net.batch) * graph_.input.elements(),
            0.f);
}

void OnednnProgram::mix_batch(const TrainBatch& batch) {
  const int count = batch.count;
  const int height = graph_.input.h, width = graph_.input.w;
  const std::size_t per_image = graph_.input.elements();
  // Both buffers keep their size between steps: no allocation per mixed step.
  normalized_batch_.resize(static_cast<std::size_t>(count) * per_image);
  normalizer_.apply(batch.images, count, height * width, normalized_batch_.data());
  mixed_input_.resize(normalized_batch_.size());
  partner_labels_.resize(static_cast<std::size_t>(count));
  for (int n = 0; n < count; ++n) {
    const int other = batch_mix::partner(n, count);
    partner_labels_[n] = batch.labels[other];
    const float* own = normalized_batch_.data() + n * per_image;
    const float* partner = normalized_batch_.data() + other * per_image;
    float* out = mixed_input_.data() + n * per_image;
    std::size_t i = 0;
    for (int c = 0; c < graph_.input.c; ++c) {
      for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x, ++i) {
          out[i] = batch_mix::mixed_value(batch.mix, y, x, own[i], partner[i]);
        }
      }
    }
  }
}

void OnednnProgram::compute_loss(const Net& net, const std::int32_t* labels, int count,
                                 int batch_count, double weight, const MixedLabels& mixed) {
  const LossWeighting& weighting = options_.loss_weighting;
  if (!weighting.active()) {
    loss_.sum += softmax_cross_entropy(data_of(net.logits), labels, count, net.batch,
                                       graph_.classes, data_of(net.logits_grad), batch_count,
                                       options_.label_smoothing, mixed);
  } else {
    // Each batch adds its (weighted mean) loss once per image, as the plain loss does: the
    // running loss is then the mean of the batches' losses, as PyTorch's loop prints it.
    const double sum = weighted_softmax_cross_entropy(data_of(net.logits), labels, count, net.batch,
                                                      graph_.classes, data_of(net.logits_grad),
                                                      weight, options_.label_smoothing, weighting);
    loss_.sum += weight > 0 ? sum * batch_count / weight : 0.0;
  }
  loss_.count += count;
}

NetSettings OnednnProgram::net_settings(bool training) const {
  NetSettings settings;
  settings.data = options_.precision == Precision::bf16 ? dt::bf16 : dt::f32;
  settings.own_kernels = options_.own_kernels;
  settings.winograd = options_.winograd;
  if (training) settings.masks = {options_.seed, &mask_step_, &mask_first_image_};
  return settings;
}

Net& OnednnProgram::training_net(int count) {
  if (!batch_statistics_ || count >= train_net_->batch) return *train_net_;
  std::unique_ptr<Net>& net = short_nets_[count];
  if (!net) net = build_net(graph_, engine_, count, true, params_, net_settings(true));
  return *net;
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

const float* OnednnProgram::step_gradient(const Parameter& p) const {
  const std::size_t i = static_cast<std::size_t>(&p - params_.parameters().data());
  return summed_gradients_.empty() ? data_of(p.gradient) : summed_gradients_[i].data();
}

float OnednnProgram::clip_gradients() {
  if (options_.clip_grad_norm <= 0) return 1.f;
  double squares = 0;
  for (const Parameter& p : params_.parameters()) {
    // The whole buffer: a blocked layout's padding holds zeros.
    if (p.spec.trainable) squares += sum_of_squares(step_gradient(p), buffer_floats(p));
  }
  const double norm = std::sqrt(squares);
  loss_.grad_norm_sum += norm;
  loss_.grad_norm_count += 1;
  return optimizer_math::clip_factor(static_cast<float>(norm),
                                     static_cast<float>(options_.clip_grad_norm));
}

void OnednnProgram::update_parameters() {
  optimizer_.begin_step();
  const float grad_scale = clip_gradients();
  for (Parameter& p : params_.parameters()) {
    if (!p.spec.trainable) continue;  // buffers are updated by their layer's forward pass
    for (std::size_t k = 0; k < p.state.size(); ++k) state_pointers_[k] = data_of(p.state[k]);
    optimizer_.update(p.spec, data_of(p.value), step_gradient(p), state_pointers_.data(),
                      buffer_floats(p), grad_scale);
  }
  eval_weights_stale_ = true;
}

template <typename RunList, typename RunHost>
void OnednnProgram::step(const TrainBatch& batch, RunList run_list, RunHost run_host) {
  ensure_nets();
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
  mask_step_ = optimizer_.step();  // the steps done before this one
  const double weight = batch_weight(labels, count, options_.loss_weighting);
  check_batch_mix(batch.mix, graph_.input.h, graph_.input.w, options_.loss_weighting.active());
  const bool mixed = batch_mix::active(batch.mix);
  if (mixed) run_host("mix batch", [&] { mix_batch(batch); });
  for (int start = 0; start < count; start += chunk) {
    const int n = std::min(chunk, count - start);
    Net& net = training_net(n);
    mask_first_image_ = start;
    const std::size_t offset = static_cast<std::size_t>(start) * graph_.input.elements();
    const float* mixed_rows = mixed ? mixed_input_.data() + offset : nullptr;
    run_host("normalize input", [&] { load_batch(net, images + offset, mixed_rows, n); });
    if (start == 0) run_list(net.refresh);  // weights change only in the update
    run_list(net.forward);
    const MixedLabels partners =
        mixed ? MixedLabels{partner_labels_.data() + start, batch.mix.lam} : MixedLabels{};
    run_host("loss", [&] { compute_loss(net, labels + start, n, count, weight, partners); });
    run_list(net.backward);
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
  ensure_nets();
  load_batch(*eval_net_, images, nullptr, count);
  if (eval_weights_stale_) {
    eval_net_->refresh.run(stream_);
    eval_weights_stale_ = false;
  }
  eval_net_->forward.run(stream_);
  std::memcpy(logits, data_of(eval_net_->logits),
              static_cast<std::size_t>(count) * graph_.classes * sizeof(float));
}

std::vector<HostTensor> OnednnProgram::parameters() const {
  return download_parameters(params_);
}

void OnednnProgram::load_parameters(const std::vector<HostTensor>& tensors) {
  upload_parameters(params_, tensors);
  eval_weights_stale_ = true;
}

std::vector<HostTensor> OnednnProgram::optimizer_state() const {
  return download_optimizer_state(params_, optimizer_.state_names(), optimizer_.step());
}

void OnednnProgram::load_optimizer_state(const std::vector<HostTensor>& tensors) {
  optimizer_.set_step(upload_optimizer_state(params_, optimizer_.state_names(), tensors));
}

}  // namespace runner::onednn

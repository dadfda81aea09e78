// A program's parameters and optimizer state as named host tensors, once for every backend: the
// names ("conv1.weight", "conv1.weight.exp_avg", "optimizer.step") are fixed here, and each
// backend's parameter store only copies a buffer to or from the host.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "backends/common/tensor_lookup.h"

namespace runner {

// The checkpoint tensor of the optimizer's step count (I64), and reading it back: an I64 tensor,
// or the F32 one older checkpoints hold; anything else is a UserError.
inline constexpr const char* kOptimizerStepName = "optimizer.step";
HostTensor optimizer_step_tensor(std::int64_t step);
std::int64_t read_optimizer_step(const TensorLookup& index);
// `tensor`, when it holds float32 values (parameters and optimizer buffers do); else a UserError.
const HostTensor& require_f32(const HostTensor& tensor);
// `tensor`, when its shape is `dims`; else a UserError naming both shapes.
const HostTensor& require_shape(const HostTensor& tensor, const std::vector<std::int64_t>& dims);

// `Store` is a backend's parameter store: parameters() lists Parameters with `spec`, `value` and
// `state` (one buffer per optimizer state name); download(p, buffer, name) copies a buffer of p
// to a named host tensor; upload(p, buffer, tensor) copies one back, checking its shape.
template <typename Store>
std::vector<HostTensor> download_parameters(const Store& store) {
  std::vector<HostTensor> tensors;
  for (const auto& p : store.parameters()) {
    tensors.push_back(store.download(p, p.value, p.spec.name));
  }
  return tensors;
}

template <typename Store>
void upload_parameters(const Store& store, const std::vector<HostTensor>& tensors) {
  TensorLookup index(tensors);
  for (const auto& p : store.parameters())
    store.upload(p, p.value, require_f32(index.require(p.spec.name)));
}

template <typename Store>
std::vector<HostTensor> download_optimizer_state(const Store& store,
                                                 const std::vector<std::string>& state_names,
                                                 std::int64_t step) {
  std::vector<HostTensor> tensors;
  for (const auto& p : store.parameters()) {
    for (std::size_t k = 0; k < p.state.size(); ++k) {
      tensors.push_back(store.download(p, p.state[k], p.spec.name + "." + state_names[k]));
    }
  }
  tensors.push_back(optimizer_step_tensor(step));
  return tensors;
}

// Uploads every state buffer and returns the step count the tensors hold.
template <typename Store>
std::int64_t upload_optimizer_state(const Store& store, const std::vector<std::string>& state_names,
                                    const std::vector<HostTensor>& tensors) {
  TensorLookup index(tensors);
  for (const auto& p : store.parameters()) {
    for (std::size_t k = 0; k < p.state.size(); ++k) {
      store.upload(p, p.state[k], require_f32(index.require(p.spec.name + "." + state_names[k])));
    }
  }
  return read_optimizer_step(index);
}

}  // namespace runner

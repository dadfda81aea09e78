// Parameter allocation and plain-layout upload/download.
#include "backends/cudnn/param_store.h"

#include <fmt/format.h>

#include <algorithm>

#include "backends/cudnn/cuda_check.h"
#include "runner/util/errors.h"

namespace runner::cudnn {

Parameter& ParamStore::get(const ParamSpec& spec) {
  auto it = std::find_if(parameters_.begin(), parameters_.end(),
                         [&](const Parameter& p) { return p.spec.name == spec.name; });
  if (it != parameters_.end()) return *it;
  Parameter p;
  p.spec = spec;
  p.elements = static_cast<std::size_t>(spec.elements());
  p.value = memory_.array<float>(p.elements, spec.name);
  p.gradient = memory_.array<float>(p.elements, spec.name + " gradient");
  parameters_.push_back(std::move(p));
  return parameters_.back();
}

const void* ParamStore::mirror(const ParamSpec& spec, DataType type) {
  Parameter& p = get(spec);
  if (!p.mirror) {
    p.mirror = memory_.allocate(p.elements * element_size(type), spec.name + " 16-bit copy");
    p.mirror_type = type;
  }
  return p.mirror;
}

void ParamStore::allocate_state(int count) {
  for (Parameter& p : parameters_) {
    p.state.clear();
    if (!p.spec.trainable) continue;  // a buffer: the optimizer never touches it
    for (int i = 0; i < count; ++i) {
      p.state.push_back(memory_.array<float>(p.elements, p.spec.name + " optimizer state"));
    }
  }
}

HostTensor ParamStore::download(const Parameter& p, const float* buffer,
                                const std::string& name) const {
  HostTensor tensor{name, p.spec.dims, std::vector<float>(p.elements)};
  CUDA_CHECK(cudaMemcpyAsync(tensor.values.data(), buffer, p.elements * sizeof(float),
                             cudaMemcpyDeviceToHost, stream_));
  CUDA_CHECK(cudaStreamSynchronize(stream_));
  return tensor;
}

void ParamStore::upload(const Parameter& p, float* buffer, const HostTensor& tensor) const {
  if (tensor.dims != p.spec.dims || tensor.values.size() != p.elements) {
    throw UserError(fmt::format("tensor '{}' has shape ({}), the model expects ({})", tensor.name,
                                fmt::join(tensor.dims, ", "), fmt::join(p.spec.dims, ", ")));
  }
  // The stream may still run a step reading `buffer`: the copy is ordered after it.
  CUDA_CHECK(cudaMemcpyAsync(buffer, tensor.values.data(), p.elements * sizeof(float),
                             cudaMemcpyHostToDevice, stream_));
  CUDA_CHECK(cudaStreamSynchronize(stream_));
}

}  // namespace runner::cudnn

// Tensor helpers for layer builders and the registry of cuDNN layer implementations.
#include "backends/cudnn/build_context.h"

#include <fmt/format.h>

#include <cstdint>
#include <limits>
#include <map>

#include "backends/cudnn/cuda_check.h"
#include "runner/util/errors.h"

namespace runner::cudnn {

DeviceTensor view(void* data, DataType type, int n, int c, int h, int w) {
  DeviceTensor t;
  t.data = data;
  t.type = type;
  t.n = n;
  t.c = c;
  t.h = h;
  t.w = w;
  t.desc = std::make_shared<TensorDescriptor>(n, c, h, w, type);
  return t;
}

DeviceTensor BuildContext::allocate(const Shape& shape, const std::string& what) const {
  const std::size_t elements = static_cast<std::size_t>(batch) * shape.elements();
  // Allocated first: out of memory before cuDNN's limits.
  void* data = memory->allocate(elements * element_size(activations), what);
  if (elements > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max())) {
    throw UserError(fmt::format(
        "{}: {} x {} = {} values, over the 2^31 that cuDNN and cuBLAS address in one tensor; "
        "lower training.batch_size or training.eval_batch_size",
        what, batch, shape.str(), elements));
  }
  // Tokens: (N*T, C) rows, so that per-channel kernels and linear's GEMM read each token as they
  // read one image's flat features.
  if (shape.tokens) return view(data, activations, batch * shape.h, shape.c, 1, 1);
  return view(data, activations, batch, shape.c, shape.h, shape.w);
}

DeviceTensor BuildContext::allocate_like(const DeviceTensor& like, const std::string& what) const {
  void* data = memory->allocate(like.bytes(), what);
  DeviceTensor t = like;  // shares the descriptor
  t.data = data;
  return t;
}

const void* BuildContext::weights(const ParamSpec& spec) const {
  if (activations == DataType::f32) return params->get(spec).value;
  return params->mirror(spec, activations);
}

void BuildContext::copy(const DeviceTensor& from, const DeviceTensor& to, StepList& steps,
                        const std::string& label) const {
  const void* src = from.data;
  void* dst = to.data;
  const std::size_t bytes = to.bytes();
  steps.add(label, [=](cudaStream_t stream) {
    CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream));
  });
}

#define RUNNER_REGISTRY_ENTRY(name) RUNNER_CUDNN_LAYER(name);
#include "backends/cudnn/layers.inc"
#undef RUNNER_REGISTRY_ENTRY

const LayerFactories<CudnnLayer>& layer_factories() {
  static const LayerFactories<CudnnLayer> factories("cuDNN", {
#define RUNNER_REGISTRY_ENTRY(name) {#name, make_layer_##name},
#include "backends/cudnn/layers.inc"
#undef RUNNER_REGISTRY_ENTRY
                                                             });
  return factories;
}

std::vector<std::string> layer_kinds() {
  return layer_factories().kinds();
}

}  // namespace runner::cudnn

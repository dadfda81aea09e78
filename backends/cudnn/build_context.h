// What a layer sees while its launches are prepared: the library handles, the batch size, the
// memory owner, the step lists to append to and the parameter store.
#pragma once

#include <cublas_v2.h>
#include <cudnn.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "backends/common/layer_factories.h"
#include "backends/cudnn/descriptors.h"
#include "backends/cudnn/device_memory.h"
#include "backends/cudnn/param_store.h"
#include "backends/cudnn/step_list.h"
#include "runner/graph/graph.h"

namespace runner::cudnn {

// Library handles bound to the program's one stream.
struct Libraries {
  cudnnHandle_t cudnn = nullptr;
  cublasHandle_t cublas = nullptr;
  cudaStream_t stream = nullptr;
};

// cuDNN scratch memory shared by every convolution of a program (they run one after another on
// one stream), sized for the largest algorithm chosen; allocated after all layers are built.
struct Workspace {
  void* data = nullptr;
  std::size_t bytes = 0;
  void request(std::size_t size) { bytes = std::max(bytes, size); }
};

struct BuildContext {
  const Libraries* libs = nullptr;
  DeviceMemory* memory = nullptr;
  ParamStore* params = nullptr;
  Workspace* workspace = nullptr;
  int batch = 1;
  bool training = true;
  bool deterministic = false;
  Precision precision = Precision::fp32;  // training.precision
  DataType activations = DataType::f32;   // activation_type(precision): every layer's tensors
  // (batch, times the longest token sequence) ones, for bias gradients as a matrix-vector product
  const float* ones = nullptr;
  // Dropout masks (backends/common/dropout_math.h): the run's seed and, on the device, the
  // optimizer steps taken before the step being run.
  std::uint64_t seed = 0;
  const long long* step = nullptr;
  StepList* forward = nullptr;
  StepList* backward = nullptr;                    // training only
  std::vector<std::string>* algorithms = nullptr;  // "conv1 forward: IMPLICIT_GEMM", ...

  // A zeroed (batch, C, H, W) tensor of `shape`, or (batch, C, 1, 1) for a flat one, or
  // (batch * T, C, 1, 1) for T tokens ((N, T, C) contiguous), of the activations' type.
  DeviceTensor allocate(const Shape& shape, const std::string& what) const;
  DeviceTensor allocate_like(const DeviceTensor& like, const std::string& what) const;
  // The weights a convolution or linear layer multiplies by: the FP32 parameter, or its 16-bit
  // mirror under mixed precision (refreshed from the FP32 master weights before each step).
  const void* weights(const ParamSpec& spec) const;
  // Appends a device-to-device copy of `from` into `to` (same element count) to `steps`.
  void copy(const DeviceTensor& from, const DeviceTensor& to, StepList& steps,
            const std::string& label) const;
};

// A (n, c, h, w) view of existing memory of `type` elements with its own descriptor.
DeviceTensor view(void* data, DataType type, int n, int c, int h, int w);

// One layer's cuDNN/cuBLAS implementation; an object per node and per compiled net, keeping
// what its backward pass needs from its forward pass (descriptors, tensors, algorithms).
class CudnnLayer {
 public:
  virtual ~CudnnLayer() = default;
  // Prepares the forward launches reading `inputs`; returns the output tensor.
  virtual DeviceTensor forward(BuildContext& ctx, const Node& node,
                               const std::vector<DeviceTensor>& inputs) = 0;
  // Prepares the backward launches: reads `output_grad`, writes the parameter gradients and
  // `input_grads[k]` (an empty tensor where no gradient is needed).
  virtual void backward(BuildContext& ctx, const Node& node, const DeviceTensor& output_grad,
                        const std::vector<DeviceTensor>& input_grads) = 0;
};

// The kinds this backend implements, by type (make() throws LibraryError for any other).
const LayerFactories<CudnnLayer>& layer_factories();
// The same list as plain names, for the plugin table (plugin.h).
std::vector<std::string> layer_kinds();

// Defines this backend's implementation of the layer kind `name` (in the kind's file in
// layers/): a function body returning a new layer object. The build lists these lines
// (cmake/registry.cmake) for layer_factories().
#define RUNNER_CUDNN_LAYER(name) std::unique_ptr<CudnnLayer> make_layer_##name()

}  // namespace runner::cudnn

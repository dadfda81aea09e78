// Parameters of a compiled program on the device, in PyTorch's plain layout (cuDNN's NCHW
// filter is (O, I, kH, kW); cuBLAS reads a linear weight (O, I) row-major), with their
// gradients and optimizer state in the same layout, shared by the training and inference nets.
#pragma once

#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "backends/backend.h"
#include "backends/cudnn/data_type.h"
#include "backends/cudnn/device_memory.h"

namespace runner::cudnn {

struct Parameter {
  ParamSpec spec;
  std::size_t elements = 0;
  float* value = nullptr;     // the weights, plain layout
  float* gradient = nullptr;  // written by the backward pass (overwritten, never accumulated)
  std::vector<float*> state;  // optimizer buffers, plain layout
  // Mixed precision: the weights rounded to `mirror_type` for the 16-bit products, made when a
  // layer first asks (ParamStore::mirror) and refreshed from `value` before each step; null
  // for FP32 programs and for parameters read in FP32 (biases, batch norm's).
  void* mirror = nullptr;
  DataType mirror_type = DataType::f32;
};

class ParamStore {
 public:
  ParamStore(DeviceMemory& memory, cudaStream_t stream) : memory_(memory), stream_(stream) {}

  // The parameter named by `spec`, allocated (value and gradient) on first use.
  Parameter& get(const ParamSpec& spec);
  // The 16-bit mirror of the parameter named by `spec` (Parameter::mirror), made on first use.
  const void* mirror(const ParamSpec& spec, DataType type);
  // Allocates `count` zeroed optimizer buffers per trainable parameter (none for buffers).
  void allocate_state(int count);

  std::vector<Parameter>& parameters() { return parameters_; }
  const std::vector<Parameter>& parameters() const { return parameters_; }

  // Copies between a device buffer of `p` and plain host values; both wait for the stream.
  HostTensor download(const Parameter& p, const float* buffer, const std::string& name) const;
  void upload(const Parameter& p, float* buffer, const HostTensor& tensor) const;

 private:
  DeviceMemory& memory_;
  cudaStream_t stream_;
  std::vector<Parameter> parameters_;
};

}  // namespace runner::cudnn

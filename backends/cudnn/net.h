// A graph compiled for one batch size on the GPU: every descriptor, algorithm and buffer made
// once, in forward and backward step lists that each step only launches.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "backends/cudnn/build_context.h"

namespace runner::cudnn {

struct Net {
  int batch = 0;
  std::uint8_t* images = nullptr;  // (N, C, H, W) bytes as uploaded
  std::int32_t* labels = nullptr;  // (N) labels, then the batch's count at [N]
  DeviceTensor input;              // (N, C, H, W) normalised images
  DeviceTensor logits;             // (N, classes)
  DeviceTensor logits_grad;        // (N, classes), training only: written by the loss
  StepList forward, backward;      // forward starts with the normalisation
  std::vector<std::unique_ptr<CudnnLayer>> layers;  // keep what the steps refer to
};

// Per-channel normalisation on the device: value = byte * scale[c] + shift[c].
struct DeviceNormalizer {
  const float* scale = nullptr;  // (C)
  const float* shift = nullptr;  // (C)
};

// Compiles `graph` for `batch` images; training nets also get the backward step list.
std::unique_ptr<Net> build_net(const Graph& graph, BuildContext ctx, DeviceNormalizer normalizer);

}  // namespace runner::cudnn

// A graph compiled for one batch size on the GPU: every descriptor, algorithm and buffer made
// once, in forward and backward step lists that each step only launches.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backends/cudnn/build_context.h"
#include "backends/cudnn/kernels.h"

namespace runner::cudnn {

struct Net {
  int batch = 0;
  bool training = false;
  Shape image;                         // (C, H, W) of one input image
  std::int32_t* labels = nullptr;      // (N) labels, then the batch's count at [N]
  batch_mix::BatchMix* mix = nullptr;  // training: the step's mixup or cutmix, for the loss
  DeviceTensor input;                  // (N, C, H, W) normalised images, written by load_steps
  DeviceTensor logits;                 // (N, classes)
  DeviceTensor logits_grad;            // (N, classes), training only: written by the loss
  StepList forward, backward;          // forward starts at the first layer
  std::vector<std::unique_ptr<CudnnLayer>> layers;  // keep what the steps refer to
};

// Per-channel normalisation on the device: value = byte * scale[c] + shift[c].
struct DeviceNormalizer {
  const float* scale = nullptr;  // (C)
  const float* shift = nullptr;  // (C)
};

// Compiles `graph` for `batch` images; training nets also get the backward step list.
std::unique_ptr<Net> build_net(const Graph& graph, BuildContext ctx);

// The launch that starts a step: the batch at `source` into the net's normalised input and, for
// a training net, its labels and count.
StepList load_steps(const Net& net, kernels::BatchSource source, DeviceNormalizer normalizer,
                    const std::string& label);

}  // namespace runner::cudnn

// A graph compiled for one batch size: every primitive and buffer made once, in three step
// lists (parameter layout refresh, forward, backward) that each step only executes.
#pragma once

#include <memory>
#include <vector>

#include "backends/onednn/build_context.h"

namespace runner::onednn {

struct Net {
  int batch = 0;
  dnnl::memory input;        // (N, C, H, W) normalised images, plain layout
  dnnl::memory logits;       // (N, classes), plain layout
  dnnl::memory logits_grad;  // (N, classes), training only: written by the loss
  StepList refresh, forward, backward;
  std::vector<std::unique_ptr<OnednnLayer>> layers;  // keep what the steps refer to
  // Every gradient buffer: a layer may write or read one only through a view of its bytes
  // (a token sequence as rows), which does not keep it.
  std::vector<dnnl::memory> gradients;
  dnnl::memory gradient_arena;   // their bytes (buffers never live at once share them)
  StepScratch backward_scratch;  // the backward steps' working bytes
  // Inference nets: the bytes their activations share (layer outputs whose readers have run).
  std::unique_ptr<ActivationPool> activations;
};

// How a net is built besides its batch: activations of type `data` (f32, or bf16 for mixed
// precision: see BuildContext::data), whether the runner's own kernels may replace oneDNN's
// (backend.own_kernels), and the dropout masks' source (training nets).
struct NetSettings {
  dt data = dt::f32;
  bool own_kernels = true;
  bool winograd = true;  // backend.winograd
  MaskSource masks;
};

// Compiles `graph` for `batch` images. Training nets register their parameters' master layouts
// in `params`; inference nets mirror them.
std::unique_ptr<Net> build_net(const Graph& graph, const dnnl::engine& engine, int batch,
                               bool training, ParamStore& params, const NetSettings& settings);

}  // namespace runner::onednn

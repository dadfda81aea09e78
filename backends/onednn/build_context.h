// What a layer sees while its primitives are created: the engine, the batch size, the step
// lists to append to and the parameter store.
#pragma once

#include <memory>
#include <oneapi/dnnl/dnnl.hpp>
#include <string>
#include <vector>

#include "backends/common/layer_factories.h"
#include "backends/onednn/activation_pool.h"
#include "backends/onednn/param_store.h"
#include "backends/onednn/step_list.h"
#include "runner/graph/graph.h"

namespace runner::onednn {

using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;

// What a dropout mask depends on besides the layer (backends/common/dropout_math.h): the run's
// seed, and where the program keeps the optimizer step being run and the first image of the
// chunk being run (its position in the batch).
struct MaskSource {
  std::uint64_t seed = 0;
  const std::int64_t* step = nullptr;
  const int* first_image = nullptr;
};

// Working bytes that backward steps need only while they run (a convolution's window rows): one
// buffer for the whole backward pass, as large as the largest request, since its steps run one
// at a time. A memory handed out has its bytes once the net is built (bind()).
class StepScratch {
 public:
  dnnl::memory request(const dnnl::memory::desc& md, const dnnl::engine& engine);
  // Allocates the buffer and points every memory handed out at it.
  void bind(const dnnl::engine& engine);

 private:
  std::vector<dnnl::memory> requests_;
  dnnl::memory buffer_;
};

struct BuildContext {
  dnnl::engine engine;
  // The type of activations and their gradients: f32, or bf16 for mixed precision (weights
  // then reach the primitives as bf16 mirrors of FP32 masters; weight gradients, batch-norm
  // statistics and the loss stay f32).
  dt data = dt::f32;
  bool own_kernels = true;  // backend.own_kernels: the runner's kernels where they apply
  bool winograd = true;     // backend.winograd: oneDNN's Winograd where it is faster
  MaskSource masks;         // training nets
  int batch = 1;
  bool training = true;
  ParamStore* params = nullptr;
  StepList* refresh = nullptr;  // parameter layout mirrors, run before the forward pass
  StepList* forward = nullptr;
  StepList* backward = nullptr;             // training only
  StepScratch* backward_scratch = nullptr;  // training only
  // Inference nets: where activations come from, and the index of the layer being built.
  ActivationPool* activations = nullptr;
  int layer = 0;
  // Set by the net builder for the layer being built: apply ReLU to the output (a post-op or
  // in place), for a relu layer that then passes its input through.
  bool fuse_relu = false;
  // Set for every relu layer: where its ReLU is applied.
  enum class ReluPlacement {
    own,         // by the relu layer itself
    by_input,    // by the conv2d/linear/add it reads, as a post-op; the relu layer's backward
                 // remains
    after_pool,  // after the max_pool2d that reads it (the two commute), on a quarter of the
                 // values; the relu layer does nothing and shares its input's gradient memory
    in_input,    // by the batch_norm2d it reads, forward and backward (oneDNN's fused norm-relu
                 // flag); the relu layer does nothing and shares its input's gradient memory
  };
  ReluPlacement relu_placement = ReluPlacement::own;

  dnnl::prop_kind forward_kind() const {
    return training ? dnnl::prop_kind::forward_training : dnnl::prop_kind::forward_inference;
  }
  dnnl::memory allocate(const dnnl::memory::desc& md) const { return dnnl::memory(md, engine); }
  // Memory for a value that the layer's forward steps write before they read it, every pass (its
  // output, an intermediate): in an inference net, bytes of a value no later layer reads.
  dnnl::memory allocate_activation(const dnnl::memory::desc& md) const {
    return activations ? activations->allocate(md, layer) : allocate(md);
  }
  // `from`'s buffer described by `want`: `from` itself when the descriptors are equal, a second
  // memory over the same bytes when both layouts put every element at the same offset (16
  // channels in blocks of 16 are channels-last), else an empty memory.
  dnnl::memory view_as(const dnnl::memory& from, const dnnl::memory::desc& want) const;
  // `from` described in 16-channel blocks where those are its bytes (16 channels, channels-last):
  // the layout oneDNN 2.6's batch norms and element-wise kernels are fastest on (a third faster
  // than channels-last at 16 channels); else `from`.
  dnnl::memory blocked_view(const dnnl::memory& from) const;
  // `from` in layout `want`: view_as(from, want) when it is not empty, else a new memory filled
  // by a reorder appended to `steps` (an activation where `steps` is the forward pass).
  dnnl::memory in_layout(const dnnl::memory& from, const dnnl::memory::desc& want, StepList& steps,
                         const std::string& label) const;
  // Copies `from` into `to` (any layouts) with a reorder appended to `steps`.
  void copy(const dnnl::memory& from, const dnnl::memory& to, StepList& steps,
            const std::string& label) const;
  // A descriptor of the given dims with format `any` (the primitive chooses the layout).
  static dnnl::memory::desc any(const dnnl::memory::dims& dims, dt type = dt::f32) {
    return dnnl::memory::desc(dims, type, tag::any);
  }
  // The same for activations, weights as the primitives read them and activation gradients.
  dnnl::memory::desc data_any(const dnnl::memory::dims& dims) const { return any(dims, data); }
  // (N, C, H, W) or, for flat shapes, (N, C); (N, C, T, 1) for T tokens.
  dnnl::memory::dims dims_of(const Shape& shape) const;
  // A token sequence as PyTorch stores it, (N, T, C) contiguous: dims (N, C, T, 1) channels-last.
  dnnl::memory::desc tokens_desc(const Shape& shape, dt type) const {
    return dnnl::memory::desc(dims_of(shape), type, tag::acdb);
  }
  // The layout for a layer's image output: channels-last (NHWC) when the channel count is not a
  // multiple of 16, so oneDNN's 16-channel blocks do not pad it (6 channels would become 16 and
  // every memory-bound op would do 2.7 times the work); otherwise the primitive's choice.
  dnnl::memory::desc activation_desc(const dnnl::memory::dims& dims) const;
  // The post-ops for `fuse_relu`.
  dnnl::primitive_attr output_attr() const;
  // Appends a ReLU of `data`, in place, to the forward steps; its descriptor is the hint for the
  // backward pass.
  dnnl::eltwise_forward::primitive_desc relu_in_place(const dnnl::memory& data,
                                                      const std::string& label) const;
  // Appends that ReLU's backward pass to the backward steps, in place on `grad`.
  void relu_backward_in_place(const dnnl::eltwise_forward::primitive_desc& forward,
                              const dnnl::memory& data, const dnnl::memory& grad,
                              const std::string& label) const;
};

// Per dimension of `md`, the offset (in elements) that each index adds to an element's offset;
// empty for a layout that is not a plain blocking with at most one inner block per dimension, or
// that pads (plain, channels-last and 16-channel blocks without padding are read).
std::vector<std::vector<dnnl_dim_t>> element_offsets(const dnnl::memory::desc& md);

// `m`'s bytes as a memory of `dims`, the same values in the same order (a plain (C) as
// (1, C, 1, 1), a plain (N, C) as (N, C, 1, 1)).
inline dnnl::memory reshaped(const dnnl::memory& m, const dnnl::memory::dims& dims) {
  return dnnl::memory(m.get_desc().reshape(dims), m.get_engine(), m.get_data_handle());
}

// The floats of a CPU memory (for host steps and kernels of our own).
inline float* data_of(const dnnl::memory& m) {
  return static_cast<float*>(m.get_data_handle());
}

// Whether oneDNN picked a reference (unoptimised) implementation.
bool is_reference(const dnnl::primitive_desc_base& pd);
// Whether a primitive on bf16 data runs a kernel made for bf16 (AVX512-BF16 or AMX instructions),
// not a generic fallback such as the GEMM-based convolution, which oneDNN 2.6 picks for a
// single-channel convolution's weight gradient and which is 8x slower than its FP32 kernel there.
bool is_native_bf16(const dnnl::primitive_desc_base& pd);

// The primitive descriptor of the first layout choice, `build(0)`, `build(1)`, ...,
// `build(choices - 1)`, that oneDNN has an optimised implementation for; the last choice (layouts
// left to the primitive, at the cost of reorders) when none has.
template <typename PrimitiveDesc, typename Build>
PrimitiveDesc first_optimised(int choices, Build build) {
  for (int choice = 0; choice + 1 < choices; ++choice) {
    try {
      PrimitiveDesc pd = build(choice);
      if (!is_reference(pd)) return pd;
    } catch (const dnnl::error&) {  // no implementation for these layouts
    }
  }
  return build(choices - 1);
}

// A primitive descriptor built with the layouts the caller has (`build(true)`) unless oneDNN
// lacks an optimised implementation for them; then with layouts left to the primitive
// (`build(false)`).
template <typename PrimitiveDesc, typename Build>
PrimitiveDesc prefer_given_layouts(Build build) {
  return first_optimised<PrimitiveDesc>(2, [&](int choice) { return build(choice == 0); });
}

// One layer's oneDNN implementation. An object is made per node and per compiled net; it
// keeps what its backward pass needs from its forward pass (primitive descriptors, memories).
class OnednnLayer {
 public:
  virtual ~OnednnLayer() = default;
  // Creates the forward primitives reading `inputs`; returns the output memory.
  virtual dnnl::memory forward(BuildContext& ctx, const Node& node,
                               const std::vector<dnnl::memory>& inputs) = 0;
  // Creates the backward primitives: reads `output_grad`, writes the parameter gradients and
  // `input_grads[k]` (in the layout of input k; an empty memory where none is needed).
  virtual void backward(BuildContext& ctx, const Node& node, const dnnl::memory& output_grad,
                        const std::vector<dnnl::memory>& input_grads) = 0;
};

// The kinds this backend implements, by type (make() throws LibraryError for any other).
const LayerFactories<OnednnLayer>& layer_factories();

// Defines this backend's implementation of the layer kind `name` (in the kind's file in
// layers/): a function body returning a new layer object. The build lists these lines
// (cmake/registry.cmake) for layer_factories().
#define RUNNER_ONEDNN_LAYER(name) std::unique_ptr<OnednnLayer> make_layer_##name()

}  // namespace runner::onednn

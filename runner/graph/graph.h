// The layer graph: named nodes in topological order with inferred shapes, parameters and FLOPs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runner/config/model_spec.h"
#include "runner/util/errors.h"

namespace runner {

// Sizes a graph may reach: beyond any real model, low enough that every count, product and FLOP
// figure fits in 64 bits and every tensor in the 32-bit sizes of cuDNN and cuBLAS.
namespace graph_limits {
inline constexpr std::int64_t max_features = std::int64_t{1} << 24;         // channels, features
inline constexpr std::int64_t max_sample_elements = std::int64_t{1} << 30;  // one layer output
inline constexpr std::int64_t max_tensor_elements = (std::int64_t{1} << 31) - 1;  // a parameter
}  // namespace graph_limits

// The shape of one sample. Flat tensors (after flatten or linear) have h = w = 1 and flat = true.
// A sequence of T tokens of C features each (after to_tokens) has c = C, h = T, w = 1 and
// tokens = true; the backends store it as PyTorch does, (N, T, C) contiguous.
struct Shape {
  int c = 0, h = 1, w = 1;
  bool flat = false;
  bool tokens = false;
  std::int64_t elements() const { return static_cast<std::int64_t>(c) * h * w; }
  std::string str() const;  // "16x5x5", "120", or "65x192 tokens" (T x C)
  bool is_image() const { return !flat && !tokens; }
  bool operator==(const Shape&) const = default;
};

// token_select's `select`: the first (class) token, or the mean over the tokens.
enum class TokenSelect { class_token, mean };

// gelu's `approximate`: PyTorch's GELU(approximate='none' | 'tanh').
enum class GeluApproximation { none, tanh };

// Kind-specific settings, resolved from the config (defaults filled, width applied).
struct LayerAttrs {
  int out_channels = 0;  // conv2d
  int out_features = 0;  // linear
  int kernel_h = 1, kernel_w = 1;
  int stride_h = 1, stride_w = 1;
  int pad_h = 0, pad_w = 0;
  int dilation_h = 1, dilation_w = 1;  // conv2d: the spacing of the kernel's taps
  // conv2d: each group of outputs reads its own inputs; group_norm: channels normalised together
  int groups = 1;
  bool bias = true;
  // conv2d, linear: how the weight starts (the layer's own init, else model.init)
  WeightInit init = WeightInit::pytorch_default;
  bool flatten = false;         // global_avg_pool2d: a flat (C) output instead of Cx1x1
  double negative_slope = 0.0;  // leaky_relu
  double eps = 1e-5;            // batch_norm2d, layer_norm, group_norm
  double momentum = 0.1;        // batch_norm2d: running = (1 - momentum) running + momentum batch
  bool affine = true;           // batch, layer and group norm: a weight and bias per channel
  double p = 0.5;               // dropout: the probability of zeroing a value
  GeluApproximation approximate = GeluApproximation::none;  // gelu
  double init_value = 1e-6;  // scale: every channel's factor at the start (ConvNeXt's default)
  TokenSelect select = TokenSelect::class_token;  // token_select
  int heads = 1;                                  // self_attention: divides the features
};

// How a persistent tensor starts (backends/common/initial_parameters.cpp).
enum class ParamInit {
  fan_in_uniform,  // PyTorch's default for conv and linear: U(-1/sqrt(fan_in), 1/sqrt(fan_in))
  zeros,
  ones,
  kaiming_normal,  // N(0, 2/fan_out), fan_out = dims[0] x the kernel (torchvision's ResNets)
  constant,        // every value ParamSpec::constant (scale's init_value)
  normal,          // N(0, ParamSpec::stddev^2) (timm's class token: std 1e-6)
  // N(0, ParamSpec::stddev^2) redrawn outside [-2, 2], timm's trunc_normal_(std, a=-2, b=2) (its
  // position embedding: std 0.02, where the bounds are 100 standard deviations away)
  truncated_normal,
};

// A persistent tensor of a layer: a parameter, or a buffer (trainable false: batch norm's
// running statistics) that checkpoints save and that gets no gradient and no optimizer update.
struct ParamSpec {
  std::string name;                // "conv1.weight"
  std::vector<std::int64_t> dims;  // PyTorch order: (O, I, kH, kW), (O, I) or (O)
  std::int64_t fan_in = 0;         // for PyTorch's default initialisation bound 1/sqrt(fan_in)
  ParamInit init = ParamInit::fan_in_uniform;
  bool trainable = true;
  // A normalisation layer's scale or shift (batch norm's weight and bias), or another learned
  // per-channel scale (scale's weight, as timm leaves layer scale undecayed): what
  // optimizer.weight_decay_exclude: [norm] leaves undecayed.
  bool normalization = false;
  double constant = 0;  // the value of ParamInit::constant
  double stddev = 0;    // ParamInit::normal and truncated_normal
  // A learned token or position embedding (class_token, position_embedding): what
  // optimizer.weight_decay_exclude: [embedding] leaves undecayed (timm's no_weight_decay).
  bool embedding = false;
  std::int64_t elements() const;
  std::int64_t fan_out() const;  // dims[0] times the kernel's elements (dims[2:])
};

inline constexpr int kDataInput = -1;  // the `inputs` index that means the dataset's images

struct Node {
  std::string name;
  std::string type;
  std::vector<int> inputs;  // indices into Graph::nodes, or kDataInput
  LayerAttrs attrs;
  Shape output;
  std::vector<ParamSpec> params;
  std::int64_t flops = 0;  // forward floating-point operations per sample
  SourceLocation where;
};

struct Graph {
  Shape input;
  int classes = 0;
  std::vector<Node> nodes;  // topological order; the last node is the output (the logits)
  std::vector<Shape> input_shapes(const Node& node) const;
  std::int64_t parameter_count() const;
  // Per node: whether its output needs a gradient (it has parameters, or feeds from a node that
  // has); the backward pass skips the others.
  std::vector<bool> nodes_needing_gradient() const;
  // Per node: the nodes that read its output (an index once per reading input).
  std::vector<std::vector<int>> consumers() const;
  // Per node, the last node that reads its output (the output node: nodes.size(), read by the
  // host after the pass; a node nothing reads: itself); one more entry, the last reader of the
  // input images.
  std::vector<int> last_readers() const;
  std::int64_t flops_per_sample() const;
  const Node& output() const { return nodes.back(); }
};

// Builds and checks the graph: unknown layers or inputs, cycles, unused layers, impossible
// shapes and a classifier that does not match `classes` are UserErrors naming the layer (and
// `classes_origin`, where the dataset's class count comes from: "ROOT/batches.meta.txt lists 3
// class names").
Graph build_graph(const ModelSpec& model, Shape input, int classes,
                  const std::string& classes_origin = "");

}  // namespace runner

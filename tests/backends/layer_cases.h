// The per-layer test cases (small graphs of each layer kind, odd sizes, batch 1) and helpers,
// shared by the reference checks of the oneDNN backend and the cuDNN-oneDNN parity tests.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "layer_case.h"
#include "reference_model.h"
#include "runner/graph/graph.h"
#include "runner/util/random.h"
#include "token_layer_cases.h"

namespace runner::testing {

// A ResNet basic block of `channels` on a stem convolution, with its identity shortcut.
inline std::vector<LayerSpec> basic_block(int channels) {
  auto conv = [channels](std::string name) {
    return layer(std::move(name), "conv2d",
                 {{"out_channels", channels}, {"kernel", 3}, {"padding", 1}, {"bias", false}});
  };
  return {conv("stem"),
          layer("stem_bn", "batch_norm2d"),
          layer("stem_relu", "relu"),
          conv("a"),
          layer("a_bn", "batch_norm2d", {{"affine", false}}),
          layer("a_relu", "relu"),
          conv("b"),
          layer("b_bn", "batch_norm2d"),
          layer("sum", "add", nlohmann::json::object(), {"b_bn", "stem_relu"}),
          layer("out", "relu")};
}

// `body`, then flatten and a linear layer to the classes.
inline std::vector<LayerSpec> with_classifier(std::vector<LayerSpec> body) {
  body.push_back(layer("flat", "flatten"));
  body.push_back(layer("fc", "linear", {{"out_features", kClasses}}));
  return body;
}

inline std::vector<LayerCase> image_cases() {
  const auto head = with_classifier;
  return {
      {"conv", {3, 8, 8}, 2, head({layer("c", "conv2d", {{"out_channels", 4}, {"kernel", 3}})})},
      {"conv_stride_pad_nobias_odd",
       {2, 7, 9},
       3,
       head({layer("c", "conv2d",
                   {{"out_channels", 5},
                    {"kernel", {3, 2}},
                    {"stride", 2},
                    {"padding", 1},
                    {"bias", false}})})},
      {"conv_batch1_wide",
       {1, 6, 6},
       1,
       head({layer("c", "conv2d", {{"out_channels", 16}, {"kernel", 3}})})},
      {"conv_groups2",
       {4, 7, 7},
       2,
       head({layer("c", "conv2d", {{"out_channels", 6}, {"kernel", 3}, {"groups", 2}})})},
      // Depthwise (groups = input channels, two outputs each) with stride and padding.
      {"conv_depthwise_stride_pad",
       {3, 9, 8},
       3,
       head({layer(
           "c", "conv2d",
           {{"out_channels", 6}, {"kernel", 3}, {"groups", 3}, {"stride", 2}, {"padding", 1}})})},
      {"conv_dilation2",
       {2, 9, 9},
       2,
       head({layer("c", "conv2d", {{"out_channels", 3}, {"kernel", 3}, {"dilation", 2}})})},
      // Dilation per axis with padding and stride, then a depthwise 3x3 with dilation 2 and
      // "same" padding and no bias after it (MobileNet's pattern, dilated).
      {"conv_dilated_groups_stride_pad",
       {4, 11, 10},
       2,
       head({layer("c", "conv2d",
                   {{"out_channels", 4},
                    {"kernel", {3, 2}},
                    {"dilation", {2, 3}},
                    {"groups", 2},
                    {"stride", {2, 1}},
                    {"padding", {1, 2}}}),
             layer("dw", "conv2d",
                   {{"out_channels", 4},
                    {"kernel", 3},
                    {"dilation", 2},
                    {"groups", 4},
                    {"padding", 2},
                    {"bias", false}})})},
      {"relu",
       {2, 6, 6},
       2,
       head({layer("c", "conv2d", {{"out_channels", 3}, {"kernel", 3}}), layer("r", "relu")})},
      {"max_pool",
       {2, 8, 8},
       2,
       head({layer("c", "conv2d", {{"out_channels", 3}, {"kernel", 3}}),
             layer("p", "max_pool2d", {{"kernel", 2}, {"stride", 2}})})},
      {"max_pool_pad_odd",
       {2, 9, 7},
       3,
       head({layer("c", "conv2d", {{"out_channels", 3}, {"kernel", 2}}),
             layer("p", "max_pool2d", {{"kernel", 3}, {"stride", 2}, {"padding", 1}})})},
      {"avg_pool_pad",
       {2, 9, 9},
       2,
       head({layer("c", "conv2d", {{"out_channels", 3}, {"kernel", 2}}),
             layer("p", "avg_pool2d", {{"kernel", 3}, {"stride", 2}, {"padding", 1}})})},
      {"global_avg_pool_flat",
       {2, 7, 5},
       3,
       {layer("c", "conv2d", {{"out_channels", 6}, {"kernel", 3}, {"padding", 1}}),
        layer("gap", "global_avg_pool2d", {{"flatten", true}}),
        layer("fc", "linear", {{"out_features", kClasses}})}},
      {"global_avg_pool_then_flatten",
       {3, 4, 6},
       2,
       head({layer("c", "conv2d", {{"out_channels", 17}, {"kernel", 1}}),
             layer("gap", "global_avg_pool2d")})},
      // The convolution has no bias: a bias before a batch norm has a gradient of exactly 0,
      // which float rounding makes a noise no relative tolerance can judge.
      {"batch_norm",
       {3, 5, 4},
       3,
       head({layer("c", "conv2d",
                   {{"out_channels", 4}, {"kernel", 3}, {"padding", 1}, {"bias", false}}),
             layer("bn", "batch_norm2d"), layer("r", "relu")})},
      // On the input itself (no input gradient needed), without weight and bias, then with
      // another momentum and eps after a 1x1 convolution with no bias (the ResNet pattern).
      {"batch_norm_on_input_not_affine",
       {2, 3, 3},
       4,
       head({layer("bn0", "batch_norm2d", {{"affine", false}}),
             layer("c", "conv2d", {{"out_channels", 16}, {"kernel", 1}, {"bias", false}}),
             layer("bn1", "batch_norm2d", {{"momentum", 0.3}, {"eps", 1e-3}})})},
      // layer_norm over the channels at each position (ConvNeXt's), between convolutions: 5
      // channels channels-last, then 32 in oneDNN's 16-channel blocks (without weight and bias,
      // with another eps), each read in its own layout by the CPU kernels.
      {"layer_norm_between_convs",
       {3, 6, 5},
       3,
       head({layer("c1", "conv2d", {{"out_channels", 5}, {"kernel", 3}, {"padding", 1}}),
             layer("ln1", "layer_norm"),
             layer("c2", "conv2d", {{"out_channels", 32}, {"kernel", 1}}),
             layer("ln2", "layer_norm", {{"affine", false}, {"eps", 1e-3}}), layer("g", "gelu")})},
      // On the images themselves (NCHW, no input gradient), and on flat features.
      {"layer_norm_on_input_and_features",
       {3, 4, 5},
       2,
       {layer("ln0", "layer_norm", {{"eps", 1e-4}}), layer("flat", "flatten"),
        layer("h", "linear", {{"out_features", 9}}), layer("ln1", "layer_norm"),
        layer("fc", "linear", {{"out_features", kClasses}})}},
      // group_norm: 6 channels in 3 groups (channels-last), then 32 channels in 4 groups of 8,
      // half a 16-channel block each, without weight and bias.
      {"group_norm_between_convs",
       {2, 7, 6},
       3,
       head({layer("c1", "conv2d", {{"out_channels", 6}, {"kernel", 3}, {"padding", 1}}),
             layer("gn1", "group_norm", {{"groups", 3}}), layer("r", "relu"),
             layer("c2", "conv2d", {{"out_channels", 32}, {"kernel", 1}}),
             layer("gn2", "group_norm", {{"groups", 4}, {"affine", false}})})},
      // One channel per group (instance norm; the convolution without a bias, whose gradient
      // would be exactly 0, and padded, else gn0's bias would shift each of its outputs by a
      // constant that gn1 takes away: a gradient of exactly 0 too), on the images (one group of
      // all three channels), and on features.
      {"group_norm_instance_input_and_features",
       {3, 5, 4},
       2,
       {layer("gn0", "group_norm", {{"groups", 1}}),
        layer("c", "conv2d", {{"out_channels", 4}, {"kernel", 3}, {"padding", 1}, {"bias", false}}),
        layer("gn1", "group_norm", {{"groups", 4}, {"eps", 1e-3}}), layer("flat", "flatten"),
        layer("h", "linear", {{"out_features", 8}}), layer("gn2", "group_norm", {{"groups", 2}}),
        layer("fc", "linear", {{"out_features", kClasses}})}},
      // Basic blocks: each batch norm with its ReLU fused in, the first ReLU read by the next
      // convolution and by the sum, one batch norm without weight and bias. oneDNN's CPU
      // backend runs the 32-channel convolutions with Winograd, the 16-channel ones on its own
      // Winograd kernels (AVX-512; else channels-last forward, Winograd weight gradient).
      {"basic_block_16_channels", {3, 6, 5}, 2, head(basic_block(16))},
      // The own 16-channel kernels with a bias and a fused ReLU, on the data input (its NCHW
      // reordered, no input gradient) and then on the ReLU's output (with one).
      {"conv_16_channels_bias_relu",
       {16, 5, 7},
       3,
       head({layer("c1", "conv2d", {{"out_channels", 16}, {"kernel", 3}, {"padding", 1}}),
             layer("r", "relu"),
             layer("c2", "conv2d", {{"out_channels", 16}, {"kernel", 3}, {"padding", 1}})})},
      {"basic_block_32_channels", {3, 6, 5}, 2, head(basic_block(32))},
      {"dropout",
       {2, 6, 6},
       3,
       head({layer("c", "conv2d", {{"out_channels", 3}, {"kernel", 3}}),
             layer("d", "dropout", {{"p", 0.3}})})},
      {"dropout_between_linears",
       {2, 4, 4},
       3,
       {layer("flat", "flatten"), layer("h", "linear", {{"out_features", 9}}),
        layer("d", "dropout", {{"p", 0.5}}), layer("fc", "linear", {{"out_features", kClasses}})}},
      {"leaky_relu",
       {2, 6, 6},
       2,
       head({layer("c", "conv2d", {{"out_channels", 3}, {"kernel", 3}}),
             layer("a", "leaky_relu", {{"negative_slope", 0.2}})})},
      {"gelu",
       {2, 6, 6},
       2,
       head({layer("c", "conv2d", {{"out_channels", 3}, {"kernel", 3}}), layer("a", "gelu")})},
      {"sigmoid",
       {2, 6, 6},
       2,
       head({layer("c", "conv2d", {{"out_channels", 3}, {"kernel", 3}}), layer("a", "sigmoid")})},
      {"tanh_after_linear",
       {2, 4, 4},
       3,
       {layer("flat", "flatten"), layer("h", "linear", {{"out_features", 7}}), layer("t", "tanh"),
        layer("fc", "linear", {{"out_features", kClasses}})}},
      {"gelu_tanh",
       {2, 6, 6},
       2,
       head({layer("c", "conv2d", {{"out_channels", 3}, {"kernel", 3}}),
             layer("a", "gelu", {{"approximate", "tanh"}})})},
      {"silu",
       {2, 6, 6},
       2,
       head({layer("c", "conv2d", {{"out_channels", 3}, {"kernel", 3}}), layer("a", "silu")})},
      // A scale of 9 spreads the convolution's values past the kinks (0 and 6; -3 and 3):
      // every piece of each function is taken (ActivationGolden lands on the kinks themselves).
      {"relu6",
       {2, 6, 6},
       2,
       head({layer("c", "conv2d", {{"out_channels", 3}, {"kernel", 3}}),
             layer("s", "scale", {{"init_value", 9}}), layer("a", "relu6")})},
      {"hardswish",
       {2, 6, 6},
       2,
       head({layer("c", "conv2d", {{"out_channels", 3}, {"kernel", 3}}),
             layer("s", "scale", {{"init_value", 9}}), layer("a", "hardswish")})},
      // 16 channels: in oneDNN's 16-channel blocks. (A scale of 9 would leave s.weight's
      // gradient, mostly of saturated values, too small to read back from 9 - gradient.)
      {"hardsigmoid_16_channels",
       {2, 5, 5},
       2,
       head({layer("c", "conv2d", {{"out_channels", 16}, {"kernel", 3}, {"padding", 1}}),
             layer("s", "scale", {{"init_value", 4}}), layer("a", "hardsigmoid")})},
      {"scale_flat",
       {2, 4, 4},
       3,
       {layer("flat", "flatten"), layer("h", "linear", {{"out_features", 7}}),
        layer("s", "scale", {{"init_value", 0.5}}),
        layer("fc", "linear", {{"out_features", kClasses}})}},
      // Squeeze-and-excitation: a flat gate (C) from the pooled features, broadcast over them.
      {"squeeze_excitation_16_channels",
       {3, 5, 4},
       2,
       head({layer("c", "conv2d", {{"out_channels", 16}, {"kernel", 3}, {"padding", 1}}),
             layer("pool", "global_avg_pool2d", {{"flatten", true}}),
             layer("squeeze", "linear", {{"out_features", 4}}), layer("r", "relu"),
             layer("excite", "linear", {{"out_features", 16}}), layer("gate", "hardsigmoid"),
             layer("se", "mul", nlohmann::json::object(), {"c", "gate"})})},
      // A Cx1x1 gate (pool without flatten, 1x1 convolution), then a layer scale.
      {"mul_channel_gate_then_scale",
       {2, 6, 5},
       3,
       head({layer("c", "conv2d", {{"out_channels", 5}, {"kernel", 3}, {"padding", 1}}),
             layer("pool", "global_avg_pool2d"),
             layer("excite", "conv2d", {{"out_channels", 5}, {"kernel", 1}}),
             layer("gate", "sigmoid"), layer("se", "mul", nlohmann::json::object(), {"c", "gate"}),
             layer("s", "scale", {{"init_value", 0.3}})})},
      // Two maps of one shape; then the images themselves gated (no gradient there).
      {"mul_same_shape_and_input",
       {3, 5, 5},
       2,
       head({layer("a", "conv2d", {{"out_channels", 3}, {"kernel", 3}, {"padding", 1}}),
             layer("b", "conv2d", {{"out_channels", 3}, {"kernel", 1}}, {"input"}),
             layer("ab", "mul", nlohmann::json::object(), {"a", "b"}),
             layer("gated", "mul", nlohmann::json::object(), {"input", "ab"})})},
      {"mul_flat",
       {2, 4, 4},
       3,
       {layer("flat", "flatten"), layer("a", "linear", {{"out_features", 6}}),
        layer("b", "linear", {{"out_features", 6}}, {"flat"}),
        layer("ab", "mul", nlohmann::json::object(), {"a", "b"}),
        layer("fc", "linear", {{"out_features", kClasses}})}},
      // A second flatten of flat values changes nothing, as in PyTorch.
      {"flatten_twice",
       {2, 4, 4},
       2,
       {layer("flat", "flatten"), layer("flat2", "flatten"),
        layer("fc", "linear", {{"out_features", kClasses}})}},
      {"linear_relu_linear",
       {2, 4, 4},
       3,
       {layer("flat", "flatten"), layer("h", "linear", {{"out_features", 7}}), layer("r", "relu"),
        layer("fc", "linear", {{"out_features", kClasses}, {"bias", false}})}},
      {"residual_add",
       {3, 6, 6},
       2,
       head({layer("stem", "conv2d", {{"out_channels", 4}, {"kernel", 3}, {"padding", 1}}),
             layer("r0", "relu"),
             layer("a", "conv2d", {{"out_channels", 4}, {"kernel", 3}, {"padding", 1}}),
             layer("sum", "add", nlohmann::json::object(), {"r0", "a"}), layer("r1", "relu")})},
      // Three inputs (the sum primitive, the ReLU in place after it), one of them the stem's
      // output read twice.
      {"add_three_then_relu",
       {3, 5, 5},
       2,
       head({layer("stem", "conv2d", {{"out_channels", 4}, {"kernel", 3}, {"padding", 1}}),
             layer("a", "conv2d", {{"out_channels", 4}, {"kernel", 3}, {"padding", 1}}),
             layer("b", "conv2d", {{"out_channels", 4}, {"kernel", 1}}, {"stem"}),
             layer("sum", "add", nlohmann::json::object(), {"a", "b", "stem"}),
             layer("r", "relu")})},
      // The relu moves after the pool (overlapping, padded windows; its input an add).
      {"add_relu_overlapping_pool",
       {2, 9, 9},
       3,
       head({layer("stem", "conv2d", {{"out_channels", 4}, {"kernel", 3}, {"padding", 1}}),
             layer("a", "conv2d", {{"out_channels", 4}, {"kernel", 3}, {"padding", 1}}),
             layer("sum", "add", nlohmann::json::object(), {"stem", "a"}), layer("r", "relu"),
             layer("p", "max_pool2d", {{"kernel", 3}, {"stride", 2}, {"padding", 1}})})},
      // Two branches of different widths joined, then a conv reading the join.
      {"concat_branches_then_conv",
       {3, 7, 6},
       2,
       head({layer("stem", "conv2d", {{"out_channels", 4}, {"kernel", 3}, {"padding", 1}}),
             layer("left", "conv2d", {{"out_channels", 3}, {"kernel", 1}}), layer("lr", "relu"),
             layer("right", "conv2d", {{"out_channels", 5}, {"kernel", 3}, {"padding", 1}},
                   {"stem"}),
             layer("cat", "concat", nlohmann::json::object(), {"lr", "right", "stem"}),
             layer("mix", "conv2d", {{"out_channels", 4}, {"kernel", 3}}, {"cat"})})},
      // The images themselves as one input (no gradient there), 16 + 3 channels.
      {"concat_with_input",
       {3, 5, 5},
       3,
       head({layer("c", "conv2d", {{"out_channels", 16}, {"kernel", 3}, {"padding", 1}}),
             layer("cat", "concat", nlohmann::json::object(), {"input", "c"})})},
      {"concat_flat_features",
       {2, 4, 4},
       3,
       {layer("flat", "flatten"), layer("a", "linear", {{"out_features", 6}}),
        layer("b", "linear", {{"out_features", 3}}, {"flat"}),
        layer("cat", "concat", nlohmann::json::object(), {"b", "a", "flat"}),
        layer("fc", "linear", {{"out_features", kClasses}})}},
      {"lenet",
       {3, 16, 16},
       4,
       {layer("conv1", "conv2d", {{"out_channels", 6}, {"kernel", 5}}), layer("relu1", "relu"),
        layer("pool1", "max_pool2d", {{"kernel", 2}, {"stride", 2}}),
        layer("conv2", "conv2d", {{"out_channels", 16}, {"kernel", 3}}), layer("relu2", "relu"),
        layer("pool2", "max_pool2d", {{"kernel", 2}, {"stride", 2}}), layer("flat", "flatten"),
        layer("fc1", "linear", {{"out_features", 12}}), layer("relu3", "relu"),
        layer("fc3", "linear", {{"out_features", kClasses}})}},
      // Fashion-MNIST's single channel, as LeNet's first layer sees it (oneDNN 2.6 has no bf16
      // weight-gradient kernel for it).
      {"conv_one_channel",
       {1, 12, 12},
       4,
       head({layer("c", "conv2d", {{"out_channels", 6}, {"kernel", 5}, {"padding", 2}}),
             layer("r", "relu"), layer("p", "max_pool2d", {{"kernel", 2}, {"stride", 2}})})},
  };
}

// Every case: images, then token sequences.
inline std::vector<LayerCase> cases() {
  std::vector<LayerCase> all = image_cases();
  for (LayerCase& c : token_cases()) all.push_back(std::move(c));
  return all;
}

inline void PrintTo(const LayerCase& c, std::ostream* os) {
  *os << c.name;
}

// Options under which one SGD step with lr 1 leaves p - grad, so gradients can be read back.
inline CompileOptions options_for(const Graph& graph, int train_batch, int eval_batch) {
  CompileOptions options;
  options.train_batch = train_batch;
  options.eval_batch = eval_batch;
  options.optimizer.lr = 1.0;  // p_new = p - grad: the gradient is p - p_new
  options.normalize = {std::vector<float>(graph.input.c, 0.5f),
                       std::vector<float>(graph.input.c, 0.5f)};
  return options;
}

struct Batch {
  std::vector<std::uint8_t> bytes;
  std::vector<std::int32_t> labels;
  Values normalized;  // (byte / 255 - 0.5) / 0.5, as the backend's normalisation
};

inline Batch random_batch(const Shape& shape, int batch, std::uint64_t seed) {
  Random random(seed);
  Batch b;
  for (std::int64_t i = 0; i < batch * shape.elements(); ++i) {
    b.bytes.push_back(static_cast<std::uint8_t>(random.below(256)));
    b.normalized.push_back((b.bytes.back() / 255.0 - 0.5) / 0.5);
  }
  for (int n = 0; n < batch; ++n)
    b.labels.push_back(static_cast<std::int32_t>(random.below(kClasses)));
  return b;
}

inline std::map<std::string, Values> as_values(const std::vector<HostTensor>& tensors) {
  std::map<std::string, Values> values;
  for (const auto& t : tensors) values[t.name] = Values(t.values.begin(), t.values.end());
  return values;
}

// Largest |a - b| relative to the largest |b| (at least 1e-3, to ignore all-zero tensors).
inline double relative_error(const Values& a, const Values& b) {
  double diff = 0, scale = 1e-3;
  for (std::size_t i = 0; i < a.size(); ++i) {
    diff = std::max(diff, std::abs(a[i] - b[i]));
    scale = std::max(scale, std::abs(b[i]));
  }
  return diff / scale;
}

}  // namespace runner::testing

// self_attention (graph/layers/self_attention.cpp) as its arithmetic on 4-D tensors: q, k and v
// each from their rows of qkv.weight, heads split as (N, heads, T, d), softmax(q k^T / sqrt(d)) v,
// the heads joined and projected.
#include <cmath>

#include "runner/export/onnx_layer.h"

namespace runner {
namespace {

struct Heads {
  std::int64_t tokens, features, heads, head_features;
};

// x W_part^T + b_part, `part` 0, 1, 2 of q, k, v, as (N, heads, T, d) (perm {0, 2, 1, 3}) or k's
// (N, heads, d, T) (perm {0, 2, 3, 1}).
std::string projected_heads(const OnnxLayer& layer, const Heads& h, int part, const char* what,
                            const std::vector<std::int64_t>& perm) {
  const Node& node = layer.node;
  const ExportWeight& w = layer.values("qkv.weight");
  const std::string matrix =
      layer.onnx.floats(node.name, fmt::format("{}.weight_transposed", what),
                        {h.features, h.features}, transposed(w, part * h.features, h.features));
  std::string y = layer.add("MatMul", {layer.inputs[0], matrix});
  if (node.attrs.bias) {
    const std::vector<float>& b = layer.values("qkv.bias").values;
    const auto first = b.begin() + part * h.features;
    y = layer.add("Add", {y, layer.onnx.floats(node.name, fmt::format("{}.bias", what),
                                               {1, 1, h.features}, {first, first + h.features})});
  }
  const std::string split = layer.add(
      "Reshape",
      {y, layer.onnx.int64s(node.name, "heads_shape", {0, h.tokens, h.heads, h.head_features})});
  return layer.add("Transpose", {split}, {onnx::ints_attribute("perm", perm)});
}

}  // namespace

RUNNER_ONNX_LAYER(self_attention) {
  const Node& node = layer.node;
  const Shape& in = layer.input_shapes[0];
  const Heads h{in.h, in.c, node.attrs.heads, in.c / node.attrs.heads};
  const std::string q = projected_heads(layer, h, 0, "q", {0, 2, 1, 3});
  const std::string k = projected_heads(layer, h, 1, "k", {0, 2, 3, 1});
  const std::string v = projected_heads(layer, h, 2, "v", {0, 2, 1, 3});
  const std::string scores = layer.add(
      "Mul", {layer.add("MatMul", {q, k}),
              layer.onnx.scalar(node.name, "scale",
                                static_cast<float>(1 / std::sqrt(double(h.head_features))))});
  const std::string probabilities =
      layer.add("Softmax", {scores}, {onnx::int_attribute("axis", -1)});
  const std::string joined = layer.add("Transpose", {layer.add("MatMul", {probabilities, v})},
                                       {onnx::ints_attribute("perm", {0, 2, 1, 3})});
  const std::string tokens = layer.add(
      "Reshape", {joined, layer.onnx.int64s(node.name, "tokens_shape", {0, h.tokens, h.features})});
  const ExportWeight& proj = layer.values("proj.weight");
  std::string out =
      layer.add("MatMul", {tokens, layer.onnx.floats(node.name, "proj.weight_transposed",
                                                     {h.features, h.features}, transposed(proj))});
  if (node.attrs.bias)
    out = layer.add("Add", {out, layer.weight_as("proj.bias", {1, 1, h.features})});
  return out;
}

}  // namespace runner

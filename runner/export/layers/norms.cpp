// The normalisations at inference: batch_norm2d as BatchNormalization with the running
// statistics; layer_norm (over the channels at each position) and group_norm (over each group's
// channels and positions), which opset 13 lacks, as InstanceNormalization of rows laid out so
// that its statistics are theirs: it normalises each (image, row) of an (N, rows, L) tensor over
// L with eps inside the square root and the biased variance, as both do.
#include "runner/export/onnx_layer.h"

namespace runner {
namespace {

// x * weight + bias per channel, when the layer has them.
std::string affine(const OnnxLayer& layer, const std::string& x) {
  if (!layer.node.attrs.affine) return x;
  const std::vector<std::int64_t> dims = per_channel_dims(layer.input_shapes[0]);
  const std::string scaled = layer.add("Mul", {x, layer.weight_as("weight", dims)});
  return layer.add("Add", {scaled, layer.weight_as("bias", dims)});
}

// (N, rows, L) normalised over L for each image and row.
std::string normalize_rows(const OnnxLayer& layer, const std::string& x, std::int64_t rows,
                           double eps) {
  const std::string& name = layer.node.name;
  const std::string ones = layer.onnx.floats(name, "ones", {rows}, std::vector<float>(rows, 1.f));
  const std::string zeros = layer.onnx.floats(name, "zeros", {rows}, std::vector<float>(rows, 0.f));
  return layer.add("InstanceNormalization", {x, ones, zeros},
                   {onnx::float_attribute("epsilon", static_cast<float>(eps))});
}

}  // namespace

RUNNER_ONNX_LAYER(batch_norm2d) {
  const Node& node = layer.node;
  const std::int64_t channels = layer.input_shapes[0].c;
  std::string weight, bias;
  if (node.attrs.affine) {
    weight = layer.weight("weight");
    bias = layer.weight("bias");
  } else {
    weight = layer.onnx.floats(node.name, "ones", {channels}, std::vector<float>(channels, 1.f));
    bias = layer.onnx.floats(node.name, "zeros", {channels}, std::vector<float>(channels, 0.f));
  }
  return layer.add(
      "BatchNormalization",
      {layer.inputs[0], weight, bias, layer.weight("running_mean"), layer.weight("running_var")},
      {onnx::float_attribute("epsilon", static_cast<float>(node.attrs.eps))});
}

// Over the channels at each position: (N, C, H, W) -> (N, H*W, C) rows, normalised, and back;
// tokens (N, T, C) as they are; flat (N, C) as one row.
RUNNER_ONNX_LAYER(layer_norm) {
  const Shape& in = layer.input_shapes[0];
  const std::string& name = layer.node.name;
  const double eps = layer.node.attrs.eps;
  if (in.tokens) return affine(layer, normalize_rows(layer, layer.inputs[0], in.h, eps));
  if (in.flat) {
    const std::string row =
        layer.add("Reshape", {layer.inputs[0], layer.onnx.int64s(name, "row", {0, 1, in.c})});
    const std::string normalized = normalize_rows(layer, row, 1, eps);
    return affine(layer,
                  layer.add("Reshape", {normalized, layer.onnx.int64s(name, "flat", {0, in.c})}));
  }
  const std::string channels_last = layer.add(
      "Transpose",
      {layer.add("Reshape", {layer.inputs[0], layer.onnx.int64s(name, "planes", {0, in.c, -1})})},
      {onnx::ints_attribute("perm", {0, 2, 1})});
  const std::string normalized =
      normalize_rows(layer, channels_last, static_cast<std::int64_t>(in.h) * in.w, eps);
  const std::string channels_first =
      layer.add("Transpose", {normalized}, {onnx::ints_attribute("perm", {0, 2, 1})});
  return affine(
      layer, layer.add("Reshape",
                       {channels_first, layer.onnx.int64s(name, "image", {0, in.c, in.h, in.w})}));
}

// (N, C, ...) -> (N, groups, C/groups x positions) rows, normalised, and back.
RUNNER_ONNX_LAYER(group_norm) {
  const Shape& in = layer.input_shapes[0];
  const std::string& name = layer.node.name;
  const std::int64_t groups = layer.node.attrs.groups;
  const std::string grouped =
      layer.add("Reshape", {layer.inputs[0], layer.onnx.int64s(name, "groups", {0, groups, -1})});
  const std::string normalized = normalize_rows(layer, grouped, groups, layer.node.attrs.eps);
  std::vector<std::int64_t> shape = {0, in.c};
  if (in.is_image()) shape.insert(shape.end(), {in.h, in.w});
  return affine(layer, layer.add("Reshape", {normalized, layer.onnx.int64s(name, "shape", shape)}));
}

}  // namespace runner
